//! bloomlab-fuse's binary fuse filters against `xorf`'s, at 1,000,000 and
//! 20,000,000 keys (`FUSE_BIG_KEYS` sets the second; 100,000 in test
//! mode): construction per key, and lookups of keys (hits) and of other
//! items (misses), beside the floors of a lookup in `fuse/floor`: the
//! key's hash, and the hash then the three reads of the 8-bit 3-wise
//! filter's lookup at the key's own slots of that filter's array
//! (`bloomlab_benches::floor::fuse_slots`). In `fuse/turns_hit` and
//! `fuse/turns_miss`, that filter and xorf's `BinaryFuse8` are timed in
//! turns against that floor and against each other.
//!
//! Subjects: bloomlab `BinaryFuseFilter` with 8- and 16-bit fingerprints,
//! 3-wise and 4-wise; `xorf::BinaryFuse8` and `xorf::BinaryFuse16` (3-wise,
//! the only construction xorf has). The same keys for all
//! (`bloomlab_benches::members(1, 1_000_000)`), probed with batches of
//! 10,000 members or non-members.
//!
//! The hasher is held fixed: bloomlab hashes every key with the default
//! keyed hash (`DefaultHasher::from_seed(7)`, AES-128-CMAC); xorf takes
//! `u64` keys only, so it is built from those same hashes, computed inside
//! the timed construction, and every xorf lookup hashes its key the same
//! way inside the timed loop. xorf requires distinct keys; the members'
//! hashes are distinct (checked before timing), and xorf's construction is
//! not charged a deduplication. bloomlab's construction deduplicates only
//! after a failed attempt.
//!
//! Goal (issue 51, not a test): lookups at most 0.8 times xorf's
//! BinaryFuse8 and construction at most 1.0 times; where 0.8 times lies
//! below the floor, lookups at most 1.1 times the floor.

use std::hash::BuildHasher;
use std::hint::black_box;

use bloomlab::fuse::{BinaryFuseFilter, Shaped, Width};
use bloomlab_benches::big::size_from_env;
use bloomlab_benches::floor::{self, FUSE_SLOTS, HASH};
use bloomlab_benches::harness::{self, BATCH, Setting, Turns};
use bloomlab_benches::report::goals::{FUSE_SHAPED, FUSE_SUBJECT};
use bloomlab_benches::{members, others};
use bloomlab_core::DefaultHasher;
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use xorf::{BinaryFuse8, BinaryFuse16, Filter};

const SEED: u64 = 7;

/// The row of the goals' peer.
const XORF8: &str = "xorf::BinaryFuse8";

/// Samples of each row timed in turns.
const TURNS_SAMPLES: usize = 10;

/// The bloomlab shapes: fingerprint bits and arity.
const SHAPES: [(u32, u32); 4] = [(8, 3), (8, 4), (16, 3), (16, 4)];

fn ours(keys: &[u64], bits: u32, arity: u32) -> BinaryFuseFilter<u64> {
    BinaryFuseFilter::<u64>::builder_with_bits(bits)
        .arity(arity)
        .seed(SEED)
        .build(keys)
        .expect("a million distinct keys build")
}

/// The keys' hashes by the hasher every subject uses.
fn hashes(hasher: &DefaultHasher, keys: &[u64]) -> Vec<u64> {
    keys.iter().map(|k| hasher.hash_one(k)).collect()
}

fn build(c: &mut Criterion, keys: &[u64], hasher: &DefaultHasher) {
    let n = keys.len();
    let mut group = c.benchmark_group("fuse/build");
    group.sample_size(10);
    group.throughput(Throughput::Elements(keys.len() as u64));
    for (bits, arity) in SHAPES {
        let id = BenchmarkId::new(format!("bloomlab {bits}-bit {arity}-wise"), n);
        group.bench_function(id, |b| b.iter(|| ours(black_box(keys), bits, arity)));
    }
    group.bench_function(BenchmarkId::new(XORF8, n), |b| {
        b.iter(|| BinaryFuse8::try_from(&hashes(hasher, black_box(keys))).expect("distinct"))
    });
    group.bench_function(BenchmarkId::new("xorf::BinaryFuse16", n), |b| {
        b.iter(|| BinaryFuse16::try_from(&hashes(hasher, black_box(keys))).expect("distinct"))
    });
    group.finish();
}

