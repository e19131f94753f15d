//! Keys and fast, exact construction for the large-filter benchmark
//! (`benches/big.rs`).
//!
//! A filter of 1 GiB at 1% holds about 896 million items. Inserting them one
//! by one into a classic filter costs seven random read-modify-writes of
//! memory each, about 200 ns per item on the benchmark machine: three
//! minutes per filter. [`fill_bits`] sets exactly the same bits in a few
//! tens of seconds, by grouping the positions by 512 KiB region of the table
//! and setting them region by region, so that the writes hit the cache. The
//! tests check that the table it builds is bit for bit the table the
//! filter's own `insert` builds.

use std::hash::{BuildHasher, Hash};
use std::time::{Duration, Instant};

use bloomlab_core::hash::{Scheme, SchemePositions, mix64};

/// The `i`-th member key: `mix64(i)` with the top bit clear. Every
/// `member(i)` for `i < n` is inserted when a filter is filled with `n` items.
pub fn member(i: u64) -> u64 {
    mix64(i) & !(1 << 63)
}

/// The `j`-th non-member key: top bit set, so never a member.
pub fn non_member(j: u64) -> u64 {
    mix64(j ^ 0x5bd1_e995_9e37_79b9) | 1 << 63
}

/// `count` members drawn at random (seeded) among the first `n`: lookups of
/// them touch random places of the table, as real hits do.
pub fn sample_members(n: u64, count: usize) -> Vec<u64> {
    (0..count as u64)
        .map(|j| {
            member(bloomlab_core::hash::reduce(
                mix64(j ^ 0x2545_f491_4f6c_dd1d),
                n,
            ))
        })
        .collect()
}

/// `count` non-members.
pub fn sample_non_members(count: usize) -> Vec<u64> {
    (0..count as u64).map(non_member).collect()
}

/// A size read from the environment variable `var` (a positive whole
/// number), else `test` in test mode (`cargo bench -- --test`) and `full`
/// otherwise.
pub fn size_from_env(var: &str, test: u64, full: u64) -> u64 {
    let test_mode = std::env::args().any(|a| a == "--test");
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&m| m > 0)
        .unwrap_or(if test_mode { test } else { full })
}

/// Probe keys per kind, cycled through in batches of
/// [`BATCH`](crate::harness::BATCH).
pub const PROBES: usize = 1_000_000;

/// The hit and miss streams of a table of `n` members: [`PROBES`] (or `n`,
/// if fewer) members drawn at random, and as many non-members.
pub fn hits_and_misses(n: u64) -> (Vec<u64>, Vec<u64>) {
    let count = PROBES.min(n as usize);
    (sample_members(n, count), sample_non_members(count))
}

/// The probe streams of a table of `n` members: the hits and misses of
/// [`hits_and_misses`], and the streams a bench adds with
/// [`with_fresh`](Self::with_fresh) and [`with_mixed`](Self::with_mixed)
/// (empty until then).
pub struct Probes {
    /// Members drawn at random.
    pub hits: Vec<u64>,
    /// Non-members.
    pub misses: Vec<u64>,
    /// Members past the first `n`, not yet inserted, as many as the hits.
    pub fresh: Vec<u64>,
    /// Half hits and half misses in a seeded random order ([`mixed`]), its
    /// hits fresh draws, so not the hit stream's.
    pub mixed: Vec<u64>,
    n: u64,
}

impl Probes {
    /// The hits and misses of a table of `n` members.
    pub fn new(n: u64) -> Self {
        let (hits, misses) = hits_and_misses(n);
        Self {
            hits,
            misses,
            fresh: Vec::new(),
            mixed: Vec::new(),
            n,
        }
    }

    /// With the [`fresh`](Self::fresh) stream: `member(n + j)`.
    #[must_use]
    pub fn with_fresh(mut self) -> Self {
        let n = self.n;
        self.fresh = (0..self.hits.len() as u64).map(|j| member(n + j)).collect();
        self
    }

    /// With the [`mixed`](Self::mixed) stream.
    #[must_use]
    pub fn with_mixed(mut self) -> Self {
        let n = self.n;
        let draws: Vec<u64> = (0..self.hits.len() as u64)
            .map(|j| member(bloomlab_core::hash::reduce(mix64(j ^ 0x6d69_7865_6421), n)))
            .collect();
        self.mixed = mixed(&draws, &self.misses);
        self
    }
}

