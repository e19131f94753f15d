//! The batch methods answer exactly as the one-at-a-time methods do, leave
//! the same table behind, and stop at the first item that does not fit
//! exactly where sequential inserts would ([`bloomlab_testkit::batch`]).

use bloomlab_cuckoo::CuckooFilter;
use bloomlab_testkit::batch::{self, ITEMS, Methods};
use bloomlab_testkit::{item_methods, keys};

fn methods() -> Methods<CuckooFilter<u64>> {
    item_methods!(CuckooFilter<u64>)
}

/// Repeats are stored again but are not new.
#[test]
fn batches_match_single_calls() {
    let make = || CuckooFilter::builder(ITEMS, 0.01).seed(3).build().unwrap();
    batch::check(make, &methods());
}

/// Bucket sizes 2, 4 and 8 with fingerprints whose buckets straddle words
/// (14, 48, 104 bits) or fill them exactly (64, 128 bits).
#[test]
fn every_bucket_shape_agrees() {
    for (b, f) in [(2u32, 7u32), (4, 12), (4, 16), (8, 13), (8, 16)] {
        let empty = CuckooFilter::builder_with_buckets(1_024, f)
            .bucket_size(b)
            .seed(u64::from(b * 100 + f))
            .build()
            .unwrap();
        // Past what the table holds: both ways must stop at the same item.
        let items = keys::members(u64::from(f), 9 * 1_024);
        let (_, one) = batch::assert_stops_like_sequential(&empty, &methods(), &items);
        let mut probes = items.clone();
        probes.extend(keys::probes(u64::from(f), 5_000));
        let single = batch::assert_lookups_match(&one, &methods(), &probes);
        assert!(single.iter().any(|&x| !x), "b {b} f {f}: some misses");
    }
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
    let (stored, f) = batch::assert_stops_like_sequential(&start, &methods(), &items);
    // It stopped with the pipeline full: later items were hashed and
    // prefetched but not inserted.
    assert!(stored > 16 && stored + 16 < items.len(), "{stored}");
    // Nothing stored before the batch was lost.
    assert!(before.iter().all(|k| f.contains(k)));

    // A batch shorter than the pipeline, failing while it drains.
    let mut near_full = start.clone();
    near_full.insert_batch(&items[..stored - 5]).unwrap();
    let short = &items[stored - 5..stored + 5];
    let (stored, _) = batch::assert_stops_like_sequential(&near_full, &methods(), short);
    assert_eq!(stored, 5);
}

#[test]
fn the_trait_methods_are_the_batch_methods() {
    let start = CuckooFilter::builder_with_buckets(64, 12)
        .seed(4)
        .build()
        .unwrap();
    let items = keys::members(8, 400);
    let probes: Vec<u64> = keys::probes(8, 1_000).chain(items.clone()).collect();
    let (_, want) = batch::assert_trait_agrees(&start, &methods(), &items, &probes);
    assert!(want.is_err());
}
