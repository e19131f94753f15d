//! Model-based property tests: random sequences of inserts, look-ups, clears
//! and round trips against a set model. A member of the model is never
//! reported absent, `len` counts every `Ok`, a refused insert changes
//! nothing, and the rate theory predicts stays under the total promised.

use std::collections::HashSet;

use bloomlab_core::{Filter, InsertError};
use bloomlab_scalable::ScalableBloomFilter;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Insert(u16),
    Contains(u16),
    Clear,
    RoundTrip,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => any::<u16>().prop_map(Op::Insert),
        4 => any::<u16>().prop_map(Op::Contains),
        1 => Just(Op::Clear),
        1 => Just(Op::RoundTrip),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn behaves_like_a_set(
        n0 in 1usize..20,
        s in prop::sample::select(vec![2u32, 3, 4]),
        r in 0.5f64..0.95,
        p in prop::sample::select(vec![0.3, 0.05, 0.001]),
        cap in prop::option::of(40usize..2_000),
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 1..600),
    ) {
        let builder = ScalableBloomFilter::builder(n0, p)
            .growth_factor(s)
            .tightening_ratio(r)
            .seed(seed);
        let builder = match cap { Some(c) => builder.max_bytes(c), None => builder };
        let Ok(mut f) = builder.build() else {
            // Only a cap below the first layer may refuse to build.
            prop_assert!(cap.is_some());
            return Ok(());
        };
        let mut model = HashSet::new();
        let mut oks = 0usize;
        for op in ops {
            match op {
                Op::Insert(k) => {
                    let before = (f.len(), f.added(), f.memory_bytes());
                    match f.insert(&k) {
                        Ok(new) => {
                            // A member is always reported present, so never new.
                            prop_assert!(!(new && model.contains(&k)));
                            prop_assert_eq!(f.added(), before.1 + u64::from(new));
                            model.insert(k);
                            oks += 1;
                        }
                        Err(InsertError::Full) => {
                            prop_assert!(cap.is_some(), "only a capped filter is ever full");
                            prop_assert!(!model.contains(&k));
                            prop_assert_eq!((f.len(), f.added(), f.memory_bytes()), before);
                        }
                        Err(e) => prop_assert!(false, "unexpected {:?}", e),
                    }
                }
                Op::Contains(k) => {
                    if model.contains(&k) {
                        prop_assert!(f.contains(&k));
                    }
                }
                Op::Clear => {
                    let memory = f.memory_bytes();
                    f.clear();
                    model.clear();
                    oks = 0;
                    prop_assert_eq!(f.memory_bytes(), memory);
                    prop_assert_eq!(f.expected_fpr(), 0.0);
                }
                Op::RoundTrip => {
                    let bytes = f.to_bytes();
                    f = ScalableBloomFilter::from_bytes(&bytes).unwrap();
                    prop_assert_eq!(f.to_bytes(), bytes);
                }
            }
            prop_assert_eq!(f.len(), oks);
            prop_assert!(f.added() <= f.len() as u64);
            prop_assert!(f.added() <= f.capacity());
            prop_assert!(f.expected_fpr() < p);
            if let Some(c) = cap {
                prop_assert!(f.memory_bytes() <= c);
            }
        }
        prop_assert!(model.iter().all(|k| f.contains(k)));
        prop_assert!(Filter::len(&f) >= model.len());
    }
}
