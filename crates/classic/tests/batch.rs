//! The batch methods answer exactly as the one-at-a-time methods do, and
//! leave the same table behind.

use bloomlab_classic::{AtomicBloomFilter, BlockedBloomFilter, BloomFilter};
use bloomlab_core::Membership;
use bloomlab_testkit::keys;

/// 10,000 members in a filter sized for them, and 10,000 non-members, so the
/// probes include both answers (about 100 false positives at 1%). The batch
/// lengths cover the empty batch, batches shorter than the pipeline and
/// batches that do not divide evenly into it.
const ITEMS: usize = 10_000;
const LENGTHS: [usize; 6] = [0, 1, 15, 16, 17, 1_000];

fn probes() -> Vec<u64> {
    let mut all = keys::members(5, ITEMS);
    all.extend(keys::probes(5, ITEMS));
    all
}

#[test]
fn bloom_batches_match_single_calls() {
    let members = keys::members(5, ITEMS);
    let mut one = BloomFilter::builder(ITEMS, 0.01).seed(3).build().unwrap();
    let mut batched = one.clone();
    let new_one = members
        .iter()
        .filter(|k| one.insert(*k) == Ok(true))
        .count();
    let new_batched: usize = members
        .chunks(1_000)
        .map(|c| batched.insert_batch(c).expect("never refused"))
        .sum();
    assert_eq!(new_batched, new_one);
    assert_eq!(batched, one);
    let probes = probes();
    let single: Vec<bool> = probes.iter().map(|k| one.contains(k)).collect();
    assert!(single.iter().any(|&x| !x), "the probes include misses");
    for len in LENGTHS.into_iter().filter(|&l| l > 0) {
        let got: Vec<bool> = probes
            .chunks(len)
            .flat_map(|c| one.contains_batch(c))
            .collect();
        assert_eq!(got, single, "batches of {len}");
    }
    assert!(one.contains_batch::<u64>(&[]).is_empty());
}

#[test]
fn blocked_batches_match_single_calls() {
    let members = keys::members(5, ITEMS);
    let mut one = BlockedBloomFilter::builder(ITEMS, 0.01)
        .seed(3)
        .build()
        .unwrap();
    let mut batched = one.clone();
    let new_one = members
        .iter()
        .filter(|k| one.insert(*k) == Ok(true))
        .count();
    let new_batched: usize = members
        .chunks(17)
        .map(|c| batched.insert_batch(c).expect("never refused"))
        .sum();
    assert_eq!(new_batched, new_one);
    assert_eq!(batched, one);
    let probes = probes();
    let single: Vec<bool> = probes.iter().map(|k| one.contains(k)).collect();
    assert!(single.iter().any(|&x| !x), "the probes include misses");
    for len in LENGTHS.into_iter().filter(|&l| l > 0) {
        let got: Vec<bool> = probes
            .chunks(len)
            .flat_map(|c| one.contains_batch(c))
            .collect();
        assert_eq!(got, single, "batches of {len}");
    }
    assert!(one.contains_batch::<u64>(&[]).is_empty());
}

#[test]
fn atomic_batches_match_single_calls() {
    let members = keys::members(5, ITEMS);
    let one = AtomicBloomFilter::builder(ITEMS, 0.01)
        .seed(3)
        .build()
        .unwrap();
    let batched = AtomicBloomFilter::builder(ITEMS, 0.01)
        .seed(3)
        .build()
        .unwrap();
    let new_one = members
        .iter()
        .filter(|k| one.insert(*k) == Ok(true))
        .count();
    let new_batched: usize = members
        .chunks(1_000)
        .map(|c| batched.insert_batch(c).expect("never refused"))
        .sum();
    assert_eq!(new_batched, new_one);
    assert_eq!(batched.to_bloom(), one.to_bloom());
    let probes = probes();
    let single: Vec<bool> = probes.iter().map(|k| one.contains(k)).collect();
    let got: Vec<bool> = probes
        .chunks(33)
        .flat_map(|c| one.contains_batch(c))
        .collect();
    assert_eq!(got, single);
}

#[test]
fn the_trait_methods_are_the_batch_methods() {
    let members = keys::members(9, 100);
    let mut f = BlockedBloomFilter::builder(100, 0.01)
        .seed(3)
        .build()
        .unwrap();
    let new = Membership::insert_batch(&mut f, &members).unwrap();
    assert_eq!(
        new,
        members.len(),
        "100 distinct keys, none a false positive here"
    );
    assert_eq!(Membership::contains_batch(&f, &members), vec![true; 100]);
    let filter: &dyn Membership<u64> = &f;
    assert_eq!(filter.contains_batch(&members[..3]), [true; 3]);
}
