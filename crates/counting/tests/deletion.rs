//! Deleting safely: no item that was inserted and not removed is ever
//! reported absent, however full the filter, and a remove the filter can
//! refuse changes nothing.

mod common;

use bloomlab_core::{Membership, RemoveError};
use bloomlab_counting::CountingBloomFilter;
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::model::{self, Multiset, Op};
use proptest::prelude::*;

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..48u64).prop_map(Op::Insert),
        4 => any::<usize>().prop_map(Op::Remove),
        1 => Just(Op::Clear),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Small tables so that counters collide and saturate often: the model
    /// (a multiset) and the filter must agree that every member is present.
    #[test]
    fn members_are_never_reported_absent(
        counters in 1..96u64,
        hashes in 1..7u32,
        width in prop::sample::select(vec![4u32, 8, 16]),
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 1..400),
    ) {
        let mut f = CountingBloomFilter::builder_with_counters(counters, hashes)
            .counter_width(width)
            .seed(seed)
            .build()
            .unwrap();
        let insert = |f: &mut CountingBloomFilter<u64>, model: &mut Multiset, op| {
            let Op::Insert(key) = op else {
                unreachable!("not drawn: no insert_unique here")
            };
            let new = Membership::insert(f, &key).unwrap();
            if model.contains(key) {
                assert!(!new, "a member reported new on insert");
            }
            model.insert(key);
        };
        model::run(&mut f, &ops, insert, |f, model, op| {
            if op == Op::Clear {
                assert_eq!(f.saturated_counters(), 0);
            }
            for (key, times) in model.iter() {
                let count = f.count(&key);
                assert!(count >= 1);
                if count < f.counter_max() {
                    assert!(count as usize >= times, "count {count} < {times} inserts");
                }
            }
        });
    }
}

/// The peer's failure case: 8,192 4-bit counters, k = 4, 40,000 inserts (19.5
/// increments per counter on average, so most counters saturate), then half
/// the items removed. Every kept item must still be present, and the classic
/// filter `to_bloom` hands out answers alike.
#[test]
fn overload_then_remove_half_loses_nothing() {
    let mut f = CountingBloomFilter::builder_with_counters(8_192, 4)
        .counter_width(4)
        .seed(2024)
        .build()
        .unwrap();
    let keys = members(2024, 40_000);
    f.insert_all(&keys).unwrap();
    let saturated = f.saturated_counters();
    let (removed, kept) = keys.split_at(20_000);
    for k in removed {
        assert_eq!(f.remove(k), Ok(()), "an inserted item is never refused");
    }
    let lost = kept.iter().filter(|k| !f.contains(*k)).count();
    assert_eq!(lost, 0, "{lost} of 20,000 kept items reported absent");
    assert_eq!(f.len(), 20_000);
    assert_eq!(
        f.saturated_counters(),
        saturated,
        "removes never unsaturate a counter"
    );
    // Most counters are stuck, which is what keeps the kept items present.
    assert!(saturated > 6_000, "{saturated}");
    // `to_bloom` answers alike, stuck counters and all.
    let bloom = f.to_bloom();
    assert!(kept.iter().all(|k| bloom.contains(k)));
    let disagree = probes(5, 100_000)
        .filter(|p| bloom.contains(p) != f.contains(p))
        .count();
    assert_eq!(disagree, 0);
}

#[test]
fn refused_remove_changes_nothing() {
    let mut f = CountingBloomFilter::builder(1_000, 0.01)
        .seed(5)
        .build()
        .unwrap();
    f.insert_all(&members(6, 1_000)).unwrap();
    // About 99% of probes are proved absent at capacity.
    let refused = model::refused_removes_change_nothing(&mut f, probes(7, 1_000));
    assert!(refused > 950, "{refused}");
    assert_eq!(f.len(), 1_000);
}

#[test]
fn refused_remove_on_an_empty_filter() {
    let mut f: CountingBloomFilter<u64> = CountingBloomFilter::builder(10, 0.1)
        .seed(1)
        .build()
        .unwrap();
    let before = f.to_bytes();
    assert_eq!(f.remove(&u64::MAX), Err(RemoveError::NotPresent));
    assert_eq!(f.to_bytes(), before);
    assert_eq!(f.len(), 0);
}

/// What the filter cannot protect against, shown so the docs stay honest:
/// removing a false positive decrements counters that members rely on.
#[test]
fn removing_a_false_positive_is_the_callers_error() {
    let mut f = common::seeded(256, 3, 9);
    let keys = members(10, 100);
    f.insert_all(&keys).unwrap();
    let false_positive = probes(11, 100_000)
        .find(|p| f.contains(p))
        .expect("a loaded small filter has false positives");
    assert_eq!(f.remove(&false_positive), Ok(()));
    assert_eq!(f.len(), 99, "the filter cannot tell it from a member");
}

/// The smallest case of the peer's failure, found by the model test against a
/// filter that decremented saturated counters: one 4-bit counter, k = 4, an
/// item inserted four times (16 increments, one more than the counter holds).
#[test]
fn a_saturated_counter_keeps_the_copies_left() {
    let mut f = common::seeded(1, 4, 0);
    for _ in 0..4 {
        f.insert(&0u64).unwrap();
    }
    assert_eq!(f.counter(0), Some(15));
    assert_eq!(f.saturated_counters(), 1);
    for left in (1..4).rev() {
        f.remove(&0u64).unwrap();
        assert!(f.contains(&0u64), "{left} copies left");
    }
    // The last remove succeeds too, but the stuck counter keeps the item
    // reported present: a false positive, never a false negative.
    f.remove(&0u64).unwrap();
    assert!(f.is_empty());
    assert!(f.contains(&0u64));
}
