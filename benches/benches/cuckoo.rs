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
//! - bloomlab: keyed SipHash-1-3 (`peers::sip_seeded(7)`: the key of
//!   `DefaultHasher::from_seed(7)` under the filters' default function
//!   before AES-128-CMAC, held fixed here; the default hash is measured in
//!   the `scale` group), one hash per item (the layout rows, which compare
//!   bloomlab's layouts with each other, use the default);
//! - `probabilistic-collections`: takes `BuildHasher`s and gets ours
//!   (seeds 7 and 8); it hashes every item with both;
//! - `cuckoofilter`: takes a `Hasher + Default` type, not a `BuildHasher`,
//!   so it gets the same SipHash-1-3 (`siphasher`'s `SipHasher13`) but can
//!   only build it with its default all-zero key; it hashes every item, and
//!   then its fingerprint, with it;
//! - `qfilter`: takes a `BuildHasher` (`new_with_hasher`) and gets ours,
//!   seed 7, hashing once per item, exactly as bloomlab does;
//! - `xorf::BinaryFuse8`: takes `u64` keys only, so it is built from our
//!   SipHash-1-3 hashes of the members (`sip_seeded(7).hash_one(k)`,
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
//! which hash a group of keys and then probe them (the 1 MiB table is taken
//! to sit in cache, so the two candidate buckets are not prefetched:
//! `bloomlab_core::batch::ahead`).
//!
//! Before the benchmarks, the file overfills bloomlab's filter and
//! `cuckoofilter`'s with 1.3 times their slots (the same 1,363,148 keys) and
//! prints how many items whose insert succeeded each then reports absent:
//! `cuckoofilter` drops a random stored fingerprint whenever an insert gives
//! up, bloomlab undoes the insert. `probabilistic-collections` is left out:
//! it loses nothing either, but keeps every fingerprint it cannot place in
//! an unbounded list that each insert and lookup scans, so the overfill
//! takes it minutes.

use std::hint::black_box;

use bloomlab::prelude::CuckooFilter;
use bloomlab_benches::harness::{self, BATCH, Group, Op, Setting};
use bloomlab_benches::{members, others};
use bloomlab_core::{Deletable, Filter, Membership};
use bloomlab_lab::peers::cuckoofilter::Sip13;
use bloomlab_lab::peers::{
    Cuckoofilter, Fuse8, ProbabilisticCuckoo, Qfilter, sip_pair, sip_seeded,
};
use criterion::{Criterion, criterion_group, criterion_main};

const LOG2_BUCKETS: u32 = 18;
const SLOTS: usize = 4 << LOG2_BUCKETS;
const ITEMS: usize = SLOTS * 9 / 10;
const SEED: u64 = 7;
const PARAM: &str = "943,718 items, 8-bit fingerprints";
const SETTING: Setting<'_> = Setting::new(PARAM, 20);

fn ours(semi_sorted: bool) -> CuckooFilter<u64> {
    CuckooFilter::builder_with_buckets(1 << LOG2_BUCKETS, 8)
        .semi_sorted(semi_sorted)
        .hasher(sip_seeded(SEED))
        .build()
        .expect("valid shape")
}

fn cuckoofilter() -> Cuckoofilter<Sip13> {
    Cuckoofilter::with_capacity(SLOTS)
}

fn probabilistic() -> ProbabilisticCuckoo {
    ProbabilisticCuckoo::new(SLOTS, 8, 4, sip_pair(SEED))
}

fn quotient() -> Qfilter {
    // A rate of 2^-8 gives 8-bit remainders, the cuckoo tables' fingerprint width.
    Qfilter::new(ITEMS as u64, 1.0 / 256.0, sip_seeded(SEED)).expect("valid size")
}

/// Offers `keys` in order; returns (inserts that reported success, of those
/// the items now reported absent).
fn overfill<F: Deletable<u64>>(mut filter: F, keys: &[u64]) -> (usize, usize) {
    let stored: Vec<u64> = keys
        .iter()
        .copied()
        .filter(|k| filter.insert(k).is_ok())
        .collect();
    let lost = stored.len() - harness::hits(&filter, &stored);
    (stored.len(), lost)
}

fn report_overfill() {
    let keys = members(2024, SLOTS * 13 / 10);
    let (ok, lost) = overfill(ours(false), &keys);
    eprintln!(
        "overfill ({} keys into {SLOTS} slots): bloomlab stored {ok}, lost {lost}",
        keys.len()
    );
    let (ok, lost) = overfill(cuckoofilter(), &keys);
    eprintln!("overfill: cuckoofilter stored {ok}, lost {lost}");
}

/// Times inserting a batch of fresh keys with `insert_batch`; removes them
/// again untimed.
fn insert<F: Deletable<u64>>(
    group: &mut Group<'_>,
    name: &str,
    f: &mut F,
    keys: &[u64],
    insert_batch: impl FnMut(&mut F, &[u64]) -> usize,
) {
    group.undone(name, f, keys, insert_batch, |f, batch| {
        harness::remove_each(f, batch);
    });
}

