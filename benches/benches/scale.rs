//! Every bloomlab variant against its peer(s) as a new user would build
//! them, at 1M items and at 20M items (issue 20), at 1%, beside lower bounds
//! measured over a table of the same size.
//!
//! At 20M items the tables are 23 MiB (classic, fastbloom) to 109 MiB
//! (the one-line counting layout): all far past the L2 and the reach of
//! the TLB with 4 KiB pages (about 3,000 entries, 12 MiB). The guest of the
//! runs before 4 December reported 2 MiB of L2 and 32 MiB of L3, so that
//! only the counting tables were larger than its L3; the guest of later
//! runs reports 512 KiB and 8 MiB, past which every 20M-item table lies
//! (both shared, under KVM, with whatever else runs on the host).
//! `BLOOMLAB_SCALE_MILLIONS=40` puts every table past a 32 MiB L3.
//!
//! - **Subjects**, each built with its crate's default constructor for `n`
//!   items at 1% (bloomlab's `new(n, 0.01)`, with a random key), filled with
//!   `n` members, measured, and dropped before the next is built:
//!   - `bloomlab::{BloomFilter, BlockedBloomFilter, AtomicBloomFilter}`
//!     against `fastbloom::BloomFilter` and `fastbloom::AtomicBloomFilter`
//!     (`with_false_pos(0.01).expected_items(n)`, its own randomly keyed
//!     SipHash-1-3, which bloomlab hashed with too before AES-128-CMAC);
//!   - `bloomlab::CountingBloomFilter` and
//!     `bloomlab::BlockedCountingBloomFilter` (one line) against `fastbloom-rs`'s
//!     (`FilterBuilder::new(n, 0.01)`, two xxh3 calls, no hasher option);
//!   - `bloomlab::CuckooFilter` against `cuckoofilter`
//!     (`with_capacity(n)`, std's SipHash-1-3 with the zero key: 8-bit
//!     fingerprints in a power-of-two table, so its rate is about 3%);
//!   - `bloomlab::ScalableBloomFilter` (`new(n, 0.01)`: one layer at n)
//!     against `growable-bloom-filter` (`GrowableBloom::new(0.01, n)`:
//!     one layer, 1% for that layer).
//! - **Another hash** (informational, judged against nothing): the
//!   filters with a goal not met in the bench report of the 4 December
//!   session (`BloomFilter`, `AtomicBloomFilter`, `CountingBloomFilter`,
//!   `BlockedCountingBloomFilter`) built the same way but hashing with
//!   `foldhash::fast::RandomState` (randomly seeded per filter; cheaper than
//!   either keyed hash, but not a keyed pseudorandom function that an
//!   attacker who sees answers cannot learn), as `bloomlab::… (foldhash)`:
//!   single hits and misses apart and in turns with the peer. They say
//!   what a cheaper hash than the default would make of those goals; the
//!   floors, hashed with the default, do not bound them.
//!   The same four again keyed with SipHash-1-3, the default before
//!   AES-128-CMAC, under a random key, as `bloomlab::… (SipHash-1-3)`:
//!   what the change of default changed.
//! - **Groups**: `scale/lookup_hit` (members drawn at random),
//!   `scale/lookup_miss` (keys never inserted), and for the Bloom, counting
//!   and cuckoo filters `scale/lookup_mixed` (half of each, in a seeded random
//!   order); bloomlab's filters also have `(batch)` rows (`contains_batch`).
//!   The atomic filters from several threads are in `atomic.rs`.
//! - **Floors** (`scale/floor`, see `bloomlab_benches::floor`), over a table
//!   as large as the smallest of the size's subjects, so that they bound
//!   every row of the size: the hash alone, hash + 1 or 3 lines one lookup at
//!   a time, hash + 1 line batched, and the latency of a dependent chain (a
//!   reference, not a floor). Beside the blocked Bloom filter and the
//!   one-line counting filter (whose table is the largest), the hash + 1
//!   line loops, single and batched, over that filter's own table (the
//!   lines its lookups read, at their addresses), which bound it alone.
//!   The same chain over tables of 1 to 64 MiB
//!   (setting `tables of 1 to 64 MiB`) shows where this machine's cache
//!   ends.
//!
//! - **Turns** (`scale/turns_hit`, `scale/turns_miss`, `scale/turns_mixed`,
//!   see [`harness::Turns`]): the same lookups timed in alternating
//!   batches against a reference, the value of each row being the ratio of
//!   the two times. At every size, the two one-line filters, single and
//!   batched, against the floors over their own tables, on each stream.
//!   Each filter's single hits and misses against its peer's, where the
//!   two tables' sizes allow ([`in_turns`]: together at most 4 MiB, or
//!   each at least 16 MiB): each peer is built first and kept while the
//!   bloomlab filters judged against it are measured. So at 20M items
//!   every pair, and at 1M items (since the run of 4 December, 22:31 UTC)
//!   the Bloom, atomic, cuckoo and scalable pairs (2.4 to 3.0 MB
//!   together), whose rows measured apart moved by up to eleven times
//!   between runs of the same code (fastbloom-rs's counting hit took
//!   262 ns in the full run of 4 December, 19:53 UTC, and 23.3 in a
//!   filtered run of the same rows at about 22:20), where a pair in turns
//!   meets the host's moments on both sides. The counting pairs at 1M
//!   items (9.7 to 10.5 MB together, each table at most 5.7 MB) are
//!   compared apart only. Also the hits of each
//!   filter that reads k positions anywhere in its table (`BloomFilter`,
//!   `AtomicBloomFilter`, `CountingBloomFilter`, the one-layer
//!   `ScalableBloomFilter`), and of its peer, against the floor of such a
//!   hit over that filter's table, the hash and k lines
//!   ([`floor::hit_floor`]); and each one-line filter's peer against the
//!   one-line floor over that filter's table, on hits and misses. The
//!   peer's ratio says whether a goal set as a fraction of the peer's time
//!   lies above the subject's floor at all.
//!
//! - **Huge pages**: bloomlab's tables of 2 MiB and more ask for
//!   transparent huge pages ([`bloomlab_core::alloc`]), and so does the
//!   floor table. The setting `20M items, 1%, 4 KiB pages` measures the
//!   Bloom filters, their peer and the floors again with them off
//!   ([`bloomlab_core::alloc::set_huge_pages`]`(false)`); the peers' tables
//!   come from the global allocator either way (4 KiB pages where the
//!   system's THP mode is `madvise`, as here).
//!
//! Filling 20M items costs seconds per filter; progress is printed. `cargo
//! bench -- --test` runs every row once, at 1M and 2M items instead of 20M;
//! `BLOOMLAB_SCALE_MILLIONS` sets another large size for a quick look.

