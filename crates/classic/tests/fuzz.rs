//! Decode-and-use fuzzing of the three classic filters (issue 12): arbitrary
//! bytes, and real filters' files with their fields changed and the checksum
//! recomputed, go to `from_bytes`; every method is then called on whatever
//! decodes. No case may panic, hang (10 s per case) or abort.
//!
//! Each filter gets the directed cases of [`fuzz::Plan`] (every stored field
//! of three small filters at each edge value, among them an item count of
//! `u64::MAX`, which made `BlockedBloomFilter::expected_fpr` run forever
//! before issue 12) and then random ones, as many as fit a few seconds in the
//! test profile on this two-core machine:
//!
//! - classic, [`CLASSIC_CASES`]: a case costs about 7 µs on average (most
//!   inputs are refused in microseconds; one that decodes takes 30–100 µs
//!   for some 60 inserts and probes and four encodings): 2 s measured;
//! - atomic, [`ATOMIC_CASES`]: about 30 µs, as two threads insert at once:
//!   3 s measured;
//! - blocked, [`BLOCKED_CASES`]: a decoded filter of two or more blocks with
//!   a huge item count costs 0.1–0.3 s, because `expected_fpr` evaluates the
//!   exact blocked rate (up to about 10^7 steps, 40–130 ms, by its documented
//!   bound) and is called three times; a random case averages 3–4 ms, so
//!   19 s measured.
//!
//! The three tests run side by side, so the binary takes about as long as the
//! blocked one (22 s with start-up): within the 20–30 s a variant may spend
//! in CI.
//!
//! To see one case: `BLOOMLAB_FUZZ_CASE=<index> cargo test -p bloomlab-classic --test fuzz`.

use bloomlab_classic::{AtomicBloomFilter, BlockedBloomFilter, BloomFilter};
use bloomlab_core::codec::Variant;
use bloomlab_testkit::fuzz::{self, Field, Kind, Plan, Sample};
use bloomlab_testkit::keys::members;

/// Random cases after the directed ones, per filter (see the module docs
/// for the time each takes).
const CLASSIC_CASES: u64 = 300_000;
/// As [`CLASSIC_CASES`], for the atomic filter.
const ATOMIC_CASES: u64 = 100_000;
/// As [`CLASSIC_CASES`], for the blocked filter, whose exact rate is slow at
/// large loads.
const BLOCKED_CASES: u64 = 5_000;

/// The stored parameters of all three filters ([`bloomlab_classic::codec`]).
fn fields(size: &'static str) -> Vec<Field> {
    vec![
        Field::param(size, 0, Kind::U64),
        Field::param("num_hashes", 8, Kind::U32),
        Field::param("len", 12, Kind::U64),
    ]
}

fn sample(label: String, bytes: Vec<u8>, size: &'static str) -> Sample {
    Sample {
        label,
        bytes,
        fields: fields(size),
    }
}

/// Three small classic filters: a sized one half full, one bit and one hash,
/// and 200 bits (a partial last word) with the most hashes.
fn classic_filters() -> Vec<BloomFilter<u64>> {
    let mut a = BloomFilter::builder(100, 0.01).seed(1).build().unwrap();
    a.insert_batch(&members(1, 50)).unwrap();
    let mut b = BloomFilter::builder_with_bits(1, 1)
        .seed(2)
        .build()
        .unwrap();
    b.insert(&1u64).unwrap();
    let mut c = BloomFilter::builder_with_bits(200, 64)
        .seed(3)
        .build()
        .unwrap();
    c.insert_batch(&members(3, 5)).unwrap();
    vec![a, b, c]
}

fn classic_samples(to_bytes: impl Fn(BloomFilter<u64>) -> Vec<u8>) -> Vec<Sample> {
    classic_filters()
        .into_iter()
        .map(|f| {
            let label = format!("m={} k={} n={}", f.num_bits(), f.num_hashes(), f.len());
            sample(label, to_bytes(f), "num_bits")
        })
        .collect()
}

