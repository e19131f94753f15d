//! The batch methods answer exactly as the one-at-a-time methods do, leave
//! the same table behind, and stop at the first item that does not fit
//! exactly where sequential inserts would.

use bloomlab_core::{InsertBatchError, InsertError, Membership};
use bloomlab_cuckoo::CuckooFilter;
use bloomlab_testkit::keys;

/// 10,000 members in a filter sized for them, and 10,000 probes that are
/// never members. The batch lengths cover the empty batch, batches shorter
/// than the pipeline and batches that do not divide evenly into it.
const ITEMS: usize = 10_000;
const LENGTHS: [usize; 6] = [0, 1, 15, 16, 17, 1_000];

/// What sequential inserts do with `items`: how many were new, or where and
/// why they stopped, as `insert_batch` promises.
fn insert_one_by_one(f: &mut CuckooFilter<u64>, items: &[u64]) -> Result<usize, InsertBatchError> {
    let mut new = 0;
    for (i, k) in items.iter().enumerate() {
        match f.insert(k) {
            Ok(fresh) => new += usize::from(fresh),
            Err(e) => return Err(InsertBatchError::new(i, new, e)),
        }
    }
    Ok(new)
}

/// Asserts that `contains_batch` over every batch length gives the answers
/// of `contains` on `probes`.
fn assert_lookups_match(f: &CuckooFilter<u64>, probes: &[u64]) -> Vec<bool> {
    let single: Vec<bool> = probes.iter().map(|k| f.contains(k)).collect();
    for len in LENGTHS.into_iter().filter(|&l| l > 0) {
        let got: Vec<bool> = probes
            .chunks(len)
            .flat_map(|c| f.contains_batch(c))
            .collect();
        assert_eq!(got, single, "batches of {len}");
    }
    assert!(f.contains_batch::<u64>(&[]).is_empty());
    single
}

#[test]
fn batches_match_single_calls() {
    let mut members = keys::members(5, ITEMS);
    // Repeats are stored again but are not new.
    members.extend_from_within(..100);
    let mut one = CuckooFilter::builder(ITEMS, 0.01).seed(3).build().unwrap();
    let empty = one.clone();
    let new_one = insert_one_by_one(&mut one, &members).unwrap();
    assert!(new_one <= ITEMS, "the repeats were not new");
    for len in LENGTHS.into_iter().filter(|&l| l > 0) {
        let mut batched = empty.clone();
        let new_batched: usize = members
            .chunks(len)
            .map(|c| batched.insert_batch(c).unwrap())
            .sum();
        assert_eq!(new_batched, new_one, "batches of {len}");
        assert!(batched == one, "batches of {len} left another table");
        assert_eq!(batched.to_bytes(), one.to_bytes());
    }
    let mut probes = keys::members(5, ITEMS);
    probes.extend(keys::probes(5, ITEMS));
    let single = assert_lookups_match(&one, &probes);
    assert!(single[..ITEMS].iter().all(|&x| x));
    let false_positives = single[ITEMS..].iter().filter(|&&x| x).count();
    assert!(
        false_positives > 0 && false_positives < ITEMS,
        "the non-members include misses and false positives: {false_positives}"
    );
}

/// Bucket sizes 2, 4 and 8 with fingerprints whose buckets straddle words
/// (14, 48, 104 bits) or fill them exactly (64, 128 bits).
#[test]
fn every_bucket_shape_agrees() {
    for (b, f) in [(2u32, 7u32), (4, 12), (4, 16), (8, 13), (8, 16)] {
        let mut one = CuckooFilter::builder_with_buckets(1_024, f)
            .bucket_size(b)
            .seed(u64::from(b * 100 + f))
            .build()
            .unwrap();
        let empty = one.clone();
        // Past what the table holds: both ways must stop at the same item.
        let items = keys::members(u64::from(f), 9 * 1_024);
        let want = insert_one_by_one(&mut one, &items);
        let mut batched = empty.clone();
        assert_eq!(batched.insert_batch(&items), want, "b {b} f {f}");
        assert!(batched == one, "b {b} f {f}");
        let mut probes = items.clone();
        probes.extend(keys::probes(u64::from(f), 5_000));
        let single = assert_lookups_match(&one, &probes);
        assert!(single.iter().any(|&x| !x), "b {b} f {f}: some misses");
    }
}

/// Checks `insert_batch(items)` on `start` against sequential inserts:
/// returns where it stopped.
fn assert_stops_like_sequential(start: &CuckooFilter<u64>, items: &[u64]) -> usize {
    let mut reference = start.clone();
    let want = insert_one_by_one(&mut reference, items);
    let Err(expected) = want else {
        panic!("the batch was meant to overfill the table");
    };
    let mut f = start.clone();
    let err = f.insert_batch(items).unwrap_err();
    assert_eq!(err, expected);
    assert_eq!(err.error, InsertError::Full);
    let stored = err.stored;

    // The table is exactly the one built from just the items before it.
    let mut prefix_only = start.clone();
    let new = insert_one_by_one(&mut prefix_only, &items[..stored]).unwrap();
    assert_eq!(err.new, new);
    assert!(
        f == prefix_only,
        "the batch stored more or less than its prefix"
    );
    assert_eq!(f.len(), start.len() + stored);
    assert!(items[..stored].iter().all(|k| f.contains(k)));

    // The failed item still does not fit, and trying again changes nothing.
    let again = f.insert_batch(&items[stored..]).unwrap_err();
    assert_eq!((again.stored, again.new), (0, 0));
    assert!(f == prefix_only);
    stored
}

#[test]
fn an_overfilling_batch_stops_at_the_first_item_that_does_not_fit() {
    // 64 buckets of 4 slots: 256 slots, 100 of them filled beforehand.
    let mut start = CuckooFilter::builder_with_buckets(64, 12)
        .seed(4)
        .build()
        .unwrap();
    let before = keys::members(7, 100);
    start.insert_batch(&before).unwrap();
    let items = keys::members(8, 400);
    let stored = assert_stops_like_sequential(&start, &items);
    // It stopped with the pipeline full: later items were hashed and
    // prefetched but not inserted.
    assert!(stored > 16 && stored + 16 < items.len(), "{stored}");

    // Nothing stored before the batch was lost.
    let mut f = start.clone();
    let _ = f.insert_batch(&items);
    assert!(before.iter().all(|k| f.contains(k)));

    // A batch shorter than the pipeline, failing while it drains.
    let mut near_full = start.clone();
    near_full.insert_batch(&items[..stored - 5]).unwrap();
    let short = &items[stored - 5..stored + 5];
    assert_eq!(assert_stops_like_sequential(&near_full, short), 5);
}

#[test]
fn the_trait_methods_are_the_batch_methods() {
    let mut start = CuckooFilter::builder_with_buckets(64, 12)
        .seed(4)
        .build()
        .unwrap();
    let items = keys::members(8, 400);
    let mut inherent = start.clone();
    let want = inherent.insert_batch(&items);
    assert!(want.is_err());
    let dynamic: &mut dyn Membership<u64> = &mut start;
    assert_eq!(dynamic.insert_batch(&items), want);
    assert!(start == inherent);
    let probes: Vec<u64> = keys::probes(8, 1_000).chain(items).collect();
    let dynamic: &dyn Membership<u64> = &start;
    assert_eq!(
        dynamic.contains_batch(&probes),
        start.contains_batch(&probes)
    );
}