use std::collections::hash_map::DefaultHasher as StdSip13;
use std::fmt::Debug;

use bloomlab::prelude::{
    AtomicBloomFilter, BlockedBloomFilter, BlockedCountingBloomFilter, BloomFilter,
    CountingBloomFilter, CuckooFilter, ScalableBloomFilter,
};
use bloomlab_benches::big::{Probes, Progress, fill, size_from_env};
use bloomlab_benches::floor::{self, FloorTable};
use bloomlab_benches::harness::{self, BATCH, Group, Op, Setting, Turns};
use bloomlab_benches::report::compare::{FOLDHASH_SUFFIX, SIPHASH_SUFFIX};
use bloomlab_core::hash::HashFunction;
use bloomlab_core::{DefaultHasher, Membership};
use bloomlab_lab::peers::{
    Cuckoofilter, Fastbloom, FastbloomAtomic, FastbloomRsCounting, Growable,
};
use criterion::{Criterion, criterion_group, criterion_main};

const FPR: f64 = 0.01;

/// The cheaper hash of the `(foldhash)` rows: randomly seeded per filter.
type FoldHash = foldhash::fast::RandomState;

/// A random key under SipHash-1-3: the `(SipHash-1-3)` rows, the same
/// filters keyed with SipHash-1-3, the default before AES-128-CMAC.
fn sip13() -> DefaultHasher {
    DefaultHasher::random_with(HashFunction::SipHash13)
}
const SAMPLES: usize = 10;

