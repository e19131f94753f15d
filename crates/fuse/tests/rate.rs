//! The measured rate against `2^−f`, and bits per key against the paper's
//! size factor.
//!
//! Every count is checked against the 99.9% binomial interval of its rate
//! (`bloomlab_testkit::rates`), with seeded keys and probes that are never
//! keys: a correct filter fails one seed in a thousand.

use bloomlab_core::theory::fuse as theory;
use bloomlab_fuse::BinaryFuseFilter;
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::rates::assert_in_interval;

#[test]
fn measured_rates_are_two_to_the_minus_f() {
    // (bits, arity, keys, probes): about 3,900 expected false positives
    // with 8 bits, 61 with 16.
    let cases = [
        (8, 3, 200_000, 1_000_000),
        (8, 4, 200_000, 1_000_000),
        (16, 3, 100_000, 4_000_000),
        (16, 4, 100_000, 4_000_000),
    ];
    for (seed, (bits, arity, n, trials)) in (10..).zip(cases) {
        let keys = members(seed, n);
        let filter = BinaryFuseFilter::<u64>::builder_with_bits(bits)
            .arity(arity)
            .seed(seed)
            .build(&keys)
            .unwrap();
        let passed = probes(seed, trials).filter(|p| filter.contains(p)).count();
        assert_eq!(filter.expected_fpr(), theory::fpr(bits));
        assert_in_interval(
            passed as u64,
            trials as u64,
            theory::fpr(bits),
            format_args!("{bits}-bit {arity}-wise, {n} keys"),
        );
    }
}

#[test]
fn thirty_two_bit_fingerprints_almost_never_pass() {
    // 2^−32 a probe: in a million probes, P(X ≥ 2) ≈ (10^6 · 2^−32)² / 2
    // = 2.7e-8, so at most one false positive (statrs's quantile gives no
    // answer at so small a rate).
    let keys = members(30, 50_000);
    for arity in [3, 4] {
        let filter = BinaryFuseFilter::<u64>::builder_with_bits(32)
            .arity(arity)
            .seed(30)
            .build(&keys)
            .unwrap();
        let passed = probes(30, 1_000_000).filter(|p| filter.contains(p)).count();
        assert!(passed <= 1, "{arity}-wise: {passed} false positives");
    }
}

/// Bits per key of the filter `builder_with_bits(bits).arity(arity)` of
/// `n` keys, and the bound the paper's sizing allows it: `round(n ·
/// factor)` slots rounded up to whole segments, so less than `f · (factor
/// + L/n)` bits, and at least `f · factor`.
fn bits_and_bounds(bits: u32, arity: u32, n: usize) -> (f64, f64, f64) {
    let filter = BinaryFuseFilter::<u64>::builder_with_bits(bits)
        .arity(arity)
        .seed(n as u64)
        .build(members(n as u64, n))
        .unwrap();
    let per_key = filter.memory_bytes() as f64 * 8.0 / n as f64;
    let factor = theory::size_factor(arity, n as u64).unwrap();
    let segment = theory::segment_length(arity, n as u64).unwrap() as f64;
    let f = f64::from(bits);
    (per_key, f * factor, f * (factor + segment / n as f64))
}

#[test]
fn bits_per_item_within_the_paper_s_factor() {
    for n in [10_000, 1_000_000] {
        for bits in [8, 16] {
            for arity in [3, 4] {
                let (per_key, low, high) = bits_and_bounds(bits, arity, n);
                assert!(
                    per_key >= low && per_key < high,
                    "{bits}-bit {arity}-wise, {n} keys: {per_key:.3} bits, not in {low:.3}..{high:.3}"
                );
            }
        }
    }
    // At a million keys the factors are the paper's constants: within 1% of
    // 1.125 f (3-wise) and 1.075 f (4-wise).
    let (three, ..) = bits_and_bounds(8, 3, 1_000_000);
    let (four, ..) = bits_and_bounds(8, 4, 1_000_000);
    assert!((three / 9.0 - 1.0).abs() < 0.01, "{three}");
    assert!((four / 8.6 - 1.0).abs() < 0.01, "{four}");
}

#[test]
fn sizing_from_a_rate_picks_the_narrowest_width_and_the_smaller_array() {
    for (fpr, bits) in [
        (0.5, 8),
        (0.01, 8),
        (1.0 / 256.0, 8),
        (1e-3, 16),
        (1e-5, 32),
    ] {
        assert_eq!(
            bloomlab_fuse::fingerprint_bits_for(fpr).unwrap(),
            bits,
            "{fpr}"
        );
    }
    for n in [1, 2, 10, 100, 1_000, 100_000] {
        let keys = members(n as u64, n);
        let build = |arity: Option<u32>| {
            let builder = BinaryFuseFilter::<u64>::builder(0.01).seed(1);
            let builder = match arity {
                Some(a) => builder.arity(a),
                None => builder,
            };
            builder.build(&keys).unwrap()
        };
        let (chosen, three, four) = (build(None), build(Some(3)), build(Some(4)));
        let smaller = three.memory_bytes().min(four.memory_bytes());
        assert_eq!(chosen.memory_bytes(), smaller, "{n}");
        // The plan is what the constructor builds, without building it.
        let planned = bloomlab_fuse::plan(n as u64, 0.01).unwrap();
        assert_eq!(chosen.memory_bytes() as u64, planned.memory_bytes(), "{n}");
        assert_eq!(chosen.arity(), planned.arity, "{n}");
        assert_eq!(chosen.slots() as u64, planned.slots(), "{n}");
    }
    // 4-wise: 1.075 slots a key for large sets against 1.125.
    assert_eq!(bloomlab_fuse::plan(1_000_000, 0.01).unwrap().arity, 4);
}
