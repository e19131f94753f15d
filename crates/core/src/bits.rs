//! Rank and select on 64-bit words, for tables that find their entries by
//! counting bits (the quotient filter's): the portable select, and
//! [`BitOps`], which runs a table's operation with the processor's own
//! instructions for them where it has them.

pub use crate::raw::{BitOps, Routine};

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
/// byte-at-a-time loop of `count_ones` took a third of a quotient-filter
/// lookup's time).
///
/// ```
/// use bloomlab_core::bits::select_portable;
///
/// assert_eq!(select_portable(0b1011_0100, 0), Some(2));
/// assert_eq!(select_portable(0b1011_0100, 3), Some(7));
/// assert_eq!(select_portable(0b1011_0100, 4), None);
/// ```
#[inline]
pub fn select_portable(w: u64, k: u32) -> Option<u32> {
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
            x = crate::hash::mix64(x);
            words.push(x);
            words.push(x & crate::hash::mix64(x ^ 1));
        }
        for w in words {
            for k in 0..=64 {
                assert_eq!(select_portable(w, k), select_slow(w, k), "{w:#x} {k}");
            }
        }
    }

    struct Select(BitOps, u64, u32);

    impl Routine for Select {
        type Output = Option<u32>;
        #[inline(always)]
        fn call(self) -> Option<u32> {
            self.0.select(self.1, self.2)
        }
    }

    /// The detected instructions agree with the portable code.
    #[test]
    fn bit_ops_agree_with_the_portable_select() {
        let ops = BitOps::detect();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..if cfg!(miri) { 50 } else { 5_000 } {
            x = crate::hash::mix64(x);
            for w in [x, x & x.rotate_left(17), 0, u64::MAX] {
                for k in [0, 1, 7, 31, 62, 63, 64, 65] {
                    let fast = ops.run(Select(ops, w, k));
                    assert_eq!(fast, select_portable(w, k), "{w:#x} {k}");
                }
            }
        }
    }
}
