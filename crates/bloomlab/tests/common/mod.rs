//! What the test files about every filter type share: one filter of each.

use std::fmt::Debug;

use bloomlab::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// What every filter type is: a filter of `u64`s that persists, clones,
/// compares, prints and serializes.
pub trait AnyFilter:
    Membership<u64> + Persist + Clone + PartialEq + Debug + Serialize + DeserializeOwned
{
}

impl<F> AnyFilter for F where
    F: Membership<u64> + Persist + Clone + PartialEq + Debug + Serialize + DeserializeOwned
{
}

/// What a test does with each filter [`each_filter`] builds.
pub trait EachFilter {
    /// Called once per filter type.
    fn visit<F: AnyFilter>(&mut self, f: F);
}

/// One empty filter of each type, seeded, for `items` items at 1% (the
/// scalable one starting at `scalable_items`), handed to `test`.
pub fn each_filter(items: usize, scalable_items: usize, test: &mut impl EachFilter) {
    test.visit(BloomFilter::builder(items, 0.01).seed(1).build().unwrap());
    let blocked = BlockedBloomFilter::builder(items, 0.01).seed(1).build();
    test.visit(blocked.unwrap());
    let atomic = AtomicBloomFilter::builder(items, 0.01).seed(1).build();
    test.visit(atomic.unwrap());
    let counting = CountingBloomFilter::builder(items, 0.01).seed(1).build();
    test.visit(counting.unwrap());
    let counting_blocked = BlockedCountingBloomFilter::builder(items, 0.01)
        .seed(1)
        .build();
    test.visit(counting_blocked.unwrap());
    let scalable = ScalableBloomFilter::builder(scalable_items, 0.01)
        .seed(1)
        .build();
    test.visit(scalable.unwrap());
    test.visit(CuckooFilter::builder(items, 0.01).seed(1).build().unwrap());
}
