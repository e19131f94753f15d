//! Lower bounds for a filter's lookups, measured in the same run as the
//! filters, over a table of the same size, so that a filter cannot beat
//! them: every lookup of a bloomlab filter (and of the peers measured with
//! the same hasher) computes at least the key's keyed hash and reads
//! at least one random 64-byte line of its table.
//!
//! - [`HASH`]: the hash alone, `DefaultHasher::hash_one` of each key, as the
//!   filters compute it.
//! - [`ONE_LINE`]: the hash, then one load from the line it selects, one key
//!   after the other. The keys are independent, so the CPU overlaps the loads
//!   of successive keys as far as its reorder buffer allows, exactly as it
//!   does for a loop of independent lookups: this, not a dependent chain, is
//!   what a loop of single lookups cannot beat.
//! - [`THREE_LINES`]: the same with three lines per key (from the one hash):
//!   what a classic or counting filter's miss cannot beat, since its first
//!   round reads three positions before it can answer.
//! - [`ONE_LINE_BATCH`]: one line per key read through the filters' own
//!   batch body, [`batch::contains`]: the hashes of a chunk of [`CHUNK`](batch::CHUNK)
//!   keys first, then each key's line prefetched [`batch::ahead`] keys
//!   before it is read, as a one-line filter's `contains_batch` reads its
//!   blocks, with nothing else in the loop.
//! - [`OWN_ONE_LINE`] and [`OWN_ONE_LINE_BATCH`]: [`ONE_LINE`] and
//!   [`ONE_LINE_BATCH`] over the blocked Bloom filter's own table
//!   ([`own_rows`]), hashing with its hasher, so that each key reads the
//!   line the filter's lookup of it reads, at the same address. On this
//!   virtual machine the same loop over two tables of the same size and
//!   content ran up to a sixth apart (3 December, in one process, measured
//!   in turns of 20,000 keys: 0.98 and 0.99 times one table's floor, 1.13
//!   and 1.17 times it over a copy of that table made later), so a floor
//!   over other memory bounds the one-line lookup only loosely.
//! - [`ONE_LINE_COUNTING`] and [`ONE_LINE_COUNTING_BATCH`]: the same two
//!   loops over the one-line counting filter's own table. Its four-bit
//!   counters make that table about four and a half times the blocked Bloom
//!   filter's, the largest of its setting, and past the cache a larger table
//!   is slower to read, so a floor over the smallest table does not bound
//!   it closely; nor did one over a separate table of its size (1M items,
//!   3 December: the filter's single hits took 0.94 times that floor).
//! - [`CHEAP_HASH`]: the [`ONE_LINE`] loop with [`mix64`] of the key in
//!   place of its keyed hash: a reference and **not** a floor (no filter
//!   here hashes so cheaply). Past the cache, a loop of single lookups runs
//!   as many loads at once as its lookups fit in the processor's reorder
//!   window, so the instructions of each lookup, not only its reads, set its
//!   time: this row against [`ONE_LINE`] shows what the hash's share of them
//!   costs there.
//! - [`CHAIN`]: a pointer chase through a random cycle of the lines, each
//!   address read from the line before. This is the latency of one uncached
//!   line, a reference and **not** a floor: a loop of independent lookups
//!   overlaps its misses and beats it (issue 20).
//!
//! [`own_turns`] times a one-line filter against its two floors over its own
//! table in alternating batches ([`Turns`]), so that each floor is
//! measured in the same seconds as the lookups it bounds.
//!
//! [`cache_rows`] measures the chain over tables of [`SWEEP_MIB`]: where its
//! latency jumps is how much of the cache this process really gets.
//!
//! The table is written through (each line holds the index of the next line
//! of the cycle), so every page is mapped to memory of its own, as a filled
//! filter's are.

use std::hash::BuildHasher;
use std::hint::black_box;

use bloomlab::fuse::BinaryFuseFilter;
use bloomlab_core::DefaultHasher;
use bloomlab_core::alloc::{self, Buffer};
use bloomlab_core::batch;
use bloomlab_core::hash::{mix64, reduce};

use bloomlab_core::Membership;
use criterion::Criterion;

use crate::harness::{self, BATCH, Group, Setting, Turns};

