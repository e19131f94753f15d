//! Guava's two strategies: how one MurmurHash3 of an item gives its `k` bit
//! indexes.
//!
//! Read from the bytecode of `BloomFilterStrategies$1` (`MURMUR128_MITZ_32`)
//! and `BloomFilterStrategies$2` (`MURMUR128_MITZ_64`) in Debian's Guava 31.1.

use std::fmt;

/// `BloomFilterStrategies`: the enum whose ordinal is the first byte of
/// Guava's `writeTo` format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Ordinal 0, Guava before 15 (2013): the two 32-bit halves of the
    /// hash's first 64-bit word, `hash1 + i * hash2` for `i` in `1..=k` in
    /// wrapping 32-bit `int` arithmetic, a negative sum complemented (`~`),
    /// then `% bitSize`. Kept to read, answer for and extend old filters;
    /// it only ever reaches the first 2^31 bits of a larger array.
    Murmur128Mitz32,
    /// Ordinal 1, the default of [`create`](crate::GuavaBloomFilter::create)
    /// since Guava 15: `h1`, `h2` are the hash's two little-endian 64-bit
    /// halves; `combined` starts at `h1`, and index `i` (in `0..k`) is
    /// `(combined & Long.MAX_VALUE) % bitSize` before `combined += h2`
    /// (wrapping).
    Murmur128Mitz64,
}

impl Strategy {
    /// The strategy's `ordinal()`, the first byte `writeTo` writes.
    pub fn ordinal(self) -> u8 {
        match self {
            Strategy::Murmur128Mitz32 => 0,
            Strategy::Murmur128Mitz64 => 1,
        }
    }

    /// The strategy of an ordinal, or `None` for one Guava does not have.
    pub fn from_ordinal(ordinal: u8) -> Option<Self> {
        match ordinal {
            0 => Some(Strategy::Murmur128Mitz32),
            1 => Some(Strategy::Murmur128Mitz64),
            _ => None,
        }
    }

    /// Guava's name for the strategy: `"MURMUR128_MITZ_64"`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Murmur128Mitz32 => "MURMUR128_MITZ_32",
            Strategy::Murmur128Mitz64 => "MURMUR128_MITZ_64",
        }
    }

    /// The `k` bit indexes, each below `bit_size`, of an item whose
    /// [`murmur3_128`] is `hash`.
    ///
    /// `bit_size` must not be 0 (every filter has at least one word).
    pub(crate) fn indexes(self, hash: (u64, u64), k: u32, bit_size: u64) -> Indexes {
        let (h1, h2) = hash;
        let state = match self {
            Strategy::Murmur128Mitz32 => State::Mitz32 {
                hash1: h1 as i32,
                hash2: (h1 >> 32) as i32,
            },
            Strategy::Murmur128Mitz64 => State::Mitz64 { combined: h1, h2 },
        };
        Indexes {
            state,
            i: 0,
            k,
            bit_size,
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `Hashing.murmur3_128()` (seed 0) of `bytes`, as the two little-endian
/// 64-bit halves `(h1, h2)` of Guava's `HashCode` (`asLong()` is `h1`).
///
/// ```
/// // Guava: Hashing.murmur3_128().hashBytes(new byte[0]) is all zeros.
/// assert_eq!(bloomlab_guava::murmur3_128(&[]), (0, 0));
/// ```
pub fn murmur3_128(bytes: &[u8]) -> (u64, u64) {
    let mut reader = bytes;
    let hash = match murmur3::murmur3_x64_128(&mut reader, 0) {
        Ok(hash) => hash,
        Err(_) => unreachable!("reading from a byte slice cannot fail"),
    };
    // The crate packs h1 into the low half: Guava's byte order, h1 first.
    (hash as u64, (hash >> 64) as u64)
}

/// The bit indexes of one item, in the order Guava visits them.
#[derive(Debug, Clone)]
pub(crate) struct Indexes {
    state: State,
    i: u32,
    k: u32,
    bit_size: u64,
}

#[derive(Debug, Clone)]
enum State {
    Mitz32 { hash1: i32, hash2: i32 },
    Mitz64 { combined: u64, h2: u64 },
}

impl Iterator for Indexes {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.i >= self.k {
            return None;
        }
        self.i += 1;
        Some(match &mut self.state {
            State::Mitz32 { hash1, hash2 } => {
                // i counts 1..=k here; k <= 255 fits an int.
                let mut combined = hash1.wrapping_add((self.i as i32).wrapping_mul(*hash2));
                if combined < 0 {
                    combined = !combined;
                }
                combined.unsigned_abs() as u64 % self.bit_size
            }
            State::Mitz64 { combined, h2 } => {
                let index = (*combined & i64::MAX as u64) % self.bit_size;
                *combined = combined.wrapping_add(*h2);
                index
            }
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = (self.k - self.i) as usize;
        (left, Some(left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_round_trip() {
        for s in [Strategy::Murmur128Mitz32, Strategy::Murmur128Mitz64] {
            assert_eq!(Strategy::from_ordinal(s.ordinal()), Some(s));
        }
        assert_eq!(Strategy::from_ordinal(2), None);
        assert_eq!(Strategy::Murmur128Mitz64.to_string(), "MURMUR128_MITZ_64");
    }

    #[test]
    fn mitz64_steps_by_h2_and_masks_the_sign() {
        let indexes: Vec<u64> = Strategy::Murmur128Mitz64
            .indexes((u64::MAX, 3), 3, 1000)
            .collect();
        // u64::MAX & i64::MAX = 2^63 - 1; then it wraps to 2, then 5.
        assert_eq!(indexes, [(i64::MAX as u64) % 1000, 2, 5]);
    }

    #[test]
    fn mitz32_complements_negative_sums() {
        // hash1 = -1 (low half), hash2 = 1: sums 0, 1 for i = 1, 2.
        let h1 = 0x0000_0001_ffff_ffff;
        let indexes: Vec<u64> = Strategy::Murmur128Mitz32.indexes((h1, 0), 2, 64).collect();
        assert_eq!(indexes, [0, 1]);
        // hash1 = -5, hash2 = 0: ~(-5) = 4.
        let indexes: Vec<u64> = Strategy::Murmur128Mitz32
            .indexes((0xffff_fffb, 0), 1, 64)
            .collect();
        assert_eq!(indexes, [4]);
    }
}
