//! No key is ever reported absent: property tests over key sets with
//! duplicates and tiny sets, every width and arity, and a large set whose
//! batch lookups prefetch.

mod common;

use bloomlab_fuse::{BinaryFuseFilter, Lookup};
use bloomlab_testkit::keys::{members, probes};
use common::at_one_percent;
use proptest::prelude::*;

/// Every width and arity, for the same keys.
fn each_shape(keys: &[u64], seed: u64, mut check: impl FnMut(&BinaryFuseFilter<u64>)) {
    for bits in bloomlab_fuse::FINGERPRINT_BITS {
        for arity in bloomlab_fuse::ARITIES {
            let filter = BinaryFuseFilter::<u64>::builder_with_bits(bits)
                .arity(arity)
                .seed(seed)
                .build(keys)
                .unwrap_or_else(|e| panic!("{bits}-bit {arity}-wise: {e}"));
            assert_eq!((filter.fingerprint_bits(), filter.arity()), (bits, arity));
            check(&filter);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn keys_are_never_absent(
        distinct in proptest::collection::vec(any::<u64>(), 1..600),
        repeats in proptest::collection::vec(any::<prop::sample::Index>(), 0..300),
        seed in any::<u64>(),
    ) {
        // Duplicates drawn from the set itself, appended.
        let mut keys = distinct.clone();
        keys.extend(repeats.iter().map(|i| *i.get(&distinct)));
        let mut unique = distinct.clone();
        unique.sort_unstable();
        unique.dedup();
        each_shape(&keys, seed, |f| {
            assert!(keys.iter().all(|k| f.contains(k)));
            assert_eq!(f.contains_batch(&keys), vec![true; keys.len()]);
            // Distinct keys, counted once (their 64-bit hashes differ).
            assert_eq!(f.len(), unique.len());
        });
    }

    #[test]
    fn tiny_sets(keys in proptest::collection::vec(0u64..4, 1..3), seed in any::<u64>()) {
        each_shape(&keys, seed, |f| assert!(keys.iter().all(|k| f.contains(k))));
    }
}

#[test]
fn a_million_keys_then_batches_that_prefetch() {
    let keys = members(1, 1_000_000);
    let filter: BinaryFuseFilter<u64> = at_one_percent(2, &keys);
    assert_eq!(filter.len(), keys.len());
    assert!(keys.iter().all(|k| filter.contains(k)));
    assert!(filter.contains_batch(&keys).iter().all(|&x| x));

    // 32-bit fingerprints of 2.5 million keys: a 10.7 MB array, past the
    // size from which batches prefetch.
    let keys = members(3, 2_500_000);
    let filter = BinaryFuseFilter::<u64>::builder_with_bits(32)
        .seed(4)
        .build(&keys)
        .unwrap();
    assert!(filter.memory_bytes() > bloomlab_core::batch::PREFETCH_MIN_BYTES);
    let mut mixed: Vec<u64> = keys[..200_000].to_vec();
    mixed.extend(probes(5, 200_000));
    let one_by_one: Vec<bool> = mixed.iter().map(|k| filter.contains(k)).collect();
    assert_eq!(filter.contains_batch(&mixed), one_by_one);
    assert!(one_by_one[..200_000].iter().all(|&x| x));
    // Through the trait too.
    assert_eq!(Lookup::contains_batch(&filter, &mixed), one_by_one);
}

#[test]
fn items_of_any_type_and_their_borrowed_forms() {
    let words: Vec<String> = (0..5_000).map(|i| format!("word-{i}")).collect();
    let filter = BinaryFuseFilter::<String>::builder(0.001)
        .seed(9)
        .build(&words)
        .unwrap();
    assert!(words.iter().all(|w| filter.contains(w.as_str())));
    assert!(words.iter().all(|w| Lookup::contains(&filter, w)));
    let by_str = BinaryFuseFilter::<str>::builder(0.001)
        .seed(9)
        .build(words.iter().map(String::as_str))
        .unwrap();
    assert!(Lookup::<str>::contains(&by_str, "word-17"));
    // The same hash key and keys: the same array.
    assert_eq!(by_str.to_bytes(), filter.to_bytes());
}

#[test]
fn built_alike_from_a_slice_or_an_iterator() {
    let keys = members(6, 10_000);
    let from_slice: BinaryFuseFilter<u64> = at_one_percent(1, &keys);
    let from_iter: BinaryFuseFilter<u64> = at_one_percent(1, keys.iter().copied());
    assert_eq!(from_slice.to_bytes(), from_iter.to_bytes());
    // A random hash key: another array, the same keys present.
    let random = BinaryFuseFilter::from_keys(&keys, 0.01).unwrap();
    assert!(keys.iter().all(|k| random.contains(k)));
}
