//! bloomlab-classic against fastbloom: insert, lookup of members (hits) and
//! of non-members (misses), at 1,000,000 items and 1%.
//!
//! Every filter hashes with the same keyed SipHash-1-3,
//! `bloomlab_core::DefaultHasher::from_seed(7)`, so the comparison is of the
//! filters, not of their hashers. Each iteration handles a batch of 10,000
//! keys, cycling through a million, so the tables (1.2 MB) and keys (8 MB)
//! are read as a real workload reads them, not from one hot cache line.

use std::hint::black_box;
use std::time::Duration;

use bloomlab::classic::{BlockedBloomFilter, BloomFilter};
use bloomlab_core::DefaultHasher;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const ITEMS: usize = 1_000_000;
const FPR: f64 = 0.01;
const BATCH: usize = 10_000;
const SEED: u64 = 7;

/// Member keys (top bit clear) and non-member keys (top bit set), seeded.
fn keys() -> (Vec<u64>, Vec<u64>) {
    bloomlab_benches::keys(2024, ITEMS)
}

/// The operations every filter under test offers.
trait Subject {
    fn insert(&mut self, key: &u64);
    fn contains(&self, key: &u64) -> bool;
}

impl Subject for BloomFilter {
    fn insert(&mut self, key: &u64) {
        BloomFilter::insert(self, key);
    }
    fn contains(&self, key: &u64) -> bool {
        BloomFilter::contains(self, key)
    }
}

impl Subject for BlockedBloomFilter {
    fn insert(&mut self, key: &u64) {
        BlockedBloomFilter::insert(self, key);
    }
    fn contains(&self, key: &u64) -> bool {
        BlockedBloomFilter::contains(self, key)
    }
}

impl Subject for fastbloom::BloomFilter<DefaultHasher> {
    fn insert(&mut self, key: &u64) {
        fastbloom::BloomFilter::insert(self, key);
    }
    fn contains(&self, key: &u64) -> bool {
        fastbloom::BloomFilter::contains(self, key)
    }
}

/// The filters under test, each built for a million items at 1%.
struct Subjects {
    classic: BloomFilter,
    blocked: BlockedBloomFilter,
    fastbloom: fastbloom::BloomFilter<DefaultHasher>,
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
            fastbloom: fastbloom::BloomFilter::with_false_pos(FPR)
                .hasher(DefaultHasher::from_seed(SEED))
                .expected_items(ITEMS),
        }
    }
}

type Group<'a> = criterion::BenchmarkGroup<'a, criterion::measurement::WallTime>;

fn configure(group: &mut Group<'_>) {
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(BATCH as u64));
}

/// Inserts batches of keys, cycling through `keys`; the filter was filled
/// with them, so each insert does the full work without growing the load.
fn insert<F: Subject>(group: &mut Group<'_>, name: &str, f: &mut F, keys: &[u64]) {
    let mut batches = keys.chunks(BATCH).cycle();
    group.bench_function(BenchmarkId::new(name, PARAM), |b| {
        b.iter(|| {
            for k in batches.next().unwrap_or_default() {
                f.insert(black_box(k));
            }
        })
    });
}

/// Looks up batches of keys, cycling through `keys`.
fn lookup<F: Subject>(group: &mut Group<'_>, name: &str, f: &F, keys: &[u64]) {
    let mut batches = keys.chunks(BATCH).cycle();
    group.bench_function(BenchmarkId::new(name, PARAM), |b| {
        b.iter(|| {
            let batch = batches.next().unwrap_or_default();
            black_box(batch.iter().filter(|k| f.contains(k)).count())
        })
    });
}

const PARAM: &str = "1M items, 1%";

fn bench(c: &mut Criterion) {
    let (members, others) = keys();
    let mut s = Subjects::new();
    for k in &members {
        s.classic.insert(k);
        s.blocked.insert(k);
        s.fastbloom.insert(k);
    }

    let mut group = c.benchmark_group("classic/insert");
    configure(&mut group);
    insert(
        &mut group,
        "bloomlab::BloomFilter",
        &mut s.classic,
        &members,
    );
    insert(
        &mut group,
        "bloomlab::BlockedBloomFilter",
        &mut s.blocked,
        &members,
    );
    insert(
        &mut group,
        "fastbloom::BloomFilter",
        &mut s.fastbloom,
        &members,
    );
    group.finish();

    for (name, keys) in [
        ("classic/lookup_hit", &members),
        ("classic/lookup_miss", &others),
    ] {
        let mut group = c.benchmark_group(name);
        configure(&mut group);
        lookup(&mut group, "bloomlab::BloomFilter", &s.classic, keys);
        lookup(&mut group, "bloomlab::BlockedBloomFilter", &s.blocked, keys);
        lookup(&mut group, "fastbloom::BloomFilter", &s.fastbloom, keys);
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