/// The row of the hash alone.
pub const HASH: &str = "floor: hash";
/// The row of the hash and one line, one key at a time.
pub const ONE_LINE: &str = "floor: hash + 1 line, one lookup at a time";
/// The row of the hash and three lines, one key at a time.
pub const THREE_LINES: &str = "floor: hash + 3 lines, one lookup at a time";
/// The row of the hashes of a chunk, then one line per key.
pub const ONE_LINE_BATCH: &str = "floor: hash + 1 line, batched";
/// The row of [`ONE_LINE`] over the blocked Bloom filter's own table.
pub const OWN_ONE_LINE: &str =
    "floor: hash + 1 line over the blocked filter's own table, one lookup at a time";
/// The row of [`ONE_LINE_BATCH`] over the blocked Bloom filter's own table.
pub const OWN_ONE_LINE_BATCH: &str =
    "floor: hash + 1 line over the blocked filter's own table, batched";
/// The row of [`ONE_LINE`] over the one-line counting filter's own table.
pub const ONE_LINE_COUNTING: &str =
    "floor: hash + 1 line over the one-line counting table itself, one lookup at a time";
/// The row of [`ONE_LINE_BATCH`] over the one-line counting filter's own
/// table.
pub const ONE_LINE_COUNTING_BATCH: &str =
    "floor: hash + 1 line over the one-line counting table itself, batched";
/// The rows [`own_rows`] measures over the blocked Bloom filter's table.
pub const OWN_BLOCKED: [&str; 2] = [OWN_ONE_LINE, OWN_ONE_LINE_BATCH];
/// The rows [`own_rows`] measures over the one-line counting filter's table.
pub const OWN_COUNTING: [&str; 2] = [ONE_LINE_COUNTING, ONE_LINE_COUNTING_BATCH];
/// The row of [`fuse_slots`]: the hash and the three reads of a lookup of
/// the 8-bit 3-wise binary fuse filter, over its own array.
pub const FUSE_SLOTS: &str = "floor: hash + 3 reads at the key's slots of the 8-bit 3-wise filter's own array, \
     one lookup at a time";
/// The row of [`ONE_LINE`]'s loop with a cheap hash: a reference, not a floor.
pub const CHEAP_HASH: &str = "reference: mix64 + 1 line, one lookup at a time (not a floor)";
/// The row of one dependent chain of line reads: a latency, not a floor.
pub const CHAIN: &str = "latency: 1 line, dependent chain (not a floor)";

/// The most lines per key [`Lines::k_at_a_time`] reads.
pub const MAX_LINES: u32 = 16;

/// The name of the floor of a hit over the table of `subject`, a filter
/// whose hits read `k` positions anywhere in it: the hash and `k` lines of
/// that table, one key at a time ([`Lines::k_at_a_time`]). `copy` when the
/// lines are a copy of the table (an atomic filter's words, read as plain
/// ones).
pub fn hit_floor(k: u32, subject: &str, copy: bool) -> String {
    let table = if copy {
        format!("a copy of {subject}'s table")
    } else {
        format!("{subject}'s own table")
    };
    format!("floor: hash + {k} lines over {table}, one lookup at a time")
}

/// The table sizes of [`cache_rows`], in MiB.
pub const SWEEP_MIB: [u64; 12] = [1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 64];

/// The setting of [`cache_rows`].
pub const SWEEP: &str = "tables of 1 to 64 MiB";

/// Every floor row, in the order they are measured; [`CHAIN`] is not one.
pub const FLOORS: [&str; 4] = [HASH, ONE_LINE, THREE_LINES, ONE_LINE_BATCH];

/// One 64-byte line (the table's [`Buffer`] starts on a line).
pub type Line = [u64; 8];

/// The index of the first word of the line a key of hash `h` selects among
/// `lines` lines (`reduce(h, lines)`, eight words a line).
#[inline(always)]
fn first_word(h: u64, lines: u64) -> usize {
    reduce(h, lines) as usize * 8
}

/// The floors' loops over a table of lines, hashing with the filters'
/// hasher: a [`FloorTable`]'s own lines, or a filter's table itself
/// ([`own_rows`]).
#[derive(Clone, Copy)]
pub struct Lines<'t> {
    /// The table's words, line `i` in `8·i .. 8·i + 8`.
    words: &'t [u64],
    hasher: &'t DefaultHasher,
}

impl<'t> Lines<'t> {
    /// The loops over `lines` (at least one), hashing with `hasher`.
    pub fn new(lines: &'t [Line], hasher: &'t DefaultHasher) -> Self {
        Self::from_words(lines.as_flattened(), hasher)
    }

