//! bloomlab-classic against the Rust Bloom filters people use: insert,
//! lookup of members (hits) and of non-members (misses), at 1,000,000 items
//! and 1%.
//!
//! Each iteration handles a batch of 10,000 keys, cycling through a million,
//! so the tables (about 1.2 MB) and keys (8 MB) are read as a real workload
//! reads them, not from one hot cache line. Insert batches go into the full
//! filter (its keys are already in it), so every insert does the full work
//! without raising the load. Each bloomlab filter also has a `(batch)` row:
//! the same batch through `insert_batch` / `contains_batch` (hash a group of
//! keys, prefetch their memory, then probe), counting the `true` answers.
//!
//! The hasher, and whether it could be held fixed, for each subject:
//! - `bloomlab::*`: keyed SipHash-1-3, `DefaultHasher::from_seed(7)`, one
//!   hash per item. This is the reference every peer is held to.
//! - `fastbloom (SipHash-1-3)`: fastbloom takes any `BuildHasher`; it gets
//!   ours, so it hashes exactly as bloomlab does (once per item).
//! - `fastbloom (foldhash)`: the same filter with `foldhash::fast`, seeded
//!   (`FixedState::with_seed(7)`). fastbloom 0.17's own default is a random
//!   SipHash-1-3, so this row is the fast-hasher configuration its
//!   documentation suggests, not its default. foldhash is much cheaper than
//!   SipHash and makes no claim to resist crafted keys, so this row shows
//!   what the hash costs; it is not a like-for-like comparison.
//! - `bloomfilter`: takes no hasher; it always hashes twice with its own
//!   SipHash-1-3 keyed from a 32-byte seed. The seed is our two keys
//!   (`from_seed(7)` and `from_seed(8)`), so its first hash is bit for bit
//!   ours; it computes a second one, which bloomlab does not.
//! - `probabilistic-collections::BloomFilter`: takes a pair of
//!   `BuildHasher`s; it gets ours, seeds 7 and 8, and hashes every item with
//!   both (two SipHash-1-3 passes against bloomlab's one).
//! - `xorf::BinaryFuse8`: a static filter (built once from all the keys, no
//!   insert), listed as a reference, never as a peer to beat. It takes `u64`
//!   keys only, so it is built from the SipHash-1-3 hashes of the members
//!   (`DefaultHasher::from_seed(7).hash_one(k)`, deduplicated as it requires)
//!   and each lookup hashes its key the same way in the timed loop: the
//!   hasher is held fixed. Its rate is about 0.4% (8-bit fingerprints), not
//!   1%: it has no rate setting.

use std::hash::BuildHasher;
use std::hint::black_box;
use std::time::Duration;

use bloomlab::classic::{AtomicBloomFilter, BlockedBloomFilter, BloomFilter};
use bloomlab_core::DefaultHasher;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use xorf::{BinaryFuse8, Filter};

const ITEMS: usize = 1_000_000;
const FPR: f64 = 0.01;
const BATCH: usize = 10_000;
const SEED: u64 = 7;
const PARAM: &str = "1M items, 1%";

type Fastbloom = fastbloom::BloomFilter<DefaultHasher>;
type Foldbloom = fastbloom::BloomFilter<foldhash::fast::FixedState>;
type Bloomfilter = bloomfilter::Bloom<u64>;
type Probabilistic = probabilistic_collections::bloom::BloomFilter<u64, DefaultHasher>;

/// Member keys (top bit clear) and non-member keys (top bit set), seeded.
fn keys() -> (Vec<u64>, Vec<u64>) {
    bloomlab_benches::keys(2024, ITEMS)
}

/// The one-key-at-a-time operations every dynamic filter under test offers.
trait Subject {
    fn insert(&mut self, key: &u64);
    fn contains(&self, key: &u64) -> bool;
}

impl Subject for BloomFilter<u64> {
    fn insert(&mut self, key: &u64) {
        BloomFilter::insert(self, key).unwrap();
    }
    fn contains(&self, key: &u64) -> bool {
        BloomFilter::contains(self, key)
    }
}

impl Subject for BlockedBloomFilter<u64> {
    fn insert(&mut self, key: &u64) {
        BlockedBloomFilter::insert(self, key).unwrap();
    }
    fn contains(&self, key: &u64) -> bool {
        BlockedBloomFilter::contains(self, key)
    }
}

impl Subject for AtomicBloomFilter<u64> {
    fn insert(&mut self, key: &u64) {
        AtomicBloomFilter::insert(self, key).unwrap();
    }
    fn contains(&self, key: &u64) -> bool {
        AtomicBloomFilter::contains(self, key)
    }
}

impl<S: BuildHasher> Subject for fastbloom::BloomFilter<S> {
    fn insert(&mut self, key: &u64) {
        fastbloom::BloomFilter::insert(self, key);
    }
    fn contains(&self, key: &u64) -> bool {
        fastbloom::BloomFilter::contains(self, key)
    }
}

