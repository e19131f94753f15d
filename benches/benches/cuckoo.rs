//! bloomlab-cuckoo against the `cuckoofilter` crate,
//! `probabilistic-collections`'s cuckoo filter and `qfilter`'s quotient
//! filter (the deletable peers), with `xorf`'s `BinaryFuse8` as a static
//! reference: insert, lookup of members (hits) and of non-members (misses),
//! and remove.
//!
//! Goal (issue #5, not a test): at least twice `cuckoofilter`'s lookup
//! throughput.
//!
//! Every subject stores the same 943,718 keys with 8-bit fingerprints. The
//! three cuckoo tables have the shape `cuckoofilter` fixes: 2^18 buckets of
//! 4 slots (1 MiB), filled to 90%. bloomlab's table appears twice: plain
//! (32 bits a bucket) and semi-sorted (`semi_sorted(true)`, 28 bits a bucket,
//! 0.875 MiB), in the lookup and insert groups.
//!
//! The group `cuckoo/layout` compares the two layouts alone at the shapes
//! `CuckooFilter::new(1_000_000, ε)` builds: ε = 1% (10-bit fingerprints),
//! 10^-4 (17 bits, the widest semi-sorted bucket that fits a 64-bit word)
//! and 10^-6 (23 bits), each filled with its million items and probed with
//! batches of half members, half non-members. It is the evidence for when
//! `new` chooses semi-sorting (the crate docs). It also compares 2^18
//! buckets with 2^18 + 2 on 943,718 items: the evidence that the first
//! format's XOR map, possible only for powers of two, is not worth keeping
//! for new tables (the source of `NEW_TABLE_MAP` in `bloomlab_cuckoo`). `qfilter` is sized by its own rule for
//! that many items (2^20 slots, also 90% full) with 8-bit remainders, the
//! same fingerprint width (its rate is then about 0.35%, against about 2.8%
//! for the cuckoo tables). `xorf::BinaryFuse8` is built once from the keys
//! and cannot insert or remove: it appears in the lookup groups only, listed
//! for reference and never counted as a peer to beat.
//!
//! Hashers, as near alike as the peers allow:
//! - bloomlab: keyed SipHash-1-3, `DefaultHasher::from_seed(7)`, one hash
//!   per item;
//! - `probabilistic-collections`: takes `BuildHasher`s and gets ours
//!   (seeds 7 and 8); it hashes every item with both;
//! - `cuckoofilter`: takes a `Hasher + Default` type, not a `BuildHasher`,
//!   so it gets the same SipHash-1-3 (`siphasher`'s `SipHasher13`, the
//!   default hasher's own hasher type) but can only build it with its
//!   default all-zero key; it hashes every item, and then its fingerprint,
//!   with it;
//! - `qfilter`: takes a `BuildHasher` (`new_with_hasher`) and gets ours,
//!   seed 7, hashing once per item, exactly as bloomlab does;
//! - `xorf::BinaryFuse8`: takes `u64` keys only, so it is built from our
//!   SipHash-1-3 hashes of the members (`from_seed(7).hash_one(k)`,
//!   deduplicated as it requires), and every lookup hashes its key the same
//!   way inside the timed loop: the hasher is held fixed.
//!
//! Each iteration handles a batch of 10,000 keys, cycling through the
//! million. Insert and remove keep the tables at 90%: an insert batch is
//! removed again, and a remove batch inserted again, outside the timed part
//! (`iter_custom`). `probabilistic-collections`'s remove deletes every
//! matching fingerprint in both buckets, so its table slowly loses other
//! items over the remove runs; its numbers are still a fair cost per call.
//! bloomlab also has a `(batch)` row for insert and lookup (there is no
//! batch remove): the same batch through `insert_batch` / `contains_batch`,
//! which hash a group of keys and prefetch both candidate buckets before
//! probing.
//!
//! Before the benchmarks, the file overfills bloomlab's filter and
//! `cuckoofilter`'s with 1.3 times their slots (the same 1,363,148 keys) and
//! prints how many items whose insert succeeded each then reports absent:
//! `cuckoofilter` drops a random stored fingerprint whenever an insert gives
//! up, bloomlab undoes the insert. `probabilistic-collections` is left out:
//! it loses nothing either, but keeps every fingerprint it cannot place in
//! an unbounded list that each insert and lookup scans, so the overfill
//! takes it minutes.

use std::hash::BuildHasher;
use std::hint::black_box;
use std::time::{Duration, Instant};

use bloomlab::core::DefaultHasher;
use bloomlab::prelude::CuckooFilter;
use bloomlab_benches::{members, others};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use xorf::{BinaryFuse8, Filter};

