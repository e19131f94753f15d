//! Batched lookups and inserts: hash a chunk of items, then probe them in
//! order while the memory of the next few is being fetched.
//!
//! One lookup in a table much larger than the cache waits for memory: a few
//! hundred nanoseconds for a line that is neither cached nor mapped by the
//! TLB. Waiting for the lines of several items at once costs little more
//! than waiting for one, because the memory system serves many requests in
//! parallel. The batch methods of every variant (`contains_batch`,
//! `insert_batch`, whose one body each is [`contains`] and
//! [`by_hash::insert_batch_by`](crate::by_hash::insert_batch_by))
//! therefore hash [`CHUNK`] items first, then walk the hashes: each item's
//! lines are [`prefetch`]ed a few items ([`ahead`]) before it is probed.
//! Answers are exactly those of the one-at-a-time methods, in the same
//! order.
//!
//! Hashing the whole chunk first, rather than hashing each item as its turn
//! comes, measured faster on a 1 GiB table (`benches/big.rs`): the hash's
//! long arithmetic chains then run at full speed and the probe loop issues
//! nothing but loads.
//!
//! ```
//! use bloomlab_core::batch;
//! use bloomlab_core::DefaultHasher;
//! use std::hash::BuildHasher;
//!
//! let hasher = DefaultHasher::from_seed(1);
//! let items: Vec<u64> = (0..1_000).collect();
//! let probed = std::cell::RefCell::new(Vec::new());
//! let answers = batch::contains(
//!     &hasher,
//!     &items,
//!     4,
//!     |_hash| {}, // start loading the lines of `_hash`
//!     |hash| {
//!         probed.borrow_mut().push(hash);
//!         hash % 2 == 0
//!     },
//! );
//! let hashes: Vec<u64> = items.iter().map(|i| hasher.hash_one(i)).collect();
//! assert_eq!(probed.into_inner(), hashes, "every item probed once, in order");
//! assert_eq!(answers, hashes.iter().map(|h| h % 2 == 0).collect::<Vec<_>>());
//! ```

use std::hash::{BuildHasher, Hash};
use std::ops::Deref;

use crate::error::{InsertBatchError, InsertError};

/// Items hashed before any of them is probed (their hashes take 4 KiB of
/// stack).
pub const CHUNK: usize = 512;

/// Cache lines a batch keeps in flight: about what one core can have
/// outstanding at once (its L1 miss buffers). Prefetching more only queues:
/// on the 1M-item counting bench, 16 items of 7 lines each ahead measured no
/// faster than no prefetch at all.
pub(crate) const LINES_IN_FLIGHT: usize = 24;

/// Tables at most this large are taken to be in cache, and the batch methods
/// do not prefetch for items that read two lines of them or more. On the
/// 1M-item benchmarks (1.2 to 4.8 MB tables), prefetching the k lines of a
/// classic or counting filter's items made batches slower than one call per
/// item (29.8 against 33.8 ns for BloomFilter hits), and so did prefetching
/// the two buckets of a cuckoo filter's (25.3 against 19.0 ns for hits in
/// a 1.2 MB table; 19.4 without the prefetch), while prefetching the one
/// line of a blocked filter's items made them faster (17.6 against 13.0
/// ns).
pub const PREFETCH_MIN_BYTES: usize = 8 << 20;

/// How many items ahead of its probe an item's memory is prefetched, for
/// items that each read `lines` cache lines of a table of `table_bytes`:
/// 24 lines' worth (what one core keeps in flight) and at least one item; or none (0) when
/// the items read two lines or more of a table of at most
/// [`PREFETCH_MIN_BYTES`].
pub const fn ahead(table_bytes: usize, lines: usize) -> usize {
    if lines >= 2 && table_bytes <= PREFETCH_MIN_BYTES {
        return 0;
    }
    let items = LINES_IN_FLIGHT / if lines == 0 { 1 } else { lines };
    if items == 0 { 1 } else { items }
}

/// The 64-bit hashes of up to [`CHUNK`] items, in order.
#[derive(Debug, Clone)]
pub(crate) struct Hashes {
    hashes: [u64; CHUNK],
    len: usize,
}

impl Hashes {
    /// Hashes the first `min(items.len(), CHUNK)` items of `items`: meant for
    /// the pieces of `items.chunks(CHUNK)`.
    #[inline]
    pub(crate) fn of<T: Hash, S: BuildHasher>(hasher: &S, items: &[T]) -> Self {
        let mut hashes = [0u64; CHUNK];
        let len = items.len().min(CHUNK);
        for (hash, item) in hashes.iter_mut().zip(&items[..len]) {
            *hash = hasher.hash_one(item);
        }
        Self { hashes, len }
    }
}