/// Batches of `BATCH` probes, cycling through `probes`.
fn batches<'a>(probes: &'a [u64]) -> impl FnMut() -> &'a [u64] {
    let mut at = 0;
    move || {
        let batch = &probes[at..at + BATCH];
        at = (at + BATCH) % (probes.len() - BATCH + 1);
        batch
    }
}

fn lookup(c: &mut Criterion, name: &str, keys: &[u64], probes: &[u64], hasher: &DefaultHasher) {
    let n = keys.len();
    let mut group = c.benchmark_group(format!("fuse/{name}"));
    group.throughput(Throughput::Elements(BATCH as u64));
    for (bits, arity) in SHAPES {
        let filter = ours(keys, bits, arity);
        let label = format!("bloomlab {bits}-bit {arity}-wise");
        let mut next = batches(probes);
        group.bench_function(BenchmarkId::new(&label, n), |b| {
            b.iter(|| harness::hits(&filter, next()))
        });
        let mut next = batches(probes);
        group.bench_function(BenchmarkId::new(format!("{label} (batch)"), n), |b| {
            b.iter(|| filter.contains_batch(next()).iter().filter(|&&x| x).count())
        });
    }
    shaped_lookup::<u8, 3>(&mut group, keys, probes);
    shaped_lookup::<u8, 4>(&mut group, keys, probes);
    shaped_lookup::<u16, 3>(&mut group, keys, probes);
    shaped_lookup::<u16, 4>(&mut group, keys, probes);
    let hashed = hashes(hasher, keys);
    let fuse8 = BinaryFuse8::try_from(&hashed).expect("distinct");
    xorf_lookup(&mut group, XORF8, n, &fuse8, probes, hasher);
    let fuse16 = BinaryFuse16::try_from(&hashed).expect("distinct");
    xorf_lookup(&mut group, "xorf::BinaryFuse16", n, &fuse16, probes, hasher);
    group.finish();
}

/// The label of the lookups of the filter of fingerprints `W` and arity
/// `A` under its shape ([`BinaryFuseFilter::shaped`]).
fn shaped_label<W: Width, const A: usize>() -> String {
    format!("bloomlab {}-bit {A}-wise (shaped)", 8 * size_of::<W>())
}

/// Lookups of the filter of fingerprints `W` and arity `A` under its
/// shape, one at a time.
fn shaped_lookup<W: Width, const A: usize>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    keys: &[u64],
    probes: &[u64],
) {
    let filter = ours(keys, 8 * size_of::<W>() as u32, A as u32);
    let shaped = filter.shaped::<W, A>().expect("the filter's shape");
    let mut next = batches(probes);
    let id = BenchmarkId::new(shaped_label::<W, A>(), keys.len());
    group.bench_function(id, |b| b.iter(|| shaped_hits(shaped, next())));
}

/// Lookups in `filter`, an xorf filter of the keys' hashes: each probe is
/// hashed inside the timed loop.
fn xorf_lookup<F: Filter<u64>>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    n: usize,
    filter: &F,
    probes: &[u64],
    hasher: &DefaultHasher,
) {
    let mut next = batches(probes);
    group.bench_function(BenchmarkId::new(name, n), |b| {
        b.iter(|| xorf_hits(filter, hasher, next()))
    });
}

// Each subject's loop of single lookups is a function of its own, as
// `harness::hits` is (see there why).

/// How many of `keys` `f`, a filter under its shape, reports present.
#[inline(never)]
fn shaped_hits<W: Width, const A: usize>(
    f: Shaped<'_, u64, DefaultHasher, W, A>,
    keys: &[u64],
) -> usize {
    keys.iter().filter(|k| f.contains(*k)).count()
}

/// How many of `keys` `f`, an xorf filter of the keys' hashes by
/// `hasher`, reports present.
#[inline(never)]
fn xorf_hits<F: Filter<u64>>(f: &F, hasher: &DefaultHasher, keys: &[u64]) -> usize {
    keys.iter()
        .filter(|k| f.contains(&hasher.hash_one(k)))
        .count()
}

