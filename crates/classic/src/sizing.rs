//! Table sizes from (items, rate), size limits, and fallible allocation.

use bloomlab_core::ParamError;
use bloomlab_core::theory::{blocked, classic};

use crate::error::BuildError;

/// Bits in one block of a [`BlockedBloomFilter`](crate::BlockedBloomFilter).
pub const BLOCK_BITS: u32 = 512;

/// The limit when the caller sets none: the most bytes any `Vec` can hold.
pub(crate) const DEFAULT_MAX_BYTES: usize = isize::MAX as usize;

/// Blocks and hashes for `n` items at rate `p` in blocks of [`BLOCK_BITS`]:
/// the fewest blocks for which [`blocked::fpr_exact`] is at most `p`, over
/// the hash counts within two of the Putze–Sanders–Singler optimum `k0`; on a
/// tie in blocks, the `k` with the lower rate.
///
/// Cost: about twenty evaluations of `fpr_exact`, each a few milliseconds at
/// fifty items per block. Only `k0` is searched in full; another `k` is
/// searched only if it reaches the rate with fewer blocks than the best so
/// far, which one evaluation tells.
pub(crate) fn blocked_size(n: u64, p: f64) -> Result<(u64, u32), ParamError> {
    let (bits_per_item, k0) = blocked::bits_per_item(BLOCK_BITS, p)?;
    if n == 0 {
        return Err(ParamError::ZeroItems);
    }
    let guess = (n as f64 * bits_per_item / f64::from(BLOCK_BITS)).ceil();
    if guess >= (u64::MAX / 2) as f64 {
        return Err(ParamError::TooLarge {
            needed: u128::MAX,
            limit: u128::from(u64::MAX),
        });
    }
    let guess = (guess as u64).max(1);
    let rate = |blocks: u64, k: u32| blocked::fpr_exact(BLOCK_BITS, blocks, n, k);
    let mut blocks = min_blocks(n, p, k0, guess)?;
    let (mut best_rate, mut best_k) = (rate(blocks, k0), k0);
    for k in [k0.wrapping_sub(1), k0 + 1, k0.wrapping_sub(2), k0 + 2] {
        if !(1..=classic::MAX_HASHES).contains(&k) {
            continue;
        }
        if blocks > 1 && rate(blocks - 1, k) <= p {
            blocks = min_blocks(n, p, k, blocks - 1)?;
            (best_rate, best_k) = (rate(blocks, k), k);
        } else {
            let r = rate(blocks, k);
            if r <= p && r < best_rate {
                (best_rate, best_k) = (r, k);
            }
        }
    }
    Ok((blocks, best_k))
}

/// The fewest blocks for which `k` hashes reach rate `p` with `n` items.
///
/// The rate falls as blocks are added. The answer lies within a few percent
/// of `guess` near the optimal `k`, so the search gallops out from it in
/// steps of `guess / 256`, doubling, before bisecting the last step: about
/// ten evaluations of `fpr_exact` rather than the twenty of a bisection
/// from scratch.
fn min_blocks(n: u64, p: f64, k: u32, guess: u64) -> Result<u64, ParamError> {
    let passes = |blocks: u64| blocked::fpr_exact(BLOCK_BITS, blocks, n, k) <= p;
    let too_large = ParamError::TooLarge {
        needed: u128::MAX,
        limit: u128::from(u64::MAX),
    };
    let mut step = (guess / 256).max(1);
    let (mut lo, mut hi);
    if passes(guess) {
        hi = guess;
        loop {
            let below = hi.saturating_sub(step);
            if below == 0 {
                lo = 0;
                break;
            }
            if !passes(below) {
                lo = below;
                break;
            }
            hi = below;
            step = step.saturating_mul(2);
        }
    } else {
        lo = guess;
        loop {
            let above = lo.checked_add(step).ok_or(too_large)?;
            if passes(above) {
                hi = above;
                break;
            }
            lo = above;
            step = step.checked_mul(2).ok_or(too_large)?;
        }
    }
    // Invariant: passes(hi); lo == 0 or !passes(lo).
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if passes(mid) { hi = mid } else { lo = mid }
    }
    Ok(hi)
}

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

/// `n` zeroed words, or an error if the allocator cannot provide them.
///
/// `vec![0; n]` asks for zeroed memory, which the operating system hands out
/// lazily, so a table of 2^32 bits costs nothing until it is written; but it
/// aborts the process on failure. Reserving first turns an impossible size
/// into an error.
pub(crate) fn zeroed_words(n: usize) -> Result<Vec<u64>, BuildError> {
    let mut probe: Vec<u64> = Vec::new();
    probe
        .try_reserve_exact(n)
        .map_err(|_| BuildError::OutOfMemory {
            bytes: n as u128 * 8,
        })?;
    drop(probe);
    Ok(vec![0; n])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocked_sizing_is_minimal() {
        for &(n, p) in &[(1u64, 0.5), (1_000, 0.01), (100_000, 0.01), (10_000, 0.001)] {
            let (blocks, k) = blocked_size(n, p).unwrap();
            assert!(blocked::fpr_exact(BLOCK_BITS, blocks, n, k) <= p);
            if blocks > 1 {
                // One block fewer misses the rate for every k tried.
                let (_, k0) = blocked::bits_per_item(BLOCK_BITS, p).unwrap();
                for k in k0.saturating_sub(2).max(1)..=k0 + 2 {
                    assert!(blocked::fpr_exact(BLOCK_BITS, blocks - 1, n, k) > p);
                }
            }
        }
    }

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
