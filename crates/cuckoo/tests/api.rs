//! The public surface: trait and inherent methods alike, hash entry points,
//! insert_unique, count, custom hashers.

use std::hash::BuildHasher;

use bloomlab_core::{DefaultHasher, Deletable, Filter, InsertError, Membership, RemoveError};
use bloomlab_cuckoo::CuckooFilter;
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::{batch, item_methods};

fn seeded(n: usize, p: f64) -> CuckooFilter<u64> {
    CuckooFilter::builder(n, p).seed(11).build().unwrap()
}

#[test]
fn new_sizes_from_the_paper_formula() {
    // 10,000 items at 0.1%: the least f with fpr(f, 4, 0.94) ≤ 0.001 is 13
    // (7.52 / 8,191 = 0.092%); ⌈10,000 / (4 · 0.94)⌉ = 2,660 buckets, no
    // longer the next power of two (4,096).
    let cf = seeded(10_000, 0.001);
    let plan = bloomlab_cuckoo::plan(10_000, 0.001, 4).unwrap();
    assert_eq!(cf.fingerprint_bits(), 13);
    assert_eq!(cf.bucket_size(), 4);
    assert_eq!(cf.num_buckets(), 2_660);
    assert_eq!(cf.capacity(), 10_640);
    assert_eq!(cf.is_semi_sorted(), plan.semi_sorted);
    let bits = if plan.semi_sorted { 4 * 13 - 4 } else { 4 * 13 };
    assert_eq!(cf.bits_per_bucket(), bits);
    // Whole words: 2,660 · 52 bits = 2,161.25 words → 2,162, 17,296 bytes plain.
    assert_eq!(cf.memory_bytes(), (2_660 * bits as usize).div_ceil(64) * 8);
    assert!(!plan.semi_sorted);
    assert_eq!(cf.memory_bytes(), 17_296);
    assert_eq!(cf.memory_bytes() as u128, plan.table_bytes);
    assert_eq!(cf.max_relocations(), 500);
    // A loose rate still gets 6-bit fingerprints (5 would do), so a large
    // table fills.
    assert_eq!(plan_bits(100_000, 0.4, 4), (5, 6));
    assert_eq!(seeded(100_000, 0.4).fingerprint_bits(), 6);
    // Two-slot buckets: 7 bits at least.
    let two: CuckooFilter<u64> = CuckooFilter::builder(1_000, 0.3)
        .bucket_size(2)
        .build()
        .unwrap();
    assert_eq!(two.fingerprint_bits(), 7);
    // Small tables are planned at half load: 100 items → 100 / (4 · 0.47)
    // = 53.2 → 54 buckets; one item → 1 → 2 (counts are even).
    assert_eq!(seeded(100, 0.01).num_buckets(), 54);
    assert_eq!(seeded(1, 0.01).num_buckets(), 2);
    // Random keys differ.
    let (a, b) = (
        CuckooFilter::<u64>::new(10, 0.01).unwrap(),
        CuckooFilter::<u64>::new(10, 0.01).unwrap(),
    );
    assert_ne!(a.hasher().key(), b.hasher().key());
}

fn plan_bits(n: u64, eps: f64, b: u32) -> (u32, u32) {
    let plan = bloomlab_cuckoo::plan(n, eps, b).unwrap();
    (plan.needed_bits, plan.fingerprint_bits)
}

#[test]
fn the_plan_is_what_new_builds() {
    for n in [1u64, 100, 999, 10_000, 123_457, 2_000_000] {
        for eps in [0.3, 0.03, 1e-3, 1e-5, 1e-9] {
            for b in [2, 4, 8] {
                let plan = bloomlab_cuckoo::plan(n, eps, b).unwrap();
                let built = CuckooFilter::<u64>::builder(n as usize, eps)
                    .bucket_size(b)
                    .seed(1)
                    .build();
                let what = format!("n {n} eps {eps} b {b}");
                if plan.needed_bits > 32 {
                    assert!(built.is_err(), "{what}");
                    continue;
                }
                let cf = built.unwrap();
                assert_eq!(cf.num_buckets(), plan.buckets, "{what}");
                assert_eq!(plan.buckets % 2, 0, "{what}");
                assert_eq!(cf.fingerprint_bits(), plan.fingerprint_bits, "{what}");
                assert_eq!(cf.is_semi_sorted(), plan.semi_sorted, "{what}");
                assert_eq!(
                    u64::from(cf.bits_per_bucket()),
                    plan.bits_per_bucket,
                    "{what}"
                );
                assert_eq!(cf.memory_bytes() as u128, plan.table_bytes, "{what}");
                // The load it plans for holds the items, and the rate there
                // keeps the promise.
                assert!(n as f64 <= plan.load * cf.capacity() as f64, "{what}");
                let rate = bloomlab_core::theory::cuckoo::fpr(plan.fingerprint_bits, b, plan.load);
                assert!(rate <= eps, "{what}: {rate}");
                let bits = plan.table_bytes as f64 * 8.0 / n as f64;
                assert!((plan.bits_per_item - bits).abs() < 1e-9, "{what}");
            }
        }
    }
}