impl Deref for Hashes {
    type Target = [u64];

    #[inline]
    fn deref(&self) -> &[u64] {
        &self.hashes[..self.len]
    }
}

/// What [`walk`] asks the filter to do with one hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Start loading the memory this hash's probe will read.
    Prefetch,
    /// Probe (look up, or insert) this hash.
    Probe,
}

/// Calls `step(Step::Probe, h)` for every hash in order, each preceded,
/// `ahead` calls earlier, by `step(Step::Prefetch, h)`; with `ahead` 0, only
/// the probes. Filters pass [`ahead`]`(table bytes, lines read per item)`.
#[inline(always)]
pub(crate) fn walk(hashes: &[u64], ahead: usize, mut step: impl FnMut(Step, u64)) {
    if ahead == 0 {
        for &hash in hashes {
            step(Step::Probe, hash);
        }
        return;
    }
    for &hash in hashes.iter().take(ahead) {
        step(Step::Prefetch, hash);
    }
    for (i, &hash) in hashes.iter().enumerate() {
        if let Some(&next) = hashes.get(i + ahead) {
            step(Step::Prefetch, next);
        }
        step(Step::Probe, hash);
    }
}

/// The answers of `probe` for every item of `items`, in order, hashed with
/// `hasher` a chunk at a time and walked `ahead` items ahead with
/// `prefetch`: the body of every variant's `contains_batch`.
#[inline]
pub fn contains<T: Hash, S: BuildHasher>(
    hasher: &S,
    items: &[T],
    ahead: usize,
    prefetch: impl Fn(u64),
    probe: impl Fn(u64) -> bool,
) -> Vec<bool> {
    let mut answers = Vec::with_capacity(items.len());
    for chunk in items.chunks(CHUNK) {
        walk(&Hashes::of(hasher, chunk), ahead, |step, hash| match step {
            Step::Prefetch => prefetch(hash),
            Step::Probe => answers.push(probe(hash)),
        });
    }
    answers
}

/// Inserts every item of `items` in order with `insert`, hashed a chunk at
/// a time by `hash` (with the filter's hasher) and walked `ahead` items
/// ahead with `prefetch`, and returns how many were new: the body of every
/// variant's `insert_batch`
/// ([`by_hash::insert_batch_by`](crate::by_hash::insert_batch_by)).
///
/// `filter` is what the operations are handed: `&mut F` for a filter whose
/// inserts take `&mut self`, `&F` for one whose inserts take `&self`.
/// `hash` and `ahead` are asked again for every chunk, since an insert may
/// grow the table.
///
/// # Errors
///
/// [`InsertBatchError`] at the first item `insert` refuses: the items
/// before it stay inserted, and it and the ones after it are not.
#[inline]
pub(crate) fn insert<F, T: Hash>(
    mut filter: F,
    items: &[T],
    hash: impl Fn(&F, &[T]) -> Hashes,
    ahead: impl Fn(&F) -> usize,
    prefetch: impl Fn(&F, u64),
    mut insert: impl FnMut(&mut F, u64) -> Result<bool, InsertError>,
) -> Result<usize, InsertBatchError> {
    let (mut new, mut stored) = (0, 0);
    for chunk in items.chunks(CHUNK) {
        let hashes = hash(&filter, chunk);
        let mut failed = None;
        walk(&hashes, ahead(&filter), |step, hash| match step {
            Step::Prefetch => prefetch(&filter, hash),
            Step::Probe if failed.is_none() => match insert(&mut filter, hash) {
                Ok(fresh) => {
                    new += usize::from(fresh);
                    stored += 1;
                }
                Err(error) => failed = Some(error),
            },
            Step::Probe => {}
        });
        if let Some(error) = failed {
            return Err(InsertBatchError::new(stored, new, error));
        }
    }
    Ok(new)
}