/// SipHash-1-3, the hasher type behind [`DefaultHasher`], for the peer that
/// builds its hashers with `Default`.
type Sip13 = <DefaultHasher as BuildHasher>::Hasher;
type Cuckoofilter = cuckoofilter::CuckooFilter<Sip13>;
type Probabilistic = probabilistic_collections::cuckoo::CuckooFilter<u64, DefaultHasher>;
type Quotient = qfilter::Filter<Box<[u8]>, DefaultHasher>;

const LOG2_BUCKETS: u32 = 18;
const SLOTS: usize = 4 << LOG2_BUCKETS;
const ITEMS: usize = SLOTS * 9 / 10;
const BATCH: usize = 10_000;
const SEED: u64 = 7;
const PARAM: &str = "943,718 items, 8-bit fingerprints";

/// The operations the three filters offer.
trait Subject {
    /// Whether the insert reported success.
    fn insert(&mut self, key: &u64) -> bool;
    fn contains(&self, key: &u64) -> bool;
    fn remove(&mut self, key: &u64);
}

impl Subject for CuckooFilter<u64> {
    fn insert(&mut self, key: &u64) -> bool {
        CuckooFilter::insert(self, key).is_ok()
    }
    fn contains(&self, key: &u64) -> bool {
        CuckooFilter::contains(self, key)
    }
    fn remove(&mut self, key: &u64) {
        black_box(CuckooFilter::remove(self, key).is_ok());
    }
}

impl Subject for Cuckoofilter {
    fn insert(&mut self, key: &u64) -> bool {
        self.add(key).is_ok()
    }
    fn contains(&self, key: &u64) -> bool {
        Cuckoofilter::contains(self, key)
    }
    fn remove(&mut self, key: &u64) {
        black_box(self.delete(key));
    }
}

impl Subject for Probabilistic {
    fn insert(&mut self, key: &u64) -> bool {
        Probabilistic::insert(self, key);
        true
    }
    fn contains(&self, key: &u64) -> bool {
        Probabilistic::contains(self, key)
    }
    fn remove(&mut self, key: &u64) {
        Probabilistic::remove(self, key);
    }
}

impl Subject for Quotient {
    fn insert(&mut self, key: &u64) -> bool {
        // Store a copy even when the fingerprint is there already, as the
        // cuckoo filters do, so that removing it later cannot take another
        // item's fingerprint away.
        Quotient::insert_duplicated(self, key).is_ok()
    }
    fn contains(&self, key: &u64) -> bool {
        Quotient::contains(self, key)
    }
    fn remove(&mut self, key: &u64) {
        black_box(Quotient::remove(self, key));
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

fn ours() -> CuckooFilter<u64> {
    CuckooFilter::builder_with_buckets(1 << LOG2_BUCKETS, 8)
        .semi_sorted(false)
        .seed(SEED)
        .build()
        .expect("valid shape")
}

fn ours_semi_sorted() -> CuckooFilter<u64> {
    CuckooFilter::builder_with_buckets(1 << LOG2_BUCKETS, 8)
        .semi_sorted(true)
        .seed(SEED)
        .build()
        .expect("valid shape")
}

fn cuckoofilter() -> Cuckoofilter {
    Cuckoofilter::with_capacity(SLOTS)
}

fn probabilistic() -> Probabilistic {
    Probabilistic::from_parameters_with_hashers(
        SLOTS,
        8,
        4,
        [
            DefaultHasher::from_seed(SEED),
            DefaultHasher::from_seed(SEED + 1),
        ],
    )
}

fn quotient() -> Quotient {
    // A rate of 2^-8 gives 8-bit remainders, the cuckoo tables' fingerprint width.
    Quotient::new_with_hasher(ITEMS as u64, 1.0 / 256.0, DefaultHasher::from_seed(SEED))
        .expect("valid size")
}

/// Offers `keys` in order; returns (inserts that reported success, of those
/// the items now reported absent).
fn overfill<F: Subject>(mut filter: F, keys: &[u64]) -> (usize, usize) {
    let stored: Vec<u64> = keys.iter().copied().filter(|k| filter.insert(k)).collect();
    let lost = stored.iter().filter(|k| !filter.contains(k)).count();
    (stored.len(), lost)
}

fn report_overfill() {
    let keys = members(2024, SLOTS * 13 / 10);
    let (ok, lost) = overfill(ours(), &keys);
    eprintln!(
        "overfill ({} keys into {SLOTS} slots): bloomlab stored {ok}, lost {lost}",
        keys.len()
    );
    let (ok, lost) = overfill(cuckoofilter(), &keys);
    eprintln!("overfill: cuckoofilter stored {ok}, lost {lost}");
}

type Group<'a> = criterion::BenchmarkGroup<'a, criterion::measurement::WallTime>;

fn configure(group: &mut Group<'_>) {
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(BATCH as u64));
}

/// Times inserting a batch of fresh keys; removes them again untimed.
/// `insert_batch` does the timed inserts.
fn insert<F: Subject>(
    group: &mut Group<'_>,
    name: &str,
    f: &mut F,
    keys: &[u64],
    mut insert_batch: impl FnMut(&mut F, &[u64]),
) {
    let mut batches = keys.chunks(BATCH).cycle();
    group.bench_function(BenchmarkId::new(name, PARAM), |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let batch = batches.next().unwrap_or_default();
                let start = Instant::now();
                insert_batch(f, black_box(batch));
                spent += start.elapsed();
                for k in batch {
                    f.remove(k);
                }
            }
            spent
        })
    });
}

