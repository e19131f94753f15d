//! The sectored blocked Bloom filter: a block is split into sectors (the
//! 64-bit words of a 512-bit cache line), and every item sets the same number
//! of bits, `r`, in each sector of its block; `k = sectors · r`.
//!
//! A lookup then tests one precomputed mask per word instead of extracting k
//! positions, which is what makes it cheap (the layout of Parquet's split
//! block Bloom filter, with one bit per 32-bit word). The price is memory: the
//! bits of one item cannot share a word, and each word receives its own
//! Binomial share of throws. At 1% a 512-bit block of eight 64-bit sectors
//! needs about 2% more bits per item than an unsectored 512-bit block.
//!
//! The model: a block holding `i` items has had `i·r` independent uniform
//! positions thrown into each sector, and the sectors are independent, so a
//! probe passes with probability `E[(X/S)^r]^sectors`, `X` the occupancy of
//! one sector of `S` bits after `i·r` throws (computed by the same recursion
//! as [`blocked::fpr_exact`](super::blocked::fpr_exact)), averaged over the
//! Binomial load of a block.
//!
//! ```
//! use bloomlab_core::theory::{blocked, sectored};
//!
//! // 1% with 512-bit blocks: 8 sectors of 64 bits, one bit each (k = 8).
//! let (c, k) = sectored::bits_per_item(64, 8, 0.01)?;
//! let (plain, _) = blocked::bits_per_item(512, 0.01)?;
//! assert_eq!(k, 8);
//! assert!(c > plain && c < 1.03 * plain, "{c} against {plain}");
//! # Ok::<(), bloomlab_core::ParamError>(())
//! ```

use super::blocked::{MAX_EXACT_BLOCK_BITS, Occupancy, least_bits, min_blocks, sectored_rate_sd};
use crate::error::{ParamError, check_fpr};
use crate::theory::classic::MAX_HASHES;

/// Whether the geometry and `k` are ones the formulas evaluate: sectors of
/// `1..=`[`MAX_EXACT_BLOCK_BITS`] bits, `1..=`[`MAX_HASHES`] sectors, and
/// `k` a multiple of `sectors` from `sectors` to [`MAX_HASHES`].
fn valid(sector_bits: u32, sectors: u32, k: u32) -> bool {
    (1..=MAX_EXACT_BLOCK_BITS).contains(&sector_bits)
        && (1..=MAX_HASHES).contains(&sectors)
        && (sectors..=MAX_HASHES).contains(&k)
        && k.is_multiple_of(sectors)
}

/// The exact rate of `n` items in `blocks` blocks of `sectors` sectors of
/// `sector_bits` bits, each item setting `k / sectors` independent uniform
/// positions in every sector of a uniform block, for a probe drawn alike.
///
/// Bounded time for every input, as [`blocked::fpr_exact`](super::blocked::fpr_exact):
/// loads whose block is full to within `2^−53` are added at 1.
///
/// NaN for `blocks` of 0, a sector outside `1..=`[`MAX_EXACT_BLOCK_BITS`]
/// bits, or `k` not a multiple of `sectors` in `sectors..=`[`MAX_HASHES`].
///
/// ```
/// use bloomlab_core::theory::sectored::fpr_exact;
///
/// // One item, one bit in each of 8 words of 64 bits: a probe passes only
/// // if it hits that bit in every word.
/// let r = fpr_exact(64, 8, 1, 1, 8);
/// assert!((r / (1.0f64 / 64.0).powi(8) - 1.0).abs() < 1e-12);
/// ```
pub fn fpr_exact(sector_bits: u32, sectors: u32, blocks: u64, n: u64, k: u32) -> f64 {
    if !valid(sector_bits, sectors, k) || blocks == 0 {
        return f64::NAN;
    }
    Occupancy::sectored(sector_bits, sectors, k / sectors).fpr(blocks, n)
}