    /// The loops over the lines of `words`, eight words each, as a one-line
    /// filter that exposes its table as words (`BlockedCountingBloomFilter::
    /// as_words`) lays them out; words past the last whole line are never
    /// read.
    pub fn from_words(words: &'t [u64], hasher: &'t DefaultHasher) -> Self {
        Self { words, hasher }
    }

    /// Whole lines in the table.
    fn len(&self) -> usize {
        self.words.len() / 8
    }

    /// Bytes of the table's words.
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// The line `h` selects: the block a one-line filter of these lines
    /// reads for a key of hash `h` (`reduce(h, lines)`).
    #[inline]
    fn line(&self, h: u64) -> &Line {
        let first = first_word(h, self.len() as u64);
        let line = self.words[first..first + 8].try_into();
        line.expect("eight words from a line below the count of whole lines")
    }

    #[inline]
    fn load(&self, h: u64) -> u64 {
        self.line(h)[0]
    }

    /// The sum of the keys' hashes.
    pub fn hash_only(&self, keys: &[u64]) -> u64 {
        let hasher = self.hasher;
        keys.iter()
            .fold(0u64, |s, k| s.wrapping_add(hasher.hash_one(k)))
    }

    /// The sum of `L` lines per key, each key hashed and read in turn.
    pub fn one_at_a_time<const L: u32>(&self, keys: &[u64]) -> u64 {
        let hasher = self.hasher;
        self.lines_per_key::<L>(keys, |k| hasher.hash_one(k))
    }

    /// [`one_at_a_time`](Self::one_at_a_time) with `k` lines per key, for
    /// `k` from 1 to [`MAX_LINES`] (each count its own unrolled loop, as
    /// lean as the const one); `None` for 0 or past it.
    pub fn k_at_a_time(&self, keys: &[u64], k: u32) -> Option<u64> {
        macro_rules! arms {
            ($($l:literal)*) => {
                match k {
                    $($l => Some(self.one_at_a_time::<$l>(keys)),)*
                    _ => None,
                }
            };
        }
        arms!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
    }

    /// [`one_at_a_time`](Self::one_at_a_time) with `hash` for the hasher.
    ///
    /// The table's words and its count of lines are locals of the loop,
    /// not fields read through `self`: the compiler cannot tell that the
    /// hash's call leaves a field alone, so it read the fields again after
    /// every call, three loads a key more than a filter's lookup makes.
    #[inline(always)]
    fn lines_per_key<const L: u32>(&self, keys: &[u64], hash: impl Fn(&u64) -> u64) -> u64 {
        let (words, lines) = (self.words, self.len() as u64);
        let mut sum = 0u64;
        for k in keys {
            let h = hash(k);
            for j in 0..L {
                sum = sum.wrapping_add(words[first_word(h.rotate_left(j * 21), lines)]);
            }
        }
        sum
    }

    /// How many keys' lines hold an odd first word, read through
    /// [`batch::contains`] as a one-line filter's batch reads its blocks.
    pub fn batched(&self, keys: &[u64]) -> usize {
        let ahead = batch::ahead(self.len() * 64, 1);
        let odd = batch::contains(
            self.hasher,
            keys,
            ahead,
            |h| batch::prefetch(self.line(h)),
            |h| self.load(h) & 1 == 1,
        );
        odd.iter().filter(|&&b| b).count()
    }
}

/// The rows `[single, batched]` ([`OWN_BLOCKED`] or [`OWN_COUNTING`]) in
/// `group`, on batches of `keys`: the one-line floors over `own`, a
/// one-line filter's own table hashing with its hasher, so that each key
/// reads the very line the filter's lookup of it reads.
pub fn own_rows(group: &mut Group<'_>, [single, batched]: [&str; 2], own: Lines<'_>, keys: &[u64]) {
    group.cycle(single, keys, |batch| own.one_at_a_time::<1>(batch));
    group.cycle(batched, keys, |batch| own.batched(batch));
}

/// The [`Turns`] rows of the one-line filter `f`, named `name`, against the
/// floors `[single, batched]` over its own table `own` (as [`own_rows`]
/// measures them): its single lookups against the single floor and its
/// `contains_batch` against the batched floor, on each stream `(kind,
/// keys)` of `streams` ([`harness::turns_groups`]), each pair timed in
/// turns so that the floor bounds the filter at every moment.
pub fn own_turns<F: Membership<u64>>(
    c: &mut Criterion<Turns>,
    family: &str,
    setting: Setting<'_>,
    (name, f): (&str, &F),
    [single, batched]: [&str; 2],
    own: Lines<'_>,
    streams: &[(&str, &[u64])],
) {
    let batch_name = format!("{name} (batch)");
    harness::turns_groups(c, family, setting, streams, |group, keys| {
        group.pair(
            [name, single],
            keys,
            |b| harness::hits(f, b),
            |b| own.one_at_a_time::<1>(b),
        );
        group.pair(
            [&batch_name, batched],
            keys,
            |b| harness::trues(&f.contains_batch(b)),
            |b| own.batched(b),
        );
    });
}

