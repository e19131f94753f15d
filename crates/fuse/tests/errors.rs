//! Bad input is a typed error, never a panic or a hang; adversarial key
//! sets end in a filter.

mod common;

use bloomlab_core::{BuildError, ParamError};
use bloomlab_fuse::{BinaryFuseFilter, Invalid, MAX_ATTEMPTS};
use bloomlab_testkit::inputs::assert_refuses_invalid_fprs;
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::rates::assert_in_interval;
use common::at_one_percent;

fn refused(built: Result<BinaryFuseFilter<u64>, bloomlab_fuse::BuildError>) -> BuildError<Invalid> {
    built.expect_err("refused")
}

#[test]
fn an_empty_set_is_refused() {
    let none: [u64; 0] = [];
    let e = refused(BinaryFuseFilter::<u64>::builder(0.01).build(none));
    assert_eq!(e, BuildError::Variant(Invalid::EmptySet));
    assert_eq!(e.to_string(), "a binary fuse filter needs at least one key");
    assert!(bloomlab_fuse::plan(0, 0.01).is_err());
}

#[test]
fn bad_rates_and_parameters_are_refused_before_the_keys_are_read() {
    assert_refuses_invalid_fprs(|p| BinaryFuseFilter::<u64>::builder(p).build([1]));
    let keys = [1u64, 2, 3];
    let with_bits = |bits| BinaryFuseFilter::<u64>::builder_with_bits(bits).seed(1);
    let cases = [
        (
            refused(with_bits(12).build(keys)),
            Invalid::FingerprintBits(12),
        ),
        (
            refused(with_bits(8).arity(5).build(keys)),
            Invalid::Arity(5),
        ),
        (
            refused(with_bits(8).size_factor(f64::NAN).build(keys)),
            Invalid::SizeFactor(f64::NAN),
        ),
        (
            refused(with_bits(8).size_factor(0.0).build(keys)),
            Invalid::SizeFactor(0.0),
        ),
        (
            refused(with_bits(8).segment_length_log2(19).build(keys)),
            Invalid::SegmentLength(19),
        ),
        (
            refused(with_bits(8).max_attempts(0).build(keys)),
            Invalid::MaxAttempts(0),
        ),
        (
            refused(with_bits(8).max_attempts(MAX_ATTEMPTS + 1).build(keys)),
            Invalid::MaxAttempts(MAX_ATTEMPTS + 1),
        ),
        (
            refused(BinaryFuseFilter::<u64>::builder(1e-12).build(keys)),
            Invalid::FprUnreachable(1e-12),
        ),
    ];
    for (e, expected) in cases {
        // NaN differs from itself: compare the messages.
        assert_eq!(e.to_string(), BuildError::Variant(expected).to_string());
    }
    // The keys of a refused builder are never read.
    let never = std::iter::from_fn(|| -> Option<u64> { panic!("a key was read") });
    assert!(with_bits(12).build(never).is_err());
}

#[test]
fn a_memory_limit_is_a_typed_error() {
    let e = refused(
        BinaryFuseFilter::<u64>::builder_with_bits(32)
            .max_bytes(1_000)
            .build(members(1, 10_000)),
    );
    assert!(matches!(
        e,
        BuildError::Param(ParamError::TooLarge { limit: 1_000, .. })
    ));
}

#[test]
fn an_array_too_small_does_not_converge() {
    // 0.9 slots a key cannot be peeled: every attempt fails, and the
    // builder stops at its bound.
    let e = refused(
        BinaryFuseFilter::<u64>::builder_with_bits(8)
            .size_factor(0.9)
            .max_attempts(5)
            .seed(1)
            .build(members(2, 5_000)),
    );
    assert_eq!(
        e,
        BuildError::Variant(Invalid::NotConverged { attempts: 5 })
    );
}

#[test]
fn adversarial_key_sets_build() {
    // One key a million times: sized for them all, holding one.
    let same = vec![42u64; 1 << 20];
    let f: BinaryFuseFilter<u64> = at_one_percent(1, &same);
    assert_eq!(f.len(), 1);
    assert!(f.contains(&42));
    // 2^20 keys of 16 bytes that differ in one byte: 256 distinct ones.
    let one_byte: Vec<[u8; 16]> = (0..1u32 << 20)
        .map(|i| {
            let mut key = [7u8; 16];
            key[9] = i as u8;
            key
        })
        .collect();
    let f: BinaryFuseFilter<[u8; 16]> = at_one_percent(2, &one_byte);
    assert_eq!(f.len(), 256);
    assert!(one_byte.iter().all(|k| f.contains(k)));
    // 2^20 distinct keys that differ in their last bytes only.
    let close: Vec<u64> = (0..1u64 << 20).map(|i| 0xabcd_0000_0000_0000 | i).collect();
    let f: BinaryFuseFilter<u64> = at_one_percent(3, &close);
    assert_eq!(f.len(), close.len());
    assert!(close.iter().all(|k| f.contains(k)));
}

#[test]
fn a_cleared_filter_holds_nothing_and_keeps_its_shape() {
    let keys = members(4, 1_000);
    let mut f: BinaryFuseFilter<u64> = at_one_percent(4, &keys);
    let bytes = f.memory_bytes();
    bloomlab_core::Filter::clear(&mut f);
    assert!(f.is_empty());
    assert_eq!(f.memory_bytes(), bytes);
    // Only fingerprints of zero pass an all-zero array: 2^−8 of items.
    let passed = probes(4, 200_000).filter(|k| f.contains(k)).count();
    assert_in_interval(passed as u64, 200_000, 1.0 / 256.0, "cleared");
}
