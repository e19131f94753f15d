//! Construction (Graf and Lemire, §3): the keys' slots form a hypergraph of
//! `arity`-edges; it is peeled by repeatedly taking a slot that only one
//! key has left, which fixes that key's fingerprint last; then the
//! fingerprints are assigned in the reverse order of peeling, each key's
//! free slot set so that its slots XOR to its fingerprint.
//!
//! Keys are first bucketed by the segment of their first slot (one counting
//! sort), so that the counting pass walks the array nearly in order: the
//! locality that makes construction fast once the array is larger than the
//! cache.
//!
//! Each slot keeps, while it is peeled, the XOR of the hashes of its keys
//! and one byte: their count in the upper six bits and the XOR of the
//! key's index among its slots (0 to `arity − 1`) in the lower two. A slot
//! of count one therefore names its key and which of the key's slots it is.
//! Sixty-four keys in one slot would overflow the count: the attempt is
//! abandoned instead (only repeated keys make that happen).
//!
//! A set with a repeated key never peels (the copies share every slot).
//! After the first failed attempt, the hashes are therefore sorted and
//! deduplicated, once; further attempts draw new slots for every key with a
//! new seed. After [`MAX_ATTEMPTS`](crate::MAX_ATTEMPTS) at most, an array
//! too small for its keys gives [`Invalid::NotConverged`].

use bloomlab_core::alloc::{self, Buffer};
use bloomlab_core::hash::reduce;

use crate::error::{BuildError, Invalid};
use crate::layout::{Layout, attempt_seed, mixed};
use crate::table::{Fingerprint, Table};

/// A count at which one more key would overflow a slot's six bits.
const FULL: u8 = 63 << 2;

/// The array built from `hashes` (sorted and deduplicated in place if the
/// first attempt fails), the seed that built it, and the number of distinct
/// keys in it.
///
/// # Errors
///
/// [`BuildError::OutOfMemory`] for the array or the scratch space;
/// [`Invalid::NotConverged`] after `max_attempts` failed attempts.
pub(crate) fn build<F: Fingerprint>(
    hashes: &mut Vec<u64>,
    layout: Layout,
    max_attempts: u32,
) -> Result<(Table, u64, usize), BuildError> {
    if layout.arity == 3 {
        build_wise::<F, 3>(hashes, layout, max_attempts)
    } else {
        build_wise::<F, 4>(hashes, layout, max_attempts)
    }
}

fn build_wise<F: Fingerprint, const A: usize>(
    hashes: &mut Vec<u64>,
    layout: Layout,
    max_attempts: u32,
) -> Result<(Table, u64, usize), BuildError> {
    let slots = layout.slots() as usize;
    let mut table = alloc::buffer::<F>(slots)?;
    let mut scratch = Scratch::new(hashes.len(), slots, layout.segment_count as usize)?;
    let mut deduplicated = false;
    for attempt in 0..max_attempts {
        let seed = attempt_seed(attempt);
        if let Some(keys) = scratch.peel::<A>(hashes, &layout, seed) {
            scratch.assign::<F, A>(&mut table, keys, &layout, seed);
            return Ok((F::wrap(table), seed, keys));
        }
        if !deduplicated {
            hashes.sort_unstable();
            hashes.dedup();
            deduplicated = true;
        }
    }
    Err(Invalid::NotConverged {
        attempts: max_attempts,
    }
    .into())
}

/// The working arrays of construction, allocated once for every attempt.
pub(crate) struct Scratch {
    /// The hashes bucketed by segment; then the peeled keys, in order.
    order: Buffer<u64>,
    /// Which of its slots each peeled key was peeled from.
    found: Buffer<u8>,
    /// Per slot: count of keys (upper six bits), XOR of their indices.
    counts: Buffer<u8>,
    /// Per slot: XOR of the hashes of its keys.
    xors: Buffer<u64>,
    /// Slots that hold one key: a stack.
    queue: Buffer<u32>,
    /// Per segment, where its keys start in `order`.
    starts: Buffer<u32>,
}