#[test]
fn new_holds_what_it_was_sized_for() {
    // Item counts right at the planned load of tables of many sizes, powers
    // of two or not.
    for (b, load) in [(2u32, 0.80), (4, 0.94), (8, 0.97)] {
        for m in [258u64, 1_000, 4_096, 65_538, 100_000] {
            let n = (load * f64::from(b) * m as f64) as usize;
            let mut cf = CuckooFilter::builder(n, 0.01)
                .bucket_size(b)
                .seed(m)
                .build()
                .unwrap();
            assert_eq!(cf.num_buckets(), m, "b {b} m {m}");
            let keys = members(u64::from(b) * 1_000_003 + m, n);
            assert_eq!(cf.insert_all(&keys).map(|_| cf.len()), Ok(n), "b {b} m {m}");
        }
    }
}

#[test]
fn trait_and_inherent_methods_agree() {
    let keys = members(1, 1_500);
    let probes: Vec<u64> = probes(2, 20_000).collect();
    let methods = item_methods!(CuckooFilter<u64>);
    let mut b = batch::assert_trait_methods_agree(&seeded(2_000, 0.01), &methods, &keys, &probes);
    let mut a = b.clone();
    assert_eq!(Filter::bits_per_item(&a), b.bits_per_item());
    for k in &keys[..500] {
        assert_eq!(Deletable::remove(&mut a, k), b.remove(k));
    }
    assert!(a == b);
    Filter::clear(&mut a);
    b.clear();
    assert!(a == b && a.is_empty());
}

#[test]
fn works_through_dyn_for_sized_and_unsized_items() {
    {
        let mut cf = CuckooFilter::<str>::builder(100, 0.01)
            .seed(11)
            .build()
            .unwrap();
        let words: &mut dyn Deletable<str> = &mut cf;
        assert_eq!(words.insert("cuckoo"), Ok(true));
        assert_eq!(words.insert("cuckoo"), Ok(false));
        assert!(words.contains("cuckoo"));
        assert_eq!(words.remove("cuckoo"), Ok(()));
        assert!(words.contains("cuckoo"), "one copy left");
        assert_eq!(words.remove("cuckoo"), Ok(()));
        assert!(!words.contains("cuckoo"));
        assert_eq!(words.remove("cuckoo"), Err(RemoveError::NotPresent));
    }
    let mut cf = seeded(100, 0.01);
    let numbers: &mut dyn Membership<u64> = &mut cf;
    assert_eq!(numbers.insert(&7), Ok(true));
    assert_eq!(numbers.len(), 1);
}

#[test]
fn hash_entry_points_match_item_methods() {
    let mut a = seeded(1_000, 0.01);
    let mut b = seeded(1_000, 0.01);
    let h = a.hasher().clone();
    for k in members(3, 800) {
        assert_eq!(a.insert(&k), b.insert_hash(h.hash_one(k)));
    }
    assert!(a == b);
    for p in probes(4, 10_000) {
        assert_eq!(a.contains(&p), b.contains_hash(h.hash_one(p)));
        assert_eq!(a.count(&p), b.count_hash(h.hash_one(p)));
    }
    let k = members(3, 1)[0];
    assert_eq!(a.remove(&k), b.remove_hash(h.hash_one(k)));
    assert_eq!(a.insert_unique(&k), b.insert_unique_hash(h.hash_one(k)));
    assert!(a == b);
}

