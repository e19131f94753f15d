//! A memory cap: once the next layer would pass it, an insert that needs a
//! new layer fails with `InsertError::Full` and nothing is lost.

use bloomlab_core::{InsertError, Membership};
use bloomlab_scalable::ScalableBloomFilter;
use bloomlab_testkit::keys::{members, probes};

/// Bytes of the first `layers` layers of a (100, 1%) default filter.
fn bytes_of(layers: u64) -> usize {
    bloomlab_core::theory::scalable::total_bits(100, 2, 0.01, 0.85, layers).unwrap() as usize / 8
}

/// A (100, 1%) default filter capped at `cap` bytes, its hash key derived
/// from `seed`.
fn capped(cap: usize, seed: u64) -> ScalableBloomFilter<u64> {
    ScalableBloomFilter::builder(100, 0.01)
        .max_bytes(cap)
        .seed(seed)
        .build()
        .unwrap()
}

#[test]
fn full_when_the_next_layer_would_pass_the_cap() {
    // Room for three layers (100 + 200 + 400 items), one byte short of four.
    let cap = bytes_of(4) - 1;
    let mut f = capped(cap, 5);
    let keys = members(6, 2_000);
    let mut stored = Vec::new();
    let mut refused = None;
    for k in &keys {
        match f.insert(k) {
            Ok(_) => stored.push(*k),
            Err(e) => {
                refused = Some((*k, e));
                break;
            }
        }
    }
    let (key, err) = refused.expect("the cap is reached");
    assert_eq!(err, InsertError::Full);
    assert_eq!(f.layers().len(), 3);
    assert_eq!(f.added(), 700, "every layer is full");
    assert_eq!(f.memory_bytes(), bytes_of(3));
    assert!(f.memory_bytes() <= cap);
    assert_eq!(f.len(), stored.len());

    // Nothing was lost, and nothing changed on the failure.
    let before = f.clone();
    assert_eq!(f.insert(&key), Err(InsertError::Full));
    assert_eq!(f.len(), before.len());
    assert_eq!(f.to_bytes(), before.to_bytes());
    assert!(stored.iter().all(|k| f.contains(k)));
    // The rate is still under the total promised.
    assert!(f.expected_fpr() < 0.01);

    // An item already reported present needs no room: Ok(false).
    assert_eq!(f.insert(&stored[0]), Ok(false));
    assert_eq!(f.len(), stored.len() + 1);

    // The trait reports the same, and insert_all stops at the failure.
    let fresh: Vec<u64> = probes(7, 10).filter(|k| !f.contains(k)).collect();
    let dynamic: &mut dyn Membership<u64> = &mut f;
    assert_eq!(dynamic.insert(&fresh[0]), Err(InsertError::Full));
    assert_eq!(
        Membership::<u64>::insert_all(&mut f, &fresh),
        Err(InsertError::Full)
    );
    assert!(fresh.iter().all(|k| !f.contains(k)));
}

#[test]
fn a_cap_of_one_layer_is_redisbloom_nonscaling() {
    let mut f = capped(bytes_of(1), 8);
    let keys = members(9, 200);
    let ok = keys.iter().take_while(|k| f.insert(*k).is_ok()).count();
    assert_eq!(f.added(), 100);
    assert_eq!(f.len(), ok);
    assert_eq!(f.layers().len(), 1);
    assert_eq!(f.max_bytes(), Some(bytes_of(1)));
}

#[test]
fn clear_after_full_refills_the_same_layers() {
    let cap = bytes_of(2);
    let mut f = capped(cap, 10);
    let keys = members(11, 400);
    let first: Vec<u64> = keys
        .iter()
        .copied()
        .take_while(|k| f.insert(k).is_ok())
        .collect();
    assert_eq!(f.added(), 300);
    f.clear();
    assert!(f.is_empty());
    assert_eq!(f.memory_bytes(), cap, "clear keeps the layers");
    assert_eq!(f.capacity(), 300);
    assert_eq!(f.expected_fpr(), 0.0);
    assert_eq!(f.count_contained(&first), 0, "clear forgets every item");
    let second: Vec<u64> = members(12, 400)
        .iter()
        .copied()
        .take_while(|k| f.insert(k).is_ok())
        .collect();
    assert_eq!(f.added(), 300, "the same two layers take 300 items again");
    assert!(second.iter().all(|k| f.contains(k)));
}