/// Two tables that fit this much cache together are timed in turns
/// ([`in_turns`]).
const TOGETHER_IN_CACHE: usize = 4 << 20;
/// Two tables neither of which fits this much cache alone are timed in
/// turns ([`in_turns`]).
const ALONE_PAST_CACHE: usize = 16 << 20;

/// Whether lookups over tables of `a` and `b` bytes are timed in turns:
/// when both fit the cache together, or neither fits it alone, so that
/// each turn finds its table where the other's left it. Between the two,
/// each table fits the cache alone and not beside the other, and a turn
/// finds its table partly evicted by the other's turn: the filter that
/// touches more lines in a batch brings more of its own back, so the pair
/// favours it. (The run of 4 December, 22:31 UTC, timed the one-line
/// counting filter's hits at 1M items, 5.7 MB, in turns with
/// fastbloom-rs's, 4.8 MB, on a guest of 8 MiB of L3: 0.99 of
/// fastbloom-rs's time, where measured apart the 19:53 run had 0.27.)
/// The runs found the cache a process could use ending between 2 and
/// 12 MiB until 4 December, and between 8 and 16 MiB on 5 December (*The
/// machine* in `benches/FINDINGS.md`).
fn in_turns(a: usize, b: usize) -> bool {
    a + b <= TOGETHER_IN_CACHE || a.min(b) >= ALONE_PAST_CACHE
}
/// The tag of the progress lines.
const TAG: &str = "scale";

/// One size: its items and the rows' setting.
struct Size {
    items: u64,
    param: String,
    /// Whether bloomlab's tables (and the floors') ask for huge pages.
    huge_pages: bool,
}

/// 1M and 20M items; 1M and 2M in test mode; `BLOOMLAB_SCALE_MILLIONS`
/// for the second.
fn sizes() -> Vec<Size> {
    let large = size_from_env("BLOOMLAB_SCALE_MILLIONS", 2, 20);
    let mut millions = vec![1, large];
    millions.dedup();
    let mut sizes: Vec<Size> = millions
        .into_iter()
        .map(|m| Size {
            items: m * 1_000_000,
            param: format!("{m}M items, 1%"),
            huge_pages: true,
        })
        .collect();
    sizes.push(Size {
        items: large * 1_000_000,
        param: format!("{large}M items, 1%, 4 KiB pages"),
        huge_pages: false,
    });
    sizes
}

/// A peer, measured, and kept for the rows of the filters judged against
/// it.
struct Peer<'n, P> {
    name: &'n str,
    filter: P,
}

impl<P> Peer<'_, P> {
    /// Its name and the filter, as the rows against it take them.
    fn get(&self) -> (&str, &P) {
        (self.name, &self.filter)
    }
}

/// What one size's subjects share while they are measured.
struct Run<'s> {
    size: &'s Size,
    keys: Probes,
    /// The smallest table built so far: the floors' size.
    smallest: usize,
    /// Criterion for the rows timed in turns.
    turns: &'s mut Criterion<Turns>,
}

