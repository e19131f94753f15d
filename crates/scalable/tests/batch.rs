//! The batch methods answer exactly as the one-at-a-time methods do, leave
//! the same layers behind, and stop where sequential inserts stop under a
//! memory cap.

use bloomlab_core::{InsertBatchError, InsertError, Membership};
use bloomlab_scalable::ScalableBloomFilter;
use bloomlab_testkit::keys;

/// 10,000 members in a filter that starts with room for 1,000 (so it grows
/// to four layers), and 10,000 probes that are never members. The batch
/// lengths cover the empty batch, batches shorter than the pipeline and
/// batches that do not divide evenly into it.
const ITEMS: usize = 10_000;
const LENGTHS: [usize; 6] = [0, 1, 15, 16, 17, 1_000];

fn filter() -> ScalableBloomFilter<u64> {
    ScalableBloomFilter::builder(1_000, 0.01)
        .seed(3)
        .build()
        .unwrap()
}

/// What sequential inserts do with `items`: how many were new, or where and
/// why they stopped, as `insert_batch` promises.
fn insert_one_by_one(
    f: &mut ScalableBloomFilter<u64>,
    items: &[u64],
) -> Result<usize, InsertBatchError> {
    let mut new = 0;
    for (i, k) in items.iter().enumerate() {
        match f.insert(k) {
            Ok(fresh) => new += usize::from(fresh),
            Err(e) => return Err(InsertBatchError::new(i, new, e)),
        }
    }
    Ok(new)
}

#[test]
fn batches_match_single_calls() {
    let mut members = keys::members(5, ITEMS);
    members.extend_from_within(..100);
    let mut one = filter();
    let new_one = insert_one_by_one(&mut one, &members).unwrap();
    assert!(new_one <= ITEMS, "the repeats were not new");
    assert_eq!(one.layers().len(), 4);
    for len in LENGTHS.into_iter().filter(|&l| l > 0) {
        let mut batched = filter();
        let new_batched: usize = members
            .chunks(len)
            .map(|c| batched.insert_batch(c).unwrap())
            .sum();
        assert_eq!(new_batched, new_one, "batches of {len}");
        assert_eq!(batched.len(), one.len());
        assert_eq!(batched.to_bytes(), one.to_bytes(), "batches of {len}");
    }
    let mut unchanged = filter();
    assert_eq!(unchanged.insert_batch(&[]), Ok(0));
    assert_eq!(unchanged.to_bytes(), filter().to_bytes());

    let mut probes = keys::members(5, ITEMS);
    probes.extend(keys::probes(5, ITEMS));
    let single: Vec<bool> = probes.iter().map(|k| one.contains(k)).collect();
    assert!(single[..ITEMS].iter().all(|&x| x));
    let false_positives = single[ITEMS..].iter().filter(|&&x| x).count();
    assert!(
        false_positives > 0 && false_positives < ITEMS,
        "the non-members include misses and false positives: {false_positives}"
    );
    for len in LENGTHS.into_iter().filter(|&l| l > 0) {
        let got: Vec<bool> = probes
            .chunks(len)
            .flat_map(|c| one.contains_batch(c))
            .collect();
        assert_eq!(got, single, "batches of {len}");
    }
    assert!(one.contains_batch::<u64>(&[]).is_empty());
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

/// Checks `insert_batch(items)` on `start` against sequential inserts:
/// returns where it stopped.
fn assert_stops_like_sequential(start: &ScalableBloomFilter<u64>, items: &[u64]) -> usize {
    let mut reference = start.clone();
    let Err(expected) = insert_one_by_one(&mut reference, items) else {
        panic!("the batch was meant to pass the cap");
    };
    let mut f = start.clone();
    let err = f.insert_batch(items).unwrap_err();
    assert_eq!(err, expected);
    assert_eq!(err.error, InsertError::Full);
    let stored = err.stored;

    // The filter is exactly the one built from just the items before it.
    let mut prefix_only = start.clone();
    let new = insert_one_by_one(&mut prefix_only, &items[..stored]).unwrap();
    assert_eq!(err.new, new);
    assert_eq!(f.to_bytes(), prefix_only.to_bytes());
    assert_eq!(f.len(), start.len() + stored);
    assert!(items[..stored].iter().all(|k| f.contains(k)));
    assert!(!f.contains(&items[stored]), "a refused item is absent");

    // Trying again refuses the same item and changes nothing.
    let again = f.insert_batch(&items[stored..]).unwrap_err();
    assert_eq!((again.stored, again.new), (0, 0));
    assert_eq!(f.to_bytes(), prefix_only.to_bytes());
    assert_eq!(f.len(), prefix_only.len());
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
    let mut inherent = capped();
    let want = inherent.insert_batch(&items);
    assert!(want.is_err());
    let mut f = capped();
    let dynamic: &mut dyn Membership<u64> = &mut f;
    assert_eq!(dynamic.insert_batch(&items), want);
    assert_eq!(f.to_bytes(), inherent.to_bytes());
    let probes: Vec<u64> = keys::probes(8, 1_000).chain(items).collect();
    let dynamic: &dyn Membership<u64> = &f;
    assert_eq!(dynamic.contains_batch(&probes), f.contains_batch(&probes));
}
