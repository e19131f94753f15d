//! The blocked Bloom filter: every item's k bits fall in one block of B bits
//! (Putze, Sanders and Singler, "Cache-, hash- and space-efficient Bloom
//! filters", JEA 2009).
//!
//! Blocks receive unequal numbers of items, and an overfull block answers
//! "present" far more often than the average block's fill suggests, so a
//! blocked filter needs more bits than a classic one for the same rate.

use crate::error::{ParamError, check_fpr};
use crate::theory::classic::MAX_HASHES;

/// The Poisson-mixture rate of Putze et al.: with `c` bits per item, a block
/// of `B` bits holds Poisson(B/c) items, and a block holding i items has the
/// classic rate of i items in B bits:
/// `Σ_i Poi(i; B/c) · (1 − (1 − 1/B)^{ik})^k`.
///
/// The published approximation: it ignores that the k probes of one query
/// can repeat a position, which at B = 512 and 10^6 probes is visible; the
/// blocked filter reports [`fpr_exact`] instead.
pub fn fpr_poisson(block_bits: f64, bits_per_item: f64, k: f64) -> f64 {
    if !(block_bits >= 1.0 && bits_per_item > 0.0 && k > 0.0) {
        return f64::NAN;
    }
    let lambda = block_bits / bits_per_item;
    let keep = 1.0 - 1.0 / block_bits;
    mixture(
        lambda,
        |i| {
            let per_item = (1.0 - keep.powf(i as f64 * k)).powf(k);
            Some(per_item)
        },
        poisson_log_pmf(lambda),
    )
}

/// The exact rate of `n` items in `blocks` blocks of `block_bits` bits, each
/// item setting `k` independent uniform positions in a uniform block, for a
/// probe whose `k` positions are drawn alike.
///
/// A block's load is Binomial(n, 1/blocks). With `j = i·k` positions thrown
/// into a block, the number X of set bits follows the occupancy distribution
/// (computed by dynamic programming), and a probe passes with probability
/// `E[(X/B)^k]`: no approximation beyond floating point. Cost:
/// `O(k · B · i_max)` with `i_max` a few standard deviations past the mean load.
pub fn fpr_exact(block_bits: u32, blocks: u64, n: u64, k: u32) -> f64 {
    if block_bits == 0 || blocks == 0 || k == 0 {
        return f64::NAN;
    }
    if n == 0 {
        return 0.0;
    }
    let b = block_bits as usize;
    let bf = f64::from(block_bits);
    let p = 1.0 / blocks as f64;
    let log_pmf = binomial_log_pmf(n, p);
    // dist[x]: probability that x bits are set after `thrown` positions.
    let mut dist = vec![0.0f64; b + 1];
    dist[0] = 1.0;
    let mut thrown = 0usize;
    let mut next = vec![0.0f64; b + 1];
    let pass_given = |dist: &[f64]| -> f64 {
        dist.iter()
            .enumerate()
            .map(|(x, &q)| q * (x as f64 / bf).powi(k as i32))
            .sum()
    };
    mixture(
        n as f64 * p,
        |i| {
            let want = i.checked_mul(k as usize)?;
            while thrown < want {
                let hi = (thrown + 1).min(b);
                next[..=hi].fill(0.0);
                for x in 0..=thrown.min(b) {
                    let q = dist[x];
                    if q == 0.0 {
                        continue;
                    }
                    let xf = x as f64;
                    next[x] += q * xf / bf;
                    if x < b {
                        next[x + 1] += q * (bf - xf) / bf;
                    }
                }
                std::mem::swap(&mut dist, &mut next);
                thrown += 1;
            }
            Some(pass_given(&dist))
        },
        log_pmf,
    )
    .min(1.0)
}