impl Run<'_> {
    fn setting(&self) -> Setting<'_> {
        Setting::new(&self.size.param, SAMPLES)
    }

    /// The peer `f`, named `name`, [measured](Self::measure) with the
    /// mixed stream.
    fn peer<'n, P: Membership<u64>>(
        &mut self,
        c: &mut Criterion,
        name: &'n str,
        f: P,
    ) -> Peer<'n, P> {
        let filter = self.measure(c, name, f, true);
        Peer { name, filter }
    }

    /// `f`'s single lookups against `peer`'s, timed in turns, both alive,
    /// where their tables' sizes [allow it](in_turns).
    fn against_peer<F: Membership<u64>, P: Membership<u64>>(
        &mut self,
        names: [&str; 2],
        f: &F,
        peer: &P,
    ) {
        if !in_turns(f.memory_bytes(), peer.memory_bytes()) {
            return;
        }
        let setting = Setting::new(&self.size.param, SAMPLES);
        let keys = [&self.keys.hits[..], &self.keys.misses[..]];
        harness::peer_turns(self.turns, "scale", setting, names, (f, peer), keys);
    }

    /// `f` filled with the size's members (untimed), its size printed.
    fn build<F: Membership<u64>>(&mut self, name: &str, mut f: F) -> F {
        let n = self.size.items;
        let mut progress = Progress::new(TAG, format!("{name} ({})", self.size.param), n);
        fill(&mut progress, n, |keys| {
            // A refusal shows as lost members below.
            let _ = f.insert_batch(keys);
        });
        progress.finish(f.memory_bytes());
        let lost = self.keys.hits.len() - harness::hits(&f, &self.keys.hits);
        eprintln!(
            "{TAG}: {name}: {:.2} bits per item{}",
            f.memory_bytes() as f64 * 8.0 / n as f64,
            if lost > 0 {
                format!(", {lost} members reported absent")
            } else {
                String::new()
            }
        );
        self.smallest = self.smallest.min(f.memory_bytes());
        f
    }

    /// The lookup groups of `f`: hits and misses, and with `mixed` the
    /// mixed stream; `(batch)` rows for bloomlab's filters.
    fn lookups<F: Membership<u64>>(&self, c: &mut Criterion, name: &str, f: &mut F, mixed: bool) {
        let batch = name.starts_with("bloomlab::");
        let mut groups = vec![
            ("scale/lookup_hit", &self.keys.hits[..]),
            ("scale/lookup_miss", &self.keys.misses[..]),
        ];
        if mixed {
            groups.push(("scale/lookup_mixed", &self.keys.mixed[..]));
        }
        for (id, keys) in groups {
            let mut group = Group::new(c, id, self.setting(), BATCH);
            group.row(name, f, Op::Lookup, keys);
            if batch {
                group.batch_row(name, f, Op::Lookup, keys);
            }
            group.finish();
        }
    }

    /// `f` [built](Self::build) and its [lookups](Self::lookups) measured;
    /// returned for the thread rows (dropped by the caller before the next
    /// subject is built, so that one table is in memory at a time).
    fn measure<F: Membership<u64>>(
        &mut self,
        c: &mut Criterion,
        name: &str,
        f: F,
        mixed: bool,
    ) -> F {
        let mut f = self.build(name, f);
        self.lookups(c, name, &mut f, mixed);
        f
    }

    /// `f`, a bloomlab filter hashing with another hasher than its
    /// default (`name` ends with which), [built](Self::build), its single
    /// hits and misses measured, apart and in turns with `peer`; then
    /// dropped.
    fn other_hash<F: Membership<u64>, P: Membership<u64>>(
        &mut self,
        c: &mut Criterion,
        name: &str,
        f: F,
        (peer_name, peer): (&str, &P),
    ) {
        let mut f = self.build(name, f);
        for (id, keys) in [
            ("scale/lookup_hit", &self.keys.hits[..]),
            ("scale/lookup_miss", &self.keys.misses[..]),
        ] {
            let mut group = Group::new(c, id, self.setting(), BATCH);
            group.row(name, &mut f, Op::Lookup, keys);
            group.finish();
        }
        self.against_peer([name, peer_name], &f, peer);
    }

    /// The one-line floors `rows` ([`floor::own_rows`]) over a one-line
    /// filter's own table, `lines`, measured just after the filter: the
    /// same lines at the same addresses as its lookups read.
    ///
    /// Then the filter, `(name, f)`, against those floors in turns, on
    /// the hits, misses and mixed stream.
    fn own_floors<F: Membership<u64>>(
        &mut self,
        c: &mut Criterion,
        (name, f): (&str, &F),
        rows: [&str; 2],
        lines: floor::Lines<'_>,
    ) {
        let mut group = Group::new(c, "scale/floor", self.setting(), BATCH);
        floor::own_rows(&mut group, rows, lines, &self.keys.misses);
        group.finish();
        let setting = Setting::new(&self.size.param, SAMPLES);
        let streams = [
            ("hit", &self.keys.hits[..]),
            ("miss", &self.keys.misses[..]),
            ("mixed", &self.keys.mixed[..]),
        ];
        floor::own_turns(
            self.turns,
            "scale",
            setting,
            (name, f),
            rows,
            lines,
            &streams,
        );
    }

    /// The hits of `f`, and of its peer where its table and `own` [allow
    /// it](in_turns), each timed in turns against the floor of a hit
    /// over `f`'s table, `own`: the hash and `k` lines, `f`'s positions per
    /// hit ([`floor::hit_floor`]; `copy` when `own` is a copy of the
    /// table).
    fn hit_floor<F: Membership<u64>, P: Membership<u64>>(
        &mut self,
        ((name, f), (peer_name, peer)): ((&str, &F), (&str, &P)),
        (own, k, copy): (floor::Lines<'_>, u32, bool),
    ) {
        let floor_name = floor::hit_floor(k, name, copy);
        let subjects: [(&str, floor::Lookups<'_>); 2] = [
            (name, &|b| harness::hits(f, b)),
            (peer_name, &|b| harness::hits(peer, b)),
        ];
        // The peer's turns share the cache with the floor's table, `own`
        // (the filter's own table, or a copy of it).
        let with_peer = in_turns(own.bytes(), peer.memory_bytes());
        let subjects = if with_peer {
            &subjects[..]
        } else {
            &subjects[..1]
        };
        self.against_floor(subjects, (&floor_name, own, k), false);
    }

    /// `peer`'s single hits and misses timed in turns
    /// against `floor`, the one-line floor over a one-line filter's own
    /// table, `own` (that filter's rows are [`own_floors`](Self::own_floors)'):
    /// whether a target set as a fraction of the peer's time lies above it.
    /// Only where the two tables' sizes [allow it](in_turns).
    fn peer_on_own_floor<P: Membership<u64>>(
        &mut self,
        (peer_name, peer): (&str, &P),
        floor_name: &str,
        own: floor::Lines<'_>,
    ) {
        if !in_turns(peer.memory_bytes(), own.bytes()) {
            return;
        }
        let subjects: [(&str, floor::Lookups<'_>); 1] = [(peer_name, &|b| harness::hits(peer, b))];
        self.against_floor(&subjects, (floor_name, own, 1), true);
    }

    /// `subjects` timed in turns against a floor
    /// ([`floor::floor_turns`]) on the hits, and with `misses` on the
    /// misses too.
    fn against_floor(
        &mut self,
        subjects: &[(&str, floor::Lookups<'_>)],
        floor: (&str, floor::Lines<'_>, u32),
        misses: bool,
    ) {
        let setting = Setting::new(&self.size.param, SAMPLES);
        let streams = [
            ("hit", &self.keys.hits[..]),
            ("miss", &self.keys.misses[..]),
        ];
        let streams = if misses { &streams[..] } else { &streams[..1] };
        floor::floor_turns(self.turns, "scale", setting, subjects, floor, streams);
    }

    /// `f` [measured](Self::measure) (with the mixed stream if `mixed`),
    /// timed [against its peer](Self::against_peer), and its hits against
    /// [the floor of a hit](Self::hit_floor) over its table where `own`
    /// finds one: the table's lines and `f`'s positions per hit. Then
    /// dropped.
    fn with_hit_floor<F: Membership<u64>, P: Membership<u64>>(
        &mut self,
        c: &mut Criterion,
        (name, f, mixed): (&str, F, bool),
        peer: (&str, &P),
        own: impl FnOnce(&F) -> Option<(floor::Lines<'_>, u32)>,
    ) {
        let f = self.measure(c, name, f, mixed);
        self.against_peer([name, peer.0], &f, peer.1);
        if let Some((lines, k)) = own(&f) {
            self.hit_floor(((name, &f), peer), (lines, k, false));
        }
    }

    /// A one-line filter `f` [measured](Self::measure), with its
    /// [own floors](Self::own_floors) (`rows`) over its table's `lines`,
    /// its peer [on the one-line floor](Self::peer_on_own_floor) of them
    /// (`peer_floor`), and `f` timed [against its peer](Self::against_peer).
    /// Then dropped.
    fn one_line<F: Membership<u64>, P: Membership<u64>>(
        &mut self,
        c: &mut Criterion,
        (name, f): (&str, F),
        (rows, peer_floor): ([&str; 2], &str),
        peer: (&str, &P),
        lines: impl FnOnce(&F) -> floor::Lines<'_>,
    ) {
        let f = self.measure(c, name, f, true);
        let lines = lines(&f);
        self.own_floors(c, (name, &f), rows, lines);
        self.peer_on_own_floor(peer, peer_floor, lines);
        self.against_peer([name, peer.0], &f, peer.1);
    }

    /// `name`'s filter built again by `fold`, hashing with [`FoldHash`],
    /// and by `sip`, keyed with [`sip13`]: each [measured](Self::other_hash)
    /// against `peer` as `name (foldhash)` and `name (SipHash-1-3)`, one at
    /// a time.
    fn other_hashes<A, B, EA, EB, P>(
        &mut self,
        c: &mut Criterion,
        (name, peer): (&str, (&str, &P)),
        fold: impl FnOnce() -> Result<A, EA>,
        sip: impl FnOnce() -> Result<B, EB>,
    ) where
        A: Membership<u64>,
        B: Membership<u64>,
        P: Membership<u64>,
        EA: Debug,
        EB: Debug,
    {
        let fold = fold().expect("valid size");
        self.other_hash(c, &format!("{name}{FOLDHASH_SUFFIX}"), fold, peer);
        let sip = sip().expect("valid size");
        self.other_hash(c, &format!("{name}{SIPHASH_SUFFIX}"), sip, peer);
    }

    /// The floors over a table of the smallest subject's size.
    fn floors(&self, c: &mut Criterion) {
        let lines = self.smallest as u64 / 64;
        let mut progress = Progress::new(TAG, "the floor table", lines);
        let table = FloorTable::new(self.smallest as u64, DefaultHasher::from_seed(7));
        progress.update(lines);
        progress.finish(table.bytes());
        let mut group = Group::new(c, "scale/floor", self.setting(), BATCH);
        table.rows(&mut group, &self.keys.misses);
        group.finish();
    }
}

/// The whole table of a classic-layout filter and its positions per hit.
fn words_of<'t>(
    words: &'t [u64],
    hasher: &'t DefaultHasher,
    k: u32,
) -> Option<(floor::Lines<'t>, u32)> {
    Some((floor::Lines::from_words(words, hasher), k))
}

/// The single-threaded Bloom filters against their peer, which is built
/// first and kept for their rows in turns: measured with huge pages on and
/// again with them off.
fn bloom(c: &mut Criterion, run: &mut Run<'_>) {
    let n = run.size.items as usize;
    let peer = run.peer(
        c,
        "fastbloom::BloomFilter",
        Fastbloom::with_default_hasher(n, FPR),
    );
    let peer = peer.get();
    let name = "bloomlab::BloomFilter";
    let ours = BloomFilter::<u64>::new(n, FPR).expect("valid size");
    run.with_hit_floor(c, (name, ours, true), peer, |f| {
        words_of(f.as_words(), f.hasher(), f.num_hashes())
    });
    if run.size.huge_pages {
        let builder = || BloomFilter::<u64>::builder(n, FPR);
        let fold = || builder().hasher(FoldHash::default()).build();
        run.other_hashes(c, (name, peer), fold, || builder().hasher(sip13()).build());
    }
    let ours = BlockedBloomFilter::<u64>::new(n, FPR).expect("valid size");
    let floors = (floor::OWN_BLOCKED, floor::OWN_ONE_LINE);
    run.one_line(
        c,
        ("bloomlab::BlockedBloomFilter", ours),
        floors,
        peer,
        |f| floor::Lines::new(f.as_blocks(), f.hasher()),
    );
}

/// The atomic Bloom filters against their peer, with their thread rows.
fn atomic(c: &mut Criterion, run: &mut Run<'_>) {
    let n = run.size.items as usize;
    let peer_name = "fastbloom::AtomicBloomFilter";
    let peer = run.measure(
        c,
        peer_name,
        FastbloomAtomic::with_default_hasher(n, FPR),
        true,
    );
    let name = "bloomlab::AtomicBloomFilter";
    let ours = AtomicBloomFilter::<u64>::new(n, FPR).expect("valid size");
    let f = run.measure(c, name, ours, true);
    run.against_peer([name, peer_name], &f, &peer);
    // Its words are atomic: the floor reads a plain copy of them.
    let copy = f.to_bloom();
    let own = floor::Lines::from_words(copy.as_words(), copy.hasher());
    run.hit_floor(
        ((name, &f), (peer_name, &peer)),
        (own, f.num_hashes(), true),
    );
    drop((f, copy));
    let peer = (peer_name, &peer);
    let builder = || AtomicBloomFilter::<u64>::builder(n, FPR);
    let fold = || builder().hasher(FoldHash::default()).build();
    run.other_hashes(c, (name, peer), fold, || builder().hasher(sip13()).build());
}

/// The counting, cuckoo and scalable filters, each against its peer, which
/// is built first and kept for their rows in turns.
fn pairs(c: &mut Criterion, run: &mut Run<'_>) {
    let n = run.size.items;
    let items = n as usize;
    let counting_peer = run.peer(
        c,
        "fastbloom-rs::CountingBloomFilter",
        FastbloomRsCounting::new(n, FPR),
    );
    let peer = counting_peer.get();
    let name = "bloomlab::CountingBloomFilter";
    let ours = CountingBloomFilter::<u64>::new(items, FPR).expect("valid size");
    run.with_hit_floor(c, (name, ours, true), peer, |f| {
        words_of(f.as_words(), f.hasher(), f.num_hashes())
    });
    let builder = || CountingBloomFilter::<u64>::builder(items, FPR);
    let fold = || builder().hasher(FoldHash::default()).build();
    run.other_hashes(c, (name, peer), fold, || builder().hasher(sip13()).build());
    let name = "bloomlab::BlockedCountingBloomFilter";
    let ours = BlockedCountingBloomFilter::<u64>::new(items, FPR).expect("valid size");
    // Its four-bit counters make this table the largest of the setting.
    let floors = (floor::OWN_COUNTING, floor::ONE_LINE_COUNTING);
    run.one_line(c, (name, ours), floors, peer, |f| {
        floor::Lines::from_words(f.as_words(), f.hasher())
    });
    let builder = || BlockedCountingBloomFilter::<u64>::builder(items, FPR);
    let fold = || builder().hasher(FoldHash::default()).build();
    run.other_hashes(c, (name, peer), fold, || builder().hasher(sip13()).build());
    drop(counting_peer);

    let peer_name = "cuckoofilter";
    let peer = Cuckoofilter::<StdSip13>::with_capacity(items);
    let peer = run.measure(c, peer_name, peer, true);
    let name = "bloomlab::CuckooFilter";
    let ours = CuckooFilter::<u64>::new(items, FPR).expect("valid size");
    let f = run.measure(c, name, ours, true);
    run.against_peer([name, peer_name], &f, &peer);
    drop((f, peer));

    let peer_name = "growable-bloom-filter";
    let peer = run.measure(c, peer_name, Growable::with_defaults(n, FPR), false);
    let ours = ScalableBloomFilter::<u64>::new(items, FPR).expect("valid size");
    // Built for its capacity, it has one layer: a classic filter.
    let subject = ("bloomlab::ScalableBloomFilter", ours, false);
    run.with_hit_floor(c, subject, (peer_name, &peer), |f| match f.layers() {
        [layer] => words_of(layer.as_words(), layer.hasher(), layer.num_hashes()),
        _ => None,
    });
}

/// The dependent chain over tables of 1 to 64 MiB: where this machine's
/// cache ends.
fn cache_sweep(c: &mut Criterion) {
    let mut group = Group::new(c, "scale/floor", Setting::new(floor::SWEEP, SAMPLES), BATCH);
    floor::cache_rows(&mut group);
    group.finish();
}

fn bench(c: &mut Criterion) {
    let mut turns = harness::turns_criterion();
    for size in &sizes() {
        bloomlab_core::alloc::set_huge_pages(size.huge_pages);
        let mut run = Run {
            size,
            keys: Probes::new(size.items).with_mixed(),
            smallest: usize::MAX,
            turns: &mut turns,
        };
        bloom(c, &mut run);
        if size.huge_pages {
            atomic(c, &mut run);
            pairs(c, &mut run);
        }
        run.floors(c);
    }
    bloomlab_core::alloc::set_huge_pages(true);
    cache_sweep(c);
}

criterion_group! {
    name = benches;
    config = harness::criterion();
    targets = bench
}
criterion_main!(benches);
