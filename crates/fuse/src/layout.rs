//! The shape of the array: how many slots, cut into how many segments of
//! what length, and which `arity` slots a key's hash selects.

use bloomlab_core::hash::{mix64, reduce};
use bloomlab_core::theory::fuse as theory;

use crate::error::Invalid;

/// Slots per key: 3-wise or 4-wise construction.
pub const ARITIES: [u32; 2] = [3, 4];

/// The longest segment, as a power of two (`2^18` slots, the cap of the
/// paper's reference code): longer segments would not lower the size
/// factor, and cost locality during construction.
pub const MAX_SEGMENT_LENGTH_LOG2: u32 = 18;

/// The most keys one filter is built from: 2^30. Construction counts the
/// keys of a slot in six bits and, past that, retries; slot indices are
/// 32-bit.
pub const MAX_KEYS: u64 = 1 << 30;

/// The most slots an array may have: indices are 32-bit.
pub const MAX_SLOTS: u64 = u32::MAX as u64;

/// Where the keys of a filter go: `segment_count + arity − 1` segments of
/// `2^segment_length_log2` slots each. A key's first slot is anywhere in the
/// first `segment_count` segments, and each further slot in the segment
/// after the previous one's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) arity: u32,
    pub(crate) segment_length_log2: u32,
    pub(crate) segment_count: u32,
    /// `2^segment_length_log2`, kept so that a lookup need not shift by it.
    segment_length: u64,
    /// Slots a key's first slot may fall in: `segment_count` segments.
    span: u64,
}

impl Layout {
    /// The layout of `segment_count + arity − 1` segments of
    /// `2^segment_length_log2` slots (unchecked: see [`Layout::checked`]).
    pub(crate) fn new(arity: u32, segment_length_log2: u32, segment_count: u32) -> Self {
        Layout {
            arity,
            segment_length_log2,
            segment_count,
            segment_length: 1 << segment_length_log2,
            span: u64::from(segment_count) << segment_length_log2,
        }
    }

    /// The paper's layout for `n` keys (§4 of Graf and Lemire): the segment
    /// length of [`theory::segment_length`] capped at
    /// `2^MAX_SEGMENT_LENGTH_LOG2`, and `round(n · factor)` slots, rounded
    /// up to whole segments, with `factor` the paper's
    /// [`theory::size_factor`] unless `factor` is given.
    pub(crate) fn for_keys(
        arity: u32,
        n: u64,
        factor: Option<f64>,
        segment_length_log2: Option<u32>,
    ) -> Result<Self, Invalid> {
        if !ARITIES.contains(&arity) {
            return Err(Invalid::Arity(arity));
        }
        if n == 0 {
            return Err(Invalid::EmptySet);
        }
        if n > MAX_KEYS {
            return Err(Invalid::TooManyKeys { keys: n });
        }
        let log2 = match segment_length_log2 {
            Some(log2) => log2,
            None => theory::segment_length(arity, n)
                .map_or(0, u64::trailing_zeros)
                .min(MAX_SEGMENT_LENGTH_LOG2),
        };
        if log2 > MAX_SEGMENT_LENGTH_LOG2 {
            return Err(Invalid::SegmentLength(log2));
        }
        // The formula divides by ln n: one key is sized as two are.
        let factor = match factor {
            Some(f) if f.is_finite() && f > 0.0 && f <= 16.0 => f,
            Some(f) => return Err(Invalid::SizeFactor(f)),
            None => theory::size_factor(arity, n.max(2)).unwrap_or(2.0),
        };
        let capacity = (n as f64 * factor).round() as u64;
        let segments = capacity.div_ceil(1 << log2).max(u64::from(arity)) - u64::from(arity - 1);
        let segments = u32::try_from(segments).map_err(|_| Invalid::TooManyKeys { keys: n })?;
        let layout = Layout::new(arity, log2, segments);
        if layout.slots() > MAX_SLOTS {
            return Err(Invalid::TooManyKeys { keys: n });
        }
        Ok(layout)
    }

