//! The batch methods answer exactly as the one-at-a-time methods do, and
//! leave the same table behind ([`bloomlab_testkit::batch`]).

use bloomlab_classic::{AtomicBloomFilter, BlockedBloomFilter, BloomFilter};
use bloomlab_core::Membership;
use bloomlab_testkit::batch::{self, ITEMS};
use bloomlab_testkit::{item_methods, keys};

#[test]
fn bloom_batches_match_single_calls() {
    let make = || BloomFilter::builder(ITEMS, 0.01).seed(3).build().unwrap();
    batch::check(make, &item_methods!(BloomFilter<u64>));
}

#[test]
fn blocked_batches_match_single_calls() {
    let make = || BlockedBloomFilter::builder(ITEMS, 0.01).seed(3).build();
    batch::check(|| make().unwrap(), &item_methods!(BlockedBloomFilter<u64>));
}

#[test]
fn atomic_batches_match_single_calls() {
    let make = || AtomicBloomFilter::builder(ITEMS, 0.01).seed(3).build();
    batch::check(|| make().unwrap(), &item_methods!(AtomicBloomFilter<u64>));
}

#[test]
fn the_trait_methods_are_the_batch_methods() {
    let members = keys::members(9, 100);
    let start = BlockedBloomFilter::builder(100, 0.01).seed(3).build();
    let methods = item_methods!(BlockedBloomFilter<u64>);
    let (f, new) = batch::assert_trait_agrees(&start.unwrap(), &methods, &members, &members);
    assert_eq!(
        new,
        Ok(members.len()),
        "100 distinct keys, none a false positive here"
    );
    assert_eq!(Membership::contains_batch(&f, &members), vec![true; 100]);
    let filter: &dyn Membership<u64> = &f;
    assert_eq!(filter.contains_batch(&members[..3]), [true; 3]);
}