/// Half hits drawn from `hits` and half misses from `misses` (as many as the
/// shorter holds), in a seeded random order, so that no branch can learn
/// which comes next.
pub fn mixed(hits: &[u64], misses: &[u64]) -> Vec<u64> {
    let half = hits.len().min(misses.len()) / 2;
    let mut keys: Vec<u64> = hits[..half]
        .iter()
        .chain(&misses[..half])
        .copied()
        .collect();
    for i in (1..keys.len()).rev() {
        let j = bloomlab_core::hash::reduce(mix64(i as u64 ^ 0x3c6e_f372), i as u64 + 1);
        keys.swap(i, j as usize);
    }
    keys
}

/// Prints how a long build is going, and how long it took, each line
/// starting with its bench's tag (`big:`).
pub struct Progress {
    tag: &'static str,
    what: String,
    start: Instant,
    total: u64,
    shown: u64,
}

impl Progress {
    /// A build of `total` items of `what`, announced now.
    pub fn new(tag: &'static str, what: impl Into<String>, total: u64) -> Self {
        let what = what.into();
        eprintln!("{tag}: building {what} ({total} items)");
        Self {
            tag,
            what,
            start: Instant::now(),
            total,
            shown: 0,
        }
    }

    /// `done` of the items are in.
    pub fn update(&mut self, done: u64) {
        let tenth = done * 10 / self.total.max(1);
        // Quick builds (test mode) stay quiet; long ones say how far they are.
        if tenth > self.shown && self.start.elapsed() > Duration::from_secs(5) {
            self.shown = tenth;
            eprintln!(
                "{}:   {}: {}% after {:.0} s",
                self.tag,
                self.what,
                tenth * 10,
                self.start.elapsed().as_secs_f64()
            );
        }
    }

    /// The build is done: says its size and time.
    pub fn finish(self, bytes: usize) {
        eprintln!(
            "{}: {} built: {:.1} MiB in {:.1} s",
            self.tag,
            self.what,
            bytes as f64 / (1u64 << 20) as f64,
            self.start.elapsed().as_secs_f64()
        );
    }
}

/// Keys generated and inserted at a time by [`fill`].
const FILL_CHUNK: u64 = 1 << 16;

/// Calls `insert` with the members `0..n` in chunks, reporting progress.
pub fn fill(progress: &mut Progress, n: u64, mut insert: impl FnMut(&[u64])) {
    let mut keys = Vec::with_capacity(FILL_CHUNK as usize);
    let mut start = 0;
    while start < n {
        let end = n.min(start + FILL_CHUNK);
        keys.clear();
        keys.extend((start..end).map(member));
        insert(&keys);
        start = end;
        progress.update(start);
    }
}

/// Table bits per region: 2^22 bits, 512 KiB, half of this machine's L2.
const REGION_LOG2: u32 = 22;

/// Keys whose positions are grouped before they are set.
const CHUNK: u64 = 1 << 21;

/// Sets in `words` the bit positions `positions(member(i))` of every member
/// `i < n`, as inserting those members would, but region by region so that
/// the writes stay in cache, and on two threads. `progress` is called now
/// and then with about how many keys are done.
pub fn fill_bits<I>(
    words: &mut [u64],
    n: u64,
    positions: impl Fn(u64) -> I + Sync,
    mut progress: impl FnMut(u64),
) where
    I: Iterator<Item = u64>,
{
    // Two halves of the keys on two threads, each into its own table, then
    // the second table ORed into the first: the same bits, in half the time.
    let half = n / 2;
    let mut second = vec![0u64; words.len()];
    std::thread::scope(|scope| {
        scope.spawn(|| fill_range(&mut second, half..n, &positions, |_| {}));
        fill_range(words, 0..half, &positions, |done| progress(done * 2));
    });
    for (word, other) in words.iter_mut().zip(&second) {
        *word |= other;
    }
    progress(n);
}

/// [`fill_bits`] for the members `range`, on one thread.
fn fill_range<I>(
    words: &mut [u64],
    range: std::ops::Range<u64>,
    positions: &impl Fn(u64) -> I,
    mut progress: impl FnMut(u64),
) where
    I: Iterator<Item = u64>,
{
    let regions = ((words.len() as u64 * 64) >> REGION_LOG2) as usize + 1;
    let mut pending: Vec<Vec<u32>> = vec![Vec::new(); regions];
    let mask = (1u64 << REGION_LOG2) - 1;
    let (mut start, n) = (range.start, range.end);
    while start < n {
        let end = n.min(start + CHUNK);
        for i in start..end {
            for bit in positions(member(i)) {
                pending[(bit >> REGION_LOG2) as usize].push((bit & mask) as u32);
            }
        }
        for (region, offsets) in pending.iter_mut().enumerate() {
            let base = region << (REGION_LOG2 - 6);
            for &offset in offsets.iter() {
                words[base + (offset >> 6) as usize] |= 1 << (offset & 63);
            }
            offsets.clear();
        }
        start = end;
        progress(start - range.start);
    }
}