impl Subject for Bloomfilter {
    fn insert(&mut self, key: &u64) {
        self.set(key);
    }
    fn contains(&self, key: &u64) -> bool {
        self.check(key)
    }
}

impl Subject for Probabilistic {
    fn insert(&mut self, key: &u64) {
        Probabilistic::insert(self, key);
    }
    fn contains(&self, key: &u64) -> bool {
        Probabilistic::contains(self, key)
    }
}

/// `xorf::BinaryFuse8` over our SipHash-1-3 hashes of the keys.
struct Fuse {
    filter: BinaryFuse8,
    hasher: DefaultHasher,
}

impl Fuse {
    fn new(members: &[u64]) -> Self {
        let hasher = DefaultHasher::from_seed(SEED);
        let mut hashes: Vec<u64> = members.iter().map(|k| hasher.hash_one(k)).collect();
        hashes.sort_unstable();
        hashes.dedup();
        let filter = BinaryFuse8::try_from(&hashes).expect("distinct hashes");
        Self { filter, hasher }
    }

    fn contains(&self, key: &u64) -> bool {
        self.filter.contains(&self.hasher.hash_one(key))
    }
}

/// The filters under test, each built for a million items at 1%.
struct Subjects {
    classic: BloomFilter<u64>,
    blocked: BlockedBloomFilter<u64>,
    atomic: AtomicBloomFilter<u64>,
    fastbloom: Fastbloom,
    foldbloom: Foldbloom,
    bloomfilter: Bloomfilter,
    probabilistic: Probabilistic,
}

/// `bloomfilter`'s 32-byte seed: the keys of our hashers for seeds 7 and 8,
/// which makes its first SipHash-1-3 pass equal to ours.
fn bloomfilter_seed() -> [u8; 32] {
    let mut seed = [0u8; 32];
    let words = [SEED, SEED + 1]
        .into_iter()
        .flat_map(|s| DefaultHasher::from_seed(s).key());
    for (chunk, word) in seed.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    seed
}

impl Subjects {
    fn new() -> Self {
        Self {
            classic: BloomFilter::builder(ITEMS, FPR)
                .seed(SEED)
                .build()
                .expect("valid size"),
            blocked: BlockedBloomFilter::builder(ITEMS, FPR)
                .seed(SEED)
                .build()
                .expect("valid size"),
            atomic: AtomicBloomFilter::builder(ITEMS, FPR)
                .seed(SEED)
                .build()
                .expect("valid size"),
            fastbloom: fastbloom::BloomFilter::with_false_pos(FPR)
                .hasher(DefaultHasher::from_seed(SEED))
                .expected_items(ITEMS),
            foldbloom: fastbloom::BloomFilter::with_false_pos(FPR)
                .hasher(foldhash::fast::FixedState::with_seed(SEED))
                .expected_items(ITEMS),
            bloomfilter: Bloomfilter::new_for_fp_rate_with_seed(ITEMS, FPR, &bloomfilter_seed())
                .expect("valid size"),
            probabilistic: Probabilistic::with_hashers(
                ITEMS,
                FPR,
                [
                    DefaultHasher::from_seed(SEED),
                    DefaultHasher::from_seed(SEED + 1),
                ],
            ),
        }
    }

    fn fill(&mut self, keys: &[u64]) {
        for k in keys {
            self.classic.insert(k).unwrap();
            self.blocked.insert(k).unwrap();
            self.atomic.insert(k).unwrap();
            Subject::insert(&mut self.fastbloom, k);
            Subject::insert(&mut self.foldbloom, k);
            self.bloomfilter.set(k);
            self.probabilistic.insert(k);
        }
    }
}

type Group<'a> = criterion::BenchmarkGroup<'a, criterion::measurement::WallTime>;

fn configure(group: &mut Group<'_>) {
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(BATCH as u64));
}

/// Times `insert_batch` on batches of `keys`, cycling through them.
fn insert(group: &mut Group<'_>, name: &str, keys: &[u64], mut insert_batch: impl FnMut(&[u64])) {
    let mut batches = keys.chunks(BATCH).cycle();
    group.bench_function(BenchmarkId::new(name, PARAM), |b| {
        b.iter(|| insert_batch(black_box(batches.next().unwrap_or_default())))
    });
}

/// Times `hits` (how many of a batch the filter reports present) on batches
/// of `keys`, cycling through them.
fn lookup(group: &mut Group<'_>, name: &str, keys: &[u64], hits: impl Fn(&[u64]) -> usize) {
    let mut batches = keys.chunks(BATCH).cycle();
    group.bench_function(BenchmarkId::new(name, PARAM), |b| {
        b.iter(|| black_box(hits(black_box(batches.next().unwrap_or_default()))))
    });
}