/// The sum of the fingerprints at each key's slots in `f`, an 8-bit
/// 3-wise binary fuse filter, each key hashed and read in turn: its
/// lookups' work but for the key's own fingerprint and the comparison,
/// the three reads at the very slots its lookups read
/// ([`Shaped::slots_of_hash`](bloomlab::fuse::Shaped::slots_of_hash)). A binary fuse filter's slots lie
/// in three consecutive segments, so three lines read anywhere in a table
/// of its size ([`THREE_LINES`]) cost more than its lookups do once the
/// table is past the cache: that is not a bound on them. `None` for
/// another shape.
pub fn fuse_slots(f: &BinaryFuseFilter<u64>, keys: &[u64]) -> Option<u64> {
    // Under the filter's shape, as its fastest lookups take it
    // ([`BinaryFuseFilter::shaped`]): no choice of shape for each key.
    let shaped = f.shaped::<u8, 3>()?;
    let fingerprints = shaped.fingerprints();
    let mut sum = 0u64;
    for k in keys {
        for slot in shaped.slots_of_hash(f.hasher().hash_one(k)) {
            sum = sum.wrapping_add(u64::from(fingerprints[slot]));
        }
    }
    Some(sum)
}

/// A row's lookups on a batch of keys: how many were found.
pub type Lookups<'f> = &'f dyn Fn(&[u64]) -> usize;