/// Times removing a batch of members; inserts them again untimed.
fn remove<F: Deletable<u64>>(group: &mut Group<'_>, name: &str, f: &mut F, keys: &[u64]) {
    group.undone(name, f, keys, harness::remove_each, |f, batch| {
        harness::insert_each(f, batch);
    });
}

const OURS: &str = "bloomlab::CuckooFilter";
const OURS_SEMI: &str = "bloomlab::CuckooFilter (semi-sorted)";
const CUCKOOFILTER: &str = "cuckoofilter";
const PROBABILISTIC: &str = "probabilistic-collections::CuckooFilter";
const QFILTER: &str = "qfilter";
const FUSE: &str = "xorf::BinaryFuse8";

fn bench(c: &mut Criterion) {
    report_overfill();

    let members = members(2025, ITEMS);
    let others = others(2026, ITEMS);
    let (mut a, mut b, mut p, mut q) = (ours(false), cuckoofilter(), probabilistic(), quotient());
    let mut s = ours(true);
    for k in &members {
        assert!(a.insert(k).is_ok(), "room at 90%");
        assert!(s.insert(k).is_ok(), "room at 90%");
        assert!(b.insert(k).is_ok(), "room at 90%");
        let _ = p.insert(k);
        assert!(q.insert(k).is_ok(), "room at 90%");
    }
    let mut fuse = Fuse8::new(&members, sip_seeded(SEED)).expect("distinct hashes");
    eprintln!(
        "{PARAM}: bloomlab {} bytes (semi-sorted {}), load {:.3}; cuckoofilter {} bytes; \
         probabilistic-collections {} slots of {} bits; qfilter {} bytes, {} of {} slots; \
         BinaryFuse8 {} bytes",
        a.memory_bytes(),
        s.memory_bytes(),
        a.fill_ratio(),
        b.memory_bytes(),
        p.slots(),
        p.fingerprint_bits(),
        q.memory_bytes(),
        q.len(),
        q.capacity(),
        fuse.memory_bytes()
    );

    let hits_misses = [&members[..], &others[..]];
    harness::lookup_groups(c, "cuckoo", SETTING, hits_misses, |group, keys| {
        group.rows(OURS, &mut a, Op::Lookup, keys);
        group.row(OURS_SEMI, &mut s, Op::Lookup, keys);
        group.row(CUCKOOFILTER, &mut b, Op::Lookup, keys);
        group.row(PROBABILISTIC, &mut p, Op::Lookup, keys);
        group.row(QFILTER, &mut q, Op::Lookup, keys);
        group.row(FUSE, &mut fuse, Op::Lookup, keys);
    });

    // Each batch is undone untimed: ten samples keep the wall time in bounds.
    let undone = Setting {
        samples: 10,
        ..SETTING
    };
    let mut group = Group::new(c, "cuckoo/insert", undone, BATCH);
    insert(&mut group, OURS, &mut a, &others, harness::insert_each);
    insert(
        &mut group,
        &format!("{OURS} (batch)"),
        &mut a,
        &others,
        |f, batch| {
            // Room at 90%; a refusal would be a bug.
            let stored = f.insert_batch(batch);
            debug_assert!(stored.is_ok());
            stored.unwrap_or(0)
        },
    );
    insert(&mut group, OURS_SEMI, &mut s, &others, harness::insert_each);
    insert(
        &mut group,
        CUCKOOFILTER,
        &mut b,
        &others,
        harness::insert_each,
    );
    insert(
        &mut group,
        PROBABILISTIC,
        &mut p,
        &others,
        harness::insert_each,
    );
    insert(&mut group, QFILTER, &mut q, &others, harness::insert_each);
    group.finish();

    let mut group = Group::new(c, "cuckoo/remove", undone, BATCH);
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
    let mut group = Group::new(c, "cuckoo/layout", SETTING, BATCH);
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
        group.set_param(format!("{buckets} buckets, 943,718 items, f 8"));
        mixed_lookups(&mut group, name, &f, &mixed);
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
            group.set_param(format!(
                "1,000,000 items, eps {eps:e}, f {} ({} bytes)",
                f.fingerprint_bits(),
                f.memory_bytes()
            ));
            mixed_lookups(&mut group, name, &f, &mixed);
        }
    }
    group.finish();
}

/// Lookups of batches of `mixed`, cycling through them from the start at
/// every sample.
fn mixed_lookups(group: &mut Group<'_>, name: &str, f: &CuckooFilter<u64>, mixed: &[u64]) {
    group.bench(name, |b| {
        let mut batches = mixed.chunks(BATCH).cycle();
        b.iter(|| {
            let batch = black_box(batches.next().unwrap_or_default());
            black_box(harness::hits(f, batch))
        })
    });
}

criterion_group! {
    name = benches;
    config = harness::criterion();
    targets = bench
}
criterion_main!(benches);
