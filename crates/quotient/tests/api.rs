//! The filter's operations on items, and its sizing.

use bloomlab_quotient::{InsertError, QuotientFilter, RemoveError};
use bloomlab_testkit::keys::{members, probes};

/// Inserts each of `keys`; none may be refused.
fn insert_each(f: &mut QuotientFilter<u64>, keys: &[u64]) {
    for k in keys {
        f.insert(k).unwrap();
    }
}

#[test]
fn inserted_items_are_found_counted_and_removed() {
    let mut f = QuotientFilter::<u64>::builder(10_000, 0.01)
        .seed(1)
        .build()
        .unwrap();
    let keys = members(1, 9_000);
    insert_each(&mut f, &keys);
    assert_eq!(f.len(), 9_000);
    assert!(keys.iter().all(|k| f.contains(k)));
    f.insert(&keys[0]).unwrap();
    assert!(f.count(&keys[0]) >= 2);
    for k in &keys[..4_000] {
        f.remove(k).unwrap();
    }
    assert!(keys[4_000..].iter().all(|k| f.contains(k)));
    assert_eq!(f.len(), 5_001);
    let absent = probes(2, 100_000).filter(|p| f.contains(p)).count();
    assert!(absent < 1_000, "{absent}");
}

#[test]
fn a_full_filter_refuses_and_keeps_everything() {
    let mut f = QuotientFilter::<u64>::builder_with_bits(6, 8)
        .seed(2)
        .build()
        .unwrap();
    let capacity = f.capacity();
    assert_eq!(capacity, 60);
    let keys = members(3, 60);
    insert_each(&mut f, &keys);
    let before = f.clone();
    assert_eq!(f.insert(&12345), Err(InsertError::Full));
    assert!(f == before);
    assert!(keys.iter().all(|k| f.contains(k)));
    // Removes of items the filter proves absent are refused, changing nothing.
    let absent: Vec<u64> = probes(7, 1_000).filter(|p| !f.contains(p)).collect();
    assert!(absent.len() > 700);
    for p in &absent {
        assert_eq!(f.remove(p), Err(RemoveError::NotPresent));
    }
    assert!(f == before);
}

#[test]
fn growth_doubles_and_keeps_every_item() {
    let mut f = QuotientFilter::<u64>::builder(1_000, 0.01)
        .growth(true)
        .seed(4)
        .build()
        .unwrap();
    let keys = members(5, 200_000);
    insert_each(&mut f, &keys);
    assert!(f.expansions() >= 7, "{}", f.expansions());
    assert!(keys.iter().all(|k| f.contains(k)));
    let fp = probes(6, 200_000).filter(|p| f.contains(p)).count();
    assert!(f.expected_fpr() <= 0.01);
    assert!(fp < 2_000, "{fp} {}", f.expected_fpr());
    for k in &keys[..100_000] {
        f.remove(k).unwrap();
    }
    assert!(keys[100_000..].iter().all(|k| f.contains(k)));
}