/// The [`Turns`] rows of each of `subjects` (named lookups) against the
/// floor `floor` over a filter's table, `own`, reading `k` lines per key
/// ([`Lines::k_at_a_time`]), on each stream `(kind, keys)` of `streams`.
///
/// With the filter whose table it is and that filter's peer as subjects,
/// the filter's ratio shows how close it comes to the floor, and the
/// peer's whether a target set as a fraction of the peer's time lies above
/// the floor at all ([`crate::report::goals`]). Nothing is timed for a `k`
/// past [`MAX_LINES`].
pub fn floor_turns(
    c: &mut Criterion<Turns>,
    family: &str,
    setting: Setting<'_>,
    subjects: &[(&str, Lookups<'_>)],
    (floor, own, k): (&str, Lines<'_>, u32),
    streams: &[(&str, &[u64])],
) {
    if k == 0 || k > MAX_LINES {
        return;
    }
    let lines = |b: &[u64]| own.k_at_a_time(b, k).unwrap_or_default();
    harness::turns_groups(c, family, setting, streams, |group, keys| {
        for &(name, lookups) in subjects {
            group.pair([name, floor], keys, lookups, lines);
        }
    });
}

/// A table of random lines and the hasher of the filters it bounds, in the
/// memory the filters' tables are made of ([`bloomlab_core::alloc::buffer`]:
/// huge pages or not, as the filters measured beside it).
pub struct FloorTable {
    lines: Buffer<Line>,
    hasher: DefaultHasher,
}

impl FloorTable {
    /// A table of `bytes` (rounded down to whole lines, at least one), its
    /// lines linked in one random cycle (Sattolo's algorithm), hashing with
    /// `hasher`.
    pub fn new(bytes: u64, hasher: DefaultHasher) -> Self {
        let n = (bytes / 64).max(1) as usize;
        let mut order: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            let j = reduce(mix64(i as u64 ^ 0xf00d), i as u64) as usize;
            order.swap(i, j);
        }
        let mut lines = alloc::buffer::<Line>(n).expect("memory for the floor table");
        for (i, &line) in order.iter().enumerate() {
            lines[line as usize][0] = u64::from(order[(i + 1) % n]);
        }
        Self { lines, hasher }
    }

    /// Bytes of the table.
    pub fn bytes(&self) -> usize {
        self.lines.len() * 64
    }

    /// The floors' loops over this table.
    pub fn lines(&self) -> Lines<'_> {
        Lines::new(&self.lines, &self.hasher)
    }

    /// [`Lines::hash_only`] over this table.
    pub fn hash_only(&self, keys: &[u64]) -> u64 {
        self.lines().hash_only(keys)
    }

    /// [`Lines::one_at_a_time`] over this table.
    pub fn one_at_a_time<const L: u32>(&self, keys: &[u64]) -> u64 {
        self.lines().one_at_a_time::<L>(keys)
    }

    /// [`Lines::batched`] over this table.
    pub fn batched(&self, keys: &[u64]) -> usize {
        self.lines().batched(keys)
    }

    /// Follows the cycle `steps` lines from `at`; where it ends.
    pub fn chain(&self, mut at: usize, steps: usize) -> usize {
        for _ in 0..steps {
            at = self.lines[at][0] as usize;
        }
        at
    }

    /// The rows [`FLOORS`], [`CHEAP_HASH`] and [`CHAIN`] in `group`, on
    /// batches of `keys`.
    pub fn rows(&self, group: &mut Group<'_>, keys: &[u64]) {
        group.cycle(HASH, keys, |batch| self.hash_only(batch));
        group.cycle(ONE_LINE, keys, |batch| self.one_at_a_time::<1>(batch));
        group.cycle(THREE_LINES, keys, |batch| self.one_at_a_time::<3>(batch));
        group.cycle(ONE_LINE_BATCH, keys, |batch| self.batched(batch));
        group.cycle(CHEAP_HASH, keys, |batch| {
            self.lines().lines_per_key::<1>(batch, |&k| mix64(k))
        });
        self.chain_row(group, CHAIN);
    }

    /// The row `name` of `group`: [`chain`](Self::chain) steps, continuing
    /// from where the last iteration stopped.
    fn chain_row(&self, group: &mut Group<'_>, name: &str) {
        let mut at = 0usize;
        group.bench(name, |b| {
            b.iter(|| {
                at = self.chain(at, BATCH);
                black_box(at)
            })
        });
    }
}

/// The latency of one line ([`CHAIN`]) over a table of each size of
/// [`SWEEP_MIB`], at setting [`SWEEP`] of `group`: built one at a time.
pub fn cache_rows(group: &mut Group<'_>) {
    for mib in SWEEP_MIB {
        let table = FloorTable::new(mib << 20, DefaultHasher::from_seed(mib));
        let name = format!("latency: 1 line, dependent chain over {mib} MiB");
        table.chain_row(group, &name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_visits_every_line_once_per_cycle() {
        let t = FloorTable::new(64 * 1000, DefaultHasher::from_seed(7));
        let mut seen = vec![false; 1000];
        let mut at = 0;
        for _ in 0..1000 {
            assert!(!seen[at], "line {at} visited twice");
            seen[at] = true;
            at = t.chain(at, 1);
        }
        assert_eq!(at, 0);
        assert_eq!(t.bytes(), 64_000);
    }

    #[test]
    fn a_hit_floor_reads_k_lines_per_key_for_k_up_to_its_maximum() {
        let t = FloorTable::new(64 * 1000, DefaultHasher::from_seed(7));
        let lines = t.lines();
        let keys: Vec<u64> = (0..500).map(mix64).collect();
        // The sum of k lines per key: each key's k loads, as the const loop
        // reads them, and nothing past the maximum.
        let by_hand = |k: u32| {
            keys.iter().fold(0u64, |s, key| {
                let h = lines.hasher.hash_one(key);
                (0..k).fold(s, |s, j| s.wrapping_add(lines.load(h.rotate_left(j * 21))))
            })
        };
        for k in 1..=MAX_LINES {
            assert_eq!(lines.k_at_a_time(&keys, k), Some(by_hand(k)), "k = {k}");
        }
        assert_eq!(
            lines.k_at_a_time(&keys, 7),
            Some(lines.one_at_a_time::<7>(&keys))
        );
        assert_eq!(lines.k_at_a_time(&keys, 0), None);
        assert_eq!(lines.k_at_a_time(&keys, MAX_LINES + 1), None);
        assert_eq!(
            hit_floor(7, "bloomlab::BloomFilter", false),
            "floor: hash + 7 lines over bloomlab::BloomFilter's own table, one lookup at a time"
        );
    }

    #[test]
    fn the_fuse_floor_reads_the_slots_the_filter_reads() {
        let keys: Vec<u64> = (0..20_000).map(mix64).collect();
        let build = |bits, arity| {
            BinaryFuseFilter::<u64>::builder_with_bits(bits)
                .arity(arity)
                .seed(3)
                .build(&keys)
                .expect("builds")
        };
        let f = build(8, 3);
        let bloomlab::fuse::Fingerprints::U8(fingerprints) = f.fingerprints() else {
            panic!("8-bit fingerprints");
        };
        let segment = f.segment_length() as usize;
        let by_hand = keys.iter().fold(0u64, |s, k| {
            let slots = f
                .slots_of_hash::<3>(f.hasher().hash_one(k))
                .expect("3-wise");
            // One slot in each of three consecutive segments.
            assert_eq!(slots.map(|s| s / segment - slots[0] / segment), [0, 1, 2]);
            slots
                .iter()
                .fold(s, |s, &i| s.wrapping_add(u64::from(fingerprints[i])))
        });
        assert_eq!(fuse_slots(&f, &keys), Some(by_hand));
        // A member's slots XOR to a fingerprint, so most sums are not 0.
        assert_ne!(by_hand, 0);
        assert_eq!(fuse_slots(&build(8, 4), &keys), None);
        assert_eq!(fuse_slots(&build(16, 3), &keys), None);
    }

    #[test]
    fn the_own_table_floor_reads_the_line_the_filter_reads() {
        use bloomlab::BlockedBloomFilter;
        use bloomlab_core::hash::sector_cells_set;

        let mut f = BlockedBloomFilter::<u64>::builder(10_000, 0.01)
            .seed(3)
            .build()
            .expect("valid");
        let members: Vec<u64> = (0..10_000).map(mix64).collect();
        f.insert_batch(&members).expect("room");
        let own = Lines::new(f.as_blocks(), f.hasher());
        // Each member's bits are in the line the floor reads for it, and
        // the filter without that line's bits no longer finds it.
        for k in &members[..200] {
            let h = f.hasher().hash_one(k);
            let line = own.line(h);
            assert!(sector_cells_set::<1>(line, h), "{k}");
            let at = f.as_blocks().iter().position(|b| std::ptr::eq(b, line));
            let mut words: Vec<u64> = f.words().collect();
            let at = at.expect("a line of the filter's own table");
            words[8 * at..8 * at + 8].fill(0);
            let cleared = BlockedBloomFilter::<u64>::from_words(
                words,
                f.layout(),
                f.num_hashes(),
                f.len(),
                f.hasher().clone(),
            )
            .expect("the same parts");
            assert!(f.contains(k) && !cleared.contains(k), "{k}");
        }
        assert_ne!(own.one_at_a_time::<1>(&members), 0);
        let lines = f.as_blocks().len();
        let odd = members
            .iter()
            .filter(|k| own.load(f.hasher().hash_one(k)) & 1 == 1);
        assert_eq!(own.batched(&members), odd.count());
        assert_eq!(lines as u64, f.num_blocks());
    }

    #[test]
    fn the_counting_floor_reads_the_line_the_counting_filter_counts_in() {
        use bloomlab::BlockedCountingBloomFilter;

        let hasher = DefaultHasher::from_seed(5);
        for k in (0..100).map(mix64) {
            let mut f = BlockedCountingBloomFilter::<u64>::builder(10_000, 0.01)
                .hasher(hasher.clone())
                .build()
                .expect("valid");
            f.insert(&k).expect("room");
            let own = Lines::from_words(f.as_words(), f.hasher());
            assert_eq!(own.len() as u64, f.num_blocks());
            let line = own.line(hasher.hash_one(k));
            // The one item's counters are all in the line the floor reads.
            for (b, block) in f.as_words().chunks(8).enumerate() {
                let counted = block.iter().any(|&w| w != 0);
                assert_eq!(counted, std::ptr::eq(block, &line[..]), "{k}: block {b}");
            }
            let counters: u32 = line.iter().map(|w| w.count_ones()).sum();
            assert_eq!(counters, f.num_hashes(), "{k}");
        }
    }

    #[test]
    fn the_batched_floor_reads_each_keys_line() {
        let t = FloorTable::new(64 * 4096, DefaultHasher::from_seed(7));
        let keys: Vec<u64> = (0..2000).map(mix64).collect();
        let odd = keys
            .iter()
            .filter(|k| t.lines().load(t.hasher.hash_one(k)) & 1 == 1)
            .count();
        assert_eq!(t.batched(&keys), odd);
        // The lines' words are a permutation of 0..4096, half of them odd,
        // so `odd` is about Binomial(2000, 1/2): sd 22, and ±200 is 9 sd.
        assert!((800..1200).contains(&odd), "{odd}");
        assert_ne!(t.hash_only(&keys), 0);
    }
}