/// Asks the processor to start loading the cache line that holds `value`,
/// without waiting for it: a hint that never changes what a program computes.
///
/// On x86-64 this is the `prefetcht0` instruction. Elsewhere it does nothing
/// and the batch methods still give the same answers, only without the
/// overlap.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    crate::raw::prefetch(value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DefaultHasher;

    #[test]
    fn hashes_match_hash_one_in_order() {
        let hasher = DefaultHasher::from_seed(3);
        let items: Vec<u64> = (0..CHUNK as u64 + 5).collect();
        let chunk = Hashes::of(&hasher, &items);
        assert_eq!(chunk.len(), CHUNK);
        for (hash, item) in chunk.iter().zip(&items) {
            assert_eq!(*hash, hasher.hash_one(item));
        }
        assert!(Hashes::of(&hasher, &items[..0]).is_empty());
    }

    #[test]
    fn walk_prefetches_each_hash_ahead_of_its_probe() {
        const AHEAD: usize = 5;
        for len in [0, 1, AHEAD - 1, AHEAD, AHEAD + 1, 100] {
            let hashes: Vec<u64> = (0..len as u64).collect();
            let mut steps = Vec::new();
            walk(&hashes, AHEAD, |step, hash| steps.push((step, hash)));
            let probes: Vec<u64> = steps
                .iter()
                .filter(|(s, _)| *s == Step::Probe)
                .map(|&(_, h)| h)
                .collect();
            assert_eq!(probes, hashes, "every hash probed once, in order");
            for &h in &hashes {
                let at = |want| steps.iter().position(|&x| x == (want, h)).unwrap();
                let (fetched, probed) = (at(Step::Prefetch), at(Step::Probe));
                assert!(fetched < probed);
                // Once the line is full, AHEAD probes come in between.
                let between = steps[fetched..probed]
                    .iter()
                    .filter(|(s, _)| *s == Step::Probe)
                    .count();
                assert_eq!(between, (h as usize).min(AHEAD).min(len));
            }
        }
    }

    #[test]
    fn contains_answers_in_order() {
        let hasher = DefaultHasher::from_seed(3);
        let items: Vec<u64> = (0..1_500).collect();
        let answers = contains(&hasher, &items, 4, |_| {}, |h| h % 3 == 0);
        let expected: Vec<bool> = items.iter().map(|i| hasher.hash_one(i) % 3 == 0).collect();
        assert_eq!(answers, expected);
    }

    #[test]
    fn insert_counts_the_new_and_stops_at_the_first_refusal() {
        let hasher = DefaultHasher::from_seed(3);
        let items: Vec<u64> = (0..1_500).collect();
        // A table of room for 1,200 hashes, of which the even ones are new.
        let mut table: Vec<u64> = Vec::new();
        let outcome = insert(
            (&mut table, &hasher),
            &items,
            |f, chunk| Hashes::of(f.1, chunk),
            |_| 4,
            |_, _| {},
            |(t, _), hash| {
                if t.len() == 1_200 {
                    return Err(InsertError::Full);
                }
                t.push(hash);
                Ok(hash % 2 == 0)
            },
        );
        let hashes: Vec<u64> = items.iter().map(|i| hasher.hash_one(i)).collect();
        let even = hashes[..1_200].iter().filter(|&&h| h % 2 == 0).count();
        assert_eq!(
            outcome,
            Err(InsertBatchError::new(1_200, even, InsertError::Full))
        );
        assert_eq!(table, hashes[..1_200]);
        let all = insert(
            (0_usize, &hasher),
            &items,
            |f, chunk| Hashes::of(f.1, chunk),
            |_| 0,
            |_, _| {},
            |(n, _), _| {
                *n += 1;
                Ok(true)
            },
        );
        assert_eq!(all, Ok(1_500));
    }

    #[test]
    fn ahead_keeps_the_lines_in_flight_near_the_budget() {
        let big = 1 << 30;
        assert_eq!(ahead(big, 1), LINES_IN_FLIGHT);
        assert_eq!(ahead(big, 2), LINES_IN_FLIGHT / 2);
        assert_eq!(ahead(big, 7), 3);
        assert_eq!(ahead(big, 0), LINES_IN_FLIGHT);
        assert_eq!(ahead(big, 1_000), 1);
        assert_eq!(
            ahead(PREFETCH_MIN_BYTES, 7),
            0,
            "k lines of a table in cache"
        );
        assert_eq!(ahead(PREFETCH_MIN_BYTES, 2), 0, "a cuckoo table in cache");
        assert_eq!(ahead(PREFETCH_MIN_BYTES, 1), LINES_IN_FLIGHT);
        assert_eq!(ahead(PREFETCH_MIN_BYTES + 1, 7), 3);
        assert_eq!(ahead(PREFETCH_MIN_BYTES + 1, 2), LINES_IN_FLIGHT / 2);
    }

    #[test]
    fn walk_without_prefetch_only_probes() {
        let hashes: Vec<u64> = (0..40).collect();
        let mut steps = Vec::new();
        walk(&hashes, 0, |step, hash| steps.push((step, hash)));
        let probes: Vec<(Step, u64)> = hashes.iter().map(|&h| (Step::Probe, h)).collect();
        assert_eq!(steps, probes);
    }

    #[test]
    fn prefetch_changes_nothing() {
        let words = vec![7u64; 1_000];
        for word in &words {
            prefetch(word);
        }
        assert!(words.iter().all(|&w| w == 7));
    }
}
