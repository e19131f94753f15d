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
//! keys, then probe them, prefetching a few keys ahead where
//! `bloomlab_core::batch::ahead` asks for it: at this size, in cache, only
//! for the blocked filter's one line), counting the `true` answers.
//!
//! The hasher, and whether it could be held fixed, for each subject:
//! - `bloomlab::*`: keyed SipHash-1-3 (`peers::sip_seeded(7)`: the key of
//!   `DefaultHasher::from_seed(7)` under SipHash-1-3, the filters' default
//!   function before AES-128-CMAC), one hash per item. The hash is held
//!   fixed here so that the rows compare the filters, not their hashes; the
//!   default hash is measured in the `scale` group. This is the reference
//!   every peer is held to.
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
//!   (`sip_seeded(7).hash_one(k)`, deduplicated as it requires)
//!   and each lookup hashes its key the same way in the timed loop: the
//!   hasher is held fixed. Its rate is about 0.4% (8-bit fingerprints), not
//!   1%: it has no rate setting.

use bloomlab::classic::{AtomicBloomFilter, BlockedBloomFilter, BloomFilter};
use bloomlab_benches::harness::{self, BATCH, Group, Op, Setting};
use bloomlab_core::Filter;
use bloomlab_lab::peers::{
    Bloomfilter, Fastbloom, Fuse8, ProbabilisticBloom, sip_pair, sip_seeded,
};
use criterion::{Criterion, criterion_group, criterion_main};

const ITEMS: usize = 1_000_000;
const FPR: f64 = 0.01;
const SEED: u64 = 7;
const PARAM: &str = "1M items, 1%";
const SETTING: Setting<'_> = Setting::new(PARAM, 20);

/// The filters under test, each built for a million items at 1%.
struct Subjects {
    classic: BloomFilter<u64>,
    blocked: BlockedBloomFilter<u64>,
    atomic: AtomicBloomFilter<u64>,
    fastbloom: Fastbloom,
    foldbloom: Fastbloom<foldhash::fast::FixedState>,
    bloomfilter: Bloomfilter,
    probabilistic: ProbabilisticBloom,
}

impl Subjects {
    fn new() -> Self {
        Self {
            classic: BloomFilter::builder(ITEMS, FPR)
                .hasher(sip_seeded(SEED))
                .build()
                .expect("valid size"),
            blocked: BlockedBloomFilter::builder(ITEMS, FPR)
                .hasher(sip_seeded(SEED))
                .build()
                .expect("valid size"),
            atomic: AtomicBloomFilter::builder(ITEMS, FPR)
                .hasher(sip_seeded(SEED))
                .build()
                .expect("valid size"),
            fastbloom: Fastbloom::new(ITEMS, FPR, sip_seeded(SEED)),
            foldbloom: Fastbloom::new(ITEMS, FPR, foldhash::fast::FixedState::with_seed(SEED)),
            bloomfilter: Bloomfilter::new(ITEMS, FPR, SEED).expect("valid size"),
            probabilistic: ProbabilisticBloom::new(ITEMS, FPR, sip_pair(SEED)),
        }
    }

    fn fill(&mut self, keys: &[u64]) {
        harness::insert_each(&mut self.classic, keys);
        harness::insert_each(&mut self.blocked, keys);
        harness::insert_each(&mut self.atomic, keys);
        harness::insert_each(&mut self.fastbloom, keys);
        harness::insert_each(&mut self.foldbloom, keys);
        harness::insert_each(&mut self.bloomfilter, keys);
        harness::insert_each(&mut self.probabilistic, keys);
    }

    /// The rows of one group: `op` on `keys` for every subject.
    fn rows(&mut self, group: &mut Group<'_>, op: Op, keys: &[u64]) {
        group.row("bloomlab::BloomFilter", &mut self.classic, op, keys);
        group.row("bloomlab::BlockedBloomFilter", &mut self.blocked, op, keys);
        group.row("bloomlab::AtomicBloomFilter", &mut self.atomic, op, keys);
        group.batch_row("bloomlab::BloomFilter", &mut self.classic, op, keys);
        group.batch_row("bloomlab::BlockedBloomFilter", &mut self.blocked, op, keys);
        group.batch_row("bloomlab::AtomicBloomFilter", &mut self.atomic, op, keys);
        group.row("fastbloom (SipHash-1-3)", &mut self.fastbloom, op, keys);
        group.row("fastbloom (foldhash)", &mut self.foldbloom, op, keys);
        group.row("bloomfilter", &mut self.bloomfilter, op, keys);
        let probabilistic = "probabilistic-collections::BloomFilter";
        group.row(probabilistic, &mut self.probabilistic, op, keys);
    }
}

fn bench(c: &mut Criterion) {
    let (members, others) = bloomlab_benches::keys(2024, ITEMS);
    let mut s = Subjects::new();
    s.fill(&members);
    let mut fuse = Fuse8::new(&members, sip_seeded(SEED)).expect("distinct hashes");
    eprintln!(
        "{PARAM}: bytes: bloomlab BloomFilter {}, BlockedBloomFilter {}, fastbloom {}, \
         bloomfilter {}, probabilistic-collections {}, BinaryFuse8 {}",
        s.classic.memory_bytes(),
        s.blocked.memory_bytes(),
        s.fastbloom.memory_bytes(),
        s.bloomfilter.memory_bytes(),
        s.probabilistic.memory_bytes(),
        fuse.memory_bytes(),
    );

    // Insert batches go into the full filter: its keys are already in it.
    let mut group = Group::new(c, "classic/insert", SETTING, BATCH);
    s.rows(&mut group, Op::Insert, &members);
    group.finish();

    let hits_misses = [&members[..], &others[..]];
    harness::lookup_groups(c, "classic", SETTING, hits_misses, |group, keys| {
        s.rows(group, Op::Lookup, keys);
        group.row("xorf::BinaryFuse8", &mut fuse, Op::Lookup, keys);
    });
}

criterion_group! {
    name = benches;
    config = harness::criterion();
    targets = bench
}
criterion_main!(benches);
