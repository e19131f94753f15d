//! The std traits a Rust user reaches for (issue 13, points 5 and 6):
//! Clone, Debug and PartialEq on every filter, Extend where an insert cannot
//! fail, FromIterator on the growing filter, the From conversions between the
//! atomic and plain filters, and filters built to merge.

mod common;

use std::fmt::Debug;
use std::ops::BitOr;

use bloomlab::prelude::*;
use common::{AnyFilter, EachFilter, each_filter};

/// A clone equals its original, stops equalling it after an insert into
/// one of them, and both print something.
struct CloneEqDebug;

impl EachFilter for CloneEqDebug {
    fn visit<F: AnyFilter>(&mut self, mut f: F) {
        let copy = f.clone();
        assert!(copy == f);
        f.insert(&7).unwrap();
        assert!(copy != f, "an insert into the original changed the clone");
        assert!(!format!("{f:?}").is_empty());
    }
}

#[test]
fn every_filter_is_clone_partial_eq_and_debug() {
    each_filter(100, 100, &mut CloneEqDebug);
}

#[test]
fn extend_fills_the_filters_whose_insert_cannot_fail() {
    let ids: Vec<u64> = (0..1_000).collect();
    let mut classic: BloomFilter<u64> = BloomFilter::builder(1_000, 0.01).seed(1).build().unwrap();
    classic.extend(&ids);
    let mut blocked: BlockedBloomFilter<u64> = BlockedBloomFilter::builder(1_000, 0.01)
        .seed(1)
        .build()
        .unwrap();
    blocked.extend(ids.iter());
    let mut atomic = AtomicBloomFilter::builder(1_000, 0.01)
        .seed(1)
        .build()
        .unwrap();
    atomic.extend(ids.iter().copied());
    let mut counting = CountingBloomFilter::<u64>::builder(1_000, 0.01)
        .seed(1)
        .build()
        .unwrap();
    counting.extend(&ids);
    // By reference, by value and copied: each hashes as the u64 itself.
    for id in &ids {
        assert!(classic.contains(id) && blocked.contains(id));
        assert!(atomic.contains(id) && counting.contains(id));
    }
    assert_eq!(classic.len(), 1_000);
    assert_eq!(counting.len(), 1_000);
}

#[test]
fn the_growing_filter_collects() {
    let f: ScalableBloomFilter<u64> = (0..10_000u64).collect();
    assert_eq!(f.len(), 10_000);
    assert!((0..10_000u64).all(|i| f.contains(&i)));
    assert!(f.expected_fpr() <= bloomlab::scalable::COLLECT_FPR);
}

#[test]
fn atomic_and_plain_filters_convert_both_ways() {
    let mut plain = BloomFilter::builder(100, 0.01).seed(3).build().unwrap();
    plain.insert(&1u64).unwrap();
    let atomic = AtomicBloomFilter::from(plain.clone());
    assert!(atomic.contains(&1u64));
    let back = BloomFilter::from(atomic);
    assert_eq!(back, plain);
}

/// With 1 inserted into `a` and 2 into `b`, `a | b` holds both; returns `a`.
fn union_holds_both<F, E>(mut a: F, mut b: F) -> F
where
    F: Membership<u64>,
    for<'f> &'f F: BitOr<&'f F, Output = Result<F, E>>,
    E: Debug,
{
    a.insert(&1).unwrap();
    b.insert(&2).unwrap();
    let both = (&a | &b).unwrap();
    assert!(both.contains(&1) && both.contains(&2));
    a
}

#[test]
fn filters_built_to_merge_do_merge() {
    let a = BloomFilter::new(1_000, 0.01).unwrap();
    let b = BloomFilter::compatible_with(&a).unwrap();
    let a = union_holds_both(a, b);
    // Two filters made with `new` drew different keys: a typed error.
    let stranger = BloomFilter::new(1_000, 0.01).unwrap();
    assert_eq!(
        (&a | &stranger).unwrap_err(),
        bloomlab::ClassicMergeError::Hasher
    );

    let a = BlockedBloomFilter::new(1_000, 0.01).unwrap();
    let b = BlockedBloomFilter::compatible_with(&a).unwrap();
    union_holds_both(a, b);

    let mut a = CountingBloomFilter::new(1_000, 0.01).unwrap();
    let mut b = CountingBloomFilter::compatible_with(&a).unwrap();
    a.insert(&1u64).unwrap();
    b.insert(&1u64).unwrap();
    let both = (&a | &b).unwrap();
    assert_eq!(both.count(&1u64), 2);
    assert!((&a | &CountingBloomFilter::new(1_000, 0.01).unwrap()).is_err());

    let a = AtomicBloomFilter::new(1_000, 0.01).unwrap();
    let b = AtomicBloomFilter::compatible_with(&a).unwrap();
    a.insert(&1u64).unwrap();
    b.insert(&2u64).unwrap();
    let both = (&a.to_bloom() | &b.to_bloom()).unwrap();
    assert!(both.contains(&1u64) && both.contains(&2u64));
}

#[test]
fn boxed_filters_are_filters() {
    fn fill(f: &mut impl Membership<u64>) {
        for i in 0..100u64 {
            f.insert(&i).unwrap();
        }
    }
    let mut filters: Vec<Box<dyn Membership<u64>>> = vec![
        Box::new(BloomFilter::builder(100, 0.01).seed(1).build().unwrap()),
        Box::new(CuckooFilter::builder(100, 0.01).seed(1).build().unwrap()),
    ];
    for f in &mut filters {
        fill(f);
        assert_eq!(f.len(), 100);
    }
}
