//! Model-based property test: random inserts, removes of inserted items,
//! merges, clears and (for growing filters) the expansions they cause,
//! against a multiset model. No member may ever be reported absent; a
//! failed insert or merge changes nothing; an item's count is at least its
//! copies, and exactly its copies when no other item ever inserted shares
//! its quotient and its shortest stored remainder. A lookup's answer is
//! that of a count over the item's whole run, for members and others.

use std::collections::HashMap;
use std::hash::BuildHasher;

use bloomlab_quotient::{InsertError, MergeError, QuotientFilter};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Insert(u64),
    Remove(usize),
    Merge(Vec<u64>),
    Clear,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0..400u64).prop_map(Op::Insert),
        4 => any::<usize>().prop_map(Op::Remove),
        1 => proptest::collection::vec(0..400u64, 0..20).prop_map(Op::Merge),
        1 => Just(Op::Clear),
    ]
}

/// Whether `k`'s count must be exact: no other key ever inserted agrees
/// with it on the quotient and the shortest remainder in the table, nor on
/// the `initial` bits of quotient and remainder of the first table (an
/// entry whose remainder ran out was copied to every quotient that starts
/// with the bits it had; a removed item's other copies stay).
fn alone(f: &QuotientFilter<u64>, initial: u32, ever: &[u64], k: u64) -> bool {
    let shortest = f
        .remainder_lengths()
        .iter()
        .position(|&c| c > 0)
        .unwrap_or(64) as u32;
    let bits = (f.quotient_bits() + shortest).min(initial);
    let key = |x: u64| f.hasher().hash_one(x).checked_shr(64 - bits).unwrap_or(0);
    let mine = key(k);
    ever.iter().all(|&o| o == k || key(o) != mine)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn no_false_negatives_and_exact_counts(
        q in 2..7u32,
        r in 1..9u32,
        grows in any::<bool>(),
        seed in any::<u64>(),
        ops in proptest::collection::vec(op(), 1..300),
    ) {
        let mut f = QuotientFilter::<u64>::builder_with_bits(q, r)
            .growth(grows)
            .seed(seed)
            .build()
            .unwrap();
        let mut model: HashMap<u64, usize> = HashMap::new();
        let mut ever: Vec<u64> = Vec::new();
        for op in ops {
            match op {
                Op::Insert(k) => {
                    let before = f.clone();
                    let reported = f.contains(&k);
                    match f.insert(&k) {
                        Ok(new) => {
                            prop_assert_eq!(new, !reported);
                            *model.entry(k).or_default() += 1;
                            if !ever.contains(&k) {
                                ever.push(k);
                            }
                        }
                        Err(e) => {
                            prop_assert_eq!(e, InsertError::Full);
                            prop_assert!(!grows || f.quotient_bits() >= 20);
                            prop_assert!(f == before, "a failed insert changed the filter");
                        }
                    }
                }
                Op::Remove(i) => {
                    let mut keys: Vec<u64> = model.keys().copied().collect();
                    keys.sort_unstable();
                    if let Some(&k) = keys.get(i % keys.len().max(1)) {
                        prop_assert_eq!(f.remove(&k), Ok(()));
                        let left = model.get_mut(&k).unwrap();
                        *left -= 1;
                        if *left == 0 {
                            model.remove(&k);
                        }
                    }
                }
                Op::Merge(keys) => {
                    let mut other = f.clone();
                    other.clear();
                    let mut added = Vec::new();
                    for k in keys {
                        if other.insert(&k).is_ok() {
                            added.push(k);
                        }
                    }
                    let before = f.clone();
                    match f.merge(&other) {
                        Ok(()) => {
                            for k in added {
                                *model.entry(k).or_default() += 1;
                                if !ever.contains(&k) {
                                    ever.push(k);
                                }
                            }
                        }
                        Err(MergeError::Shape { .. }) => {
                            prop_assert!(other.expansions() > f.expansions());
                            prop_assert!(f == before);
                        }
                        Err(e) => {
                            prop_assert!(matches!(e, MergeError::Full { .. }), "{:?}", e);
                            prop_assert!(f == before);
                        }
                    }
                }
                Op::Clear => {
                    f.clear();
                    model.clear();
                    prop_assert!(f.is_empty());
                }
            }
            prop_assert_eq!(f.len(), model.values().sum::<usize>());
            for (&k, &copies) in &model {
                prop_assert!(f.contains(&k), "member {} reported absent", k);
                let counted = f.count(&k);
                prop_assert!(counted >= copies, "{} stored {} times, counted {}", k, copies, counted);
                if alone(&f, q + r, &ever, k) {
                    prop_assert_eq!(counted, copies, "count of {}", k);
                }
            }
            // A lookup answers as a count over the item's whole run does,
            // false positives included: for keys never inserted too.
            for k in (0..440u64).step_by(7) {
                prop_assert_eq!(f.contains(&k), f.count(&k) > 0, "lookup of {}", k);
            }
            if let Some(promise) = f.target_fpr() {
                prop_assert!(f.expected_fpr() <= promise * (1.0 + 1e-12),
                    "{} > {}", f.expected_fpr(), promise);
            }
        }
        // The stored form reads back as the same filter.
        let back = QuotientFilter::<u64>::from_bytes(&f.to_bytes()).unwrap();
        prop_assert!(back == f);
    }
}