/// Times removing a batch of members; inserts them again untimed.
fn remove<F: Subject>(group: &mut Group<'_>, name: &str, f: &mut F, keys: &[u64]) {
    let mut batches = keys.chunks(BATCH).cycle();
    group.bench_function(BenchmarkId::new(name, PARAM), |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let batch = batches.next().unwrap_or_default();
                let start = Instant::now();
                for k in batch {
                    f.remove(black_box(k));
                }
                spent += start.elapsed();
                for k in batch {
                    f.insert(k);
                }
            }
            spent
        })
    });
}

/// Inserts a batch one key at a time.
fn each<F: Subject>(f: &mut F, batch: &[u64]) {
    for k in batch {
        black_box(f.insert(black_box(k)));
    }
}

/// Times `hits` (how many of a batch the filter reports present) on batches
/// of `keys`, cycling through them.
fn lookup(group: &mut Group<'_>, name: &str, keys: &[u64], hits: impl Fn(&[u64]) -> usize) {
    let mut batches = keys.chunks(BATCH).cycle();
    group.bench_function(BenchmarkId::new(name, PARAM), |b| {
        b.iter(|| black_box(hits(black_box(batches.next().unwrap_or_default()))))
    });
}

/// Looks a batch up one key at a time.
fn hits<F: Subject>(f: &F) -> impl Fn(&[u64]) -> usize + '_ {
    move |batch| batch.iter().filter(|k| f.contains(k)).count()
}

/// How many answers of a batch lookup are "present".
fn trues(answers: &[bool]) -> usize {
    answers.iter().filter(|&&present| present).count()
}

const OURS: &str = "bloomlab::CuckooFilter";
const OURS_BATCH: &str = "bloomlab::CuckooFilter (batch)";
const OURS_SEMI: &str = "bloomlab::CuckooFilter (semi-sorted)";
const CUCKOOFILTER: &str = "cuckoofilter";
const PROBABILISTIC: &str = "probabilistic-collections::CuckooFilter";
const QFILTER: &str = "qfilter";
const FUSE: &str = "xorf::BinaryFuse8";