/// The standard deviation, over tables built alike under other hash keys,
/// of the rate [`fpr_exact`] averages: the model of
/// [`blocked::rate_sd`](super::blocked::rate_sd), with a block's conditional
/// moments the product of its sectors' (`E[g | i] = m₁(i)^sectors`,
/// `E[g² | i] = m₂(i)^sectors` for independent sectors). First order in
/// `1/blocks`.
///
/// NaN where [`fpr_exact`] is; 0 for `n = 0`.
pub fn rate_sd(sector_bits: u32, sectors: u32, blocks: u64, n: u64, k: u32) -> f64 {
    if !valid(sector_bits, sectors, k) || blocks == 0 {
        return f64::NAN;
    }
    sectored_rate_sd(sector_bits, sectors, blocks, n, k / sectors)
}

/// The rate at `bits_per_item` bits per item when a block's load is
/// Poisson(`sectors · sector_bits / bits_per_item`), the large-table limit of
/// [`fpr_exact`]. NaN for a non-finite or non-positive `bits_per_item`, or
/// where [`fpr_exact`] is.
pub fn fpr_poisson(sector_bits: u32, sectors: u32, bits_per_item: f64, k: u32) -> f64 {
    if !(valid(sector_bits, sectors, k) && bits_per_item > 0.0 && bits_per_item.is_finite()) {
        return f64::NAN;
    }
    let lambda = f64::from(sector_bits) * f64::from(sectors) / bits_per_item;
    Occupancy::sectored(sector_bits, sectors, k / sectors).fpr_poisson(lambda)
}

/// Checks the geometry of the sizing functions.
fn check_geometry(sector_bits: u32, sectors: u32) -> Result<(), ParamError> {
    if sector_bits == 0 || sectors == 0 {
        return Err(ParamError::ZeroBits);
    }
    if sector_bits > MAX_EXACT_BLOCK_BITS {
        return Err(ParamError::BlockTooLarge {
            bits: u64::from(sector_bits),
            max: u64::from(MAX_EXACT_BLOCK_BITS),
        });
    }
    if sectors > MAX_HASHES {
        return Err(ParamError::TooManyHashes(u64::from(sectors)));
    }
    Ok(())
}

/// Bits per item and `k` for rate `p` by [`fpr_poisson`]: the least `c` (to
/// 0.001 bit) for which some multiple of `sectors` reaches `p`, with that `k`.
///
/// At 8 sectors of 64 bits and 1%: about 10.10 bits per item with k = 8.
///
/// # Errors
///
/// [`ParamError::InvalidFpr`] for `p` outside (0, 1); [`ParamError::ZeroBits`]
/// for no sectors or empty ones; [`ParamError::BlockTooLarge`] for sectors
/// over [`MAX_EXACT_BLOCK_BITS`] bits; [`ParamError::TooManyHashes`] for more
/// than [`MAX_HASHES`] sectors; [`ParamError::TooLarge`] for a rate so small
/// that no size under a million bits per item reaches it.
pub fn bits_per_item(sector_bits: u32, sectors: u32, p: f64) -> Result<(f64, u32), ParamError> {
    check_fpr(p)?;
    check_geometry(sector_bits, sectors)?;
    let lambda = |c: f64| f64::from(sector_bits) * f64::from(sectors) / c;
    // The pass probabilities of each load do not depend on c: one table per k.
    let mut tables: Vec<(u32, Occupancy)> = (1..=MAX_HASHES / sectors)
        .map(|r| (r * sectors, Occupancy::sectored(sector_bits, sectors, r)))
        .collect();
    least_bits(p, |c| {
        tables
            .iter_mut()
            .map(|(k, table)| (table.fpr_poisson(lambda(c)), *k))
            .min_by(|x, y| x.0.total_cmp(&y.0))
            .unwrap_or((1.0, sectors))
    })
}