/// Bits per item and hash count for rate `p` with blocks of `block_bits`
/// bits, by the [`fpr_poisson`] formula: the least `c` (to 0.001 bit) for
/// which some `k` reaches `p`, with that `k`.
///
/// At B = 512 and 1%, 9.90 bits per item (against 9.59 unblocked).
///
/// # Errors
///
/// [`ParamError::InvalidFpr`] for `p` outside (0, 1); [`ParamError::ZeroBits`]
/// for a zero block; [`ParamError::TooLarge`] for a rate so small (below about
/// 10^-250) that no size under a million bits per item reaches it.
pub fn bits_per_item(block_bits: u32, p: f64) -> Result<(f64, u32), ParamError> {
    check_fpr(p)?;
    if block_bits == 0 {
        return Err(ParamError::ZeroBits);
    }
    let b = f64::from(block_bits);
    let best = |c: f64| -> (f64, u32) {
        (1..=MAX_HASHES)
            .map(|k| (fpr_poisson(b, c, f64::from(k)), k))
            .min_by(|x, y| x.0.total_cmp(&y.0))
            .unwrap_or((1.0, 1))
    };
    let mut lo = 0.0f64;
    let mut hi = super::classic::bits_per_item(p).max(1.0);
    while best(hi).0 > p {
        lo = hi;
        hi *= 2.0;
        if hi > 1e6 {
            // A rate this small needs more than a million bits per item.
            return Err(ParamError::TooLarge {
                needed: u128::MAX,
                limit: u128::from(u64::MAX),
            });
        }
    }
    while hi - lo > 1e-3 {
        let mid = 0.5 * (lo + hi);
        if best(mid).0 > p { lo = mid } else { hi = mid }
    }
    Ok((hi, best(hi).1))
}

