//! The batch methods answer exactly as the one-at-a-time methods do, and
//! leave the same counters behind.

use bloomlab_core::Membership;
use bloomlab_counting::CountingBloomFilter;
use bloomlab_testkit::keys;

/// 10,000 members in a filter sized for them, and 10,000 probes that are
/// never members (about 100 false positives at 1%). The batch lengths cover
/// the empty batch, batches shorter than the pipeline and batches that do
/// not divide evenly into it.
const ITEMS: usize = 10_000;
const LENGTHS: [usize; 6] = [0, 1, 15, 16, 17, 1_000];

fn filter(width: u32) -> CountingBloomFilter<u64> {
    CountingBloomFilter::builder(ITEMS, 0.01)
        .counter_width(width)
        .seed(3)
        .build()
        .unwrap()
}

/// The members, then 100 of them again: repeats must count as not new.
fn inserts() -> Vec<u64> {
    let mut all = keys::members(5, ITEMS);
    all.extend_from_within(..100);
    all
}

/// Asserts that `contains_batch` over every batch length gives the answers
/// of `contains`, and that those include hits, misses and false positives.
fn assert_lookups_match(f: &CountingBloomFilter<u64>) {
    let members = keys::members(5, ITEMS);
    let mut probes = members.clone();
    probes.extend(keys::probes(5, ITEMS));
    let single: Vec<bool> = probes.iter().map(|k| f.contains(k)).collect();
    assert!(single[..ITEMS].iter().all(|&x| x), "members are present");
    let false_positives = single[ITEMS..].iter().filter(|&&x| x).count();
    assert!(
        false_positives > 0 && false_positives < ITEMS,
        "the non-members include misses and false positives: {false_positives}"
    );
    for len in LENGTHS {
        let got: Vec<bool> = if len == 0 {
            f.contains_batch::<u64>(&[])
        } else {
            probes
                .chunks(len)
                .flat_map(|c| f.contains_batch(c))
                .collect()
        };
        let want = if len == 0 { &[][..] } else { &single[..] };
        assert_eq!(got, want, "batches of {len}");
    }
}

#[test]
fn insert_batch_leaves_the_sequential_counters_at_every_width() {
    let items = inserts();
    for width in [4, 8, 16] {
        let mut one = filter(width);
        let new_one = items.iter().filter(|k| one.insert(*k) == Ok(true)).count();
        assert!(new_one < items.len(), "the repeats were not new");
        for len in LENGTHS.into_iter().filter(|&l| l > 0) {
            let mut batched = filter(width);
            let new_batched: usize = items
                .chunks(len)
                .map(|c| {
                    batched
                        .insert_batch(c)
                        .expect("a counting filter never refuses")
                })
                .sum();
            assert_eq!(new_batched, new_one, "width {width}, batches of {len}");
            assert_eq!(batched.len(), one.len());
            assert_eq!(batched.as_words(), one.as_words());
            assert_eq!(batched.to_bytes(), one.to_bytes());
        }
        let mut empty = filter(width);
        assert_eq!(empty.insert_batch(&[]), Ok(0));
        assert_eq!(empty.to_bytes(), filter(width).to_bytes());
    }
}

#[test]
fn contains_batch_answers_as_contains() {
    for width in [4, 16] {
        let mut f = filter(width);
        f.insert_batch(&keys::members(5, ITEMS)).unwrap();
        assert_lookups_match(&f);
    }
}

#[test]
fn contains_batch_sees_removals() {
    let members = keys::members(5, ITEMS);
    let mut f = filter(4);
    f.insert_batch(&members).unwrap();
    for k in &members[..ITEMS / 2] {
        f.remove(k).unwrap();
    }
    let single: Vec<bool> = members.iter().map(|k| f.contains(k)).collect();
    assert!(single.iter().any(|&x| !x), "some removed items are absent");
    let got: Vec<bool> = members
        .chunks(17)
        .flat_map(|c| f.contains_batch(c))
        .collect();
    assert_eq!(got, single);
}

#[test]
fn the_trait_methods_are_the_batch_methods() {
    let items = inserts();
    let mut one = filter(4);
    let new_one = items.iter().filter(|k| one.insert(*k) == Ok(true)).count();
    let mut f = filter(4);
    assert_eq!(Membership::insert_batch(&mut f, &items), Ok(new_one));
    assert_eq!(f.to_bytes(), one.to_bytes());
    let probes: Vec<u64> = keys::probes(5, 1_000).collect();
    let dynamic: &dyn Membership<u64> = &f;
    assert_eq!(dynamic.contains_batch(&probes), f.contains_batch(&probes));
    assert_eq!(Membership::contains_batch(&f, &items[..50]), vec![true; 50]);
}
