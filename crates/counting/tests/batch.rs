//! The batch methods answer exactly as the one-at-a-time methods do, and
//! leave the same counters behind ([`bloomlab_testkit::batch`]).

use bloomlab_core::Membership;
use bloomlab_counting::CountingBloomFilter;
use bloomlab_testkit::batch::{self, ITEMS, Methods};
use bloomlab_testkit::{item_methods, keys};

fn filter(width: u32) -> CountingBloomFilter<u64> {
    CountingBloomFilter::builder(ITEMS, 0.01)
        .counter_width(width)
        .seed(3)
        .build()
        .unwrap()
}

fn methods() -> Methods<CountingBloomFilter<u64>> {
    item_methods!(CountingBloomFilter<u64>)
}

/// Inserts, with repeats, in batches of every length leave the sequential
/// counters (the same words, length and bytes); lookups in batches answer as
/// single ones, hits, misses and false positives among them.
#[test]
fn batches_match_single_calls_at_every_width() {
    for width in [4, 8, 16] {
        let f = batch::check(|| filter(width), &methods());
        assert_eq!(f.counter_width(), width);
    }
}

#[test]
fn contains_batch_sees_removals() {
    let members = keys::members(5, ITEMS);
    let mut f = filter(4);
    f.insert_batch(&members).unwrap();
    for k in &members[..ITEMS / 2] {
        f.remove(k).unwrap();
    }
    let single = batch::assert_lookups_match(&f, &methods(), &members);
    assert!(single.iter().any(|&x| !x), "some removed items are absent");
}

#[test]
fn the_trait_methods_are_the_batch_methods() {
    let items = batch::with_repeats(5, ITEMS);
    let mut one = filter(4);
    let new_one = methods().one_by_one(&mut one, &items);
    let probes: Vec<u64> = keys::probes(5, 1_000).chain(items[..50].to_vec()).collect();
    let (f, new) = batch::assert_trait_agrees(&filter(4), &methods(), &items, &probes);
    assert_eq!(new, new_one);
    assert_eq!(f.to_bytes(), one.to_bytes());
    assert_eq!(Membership::contains_batch(&f, &items[..50]), vec![true; 50]);
}