fn bench(c: &mut Criterion) {
    let hasher = DefaultHasher::from_seed(SEED);
    let mut turns = harness::turns_criterion();
    for n in [
        1_000_000,
        size_from_env("FUSE_BIG_KEYS", 100_000, 20_000_000) as usize,
    ] {
        let keys = members(1, n);
        sizes(&keys, &hasher);
        floor(c, &mut turns, &keys, &hasher);
        build(c, &keys, &hasher);
        lookup(c, "lookup_hit", &keys, &keys, &hasher);
        lookup(c, "lookup_miss", &keys, &others(2, n), &hasher);
    }
}

/// The floors of a lookup, in `fuse/floor`: the key's hash, and the hash
/// then the three reads of the 8-bit 3-wise filter's lookup, at the key's
/// slots of that filter's own array ([`floor::fuse_slots`]); then, in
/// turns on hits and on misses (`fuse/turns_hit`, `fuse/turns_miss`), that
/// filter and xorf's `BinaryFuse8` each against that floor, and against
/// each other: whether 0.8 times xorf's time lies above the floor at all.
fn floor(c: &mut Criterion, turns: &mut Criterion<Turns>, keys: &[u64], hasher: &DefaultHasher) {
    let n = keys.len();
    let ours = ours(keys, 8, 3);
    let reads = |batch: &[u64]| floor::fuse_slots(&ours, batch).expect("8-bit 3-wise");
    let mut group = c.benchmark_group("fuse/floor");
    group.throughput(Throughput::Elements(BATCH as u64));
    let mut next = batches(keys);
    group.bench_function(BenchmarkId::new(HASH, n), |b| {
        b.iter(|| {
            next()
                .iter()
                .fold(0u64, |s, k| s.wrapping_add(hasher.hash_one(k)))
        })
    });
    let mut next = batches(keys);
    group.bench_function(BenchmarkId::new(FUSE_SLOTS, n), |b| {
        b.iter(|| reads(next()))
    });
    group.finish();

    let fuse8 = BinaryFuse8::try_from(&hashes(hasher, keys)).expect("distinct");
    let xorf = |batch: &[u64]| xorf_hits(&fuse8, hasher, batch);
    let param = n.to_string();
    let misses = others(2, n);
    let streams = [("hit", keys), ("miss", &misses[..])];
    let setting = Setting::new(&param, TURNS_SAMPLES);
    let shaped = ours.shaped::<u8, 3>().expect("8-bit 3-wise");
    harness::turns_groups(turns, "fuse", setting, &streams, |group, keys| {
        let lookups = |batch: &[u64]| harness::hits(&ours, batch);
        let under_shape = |batch: &[u64]| shaped_hits(shaped, batch);
        group.pair([FUSE_SUBJECT, FUSE_SLOTS], keys, lookups, reads);
        group.pair([XORF8, FUSE_SLOTS], keys, xorf, reads);
        group.pair([FUSE_SUBJECT, XORF8], keys, lookups, xorf);
        group.pair([FUSE_SHAPED, XORF8], keys, under_shape, xorf);
    });
}

/// Prints each subject's bits per key for `keys`, after checking that
/// their hashes are distinct, as xorf needs.
fn sizes(keys: &[u64], hasher: &DefaultHasher) {
    let n = keys.len();
    let mut distinct = hashes(hasher, keys);
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), n, "xorf needs distinct hashes");
    let per_key = |bytes: usize| bytes as f64 * 8.0 / n as f64;
    for (bits, arity) in SHAPES {
        let f = ours(keys, bits, arity);
        eprintln!(
            "{n} keys, bloomlab {bits}-bit {arity}-wise: {:.3} bits a key",
            per_key(f.memory_bytes())
        );
    }
    let eight = BinaryFuse8::try_from(&distinct).expect("distinct");
    let sixteen = BinaryFuse16::try_from(&distinct).expect("distinct");
    for (name, bytes) in [
        (XORF8, eight.len()),
        ("xorf::BinaryFuse16", 2 * sixteen.len()),
    ] {
        eprintln!("{n} keys, {name}: {:.3} bits a key", per_key(bytes));
    }
}

criterion_group! {
    name = benches;
    config = harness::criterion();
    targets = bench
}
criterion_main!(benches);
