//! Model-based property test: random inserts and removes of inserted items
//! against a multiset model. No member of the model may ever be reported
//! absent, a failed insert changes nothing, and the counts agree.

use bloomlab_core::{Filter, InsertError};
use bloomlab_cuckoo::CuckooFilter;
use bloomlab_testkit::model::{self, Multiset, Op};
use proptest::prelude::*;

/// Keys from a small pool, so duplicates are common.
fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..300u64).prop_map(Op::Insert),
        2 => (0..300u64).prop_map(Op::InsertUnique),
        5 => any::<usize>().prop_map(Op::Remove),
        1 => Just(Op::Clear),
    ]
}

fn shape() -> impl Strategy<Value = (u32, u32, u32, u32)> {
    // (log2 buckets, slots, fingerprint bits, relocations): small tables so
    // that they fill and inserts fail, narrow fingerprints so that items
    // share them.
    (
        0..6u32,
        prop_oneof![Just(2u32), Just(4), Just(8)],
        4..=16u32,
        prop_oneof![Just(0u32), Just(3), Just(500)],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn no_false_negatives((log2, b, f, relocations) in shape(),
                          semi in any::<bool>(),
                          odd in any::<bool>(),
                          seed in any::<u64>(),
                          ops in proptest::collection::vec(op(), 1..400)) {
        // Semi-sorted 4-slot buckets half the time, and bucket counts one
        // above a power of two half the time (where an item's two buckets
        // may coincide).
        let buckets = (1u64 << log2) + u64::from(odd);
        let mut cf = CuckooFilter::builder_with_buckets(buckets, f)
            .bucket_size(b)
            .semi_sorted(semi && b == 4)
            .max_relocations(relocations)
            .seed(seed)
            .build()
            .unwrap();
        let insert = |cf: &mut CuckooFilter<u64>, model: &mut Multiset, op| match op {
            Op::Insert(k) => {
                let reported = cf.contains(&k);
                let before = cf.clone();
                match cf.insert(&k) {
                    Ok(new) => {
                        assert_eq!(new, !reported);
                        model.insert(k);
                    }
                    Err(e) => {
                        assert_eq!(e, InsertError::Full);
                        assert!(*cf == before, "a failed insert changed the table");
                    }
                }
            }
            Op::InsertUnique(k) => {
                let reported = cf.contains(&k);
                match cf.insert_unique(&k) {
                    Ok(true) => {
                        assert!(!reported);
                        model.insert(k);
                    }
                    Ok(false) => assert!(reported),
                    Err(_) => assert!(!reported),
                }
            }
            _ => unreachable!("model::run applies the other operations"),
        };
        let model = model::run(&mut cf, &ops, insert, |cf, model, _| {
            for (k, c) in model.iter() {
                let counted = cf.count(&k);
                assert!(counted >= c, "member {k} stored {c} times, counted {counted}");
            }
        });
        // Removing every copy of every member empties the table.
        for (k, c) in model.iter() {
            for _ in 0..c {
                prop_assert_eq!(cf.remove(&k), Ok(()));
            }
        }
        prop_assert!(cf.is_empty());
        prop_assert_eq!(Filter::expected_fpr(&cf), 0.0);
    }
}
