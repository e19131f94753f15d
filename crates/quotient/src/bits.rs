//! Rank and select on 64-bit words, portably (no `pdep`, which needs
//! `unsafe` intrinsics).

/// The bits `0 .. n` of a word set, for `n` in `0 ..= 64`.
#[inline]
pub(crate) const fn low_mask(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}

/// Every byte's lowest bit.
const ONES: u64 = 0x0101_0101_0101_0101;

/// Every byte's highest bit.
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// `IN_BYTE[b][k]`: the position of the `k`-th set bit of byte `b` (8 where
/// it has no such bit).
const IN_BYTE: [[u8; 8]; 256] = {
    let mut table = [[8u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let (mut k, mut bit) = (0, 0);
        while bit < 8 {
            if b >> bit & 1 == 1 {
                table[b][k] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    table
};

/// The position of the `k`-th (from 0) set bit of `w`, if `w` has more than
/// `k` set bits.
///
/// Broadword (Vigna, "Broadword Implementation of Rank/Select Queries",
/// 2008): the bytes' population counts in one word, their running sums by
/// one multiplication, the byte that holds the answer by comparing every
/// sum with `k` at once, then a table for the bit within that byte. No
/// branch and no `popcnt`, which the baseline x86-64 target lacks (a
/// byte-at-a-time loop of `count_ones` took a third of a lookup's time).
#[inline]
pub(crate) fn select(w: u64, k: u32) -> Option<u32> {
    let k = u64::from(k);
    let mut bytes = w - (w >> 1 & 0x5555_5555_5555_5555);
    bytes = (bytes & 0x3333_3333_3333_3333) + (bytes >> 2 & 0x3333_3333_3333_3333);
    bytes = (bytes + (bytes >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    // Byte i: the set bits in bytes 0 ..= i (at most 64, so the top bit of
    // every byte is clear).
    let sums = bytes.wrapping_mul(ONES);
    if k >= sums >> 56 {
        return None;
    }
    // The top bit of byte i is set where that sum is at most k: the bytes
    // wholly before the answer's.
    let at_most = ((k.wrapping_mul(ONES) | HIGHS) - sums) & HIGHS;
    let byte = ((at_most >> 7).wrapping_mul(ONES) >> 56) as u32;
    let before = (sums << 8) >> (8 * byte) & 0xff;
    let bits = (w >> (8 * byte)) & 0xff;
    let bit = IN_BYTE[bits as usize][(k - before) as usize];
    Some(8 * byte + u32::from(bit))
}

/// The `bits` most significant bits of `x`, as a number (`0` for none).
#[inline]
pub(crate) const fn top(x: u64, bits: u32) -> u64 {
    if bits == 0 { 0 } else { x >> (64 - bits) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `k`-th set bit found one bit at a time.
    fn select_slow(w: u64, k: u32) -> Option<u32> {
        (0..64).filter(|&i| w >> i & 1 == 1).nth(k as usize)
    }

    #[test]
    fn select_agrees_with_a_bit_by_bit_scan() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut words = vec![0, 1, u64::MAX, 1 << 63, 0x8000_0000_0000_0001, 0xff00];
        for _ in 0..2_000 {
            x = bloomlab_core::hash::mix64(x);
            words.push(x);
            words.push(x & bloomlab_core::hash::mix64(x ^ 1));
        }
        for w in words {
            for k in 0..=64 {
                assert_eq!(select(w, k), select_slow(w, k), "{w:#x} {k}");
            }
        }
    }

    #[test]
    fn masks_and_top_bits() {
        assert_eq!(low_mask(0), 0);
        assert_eq!(low_mask(3), 7);
        assert_eq!(low_mask(64), u64::MAX);
        assert_eq!(top(u64::MAX, 0), 0);
        assert_eq!(top(0xabcd << 48, 8), 0xab);
        assert_eq!(top(7, 64), 7);
    }
}
