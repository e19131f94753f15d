//! Rank and select on 64-bit words, portably (no `pdep`, which needs
//! `unsafe` intrinsics).

/// The bits `0 .. n` of a word set, for `n` in `0 ..= 64`.
#[inline]
pub(crate) const fn low_mask(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}

/// The position of the `k`-th (from 0) set bit of `w`, if `w` has more than
/// `k` set bits.
///
/// Skips whole bytes by their population count, then clears the lowest
/// set bits of the byte that holds the answer: at most 8 + 7 steps.
#[inline]
pub(crate) fn select(w: u64, k: u32) -> Option<u32> {
    if k >= w.count_ones() {
        return None;
    }
    let mut k = k;
    let mut shift = 0;
    loop {
        let ones = ((w >> shift) & 0xff).count_ones();
        if k < ones {
            break;
        }
        k -= ones;
        shift += 8;
    }
    let mut byte = (w >> shift) & 0xff;
    for _ in 0..k {
        byte &= byte - 1;
    }
    Some(shift + byte.trailing_zeros())
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