/// Blocks and `k` for `n` items at rate `p`: the fewest blocks for which
/// [`fpr_exact`] is at most `p`, over `k` within one sector's worth of the
/// [`bits_per_item`] optimum; on a tie in blocks, the `k` with the lower rate.
///
/// # Errors
///
/// As [`bits_per_item`]; [`ParamError::ZeroItems`] for `n = 0`;
/// [`ParamError::TooLarge`] when the block count overflows.
pub fn size_for(sector_bits: u32, sectors: u32, n: u64, p: f64) -> Result<(u64, u32), ParamError> {
    let (bits_per_item, k0) = bits_per_item(sector_bits, sectors, p)?;
    if n == 0 {
        return Err(ParamError::ZeroItems);
    }
    let block_bits = f64::from(sector_bits) * f64::from(sectors);
    let guess = (n as f64 * bits_per_item / block_bits).ceil();
    if guess >= (u64::MAX / 2) as f64 {
        return Err(ParamError::TooLarge {
            needed: u128::MAX,
            limit: u128::from(u64::MAX),
        });
    }
    let guess = (guess as u64).max(1);
    let table = |k: u32| Occupancy::sectored(sector_bits, sectors, k / sectors);
    let mut at_k0 = table(k0);
    let mut blocks = min_blocks(p, guess, |b| at_k0.fpr(b, n))?;
    let (mut best_rate, mut best_k) = (at_k0.fpr(blocks, n), k0);
    for k in [k0.wrapping_sub(sectors), k0 + sectors] {
        if !valid(sector_bits, sectors, k) {
            continue;
        }
        let mut other = table(k);
        if blocks > 1 && other.fpr(blocks - 1, n) <= p {
            blocks = min_blocks(p, blocks - 1, |b| other.fpr(b, n))?;
            (best_rate, best_k) = (other.fpr(blocks, n), k);
        } else {
            let r = other.fpr(blocks, n);
            if r <= p && r < best_rate {
                (best_rate, best_k) = (r, k);
            }
        }
    }
    Ok((blocks, best_k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{SECTORS, mix64, sector_masks};
    use crate::theory::blocked;

    /// Simulated tables built with the filter's own masks
    /// ([`sector_masks`]), against [`rate_sd`] and [`fpr_exact`]: the sample
    /// variance of `T` table rates lies within its 99.9% chi-square interval
    /// around the model's (normal approximation, `±3.29·√(2/(T−1))`), and
    /// the mean within 3.29 standard errors of the exact rate.
    #[test]
    fn simulated_tables_match_the_model() {
        let (blocks, n) = (200u64, 10_240u64);
        for per_sector in [1u32, 2] {
            let k = per_sector * SECTORS as u32;
            let tables = 400;
            let mut state = 0x5eed_u64 + u64::from(per_sector);
            let mut next = || {
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                mix64(state)
            };
            let rates: Vec<f64> = (0..tables)
                .map(|_| {
                    let mut table = vec![[0u64; SECTORS]; blocks as usize];
                    for _ in 0..n {
                        let hash = next();
                        let block = &mut table[crate::hash::reduce(hash, blocks) as usize];
                        for (word, mask) in block.iter_mut().zip(sector_masks(hash, per_sector)) {
                            *word |= mask;
                        }
                    }
                    table
                        .iter()
                        .map(|b| {
                            b.iter()
                                .map(|w| (f64::from(w.count_ones()) / 64.0).powi(per_sector as i32))
                                .product::<f64>()
                        })
                        .sum::<f64>()
                        / blocks as f64
                })
                .collect();
            let mean = rates.iter().sum::<f64>() / tables as f64;
            let var = rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (tables - 1) as f64;
            let model = rate_sd(64, 8, blocks, n, k).powi(2);
            let half_width = 3.29 * (2.0 / (tables - 1) as f64).sqrt();
            assert!(
                (var / model - 1.0).abs() < half_width,
                "r = {per_sector}: simulated {var:e}, model {model:e}"
            );
            let exact = fpr_exact(64, 8, blocks, n, k);
            assert!(
                (mean - exact).abs() < 3.29 * (var / tables as f64).sqrt(),
                "r = {per_sector}: simulated mean {mean:e}, exact {exact:e}"
            );
        }
    }

    #[test]
    fn one_sector_is_a_plain_block() {
        for (n, blocks, k) in [(1_000u64, 20u64, 7u32), (51_200, 1_000, 6), (3, 1, 2)] {
            let plain = blocked::fpr_exact(64, blocks, n, k);
            assert_eq!(fpr_exact(64, 1, blocks, n, k), plain);
            assert_eq!(
                rate_sd(64, 1, blocks, n, k),
                blocked::rate_sd(64, blocks, n, k)
            );
        }
    }

    #[test]
    fn one_item_in_one_block_by_hand() {
        // Two sectors of 4 bits, one bit each: a probe passes with
        // probability (1/4)^2.
        assert!((fpr_exact(4, 2, 1, 1, 2) - 1.0 / 16.0).abs() < 1e-15);
        // Two bits in one sector of 2 bits, as the plain block: 0.625.
        assert!((fpr_exact(2, 1, 1, 1, 2) - 0.625).abs() < 1e-15);
        assert_eq!(fpr_exact(64, 8, 10, 0, 8), 0.0);
        assert_eq!(rate_sd(64, 8, 10, 0, 8), 0.0);
    }

    #[test]
    fn sectors_cost_a_little_memory() {
        // At 1%: 10.10 bits per item with k = 8 against 9.90 unsectored.
        let (c, k) = bits_per_item(64, 8, 0.01).unwrap();
        assert_eq!(k, 8);
        assert!((c - 10.10).abs() < 0.02, "{c}");
        // Smaller rates take two bits per word.
        let (c, k) = bits_per_item(64, 8, 1e-6).unwrap();
        let (plain, _) = blocked::bits_per_item(512, 1e-6).unwrap();
        assert!(k >= 16 && c > plain, "{c} bits, k = {k}, plain {plain}");
    }

    #[test]
    fn sizing_is_minimal() {
        for &(n, p) in &[(1u64, 0.5), (1_000, 0.01), (100_000, 0.01), (10_000, 0.001)] {
            let (blocks, k) = size_for(64, 8, n, p).unwrap();
            assert!(fpr_exact(64, 8, blocks, n, k) <= p, "{n} {p}");
            if blocks > 1 {
                let (_, k0) = bits_per_item(64, 8, p).unwrap();
                for k in [k0 - 8, k0, k0 + 8] {
                    if k >= 8 {
                        assert!(fpr_exact(64, 8, blocks - 1, n, k) > p, "{n} {p} {k}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_load_returns_quickly_and_stays_a_probability() {
        for &n in &[1u64, 1_000, 3_000_000, 1 << 40, u64::MAX] {
            for &blocks in &[1u64, 2, 1_000, u64::MAX] {
                for &k in &[8u32, 16, MAX_HASHES] {
                    let r = fpr_exact(64, 8, blocks, n, k);
                    assert!((0.0..=1.0).contains(&r), "{n} {blocks} {k}: {r}");
                    let sd = rate_sd(64, 8, blocks, n, k);
                    assert!((0.0..=0.5).contains(&sd), "{n} {blocks} {k}: {sd}");
                }
            }
        }
        assert_eq!(fpr_exact(64, 8, 1, u64::MAX, 8), 1.0);
        for c in [1e-300, 1e-3, 1.0, 1e300] {
            let r = fpr_poisson(64, 8, c, 8);
            assert!((0.0..=1.0).contains(&r), "{c}: {r}");
        }
    }

    #[test]
    fn bad_input() {
        assert!(fpr_exact(64, 8, 0, 10, 8).is_nan());
        assert!(fpr_exact(64, 8, 10, 10, 7).is_nan());
        assert!(fpr_exact(64, 8, 10, 10, 0).is_nan());
        assert!(fpr_exact(64, 0, 10, 10, 8).is_nan());
        assert!(fpr_exact(0, 8, 10, 10, 8).is_nan());
        assert!(fpr_exact(64, 8, 10, 10, MAX_HASHES + 8).is_nan());
        assert!(rate_sd(64, 8, 10, 10, 12).is_nan());
        assert!(fpr_poisson(64, 8, f64::NAN, 8).is_nan());
        assert!(fpr_poisson(64, 8, 0.0, 8).is_nan());
        assert!(matches!(
            bits_per_item(64, 8, 1.0),
            Err(ParamError::InvalidFpr(_))
        ));
        assert_eq!(bits_per_item(64, 0, 0.01), Err(ParamError::ZeroBits));
        assert_eq!(bits_per_item(0, 8, 0.01), Err(ParamError::ZeroBits));
        assert!(matches!(
            size_for(u32::MAX, 8, 10, 0.01),
            Err(ParamError::BlockTooLarge { .. })
        ));
        assert!(matches!(
            size_for(64, MAX_HASHES + 1, 10, 0.01),
            Err(ParamError::TooManyHashes(_))
        ));
        assert_eq!(size_for(64, 8, 0, 0.01), Err(ParamError::ZeroItems));
    }
}