fn plan(name: &'static str, variant: Variant, samples: Vec<Sample>, cases: u64) -> Plan {
    let mut plan = Plan::new(name, variant, samples);
    plan.random_cases = cases;
    plan.seed = 12;
    plan
}

/// Probes: a few items and the extreme hashes.
const HASHES: [u64; 4] = [0, 1, u64::MAX, 0x8000_0000_0000_0000];

#[test]
fn classic_decode_and_use() {
    let plan = plan(
        "classic",
        Variant::Classic,
        classic_samples(|f| f.to_bytes()),
        CLASSIC_CASES,
    );
    let report = fuzz::run(&plan, |bytes| match BloomFilter::from_bytes(bytes) {
        Ok(mut f) => {
            use_classic(&mut f);
            fuzz::use_membership(&mut f);
            true
        }
        Err(_) => false,
    });
    eprintln!("classic: {report}");
}

/// Every inherent method of a [`BloomFilter`].
fn use_classic(f: &mut BloomFilter<u64>) {
    let _ = (f.num_bits(), f.num_hashes(), f.hasher(), f.as_words().len());
    let _ = (f.len(), f.is_empty(), f.memory_bytes());
    let _ = (f.count_ones(), f.fill_ratio(), f.estimate_count());
    let _ = (f.expected_fpr(), f.estimated_fpr());
    for h in HASHES {
        let _ = f.contains_hash(h);
    }
    let keys = members(40, 24);
    let _ = f.contains_batch(&keys);
    let _ = f.insert(&keys[0]);
    let _ = f.insert(&u64::MAX);
    let _ = f.contains(&u64::MAX);
    let _ = f.insert_batch(&keys[1..]);
    for h in HASHES {
        f.insert_hash(h);
        assert!(f.contains_hash(h), "hash {h:#x} absent after insert_hash");
    }
    assert!(keys.iter().all(|k| f.contains(k)), "a member is absent");
    let copy = f.clone();
    f.union(&copy).expect("a filter merges with its copy");
    f.intersect(&copy)
        .expect("a filter intersects with its copy");
    let other = BloomFilter::builder_with_bits(f.num_bits() % 1000 + 1, 1)
        .seed(9)
        .build()
        .unwrap();
    let _ = f.union(&other);
    let _ = f.intersect(&other);
    let rebuilt = BloomFilter::from_words(
        f.as_words().to_vec(),
        f.num_bits(),
        f.num_hashes(),
        f.len(),
        *f.hasher(),
    )
    .expect("a filter's own parts rebuild it");
    assert!(rebuilt == *f);
    let _ = format!("{f:?}");
    let bytes = f.to_bytes();
    BloomFilter::<u64>::from_bytes(&bytes).expect("the filter's bytes decode after use");
}

#[test]
fn blocked_decode_and_use() {
    let mut a = BlockedBloomFilter::builder(100, 0.01)
        .seed(1)
        .build()
        .unwrap();
    a.insert_batch(&members(1, 60)).unwrap();
    let mut b = BlockedBloomFilter::builder_with_blocks(1, 1)
        .seed(2)
        .build()
        .unwrap();
    b.insert_batch(&members(2, 40)).unwrap();
    let mut c = BlockedBloomFilter::builder_with_blocks(2, 16)
        .seed(3)
        .build()
        .unwrap();
    c.insert_batch(&members(3, 3)).unwrap();
    let samples = [a, b, c]
        .iter()
        .map(|f| {
            let label = format!(
                "blocks={} k={} n={}",
                f.num_blocks(),
                f.num_hashes(),
                f.len()
            );
            sample(label, f.to_bytes(), "num_blocks")
        })
        .collect();
    let plan = plan("blocked", Variant::Blocked, samples, BLOCKED_CASES);
    let report = fuzz::run(&plan, |bytes| match BlockedBloomFilter::from_bytes(bytes) {
        Ok(mut f) => {
            use_blocked(&mut f);
            fuzz::use_membership(&mut f);
            true
        }
        Err(_) => false,
    });
    eprintln!("blocked: {report}");
}