/// The positions bloomlab's classic filters, as built, set for `key`: the
/// first `k` of [`Scheme::CURRENT`]'s positions over `num_bits`.
pub fn bloomlab_positions<S: BuildHasher>(
    hasher: &S,
    num_bits: u64,
    k: u32,
) -> impl Fn(u64) -> std::iter::Take<SchemePositions> + '_ {
    move |key| {
        Scheme::CURRENT
            .positions(hasher.hash_one(key), num_bits)
            .take(k as usize)
    }
}

/// The positions `fastbloom` 0.17 sets for `key` in a table of `num_bits`
/// bits with `k` hashes: its source hash reduced by multiply-shift, then
/// `k − 1` more from its double hashing (`h1 ← rotl(h1, 5) + h2`, with
/// `h2 = h1 · 0x517c_c1b7_2722_0a95`). A test checks this against
/// fastbloom's own inserts, so an upgrade that changes it fails loudly.
pub fn fastbloom_positions<S: BuildHasher>(
    hasher: &S,
    num_bits: u64,
    k: u32,
) -> impl Fn(u64) -> FastbloomPositions + '_ {
    move |key| {
        let mut state = hasher.build_hasher();
        key.hash(&mut state);
        let h1 = std::hash::Hasher::finish(&state);
        FastbloomPositions {
            h1,
            h2: h1.wrapping_mul(0x51_7c_c1_b7_27_22_0a_95),
            num_bits,
            left: k,
            first: true,
        }
    }
}

/// The iterator [`fastbloom_positions`] returns.
#[derive(Debug, Clone)]
pub struct FastbloomPositions {
    h1: u64,
    h2: u64,
    num_bits: u64,
    left: u32,
    first: bool,
}

impl Iterator for FastbloomPositions {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        if self.first {
            self.first = false;
        } else {
            self.h1 = self.h1.rotate_left(5).wrapping_add(self.h2);
        }
        Some(bloomlab_core::hash::reduce(self.h1, self.num_bits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bloomlab::classic::BloomFilter;
    use bloomlab_core::{DefaultHasher, Membership};
    use bloomlab_lab::peers::Fastbloom;

    /// A table of 3 regions and a bit (so the last region is partial),
    /// filled with 50,000 members in chunks of 2^21 keys: one chunk.
    const BITS: u64 = 3 * (1 << REGION_LOG2) + 64;
    const N: u64 = 50_000;

    #[test]
    fn a_mixed_stream_is_half_hits_in_no_fixed_order() {
        let hits = sample_members(N, 1000);
        let misses = sample_non_members(1000);
        let keys = mixed(&hits, &misses);
        assert_eq!(keys.len(), 1000);
        assert_eq!(keys.iter().filter(|&&k| k >> 63 == 0).count(), 500);
        let runs = keys.windows(2).filter(|w| w[0] >> 63 != w[1] >> 63).count();
        assert!((400..600).contains(&runs), "{runs} changes of kind");
    }

    #[test]
    fn members_and_non_members_never_meet() {
        let members: std::collections::HashSet<u64> = (0..N).map(member).collect();
        assert!(
            sample_non_members(10_000)
                .iter()
                .all(|k| !members.contains(k))
        );
        assert!(
            sample_members(N, 10_000)
                .iter()
                .all(|k| members.contains(k))
        );
    }

    #[test]
    fn fill_bits_builds_the_table_bloomlab_inserts_build() {
        let hasher = DefaultHasher::from_seed(7);
        let mut inserted = BloomFilter::builder_with_bits(BITS, 7)
            .seed(7)
            .build()
            .unwrap();
        inserted.extend((0..N).map(member));
        let mut words = vec![0u64; BITS.div_ceil(64) as usize];
        let mut done = Vec::new();
        fill_bits(&mut words, N, bloomlab_positions(&hasher, BITS, 7), |d| {
            done.push(d)
        });
        assert_eq!(done.last(), Some(&N));
        assert_eq!(words, inserted.as_words());
    }

    #[test]
    fn fill_bits_builds_the_table_fastbloom_inserts_build() {
        let hasher = DefaultHasher::from_seed(7);
        let words_len = BITS.div_ceil(64) as usize;
        let mut inserted = Fastbloom::from_words(vec![0; words_len], hasher.clone(), 7, 0);
        for i in 0..N {
            inserted.insert(&member(i)).unwrap();
        }
        let mut words = vec![0u64; words_len];
        fill_bits(
            &mut words,
            N,
            fastbloom_positions(&hasher, words_len as u64 * 64, 7),
            |_| {},
        );
        assert_eq!(words, inserted.as_words());
        assert!(words.iter().any(|&w| w != 0));
    }
}