fn bench(c: &mut Criterion) {
    report_overfill();

    let members = members(2025, ITEMS);
    let others = others(2026, ITEMS);
    let (mut a, mut b, mut p, mut q) = (ours(), cuckoofilter(), probabilistic(), quotient());
    let mut s = ours_semi_sorted();
    for k in &members {
        assert!(Subject::insert(&mut a, k), "room at 90%");
        assert!(Subject::insert(&mut s, k), "room at 90%");
        assert!(Subject::insert(&mut b, k), "room at 90%");
        Subject::insert(&mut p, k);
        assert!(Subject::insert(&mut q, k), "room at 90%");
    }
    let fuse = Fuse::new(&members);
    eprintln!(
        "{PARAM}: bloomlab {} bytes (semi-sorted {}), load {:.3}; cuckoofilter {} bytes; \
         probabilistic-collections {} slots of {} bits; qfilter {} bytes, {} of {} slots; \
         BinaryFuse8 {} bytes",
        a.memory_bytes(),
        s.memory_bytes(),
        a.load_factor(),
        b.memory_usage(),
        p.capacity(),
        p.fingerprint_bit_count(),
        q.memory_usage(),
        q.len(),
        q.capacity(),
        fuse.filter.len()
    );

    for (name, keys) in [
        ("cuckoo/lookup_hit", &members),
        ("cuckoo/lookup_miss", &others),
    ] {
        let mut group = c.benchmark_group(name);
        configure(&mut group);
        lookup(&mut group, OURS, keys, hits(&a));
        lookup(&mut group, OURS_BATCH, keys, |batch| {
            trues(&a.contains_batch(batch))
        });
        lookup(&mut group, OURS_SEMI, keys, hits(&s));
        lookup(&mut group, CUCKOOFILTER, keys, hits(&b));
        lookup(&mut group, PROBABILISTIC, keys, hits(&p));
        lookup(&mut group, QFILTER, keys, hits(&q));
        lookup(&mut group, FUSE, keys, |batch| {
            batch.iter().filter(|k| fuse.contains(k)).count()
        });
        group.finish();
    }

    let mut group = c.benchmark_group("cuckoo/insert");
    configure(&mut group);
    // Each batch is undone untimed: ten samples keep the wall time in bounds.
    group.sample_size(10);
    insert(&mut group, OURS, &mut a, &others, each);
    insert(&mut group, OURS_BATCH, &mut a, &others, |f, batch| {
        // Room at 90%; a refusal would be a bug.
        let stored = f.insert_batch(batch);
        debug_assert!(stored.is_ok());
        black_box(stored.is_ok());
    });
    insert(&mut group, OURS_SEMI, &mut s, &others, each);
    insert(&mut group, CUCKOOFILTER, &mut b, &others, each);
    insert(&mut group, PROBABILISTIC, &mut p, &others, each);
    insert(&mut group, QFILTER, &mut q, &others, each);
    group.finish();

    let mut group = c.benchmark_group("cuckoo/remove");
    configure(&mut group);
    // Each batch is undone untimed: ten samples keep the wall time in bounds.
    group.sample_size(10);
    remove(&mut group, OURS, &mut a, &members);
    remove(&mut group, CUCKOOFILTER, &mut b, &members);
    remove(&mut group, PROBABILISTIC, &mut p, &members);
    remove(&mut group, QFILTER, &mut q, &members);
    group.finish();

    layouts(c);
}

/// Items of the `cuckoo/layout` group, and its rates.
const LAYOUT_ITEMS: usize = 1_000_000;
const LAYOUT_RATES: [f64; 3] = [0.01, 1e-4, 1e-6];

/// Plain against semi-sorted lookups at the shapes `new(1_000_000, ε)`
/// builds, on batches of half members, half non-members.
fn layouts(c: &mut Criterion) {
    let members = members(2027, LAYOUT_ITEMS);
    let others = others(2028, LAYOUT_ITEMS);
    let mixed: Vec<u64> = members
        .iter()
        .zip(&others)
        .flat_map(|(&m, &o)| [m, o])
        .collect();
    let mut group = c.benchmark_group("cuckoo/layout");
    configure(&mut group);
    // 2^18 buckets against 2^18 + 2: whether a power of two is faster.
    // (Built with the XOR map for powers of two, these rows measured it
    // against the subtraction map; now both use the subtraction map.)
    for buckets in [1u64 << LOG2_BUCKETS, (1 << LOG2_BUCKETS) + 2] {
        let mut f = CuckooFilter::builder_with_buckets(buckets, 8)
            .seed(SEED)
            .build()
            .expect("valid shape");
        f.insert_batch(&members[..ITEMS]).expect("room at 90%");
        let name = if buckets.is_power_of_two() {
            "plain, 2^18 buckets"
        } else {
            "plain, 2^18 + 2 buckets"
        };
        let param = format!("{buckets} buckets, 943,718 items, f 8");
        group.bench_function(BenchmarkId::new(name, param), |b| {
            let mut batches = mixed.chunks(BATCH).cycle();
            b.iter(|| {
                let batch = black_box(batches.next().unwrap_or_default());
                black_box(batch.iter().filter(|k| f.contains(k)).count())
            })
        });
    }
    for eps in LAYOUT_RATES {
        for semi in [false, true] {
            let mut f = CuckooFilter::builder(LAYOUT_ITEMS, eps)
                .semi_sorted(semi)
                .seed(SEED)
                .build()
                .expect("buildable");
            f.insert_batch(&members).expect("sized for them");
            let name = if semi { "semi-sorted" } else { "plain" };
            let param = format!(
                "1,000,000 items, eps {eps:e}, f {} ({} bytes)",
                f.fingerprint_bits(),
                f.memory_bytes()
            );
            group.bench_function(BenchmarkId::new(name, param), |b| {
                let mut batches = mixed.chunks(BATCH).cycle();
                b.iter(|| {
                    let batch = black_box(batches.next().unwrap_or_default());
                    black_box(batch.iter().filter(|k| f.contains(k)).count())
                })
            });
        }
    }
    group.finish();
}

// Plots cost about 4 s per benchmark on the 2-core machine, more than the
// measurement itself; the report tool reads criterion's JSON estimates.
criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = bench
}
criterion_main!(benches);
