//! Bad input gives a typed error, one test per case.

use bloomlab_core::ParamError;
use bloomlab_cuckoo::{BuildError, CuckooFilter, MAX_RELOCATIONS};

#[test]
fn fingerprint_below_4_bits() {
    let e = CuckooFilter::<u64>::builder(100, 0.01)
        .fingerprint_bits(3)
        .build();
    assert_eq!(e.unwrap_err(), BuildError::FingerprintBits(3));
    let e = CuckooFilter::<u64>::builder_with_buckets(64, 0).build();
    assert_eq!(e.unwrap_err(), BuildError::FingerprintBits(0));
}

#[test]
fn fingerprint_above_16_bits() {
    let e = CuckooFilter::<u64>::builder(100, 0.01)
        .fingerprint_bits(17)
        .build();
    assert_eq!(e.unwrap_err(), BuildError::FingerprintBits(17));
    let e = CuckooFilter::<u64>::builder_with_buckets(64, 32).build();
    assert_eq!(e.unwrap_err(), BuildError::FingerprintBits(32));
}

#[test]
fn bucket_size_not_2_4_or_8() {
    for b in [0, 1, 3, 5, 16] {
        let e = CuckooFilter::<u64>::builder(100, 0.01)
            .bucket_size(b)
            .build();
        assert_eq!(e.unwrap_err(), BuildError::BucketSize(b));
    }
}

#[test]
fn fpr_outside_0_1() {
    for p in [
        0.0,
        1.0,
        -0.1,
        1.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        let e = CuckooFilter::<u64>::new(100, p).unwrap_err();
        assert!(
            matches!(e, BuildError::Param(ParamError::InvalidFpr(_))),
            "{p}: {e:?}"
        );
    }
}

#[test]
fn zero_items() {
    let e = CuckooFilter::<u64>::new(0, 0.01);
    assert_eq!(e.unwrap_err(), BuildError::Param(ParamError::ZeroItems));
}

#[test]
fn fpr_needing_more_than_16_bits() {
    // b = 4 at 1e-6: ⌈log2(8e6)⌉ = 23 bits.
    let e = CuckooFilter::<u64>::new(100, 1e-6).unwrap_err();
    assert_eq!(
        e,
        BuildError::FprUnreachable {
            fpr: 1e-6,
            bucket_size: 4,
            needed_bits: 23
        }
    );
    // Two-slot buckets reach 1e-4 (⌈log2(4e4)⌉ = 16), four-slot ones do not.
    assert!(
        CuckooFilter::<u64>::builder(100, 1e-4)
            .bucket_size(2)
            .build()
            .is_ok()
    );
    assert!(CuckooFilter::<u64>::new(100, 1e-4).is_err());
}

#[test]
fn bucket_count_not_a_power_of_two() {
    for n in [0u64, 3, 100, (1 << 32) + 1, 1 << 33, u64::MAX] {
        let e = CuckooFilter::<u64>::builder_with_buckets(n, 8).build();
        assert_eq!(e.unwrap_err(), BuildError::NumBuckets(n));
    }
}

#[test]
fn too_many_relocations() {
    let e = CuckooFilter::<u64>::builder(100, 0.01)
        .max_relocations(MAX_RELOCATIONS + 1)
        .build();
    assert_eq!(
        e.unwrap_err(),
        BuildError::TooManyRelocations(MAX_RELOCATIONS + 1)
    );
    assert!(
        CuckooFilter::<u64>::builder(100, 0.01)
            .max_relocations(MAX_RELOCATIONS)
            .build()
            .is_ok()
    );
}

#[test]
fn table_larger_than_allowed() {
    // 1,000 items at 1%: 512 buckets of 4 × 10 bits = 2,560 bytes.
    let e = CuckooFilter::<u64>::builder(1_000, 0.01)
        .max_bytes(2_559)
        .build();
    assert_eq!(
        e.unwrap_err(),
        BuildError::Param(ParamError::TooLarge {
            needed: 2_560,
            limit: 2_559
        })
    );
    assert!(
        CuckooFilter::<u64>::builder(1_000, 0.01)
            .max_bytes(2_560)
            .build()
            .is_ok()
    );
}

#[test]
fn more_items_than_2_pow_32_buckets_hold() {
    let e = CuckooFilter::<u64>::new(usize::MAX, 0.01).unwrap_err();
    assert!(
        matches!(e, BuildError::Param(ParamError::TooLarge { .. })),
        "{e:?}"
    );
}

#[test]
fn errors_display_and_chain() {
    let e = BuildError::Param(ParamError::ZeroItems);
    assert!(std::error::Error::source(&e).is_some());
    for e in [
        BuildError::BucketSize(3),
        BuildError::FingerprintBits(17),
        BuildError::NumBuckets(3),
        BuildError::TooManyRelocations(1 << 20),
        BuildError::FprUnreachable {
            fpr: 1e-9,
            bucket_size: 4,
            needed_bits: 33,
        },
    ] {
        assert!(!e.to_string().is_empty());
        assert!(std::error::Error::source(&e).is_none());
    }
    assert_eq!(
        BuildError::from(ParamError::ZeroItems),
        BuildError::Param(ParamError::ZeroItems)
    );
}
