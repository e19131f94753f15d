//! The measured false-positive rate at capacity lies in the 99.9% binomial
//! interval of theory, for each counter width.

use bloomlab_core::Membership;
use bloomlab_counting::CountingBloomFilter;
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::rates::assert_in_interval;

const ITEMS: usize = 20_000;
const PROBES: usize = 1_000_000;

fn measured_rate_matches_theory(width: u32, fpr: f64) {
    let mut f = CountingBloomFilter::builder(ITEMS, fpr)
        .counter_width(width)
        .seed(u64::from(width))
        .build()
        .unwrap();
    for k in members(100 + u64::from(width), ITEMS) {
        f.insert(&k).unwrap();
    }
    assert_eq!(f.saturated_counters(), 0);
    let expected = f.expected_fpr();
    assert!(expected <= fpr && expected > fpr * 0.9, "{expected}");
    let hits = probes(200 + u64::from(width), PROBES)
        .filter(|p| f.contains(p))
        .count() as u64;
    assert_in_interval(
        hits,
        PROBES as u64,
        expected,
        format!("width {width}: false positives"),
    );
}

#[test]
fn four_bit_counters_at_one_percent() {
    measured_rate_matches_theory(4, 0.01);
}

#[test]
fn eight_bit_counters_at_one_percent() {
    measured_rate_matches_theory(8, 0.01);
}

#[test]
fn four_bit_counters_at_a_tenth_of_a_percent() {
    measured_rate_matches_theory(4, 0.001);
}

#[test]
fn eight_bit_counters_at_a_tenth_of_a_percent() {
    measured_rate_matches_theory(8, 0.001);
}

#[test]
fn rate_returns_to_theory_after_removes() {
    // Insert twice the items, remove the extra half: with no counter stuck,
    // the counters are those of the kept half alone.
    let mut f = CountingBloomFilter::builder(ITEMS, 0.01)
        .seed(77)
        .build()
        .unwrap();
    let keys = members(78, 2 * ITEMS);
    f.insert_all(&keys).unwrap();
    for k in &keys[ITEMS..] {
        f.remove(k).unwrap();
    }
    assert_eq!(f.saturated_counters(), 0);
    assert_eq!(f.len(), ITEMS);
    let mut fresh = CountingBloomFilter::builder(ITEMS, 0.01)
        .seed(77)
        .build()
        .unwrap();
    fresh.insert_all(&keys[..ITEMS]).unwrap();
    assert_eq!(f.as_words(), fresh.as_words());
}