impl Scratch {
    /// Bytes of the arrays [`Scratch::new`] allocates.
    pub(crate) fn bytes(keys: u64, slots: u64, segments: u64) -> u64 {
        // order and found per key; counts, xors and queue per slot.
        keys * (8 + 1) + slots * (1 + 8 + 4) + (segments + 1) * 4
    }

    fn new(keys: usize, slots: usize, segments: usize) -> Result<Self, BuildError> {
        Ok(Scratch {
            order: alloc::buffer(keys)?,
            found: alloc::buffer(keys)?,
            counts: alloc::buffer(slots)?,
            xors: alloc::buffer(slots)?,
            queue: alloc::buffer(slots)?,
            starts: alloc::buffer(segments + 1)?,
        })
    }

    /// Peels the keys of `hashes` with the slots of `seed`: how many were
    /// peeled if all were, `None` if some were left (or a slot overflowed).
    fn peel<const A: usize>(
        &mut self,
        hashes: &[u64],
        layout: &Layout,
        seed: u64,
    ) -> Option<usize> {
        self.bucket(hashes, layout, seed);
        self.counts.fill(0);
        self.xors.fill(0);
        for &hash in &self.order[..hashes.len()] {
            for (i, slot) in layout
                .slots_of::<A>(mixed(hash, seed))
                .into_iter()
                .enumerate()
            {
                let count = self.counts[slot];
                if count >= FULL {
                    return None;
                }
                self.counts[slot] = (count + 4) ^ i as u8;
                self.xors[slot] ^= hash;
            }
        }
        let mut queued = 0;
        for (slot, &count) in self.counts.iter().enumerate() {
            if count >> 2 == 1 {
                self.queue[queued] = slot as u32;
                queued += 1;
            }
        }
        // Every slot is queued at most once, when its count reaches one,
        // so the stack never holds more than the array has slots.
        let mut peeled = 0;
        while queued > 0 {
            queued -= 1;
            let slot = self.queue[queued] as usize;
            let count = self.counts[slot];
            if count >> 2 != 1 {
                continue;
            }
            let hash = self.xors[slot];
            self.order[peeled] = hash;
            self.found[peeled] = count & 3;
            peeled += 1;
            for (i, other) in layout
                .slots_of::<A>(mixed(hash, seed))
                .into_iter()
                .enumerate()
            {
                let count = (self.counts[other] - 4) ^ i as u8;
                self.counts[other] = count;
                self.xors[other] ^= hash;
                if count >> 2 == 1 {
                    self.queue[queued] = other as u32;
                    queued += 1;
                }
            }
        }
        (peeled == hashes.len()).then_some(peeled)
    }

    /// `order` holds the hashes sorted by the segment of their first slot.
    fn bucket(&mut self, hashes: &[u64], layout: &Layout, seed: u64) {
        let segments = u64::from(layout.segment_count);
        let segment = |hash| reduce(mixed(hash, seed), segments) as usize;
        self.starts.fill(0);
        for &hash in hashes {
            self.starts[segment(hash) + 1] += 1;
        }
        for i in 1..self.starts.len() {
            self.starts[i] += self.starts[i - 1];
        }
        for &hash in hashes {
            let at = &mut self.starts[segment(hash)];
            self.order[*at as usize] = hash;
            *at += 1;
        }
    }

    /// Sets the fingerprints of the `keys` peeled keys, the last peeled
    /// first: each key's free slot is the one it was peeled from, which no
    /// key assigned after it reads.
    fn assign<F: Fingerprint, const A: usize>(
        &self,
        table: &mut [F],
        keys: usize,
        layout: &Layout,
        seed: u64,
    ) {
        for k in (0..keys).rev() {
            let hash = self.order[k];
            let free = usize::from(self.found[k]);
            let slots = layout.slots_of::<A>(mixed(hash, seed));
            let mut value = F::of(hash, seed);
            for (i, &slot) in slots.iter().enumerate() {
                if i != free {
                    value = value ^ table[slot];
                }
            }
            table[slots[free]] = value;
        }
    }
}
