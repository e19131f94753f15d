//! Decode-and-use fuzzing of the counting filter (issue 12): arbitrary
//! bytes, and real filters' files with their fields changed and the checksum
//! recomputed, go to `from_bytes`; every method is then called on whatever
//! decodes. No case may panic, hang (10 s per case) or abort.
//!
//! The directed cases of [`fuzz::Plan`] set every stored field of three
//! small filters (4-, 8- and 16-bit counters, one with saturated counters)
//! to each edge value; [`RANDOM_CASES`] random cases follow. See the const
//! for the time they take.
//!
//! To see one case: `BLOOMLAB_FUZZ_CASE=<index> cargo test -p bloomlab-counting --test fuzz`.

mod common;

use bloomlab_counting::{CountingBloomFilter, TAG};
use bloomlab_testkit::fuzz::{self, EXTREME_HASHES, Field, Kind, Plan, Sample};
use bloomlab_testkit::item_methods;
use bloomlab_testkit::keys::members;

/// Random cases after the directed ones. A case costs about 6 µs on average
/// here (most inputs are refused in microseconds; one in fifteen decodes and
/// takes 30–100 µs for some 100 inserts, removes and probes and five
/// encodings): 5 s measured in the test profile on two cores, well inside
/// the 20–30 s a variant may spend in CI, with room for a slower machine.
const RANDOM_CASES: u64 = 800_000;

/// The stored parameters ([`CountingBloomFilter::to_bytes`]).
fn fields() -> Vec<Field> {
    use Kind::*;
    let layout = [
        ("counter_width", U8),
        ("num_counters", U64),
        ("num_hashes", U32),
        ("len", U64),
    ];
    Field::params(0, &layout)
}

/// Three small filters: 4-bit counters half full, 8-bit counters of which
/// one item inserted 300 times saturates some, and 16-bit counters with the
/// most hashes.
fn samples() -> Vec<Sample> {
    let with_counters = CountingBloomFilter::builder_with_counters;
    let builders = [
        (CountingBloomFilter::builder(100, 0.01), 50),
        (with_counters(10, 3).counter_width(8), 0),
        (with_counters(3, 64).counter_width(16), 5),
    ];
    let mut filters = fuzz::seeded(builders, |b, seed| b.seed(seed).build().unwrap());
    for _ in 0..300 {
        filters[1].insert(&7u64).unwrap();
    }
    fuzz::samples(filters, |_| fields())
}

#[test]
fn counting_decode_and_use() {
    let plan = Plan::new("counting", TAG, samples()).cases(RANDOM_CASES, 14);
    fuzz::run_decoder(&plan, CountingBloomFilter::from_bytes, use_counting);
}

/// Every inherent method of a [`CountingBloomFilter`], then
/// [`fuzz::use_deletable`].
fn use_counting(f: &mut CountingBloomFilter<u64>) {
    let m = f.num_counters();
    let _ = (
        m,
        f.num_hashes(),
        f.counter_width(),
        f.counter_max(),
        f.hasher(),
    );
    let _ = (
        f.len(),
        f.is_empty(),
        f.saturated_counters(),
        f.as_words().len(),
    );
    let _ = (f.memory_bytes(), f.expected_fpr());
    for i in [0, m - 1, m, m.saturating_add(1), u64::MAX] {
        let c = f.counter(i);
        assert_eq!(c.is_some(), i < m, "counter({i}) of {m}");
    }
    for h in EXTREME_HASHES {
        let _ = (f.contains_hash(h), f.count_hash(h));
    }
    let keys = members(40, 24);
    fuzz::use_items(f, &item_methods!(CountingBloomFilter<u64>), &keys);
    let _ = f.count(&u64::MAX);
    for h in EXTREME_HASHES {
        f.insert_hash(h);
        assert!(f.contains_hash(h), "hash {h:#x} absent after insert_hash");
        assert!(f.count_hash(h) > 0);
    }
    assert!(keys.iter().all(|k| f.contains(k)), "a member is absent");
    let bloom = f.to_bloom();
    assert!(
        keys.iter().all(|k| bloom.contains(k)),
        "to_bloom loses a member"
    );
    fuzz::remove_some(f, &keys[..8]);
    for k in &keys[..8] {
        let _ = f.count(k);
    }
    let copy = f.clone();
    f.union(&copy).expect("a filter merges with its copy");
    let other = common::seeded(m % 1000 + 1, 1, 9);
    let _ = f.union(&other);
    let _ = format!("{f:?}");
    let _ = (f.saturated_counters(), f.expected_fpr());
    let bytes = f.to_bytes();
    CountingBloomFilter::<u64>::from_bytes(&bytes).expect("the filter's bytes decode after use");
    fuzz::use_deletable(f);
}