#[test]
fn insert_unique_stores_once() {
    let mut cf = CuckooFilter::<&str>::builder(1_000, 0.001)
        .seed(11)
        .build()
        .unwrap();
    assert_eq!(cf.insert_unique(&"a"), Ok(true));
    assert_eq!(cf.insert_unique(&"a"), Ok(false));
    assert_eq!(cf.count(&"a"), 1);
    assert_eq!(cf.len(), 1);
    assert_eq!(cf.insert(&"a"), Ok(false), "plain insert stores a copy");
    assert_eq!(cf.count(&"a"), 2);
    assert_eq!(cf.len(), 2);
}

#[test]
fn insert_unique_reports_full_on_a_full_table() {
    let mut cf = CuckooFilter::builder_with_buckets(1, 16)
        .bucket_size(2)
        .seed(1)
        .build()
        .unwrap();
    assert_eq!(cf.insert_unique(&1u64), Ok(true));
    assert_eq!(cf.insert_unique(&2u64), Ok(true));
    assert_eq!(cf.insert_unique(&3u64), Err(InsertError::Full));
    assert_eq!(
        cf.insert_unique(&1u64),
        Ok(false),
        "a present item is not Full"
    );
    assert_eq!(cf.len(), 2);
}

#[test]
fn count_follows_inserts_and_removes() {
    let mut cf = seeded(1_000, 0.001);
    for i in 1..=5 {
        cf.insert(&42u64).unwrap();
        assert_eq!(cf.count(&42u64), i);
    }
    for i in (0..5).rev() {
        cf.remove(&42u64).unwrap();
        assert_eq!(cf.count(&42u64), i);
    }
}

#[test]
fn load_and_rate_follow_the_table() {
    let mut cf = CuckooFilter::builder_with_buckets(1 << 8, 10)
        .seed(2)
        .build()
        .unwrap();
    assert_eq!(cf.fill_ratio(), 0.0);
    assert_eq!(cf.expected_fpr(), 0.0);
    assert_eq!(cf.bits_per_item(), None);
    cf.insert_all(&members(5, 512)).unwrap();
    assert_eq!(cf.fill_ratio(), 0.5);
    let by_hand = 1.0 - (1.0 - 1.0 / 1023.0f64).powf(4.0);
    assert!((cf.expected_fpr() - by_hand).abs() < 1e-15);
    assert_eq!(cf.bits_per_item(), Some(20.0));
    let hist = cf.occupancy();
    assert_eq!(hist.len(), 5);
    assert_eq!(hist.iter().sum::<u64>(), 256);
    assert_eq!(
        hist.iter()
            .enumerate()
            .map(|(j, c)| j as u64 * c)
            .sum::<u64>(),
        512
    );
    let before = cf.memory_bytes();
    cf.clear();
    assert_eq!((cf.len(), cf.memory_bytes()), (0, before));
}

#[test]
fn any_build_hasher_works() {
    #[derive(Clone, Default)]
    struct Fnv;
    impl BuildHasher for Fnv {
        type Hasher = FnvHasher;
        fn build_hasher(&self) -> FnvHasher {
            FnvHasher(0xcbf2_9ce4_8422_2325)
        }
    }
    struct FnvHasher(u64);
    impl std::hash::Hasher for FnvHasher {
        fn finish(&self) -> u64 {
            bloomlab_core::hash::mix64(self.0)
        }
        fn write(&mut self, bytes: &[u8]) {
            for &b in bytes {
                self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
            }
        }
    }
    let mut cf: CuckooFilter<u64, Fnv> = CuckooFilter::builder(1_000, 0.01)
        .hasher(Fnv)
        .build()
        .unwrap();
    let keys = members(9, 1_000);
    cf.insert_all(&keys).unwrap();
    assert_eq!(cf.count_contained(&keys), 1_000);
    let _: &DefaultHasher = CuckooFilter::<u64>::new(1, 0.5).unwrap().hasher();
}

#[test]
fn debug_shows_the_shape_not_the_key() {
    let cf: CuckooFilter<u64> = CuckooFilter::builder_with_buckets(16, 12)
        .seed(1)
        .build()
        .unwrap();
    let shown = format!("{cf:?}");
    assert!(
        shown.contains("num_buckets: 16") && shown.contains("fingerprint_bits: 12"),
        "{shown}"
    );
    let key = cf.hasher().key();
    assert!(!shown.contains(&key[0].to_string()));
}
