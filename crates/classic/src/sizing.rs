//! Table sizes from (items, rate) and size limits.

use bloomlab_core::ParamError;

/// Bits in one block of a [`BlockedBloomFilter`](crate::BlockedBloomFilter).
pub const BLOCK_BITS: u32 = 512;

/// The limit when the caller sets none: the most bytes any `Vec` can hold.
pub(crate) const DEFAULT_MAX_BYTES: usize = isize::MAX as usize;

/// Checks `words` 64-bit words against the byte limit and the platform, and
/// returns the count as a `usize`.
pub(crate) fn check_words(words: u128, max_bytes: usize) -> Result<usize, ParamError> {
    let needed = words.saturating_mul(8);
    let limit = max_bytes.min(DEFAULT_MAX_BYTES) as u128;
    if needed > limit {
        return Err(ParamError::TooLarge {
            needed,
            limit: max_bytes as u128,
        });
    }
    usize::try_from(words).map_err(|_| ParamError::TooLarge {
        needed,
        limit: max_bytes as u128,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits() {
        assert_eq!(check_words(4, 32), Ok(4));
        assert_eq!(
            check_words(5, 32),
            Err(ParamError::TooLarge {
                needed: 40,
                limit: 32
            })
        );
        assert!(check_words(u128::MAX, usize::MAX).is_err());
    }
}