/// Inserts a batch one key at a time.
fn each<F: Subject>(f: &mut F) -> impl FnMut(&[u64]) + '_ {
    move |batch| {
        for k in batch {
            f.insert(black_box(k));
        }
    }
}

/// Looks a batch up one key at a time.
fn hits<F: Subject>(f: &F) -> impl Fn(&[u64]) -> usize + '_ {
    move |batch| batch.iter().filter(|k| f.contains(k)).count()
}

/// How many answers of a batch lookup are "present".
fn trues(answers: &[bool]) -> usize {
    answers.iter().filter(|&&present| present).count()
}

fn bench(c: &mut Criterion) {
    let (members, others) = keys();
    let mut s = Subjects::new();
    s.fill(&members);
    let fuse = Fuse::new(&members);
    eprintln!(
        "{PARAM}: bytes: bloomlab BloomFilter {}, BlockedBloomFilter {}, fastbloom {}, \
         bloomfilter {}, probabilistic-collections {}, BinaryFuse8 {}",
        s.classic.memory_bytes(),
        s.blocked.memory_bytes(),
        s.fastbloom.num_bits() / 8,
        s.bloomfilter.len() / 8,
        s.probabilistic.len() / 8,
        fuse.filter.len(),
    );

    let mut group = c.benchmark_group("classic/insert");
    configure(&mut group);
    insert(
        &mut group,
        "bloomlab::BloomFilter",
        &members,
        each(&mut s.classic),
    );
    insert(
        &mut group,
        "bloomlab::BlockedBloomFilter",
        &members,
        each(&mut s.blocked),
    );
    insert(
        &mut group,
        "bloomlab::AtomicBloomFilter",
        &members,
        each(&mut s.atomic),
    );
    insert(
        &mut group,
        "bloomlab::BloomFilter (batch)",
        &members,
        |batch| {
            let _ = black_box(s.classic.insert_batch(batch));
        },
    );
    insert(
        &mut group,
        "bloomlab::BlockedBloomFilter (batch)",
        &members,
        |batch| {
            let _ = black_box(s.blocked.insert_batch(batch));
        },
    );
    insert(
        &mut group,
        "bloomlab::AtomicBloomFilter (batch)",
        &members,
        |batch| {
            let _ = black_box(s.atomic.insert_batch(batch));
        },
    );
    insert(
        &mut group,
        "fastbloom (SipHash-1-3)",
        &members,
        each(&mut s.fastbloom),
    );
    insert(
        &mut group,
        "fastbloom (foldhash)",
        &members,
        each(&mut s.foldbloom),
    );
    insert(
        &mut group,
        "bloomfilter",
        &members,
        each(&mut s.bloomfilter),
    );
    insert(
        &mut group,
        "probabilistic-collections::BloomFilter",
        &members,
        each(&mut s.probabilistic),
    );
    group.finish();

    for (name, keys) in [
        ("classic/lookup_hit", &members),
        ("classic/lookup_miss", &others),
    ] {
        let mut group = c.benchmark_group(name);
        configure(&mut group);
        lookup(&mut group, "bloomlab::BloomFilter", keys, hits(&s.classic));
        lookup(
            &mut group,
            "bloomlab::BlockedBloomFilter",
            keys,
            hits(&s.blocked),
        );
        lookup(
            &mut group,
            "bloomlab::AtomicBloomFilter",
            keys,
            hits(&s.atomic),
        );
        lookup(&mut group, "bloomlab::BloomFilter (batch)", keys, |batch| {
            trues(&s.classic.contains_batch(batch))
        });
        lookup(
            &mut group,
            "bloomlab::BlockedBloomFilter (batch)",
            keys,
            |batch| trues(&s.blocked.contains_batch(batch)),
        );
        lookup(
            &mut group,
            "bloomlab::AtomicBloomFilter (batch)",
            keys,
            |batch| trues(&s.atomic.contains_batch(batch)),
        );
        lookup(
            &mut group,
            "fastbloom (SipHash-1-3)",
            keys,
            hits(&s.fastbloom),
        );
        lookup(&mut group, "fastbloom (foldhash)", keys, hits(&s.foldbloom));
        lookup(&mut group, "bloomfilter", keys, hits(&s.bloomfilter));
        lookup(
            &mut group,
            "probabilistic-collections::BloomFilter",
            keys,
            hits(&s.probabilistic),
        );
        lookup(&mut group, "xorf::BinaryFuse8", keys, |batch| {
            batch.iter().filter(|k| fuse.contains(k)).count()
        });
        group.finish();
    }
}

// Plots cost about 4 s per benchmark on the 2-core machine, more than the
// measurement itself; the report tool reads criterion's JSON estimates.
criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = bench
}
criterion_main!(benches);