    /// The layout read from a file, checked.
    pub(crate) fn checked(arity: u32, log2: u32, segment_count: u32) -> Option<Self> {
        if log2 > MAX_SEGMENT_LENGTH_LOG2 {
            return None;
        }
        let layout = Layout::new(arity, log2, segment_count);
        let fits = ARITIES.contains(&arity) && segment_count > 0 && layout.slots() <= MAX_SLOTS;
        fits.then_some(layout)
    }

    /// Slots in the array.
    pub(crate) fn slots(&self) -> u64 {
        (u64::from(self.segment_count) + u64::from(self.arity) - 1) << self.segment_length_log2
    }

    /// The `A` slots of the key whose mixed hash is `x`, one in each of `A`
    /// consecutive segments: the first at `reduce(x, span)` over the first
    /// `segment_count` segments, each next one a segment later with its
    /// offset in the segment XORed with the next `log2` low bits of `x`.
    #[inline]
    pub(crate) fn slots_of<const A: usize>(&self, x: u64) -> [usize; A] {
        let length = self.segment_length;
        let mask = length - 1;
        let first = reduce(x, self.span);
        let mut slots = [0; A];
        let mut bits = x;
        let mut start = first;
        for (i, slot) in slots.iter_mut().enumerate() {
            let offset = if i == 0 { 0 } else { bits & mask };
            if i > 0 {
                bits >>= self.segment_length_log2;
            }
            *slot = (start ^ offset) as usize;
            start += length;
        }
        slots
    }
}

/// The hash of a key as its slots are drawn from it, for the attempt whose
/// seed is `seed`. The first attempt's seed is 0, and it takes the key's
/// hash as it is: the family's hash is a keyed pseudo-random function
/// already, as every filter of the family assumes (a Bloom filter's
/// positions come from its bits directly), so mixing it again would only
/// lengthen each lookup. A later attempt's seed is never 0, and its slots
/// come from a bijection of the hash and the seed, so that distinct hashes
/// stay distinct and every key's slots are drawn anew.
#[inline]
pub(crate) fn mixed(hash: u64, seed: u64) -> u64 {
    if seed == 0 { hash } else { mix64(hash ^ seed) }
}

/// The seed of construction attempt `attempt` (from 0): fixed, so that the
/// same keys and hash key build the same filter; 0 for the first attempt
/// only ([`mixed`]).
pub(crate) fn attempt_seed(attempt: u32) -> u64 {
    match attempt {
        0 => 0,
        _ => mix64(u64::from(attempt).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_fall_in_consecutive_segments() {
        let layout = Layout::for_keys(4, 100_000, None, None).unwrap();
        let log2 = layout.segment_length_log2;
        for x in [0, 1, u64::MAX, 0x0123_4567_89ab_cdef] {
            let slots = layout.slots_of::<4>(x);
            for (i, s) in slots.iter().enumerate() {
                assert!((*s as u64) < layout.slots());
                assert_eq!(s >> log2, (slots[0] >> log2) + i, "{x:#x}");
            }
        }
    }

    #[test]
    fn the_paper_s_sizes() {
        // 10^6 keys, 3-wise: segments of 2^13, 1.125 · 10^6 slots rounded up
        // to 138 segments, 2 more for the last keys' later slots.
        let layout = Layout::for_keys(3, 1_000_000, None, None).unwrap();
        assert_eq!(
            (layout.segment_length_log2, layout.segment_count),
            (13, 136)
        );
        assert_eq!(layout.slots(), 138 << 13);
        // One key: one segment of 4 slots and 2 more.
        let one = Layout::for_keys(3, 1, None, None).unwrap();
        assert_eq!(one.slots(), 12);
        assert_eq!(Layout::for_keys(3, 0, None, None), Err(Invalid::EmptySet));
        assert_eq!(Layout::for_keys(5, 9, None, None), Err(Invalid::Arity(5)));
    }
}
