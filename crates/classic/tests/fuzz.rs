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

use bloomlab_classic::{
    ATOMIC_TAG, AtomicBloomFilter, BLOCKED_TAG, BlockLayout, BlockedBloomFilter, BloomFilter,
    CLASSIC_TAG, MergeError,
};
use bloomlab_core::Tag;
use bloomlab_testkit::batch::Methods;
use bloomlab_testkit::fuzz::{self, EXTREME_HASHES, Field, Kind, Plan, Sample};
use bloomlab_testkit::item_methods;
use bloomlab_testkit::keys::members;
use bloomlab_testkit::merge::Merge;

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
    Field::params(
        0,
        &[
            (size, Kind::U64),
            ("num_hashes", Kind::U32),
            ("len", Kind::U64),
        ],
    )
}

/// Three small classic filters: a sized one half full, one bit and one hash
/// (which takes one item, 1), and 200 bits (a partial last word) with the
/// most hashes.
fn classic_filters() -> Vec<BloomFilter<u64>> {
    let builders = [
        (BloomFilter::builder(100, 0.01), 50),
        (BloomFilter::builder_with_bits(1, 1), 0),
        (BloomFilter::builder_with_bits(200, 64), 5),
    ];
    let mut filters = fuzz::seeded(builders, |b, seed| b.seed(seed).build().unwrap());
    filters[1].insert(&1u64).unwrap();
    filters
}

fn plan(name: &'static str, variant: Tag, samples: Vec<Sample>, cases: u64) -> Plan {
    Plan::new(name, variant, samples).cases(cases, 12)
}

/// Item and hash inserts and lookups through a filter's own methods:
/// [`fuzz::use_items`] of a few keys, and each extreme hash looked up, then
/// inserted and reported present.
fn use_items<F>(
    f: &mut F,
    methods: &Methods<F>,
    insert_hash: fn(&mut F, u64) -> bool,
    contains_hash: fn(&F, u64) -> bool,
) {
    for h in EXTREME_HASHES {
        let _ = contains_hash(f, h);
    }
    fuzz::use_items(f, methods, &members(40, 24));
    for h in EXTREME_HASHES {
        insert_hash(f, h);
        assert!(contains_hash(f, h), "hash {h:#x} absent after insert_hash");
    }
}

/// The reads every classic filter has as inherent methods, then
/// [`use_items`] through its own item and hash methods (`insert_hash`, whose
/// signature differs, given), as `item_methods!` takes the inherent ones.
macro_rules! use_inherent {
    ($f:expr, $filter:ty, $insert_hash:expr) => {{
        let f: &mut $filter = $f;
        let _ = (f.len(), f.is_empty(), f.memory_bytes());
        let _ = (f.count_ones(), f.fill_ratio(), f.estimate_count());
        let _ = (f.expected_fpr(), f.estimated_fpr());
        let methods = item_methods!($filter);
        use_items(f, &methods, $insert_hash, <$filter>::contains_hash);
    }};
}

/// Merges with the filter's own copy, which must work, and with `other`,
/// which may not: `[union, intersect]`.
fn use_merges<F: Clone>(f: &mut F, other: &F, merges: [Merge<F, MergeError>; 2]) {
    let copy = f.clone();
    for merge in merges {
        merge(f, &copy).expect("a filter merges with its copy");
    }
    for merge in merges {
        let _ = merge(f, other);
    }
}

#[test]
fn classic_decode_and_use() {
    let plan = plan(
        "classic",
        CLASSIC_TAG,
        fuzz::samples(classic_filters(), |_| fields("num_bits")),
        CLASSIC_CASES,
    );
    fuzz::run_decoder(&plan, BloomFilter::from_bytes, use_classic);
}

/// Every inherent method of a [`BloomFilter`], then
/// [`fuzz::use_membership`].
fn use_classic(f: &mut BloomFilter<u64>) {
    let _ = (f.num_bits(), f.num_hashes(), f.hasher(), f.as_words().len());
    use_inherent!(f, BloomFilter<u64>, BloomFilter::insert_hash);
    let other = BloomFilter::builder_with_bits(f.num_bits() % 1000 + 1, 1).seed(9);
    use_merges(
        f,
        &other.build().unwrap(),
        [BloomFilter::union, BloomFilter::intersect],
    );
    let rebuilt = BloomFilter::from_words(
        f.as_words().to_vec(),
        f.num_bits(),
        f.num_hashes(),
        f.len(),
        f.hasher().clone(),
    )
    .expect("a filter's own parts rebuild it");
    assert!(rebuilt == *f);
    let _ = format!("{f:?}");
    let bytes = f.to_bytes();
    BloomFilter::<u64>::from_bytes(&bytes).expect("the filter's bytes decode after use");
    fuzz::use_membership(f);
}

#[test]
fn blocked_decode_and_use() {
    let builders = [
        (BlockedBloomFilter::builder(100, 0.01), 60),
        (
            BlockedBloomFilter::builder_with_blocks(1, 1).layout(BlockLayout::Positions),
            40,
        ),
        (BlockedBloomFilter::builder_with_blocks(2, 16), 3),
    ];
    let filters = fuzz::seeded(builders, |b, seed| b.seed(seed).build().unwrap());
    let samples = fuzz::samples(filters, |_| fields("num_blocks"));
    let plan = plan("blocked", BLOCKED_TAG, samples, BLOCKED_CASES);
    fuzz::run_decoder(&plan, BlockedBloomFilter::from_bytes, use_blocked);
}

/// Every inherent method of a [`BlockedBloomFilter`], then
/// [`fuzz::use_membership`].
fn use_blocked(f: &mut BlockedBloomFilter<u64>) {
    let _ = (f.num_blocks(), f.num_bits(), f.num_hashes(), f.hasher());
    use_inherent!(f, BlockedBloomFilter<u64>, BlockedBloomFilter::insert_hash);
    let other = BlockedBloomFilter::builder_with_blocks(f.num_blocks() % 7 + 1, 1)
        .layout(BlockLayout::Positions)
        .seed(9);
    let merges = [BlockedBloomFilter::union, BlockedBloomFilter::intersect];
    use_merges(f, &other.build().unwrap(), merges);
    let _ = format!("{f:?}");
    let _ = (f.estimated_fpr(), f.estimate_count());
    let bytes = f.to_bytes();
    BlockedBloomFilter::<u64>::from_bytes(&bytes).expect("the filter's bytes decode after use");
    fuzz::use_membership(f);
}

#[test]
fn atomic_decode_and_use() {
    let atomic = classic_filters().into_iter().map(AtomicBloomFilter::from);
    let samples = fuzz::samples(atomic, |_| fields("num_bits"));
    let plan = plan("atomic", ATOMIC_TAG, samples, ATOMIC_CASES);
    fuzz::run_decoder(&plan, AtomicBloomFilter::from_bytes, use_atomic);
}

/// Every inherent method of an [`AtomicBloomFilter`], inserts from two
/// threads at once among them, then [`fuzz::use_membership`].
fn use_atomic(f: &mut AtomicBloomFilter<u64>) {
    let _ = (f.num_bits(), f.num_hashes(), f.hasher());
    use_inherent!(f, AtomicBloomFilter<u64>, |f, h| f.insert_hash(h));
    let keys = members(40, 24);
    let shared = &*f;
    std::thread::scope(|s| {
        s.spawn(|| shared.insert_batch(&keys[..12]));
        s.spawn(|| {
            for k in &keys[12..] {
                shared.insert(k).unwrap();
            }
        });
    });
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
    fuzz::use_membership(f);
}