/// Blocks and hashes for `n` items at rate `p` in blocks of `block_bits`
/// bits: the fewest blocks for which [`fpr_exact`] is at most `p`, over
/// the hash counts within two of the Putze–Sanders–Singler optimum `k0`; on a
/// tie in blocks, the `k` with the lower rate.
///
/// Cost: about twenty evaluations of `fpr_exact`, each a few milliseconds at
/// fifty items per block. Only `k0` is searched in full; another `k` is
/// searched only if it reaches the rate with fewer blocks than the best so
/// far, which one evaluation tells.
///
/// # Errors
///
/// As [`bits_per_item`]; [`ParamError::ZeroItems`] for `n = 0`;
/// [`ParamError::TooLarge`] when the block count overflows.
pub fn size_for(block_bits: u32, n: u64, p: f64) -> Result<(u64, u32), ParamError> {
    let (bits_per_item, k0) = bits_per_item(block_bits, p)?;
    if n == 0 {
        return Err(ParamError::ZeroItems);
    }
    let guess = (n as f64 * bits_per_item / f64::from(block_bits)).ceil();
    if guess >= (u64::MAX / 2) as f64 {
        return Err(ParamError::TooLarge {
            needed: u128::MAX,
            limit: u128::from(u64::MAX),
        });
    }
    let guess = (guess as u64).max(1);
    let rate = |blocks: u64, k: u32| fpr_exact(block_bits, blocks, n, k);
    let mut blocks = min_blocks(block_bits, n, p, k0, guess)?;
    let (mut best_rate, mut best_k) = (rate(blocks, k0), k0);
    for k in [k0.wrapping_sub(1), k0 + 1, k0.wrapping_sub(2), k0 + 2] {
        if !(1..=MAX_HASHES).contains(&k) {
            continue;
        }
        if blocks > 1 && rate(blocks - 1, k) <= p {
            blocks = min_blocks(block_bits, n, p, k, blocks - 1)?;
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
fn min_blocks(block_bits: u32, n: u64, p: f64, k: u32, guess: u64) -> Result<u64, ParamError> {
    let passes = |blocks: u64| fpr_exact(block_bits, blocks, n, k) <= p;
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

/// `Σ_i exp(log_pmf(i)) · f(i)` over the loads that carry probability, from
/// 0 to a dozen standard deviations past the mean `lambda`.
fn mixture(
    lambda: f64,
    mut f: impl FnMut(usize) -> Option<f64>,
    mut log_pmf: impl FnMut(usize) -> f64,
) -> f64 {
    let last = (lambda + 12.0 * lambda.sqrt() + 20.0).ceil() as usize;
    let mut total = 0.0;
    for i in 0..=last {
        let w = log_pmf(i);
        if w == f64::NEG_INFINITY {
            continue;
        }
        match f(i) {
            Some(v) => total += w.exp() * v,
            None => break,
        }
    }
    total
}

/// The log-pmf of Poisson(lambda), evaluated in increasing order of i.
fn poisson_log_pmf(lambda: f64) -> impl FnMut(usize) -> f64 {
    let mut acc = -lambda;
    let ln_l = lambda.ln();
    move |i| {
        if i > 0 {
            acc += ln_l - (i as f64).ln();
        }
        acc
    }
}

/// The log-pmf of Binomial(n, p), evaluated in increasing order of i.
fn binomial_log_pmf(n: u64, p: f64) -> Box<dyn FnMut(usize) -> f64> {
    let nf = n as f64;
    if p >= 1.0 {
        // One block: it holds every item.
        return Box::new(move |i: usize| {
            if i as u64 == n {
                0.0
            } else {
                f64::NEG_INFINITY
            }
        });
    }
    let mut acc = nf * (-p).ln_1p();
    let odds = (p / (1.0 - p)).ln();
    Box::new(move |i: usize| {
        if i as u64 > n {
            return f64::NEG_INFINITY;
        }
        if i > 0 {
            let j = i as f64;
            acc += ((nf - j + 1.0) / j).ln() + odds;
        }
        acc
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn putze_512_bit_blocks_need_9_90_bits_for_one_percent() {
        let (c, k) = bits_per_item(512, 0.01).unwrap();
        assert!((c - 9.90).abs() < 0.02, "{c} bits, k = {k}");
    }

    #[test]
    fn huge_blocks_approach_the_classic_rate() {
        let classic = super::super::classic::fpr(10.0, 1.0, 7.0);
        let blocked = fpr_poisson(1e6, 10.0, 7.0);
        assert!(
            (blocked / classic - 1.0).abs() < 1e-3,
            "{blocked} vs {classic}"
        );
    }

    #[test]
    fn exact_and_poisson_agree_loosely_and_exact_is_higher() {
        // 1,000 blocks of 512 bits, 10 bits per item, k = 7.
        let exact = fpr_exact(512, 1_000, 51_200, 7);
        let poisson = fpr_poisson(512.0, 10.0, 7.0);
        assert!((exact / poisson - 1.0).abs() < 0.05, "{exact} vs {poisson}");
        // Repeated probe positions only ever help a false positive.
        assert!(exact > poisson);
    }

    #[test]
    fn exact_matches_hand_computation_for_one_block() {
        // One block of 4 bits, one item, k = 1: one bit set, rate 1/4.
        assert!((fpr_exact(4, 1, 1, 1) - 0.25).abs() < 1e-12);
        // One block of 2 bits, one item with k = 2: both bits set with
        // probability 1/2 (rate 1), else one (rate (1/2)^2): 0.625.
        assert!((fpr_exact(2, 1, 1, 2) - 0.625).abs() < 1e-12);
        assert_eq!(fpr_exact(512, 10, 0, 7), 0.0);
    }

    #[test]
    fn blocked_sizing_is_minimal() {
        for &(n, p) in &[(1u64, 0.5), (1_000, 0.01), (100_000, 0.01), (10_000, 0.001)] {
            let (blocks, k) = size_for(512, n, p).unwrap();
            assert!(fpr_exact(512, blocks, n, k) <= p);
            if blocks > 1 {
                // One block fewer misses the rate for every k tried.
                let (_, k0) = bits_per_item(512, p).unwrap();
                for k in k0.saturating_sub(2).max(1)..=k0 + 2 {
                    assert!(fpr_exact(512, blocks - 1, n, k) > p);
                }
            }
        }
    }

    #[test]
    fn bad_input() {
        assert!(fpr_poisson(0.0, 10.0, 7.0).is_nan());
        assert!(fpr_exact(512, 0, 10, 7).is_nan());
        assert!(matches!(
            bits_per_item(512, 1.0),
            Err(ParamError::InvalidFpr(_))
        ));
        assert_eq!(bits_per_item(0, 0.01), Err(ParamError::ZeroBits));
    }
}
