//! The batch methods answer exactly as the one-at-a-time methods do, leave
//! the same layers behind, and stop where sequential inserts stop under a
//! memory cap ([`bloomlab_testkit::batch`]).

use bloomlab_scalable::ScalableBloomFilter;
use bloomlab_testkit::batch::{self, Methods};
use bloomlab_testkit::{item_methods, keys};

fn methods() -> Methods<ScalableBloomFilter<u64>> {
    item_methods!(ScalableBloomFilter<u64>)
}

/// 10,000 members in a filter that starts with room for 1,000, so it grows
/// to four layers.
#[test]
fn batches_match_single_calls() {
    let make = || ScalableBloomFilter::builder(1_000, 0.01).seed(3).build();
    let one = batch::check(|| make().unwrap(), &methods());
    assert_eq!(one.layers().len(), 4);
}

/// Bytes of the first `layers` layers of a (100, 1%) default filter.
fn bytes_of(layers: u64) -> usize {
    bloomlab_core::theory::scalable::total_bits(100, 2, 0.01, 0.85, layers).unwrap() as usize / 8
}

/// A filter with room for three layers (700 items), one byte short of four.
fn capped() -> ScalableBloomFilter<u64> {
    ScalableBloomFilter::builder(100, 0.01)
        .max_bytes(bytes_of(4) - 1)
        .seed(5)
        .build()
        .unwrap()
}

/// [`batch::assert_stops_like_sequential`], and the refused item is absent.
fn assert_stops_like_sequential(start: &ScalableBloomFilter<u64>, items: &[u64]) -> usize {
    let (stored, f) = batch::assert_stops_like_sequential(start, &methods(), items);
    assert!(!f.contains(&items[stored]), "a refused item is absent");
    stored
}

#[test]
fn a_batch_past_the_cap_stops_at_the_first_item_that_needs_room() {
    let mut start = capped();
    let before = keys::members(7, 300);
    start.insert_batch(&before).unwrap();
    let items = keys::members(8, 2_000);
    let stored = assert_stops_like_sequential(&start, &items);
    assert!(stored > 16 && stored + 16 < items.len(), "{stored}");
    let mut f = start.clone();
    let _ = f.insert_batch(&items);
    assert_eq!(f.layers().len(), 3);
    assert_eq!(f.added(), 700, "every layer is full");
    assert!(f.memory_bytes() < bytes_of(4));
    assert!(
        before.iter().all(|k| f.contains(k)),
        "nothing stored is lost"
    );

    // A batch shorter than the pipeline, failing while it drains.
    let mut near_full = start.clone();
    near_full.insert_batch(&items[..stored - 5]).unwrap();
    let short = &items[stored - 5..stored + 5];
    assert_eq!(assert_stops_like_sequential(&near_full, short), 5);
}

#[test]
fn the_trait_methods_are_the_batch_methods() {
    let items = keys::members(8, 2_000);
    let probes: Vec<u64> = keys::probes(8, 1_000).chain(items.clone()).collect();
    let (_, want) = batch::assert_trait_agrees(&capped(), &methods(), &items, &probes);
    assert!(want.is_err());
}
