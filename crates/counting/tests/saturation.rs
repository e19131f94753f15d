//! Saturation against theory, union, counts, and a table past 2^32 counters.

mod common;

use bloomlab_core::Membership;
use bloomlab_core::theory::counting::{expected_saturated, fpr_with_stuck};
use bloomlab_counting::{CountingBloomFilter, MergeError};
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::rates::assert_in_interval;
use bloomlab_testkit::stats::binomial_interval;

/// The number of saturated counters after n inserts against
/// `m · P(Binomial(nk, 1/m) ≥ 15)`. The m indicators are negatively
/// associated (balls in bins), so they concentrate at least as tightly as m
/// independent trials: the binomial 99.9% interval is a fair acceptance region.
#[test]
fn saturated_counters_match_theory() {
    for (m, n, k) in [
        (8_192u64, 40_000usize, 4u32),
        (65_536, 65_536, 7),
        (4_096, 12_000, 3),
    ] {
        let mut f = common::seeded(m, k, m ^ n as u64);
        f.insert_all(&members(m + 1, n)).unwrap();
        let expected = expected_saturated(m, n as u64, k, 4);
        let got = f.saturated_counters();
        let what = format!("m={m} n={n} k={k}: counters saturated, theory {expected:.1}");
        assert_in_interval(got, m, expected / m as f64, what);
        // Recounting from the words agrees with the running count.
        let recount = (0..m).filter(|&i| f.counter(i) == Some(15)).count() as u64;
        assert_eq!(recount, got);
    }
}

/// After an overload and removes, the rate stays under the stuck-counter
/// bound of theory (measured with a one-sided binomial margin).
#[test]
fn rate_after_overload_is_within_the_stuck_bound() {
    let (m, k) = (16_384u64, 4u32);
    let mut f = common::seeded(m, k, 31);
    let keys = members(32, 20_000);
    f.insert_all(&keys).unwrap();
    for key in &keys[2_000..] {
        f.remove(key).unwrap();
    }
    let stuck = f.saturated_counters();
    assert!(stuck > 0);
    let bound = fpr_with_stuck(m as f64, f.len() as f64, f64::from(k), stuck as f64);
    assert!(bound > f.expected_fpr());
    let trials = 200_000u64;
    let hits = probes(33, trials as usize)
        .filter(|p| f.contains(p))
        .count() as u64;
    let (_, hi) = binomial_interval(trials, bound, 0.999);
    assert!(
        hits <= hi,
        "{hits} false positives; the bound {bound:.4} allows up to {hi}"
    );
    // And the stuck counters did add false positives over the classic rate.
    let (lo_classic, _) = binomial_interval(trials, f.expected_fpr(), 0.999);
    assert!(hits > lo_classic);
}

#[test]
fn count_is_an_upper_bound_until_saturation() {
    let mut f = common::seeded(4_096, 4, 8);
    f.insert_all(&members(9, 500)).unwrap();
    // Items outside the members' range: 7, 20 + 7 and 0 times inserted.
    const SEVEN: u64 = u64::MAX - 7;
    const TWENTY_SEVEN: u64 = u64::MAX - 27;
    const NEVER: u64 = u64::MAX;
    for _ in 0..7 {
        f.insert(&SEVEN).unwrap();
    }
    let c = f.count(&SEVEN);
    assert!((7..15).contains(&c), "{c}");
    assert_eq!(f.count(&NEVER), 0);
    for _ in 0..20 {
        f.insert(&TWENTY_SEVEN).unwrap();
    }
    // Every counter of the item is stuck at 15: the count is unknown past that.
    assert_eq!(f.count(&TWENTY_SEVEN), f.counter_max());
    for _ in 0..27 {
        f.remove(&TWENTY_SEVEN).unwrap();
    }
    assert!(f.contains(&TWENTY_SEVEN), "stuck counters keep it present");
}

#[test]
fn union_holds_both_multisets() {
    let build = || {
        CountingBloomFilter::builder(5_000, 0.01)
            .seed(12)
            .build()
            .unwrap()
    };
    let (mut a, mut b) = (build(), build());
    let (xs, ys) = (members(13, 2_000), members(14, 2_000));
    a.insert_all(&xs).unwrap();
    b.insert_all(&ys).unwrap();
    a.union(&b).unwrap();
    assert_eq!(a.len(), 4_000);
    assert!(xs.iter().chain(&ys).all(|k| a.contains(k)));
    for y in &ys {
        a.remove(y).unwrap();
    }
    let mut only_a = build();
    only_a.insert_all(&xs).unwrap();
    assert_eq!(
        a.as_words(),
        only_a.as_words(),
        "removing b's items undoes the union"
    );
}

#[test]
fn union_saturates_instead_of_wrapping() {
    let mut a = common::seeded(64, 2, 1);
    for _ in 0..10 {
        a.insert("x").unwrap();
    }
    let b = a.clone();
    a.union(&b).unwrap();
    assert_eq!(a.count("x"), 15);
    assert!(a.saturated_counters() >= 1);
    let other = common::seeded(64, 2, 2);
    assert_eq!(a.union(&other), Err(MergeError::Hasher));
}

#[test]
fn more_than_two_to_the_32_counters() {
    // 3 · 2^31 four-bit counters: 3 GiB of zeroed pages, of which only the
    // pages touched are ever backed by memory. A third of all positions lie
    // past 2^32.
    let m = 3u64 << 31;
    let mut f = common::seeded(m, 5, 4);
    let keys = members(5, 2_000);
    f.insert_all(&keys).unwrap();
    assert!(keys.iter().all(|k| f.contains(k)));
    for key in &keys[..1_000] {
        f.remove(key).unwrap();
    }
    assert!(keys[1_000..].iter().all(|k| f.contains(k)));
    assert_eq!(
        keys[..1_000].iter().filter(|k| f.contains(*k)).count(),
        0,
        "in so sparse a table a removed item is absent"
    );
    // 5,000 positions of the kept items, a third of them past 2^32: their
    // counters are set. (Binomial(5,000, 1/3) is below 1,500 with
    // probability under 1e-6.)
    let high = f.as_words()[(1usize << 32) / 16..]
        .iter()
        .map(|w| w.count_ones())
        .sum::<u32>();
    assert!(high >= 1_500, "{high}");
    assert_eq!(f.counter(m - 1).map(|c| c <= 15), Some(true));
    assert_eq!(f.counter(m), None);
}

/// The figures the type's docs quote for a filter at design load.
#[test]
fn documented_saturation_figures() {
    use bloomlab_core::theory::counting::{fan_bound, saturation_probability};
    // The default table, then the smallest, whose seven hashes load each
    // counter more: the quoted chance per counter, and its last digit.
    for (smallest, quoted, digit) in [(false, 1.8e-17, 0.1e-17), (true, 3.5e-15, 0.1e-15)] {
        let builder = CountingBloomFilter::<u64>::builder(1_000_000, 0.01);
        let builder = if smallest {
            builder.smallest_table()
        } else {
            builder
        };
        let f = builder.seed(1).build().unwrap();
        let (m, k) = (f.num_counters(), f.num_hashes());
        let per_counter = saturation_probability(m, 1_000_000, k, 4) / m as f64;
        assert!((per_counter - quoted).abs() < digit, "{per_counter:e}");
    }
    assert!((fan_bound(1.0, 15.0) - 3.06e-14).abs() < 0.01e-14);
    assert!((fan_bound(1.0, 16.0) - 1.37e-15).abs() < 0.01e-15);
}