/// Every inherent method of a [`BlockedBloomFilter`].
fn use_blocked(f: &mut BlockedBloomFilter<u64>) {
    let _ = (f.num_blocks(), f.num_bits(), f.num_hashes(), f.hasher());
    let _ = (f.len(), f.is_empty(), f.memory_bytes());
    let _ = (f.count_ones(), f.fill_ratio(), f.estimate_count());
    let _ = (f.expected_fpr(), f.estimated_fpr());
    for h in HASHES {
        let _ = f.contains_hash(h);
    }
    let keys = members(40, 24);
    let _ = f.contains_batch(&keys);
    let _ = f.insert(&keys[0]);
    let _ = f.insert(&u64::MAX);
    let _ = f.contains(&u64::MAX);
    let _ = f.insert_batch(&keys[1..]);
    for h in HASHES {
        f.insert_hash(h);
        assert!(f.contains_hash(h), "hash {h:#x} absent after insert_hash");
    }
    assert!(keys.iter().all(|k| f.contains(k)), "a member is absent");
    let copy = f.clone();
    f.union(&copy).expect("a filter merges with its copy");
    f.intersect(&copy)
        .expect("a filter intersects with its copy");
    let other = BlockedBloomFilter::builder_with_blocks(f.num_blocks() % 7 + 1, 1)
        .seed(9)
        .build()
        .unwrap();
    let _ = f.union(&other);
    let _ = f.intersect(&other);
    let _ = format!("{f:?}");
    let _ = (f.estimated_fpr(), f.estimate_count());
    let bytes = f.to_bytes();
    BlockedBloomFilter::<u64>::from_bytes(&bytes).expect("the filter's bytes decode after use");
}

#[test]
fn atomic_decode_and_use() {
    let samples = classic_samples(|f| AtomicBloomFilter::from(f).to_bytes());
    let plan = plan("atomic", Variant::Atomic, samples, ATOMIC_CASES);
    let report = fuzz::run(&plan, |bytes| match AtomicBloomFilter::from_bytes(bytes) {
        Ok(mut f) => {
            use_atomic(&mut f);
            fuzz::use_membership(&mut f);
            true
        }
        Err(_) => false,
    });
    eprintln!("atomic: {report}");
}

/// Every inherent method of an [`AtomicBloomFilter`], inserts from two
/// threads at once among them.
fn use_atomic(f: &mut AtomicBloomFilter<u64>) {
    let _ = (f.num_bits(), f.num_hashes(), f.hasher());
    let _ = (f.len(), f.is_empty(), f.memory_bytes());
    let _ = (f.count_ones(), f.fill_ratio(), f.estimate_count());
    let _ = (f.expected_fpr(), f.estimated_fpr());
    for h in HASHES {
        let _ = f.contains_hash(h);
    }
    let keys = members(40, 24);
    let _ = f.contains_batch(&keys);
    let shared = &*f;
    std::thread::scope(|s| {
        s.spawn(|| shared.insert_batch(&keys[..12]));
        s.spawn(|| {
            for k in &keys[12..] {
                shared.insert(k).unwrap();
            }
        });
    });
    let _ = f.insert(&u64::MAX);
    let _ = f.contains(&u64::MAX);
    for h in HASHES {
        f.insert_hash(h);
        assert!(f.contains_hash(h), "hash {h:#x} absent after insert_hash");
    }
    assert!(keys.iter().all(|k| f.contains(k)), "a member is absent");
    let plain = f.to_bloom();
    assert_eq!(plain.len(), f.len());
    let copy = f.clone();
    let back = AtomicBloomFilter::from(copy.into_bloom());
    assert_eq!(
        back.to_bytes(),
        f.to_bytes(),
        "into_bloom and back changes the filter"
    );
    let _ = format!("{f:?}");
    let bytes = f.to_bytes();
    AtomicBloomFilter::<u64>::from_bytes(&bytes).expect("the filter's bytes decode after use");
    f.clear();
    assert!(f.is_empty() && f.count_ones() == 0);
}
