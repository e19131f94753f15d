//! The measured false-positive rate against theory: of full tables of
//! fixed remainders, and of a growing filter at 1 to 1,024 times its first
//! size.
//!
//! Every count is checked against the 99.9% binomial interval of the rate
//! `expected_fpr()` gives (`bloomlab_testkit::rates`), with seeded keys and
//! probes that are never keys: a correct filter fails one seed in a
//! thousand.

use bloomlab_core::theory::quotient as theory;
use bloomlab_quotient::{MAX_LOAD, QuotientFilter};
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::rates::assert_in_interval;

#[test]
fn full_tables_match_the_paper_s_rate() {
    // (remainder bits, probes): about 4,600 expected false positives with
    // 4 bits, 2,900 with 7, 900 with 10.
    for (seed, (r, trials)) in (1..).zip([(4, 80_000), (7, 400_000), (10, 1_000_000)]) {
        let mut f = QuotientFilter::<u64>::builder_with_bits(16, r)
            .seed(seed)
            .build()
            .unwrap();
        let n = f.capacity() as usize;
        for k in members(seed, n) {
            f.insert(&k).unwrap();
        }
        let load = f.fill_ratio();
        assert_eq!(f.len(), n);
        assert!((load - MAX_LOAD).abs() < 1e-4);
        let expected = f.expected_fpr();
        assert!((expected - theory::fpr(load, r)).abs() < 1e-12);
        let hits = probes(seed, trials).filter(|p| f.contains(p)).count() as u64;
        assert_in_interval(
            hits,
            trials as u64,
            expected,
            format_args!("r {r} at {load:.4}"),
        );
    }
}

#[test]
fn a_growing_filter_keeps_its_promise_at_every_size() {
    let eps = 0.01;
    let mut f = QuotientFilter::<u64>::builder(1_000, eps)
        .growth(true)
        .seed(7)
        .build()
        .unwrap();
    let keys = members(7, 1_024_000);
    let mut inserted = 0;
    for (size, trials) in [
        (1, 400_000u64),
        (10, 400_000),
        (100, 400_000),
        (1_024, 400_000),
    ] {
        for k in &keys[inserted..1_000 * size] {
            f.insert(k).unwrap();
        }
        inserted = 1_000 * size;
        let expected = f.expected_fpr();
        let e = f.expansions();
        assert!(expected <= eps, "{size}x: {expected}");
        assert!(expected <= theory::growth_fpr(eps, MAX_LOAD, e), "{size}x");
        assert_eq!(
            f.slot_bits(),
            theory::growth_slot_bits(eps, MAX_LOAD, e).unwrap()
        );
        let hits = probes(100 + size as u64, trials as usize)
            .filter(|p| f.contains(p))
            .count() as u64;
        assert_in_interval(
            hits,
            trials,
            expected,
            format_args!("{size}x, {e} expansions"),
        );
    }
    assert_eq!(f.expansions(), 10);
    assert!(keys.iter().all(|k| f.contains(k)));
}
