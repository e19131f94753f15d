//! Masks and top bits of 64-bit words (select is core's
//! [`BitOps`](bloomlab_core::bits::BitOps)).

/// The bits `0 .. n` of a word set, for `n` in `0 ..= 64`.
#[inline]
pub(crate) const fn low_mask(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}

/// The `bits` most significant bits of `x`, as a number (`0` for none).
#[inline]
pub(crate) const fn top(x: u64, bits: u32) -> u64 {
    if bits == 0 { 0 } else { x >> (64 - bits) }
}

#[cfg(test)]
mod tests {
    use super::*;

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
