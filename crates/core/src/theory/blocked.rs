//! The blocked Bloom filter: every item's k bits fall in one block of B bits
//! (Putze, Sanders and Singler, "Cache-, hash- and space-efficient Bloom
//! filters", JEA 2009).
//!
//! Blocks receive unequal numbers of items, and an overfull block answers
//! "present" far more often than the average block's fill suggests, so a
//! blocked filter needs more bits than a classic one for the same rate.

use crate::error::{ParamError, check_fpr};
use crate::theory::classic::MAX_HASHES;

/// The largest block [`fpr_exact`] evaluates: its occupancy recursion costs
/// up to `B²·(ln B + 37)` steps (under a second at 4,096 bits, about 10 ms at
/// the 512 bits of bloomlab's blocks).
pub const MAX_EXACT_BLOCK_BITS: u32 = 4_096;

/// The largest block [`fpr_poisson`], [`bits_per_item`] and [`size_for`]
/// accept: the mixture sums at most about `B·(ln(k) + 37)/k` terms.
pub const MAX_BLOCK_BITS: u32 = 1 << 16;

/// `−ln 2^−53`: a term within `2^−53` of 1 is 1 in `f64`.
pub(super) const LN_ULP: f64 = 53.0 * std::f64::consts::LN_2;

/// The Poisson-mixture rate of Putze et al.: with `c` bits per item, a block
/// of `B` bits holds Poisson(B/c) items, and a block holding i items has the
/// classic rate of i items in B bits:
/// `Σ_i Poi(i; B/c) · (1 − (1 − 1/B)^{ik})^k`.
///
/// The published approximation: it ignores that the k probes of one query
/// can repeat a position, which at B = 512 and 10^6 probes is visible; the
/// blocked filter reports [`fpr_exact`] instead.
///
/// Bounded time for every input: a block load `i` whose term is within
/// `2^−53` of 1 (`k·(1 − 1/B)^{ik} ≤ 2^−53`) ends the sum, and the rest of the
/// Poisson mass is added at 1, an error below `2^−53`. NaN for a block
/// outside `1..=`[`MAX_BLOCK_BITS`], a non-finite or non-positive `c`, or a
/// `k` below 1 or infinite.
pub fn fpr_poisson(block_bits: f64, bits_per_item: f64, k: f64) -> f64 {
    if !(block_bits >= 1.0
        && block_bits <= f64::from(MAX_BLOCK_BITS)
        && bits_per_item > 0.0
        && bits_per_item.is_finite()
        && k >= 1.0
        && k.is_finite())
    {
        return f64::NAN;
    }
    let lambda = block_bits / bits_per_item;
    let keep = 1.0 - 1.0 / block_bits;
    // First load whose term rounds to 1: k·keep^{ik} ≤ 2^−53.
    let saturated = if keep == 0.0 {
        1
    } else {
        let throws = (LN_ULP + k.ln()) / -keep.ln();
        ((throws / k).ceil() as usize).max(1)
    };
    mixture(
        lambda,
        saturated,
        |i| (1.0 - keep.powf(i as f64 * k)).powf(k),
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
/// `E[(X/B)^k]`: no approximation beyond floating point.
///
/// Bounded time for every input. Once `j` positions are thrown with
/// `B·(1 − 1/B)^j ≤ 2^−53`, every bit of the block is set except with
/// probability below `2^−53` (a union bound over the `B` bits), so heavier
/// loads pass with probability 1 to within `2^−53` and their Binomial mass is
/// added at 1. The recursion therefore stops after at most
/// `B·(ln B + 37)` throws, whatever `n`: at most about 1.1·10^7 steps at
/// B = 512, or `O(k · B · i_max)` with `i_max` a dozen standard deviations
/// past the mean load when that is less.
///
/// NaN for `blocks` or `k` of 0, or a block outside
/// `1..=`[`MAX_EXACT_BLOCK_BITS`].
pub fn fpr_exact(block_bits: u32, blocks: u64, n: u64, k: u32) -> f64 {
    if !(1..=MAX_EXACT_BLOCK_BITS).contains(&block_bits) || blocks == 0 || k == 0 {
        return f64::NAN;
    }
    Occupancy::new(block_bits, k).fpr(blocks, n)
}

/// How much one blocked filter's false-positive rate differs from the next
/// one's built alike under another hash key: the standard deviation, over
/// tables, of the rate of `n` items in `blocks` blocks of `block_bits` bits
/// with `k` hashes (the model of [`fpr_exact`]).
///
/// A table passes a probe with probability `R = (1/β)·Σ_b g(X_b)`, `β` the
/// blocks, `X_b` the bits set in block `b` and `g(x) = (x/B)^k`. Were the
/// block loads independent Poisson(λ = n/β), `Var(R) = Var(g)/β`; the loads
/// are multinomial, which is the Poisson model conditioned on their sum
/// being `n`. For a sum of many independent terms that condition removes the
/// part of `g` linear in the load (the normal approximation behind
/// de-Poissonized occupancy statistics; Kolchin, Sevast'yanov and Chistyakov,
/// *Random Allocations*, 1978, ch. 1):
/// `Var(R) = (Var(g) − Cov(g, L)²/λ)/β`, with `E[g | L = i]` and
/// `E[g² | L = i]` from the occupancy distribution of `i·k` throws into `B`
/// bits. First order in `1/β`.
///
/// Bounded time as [`fpr_exact`]: loads whose block is full to within
/// `2^−53` contribute `g = 1` in closed form. NaN for `blocks` or `k` of 0,
/// or a block outside `1..=`[`MAX_EXACT_BLOCK_BITS`]; 0 for `n = 0`.
///
/// ```
/// use bloomlab_core::theory::blocked::{fpr_exact, rate_sd};
///
/// // 100,000 items in 1,954 blocks of 512 bits (10 bits per item), k = 7:
/// // a rate near 1%, varying by about 1.5% of itself from table to table.
/// let (rate, sd) = (fpr_exact(512, 1_954, 100_000, 7), rate_sd(512, 1_954, 100_000, 7));
/// assert!(sd > 0.005 * rate && sd < 0.05 * rate, "{rate} {sd}");
/// ```
pub fn rate_sd(block_bits: u32, blocks: u64, n: u64, k: u32) -> f64 {
    if !(1..=MAX_EXACT_BLOCK_BITS).contains(&block_bits) || blocks == 0 || k == 0 {
        return f64::NAN;
    }
    sectored_rate_sd(block_bits, 1, blocks, n, k)
}

/// [`rate_sd`] for blocks of `sectors` independent sectors of `block_bits`
/// bits, an item setting `k` positions in each: the pass probability of a
/// block is the product of its sectors', so the conditional moments of one
/// sector are raised to the power `sectors`. Arguments checked by the caller.
pub(super) fn sectored_rate_sd(block_bits: u32, sectors: u32, blocks: u64, n: u64, k: u32) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let (b, bf) = (block_bits as usize, f64::from(block_bits));
    let lambda = n as f64 / blocks as f64;
    let saturated = full_after(block_bits, sectors).div_ceil(k as usize).max(1);
    let last = ((lambda + 12.0 * lambda.sqrt() + 20.0).ceil() as usize).min(saturated);
    let mut dist = vec![0.0f64; b + 1];
    let mut next = vec![0.0f64; b + 1];
    dist[0] = 1.0;
    let mut log_pmf = poisson_log_pmf(lambda);
    let (mut mass, mut load_mass) = (0.0, 0.0);
    let (mut e_g, mut e_g2, mut e_gl) = (0.0, 0.0, 0.0);
    for i in 0..last {
        let w = log_pmf(i).exp();
        let (m1, m2) = dist
            .iter()
            .enumerate()
            .fold((0.0, 0.0), |(m1, m2), (x, &q)| {
                let g = (x as f64 / bf).powi(k as i32);
                (m1 + q * g, m2 + q * g * g)
            });
        let (m1, m2) = (m1.powi(sectors as i32), m2.powi(sectors as i32));
        mass += w;
        load_mass += w * i as f64;
        e_g += w * m1;
        e_g2 += w * m2;
        e_gl += w * i as f64 * m1;
        for _ in 0..k {
            next.fill(0.0);
            for (x, &q) in dist.iter().enumerate() {
                if q == 0.0 {
                    continue;
                }
                next[x] += q * x as f64 / bf;
                if x < b {
                    next[x + 1] += q * (bf - x as f64) / bf;
                }
            }
            std::mem::swap(&mut dist, &mut next);
        }
    }
    if last == saturated {
        // Every heavier load fills its block: g = g² = 1.
        let rest = (1.0 - mass).max(0.0);
        e_g += rest;
        e_g2 += rest;
        e_gl += (lambda - load_mass).max(0.0);
    }
    let var_g = e_g2 - e_g * e_g;
    let cov = e_gl - e_g * lambda;
    ((var_g - cov * cov / lambda) / blocks as f64)
        .max(0.0)
        .sqrt()
}

/// The pass probability of a probe against a block holding `i` items, for
/// one block size and hash count, computed by the occupancy recursion and
/// kept: the sizing searches evaluate [`fpr_exact`] for many block counts
/// with the same `k`, and only the Binomial weights differ between them.
pub(super) struct Occupancy {
    block_bits: usize,
    k: u32,
    /// Independent sectors per block: the pass probability is one sector's
    /// to this power (1 for a plain blocked filter).
    sectors: u32,
    /// `dist[x]`: probability that `x` bits are set after `thrown` positions.
    dist: Vec<f64>,
    next: Vec<f64>,
    thrown: usize,
    /// `pass[i]`: `E[(X/B)^k]` after `i·k` positions.
    pass: Vec<f64>,
    /// The first load whose block is full to within 2^−53.
    saturated: usize,
}

impl Occupancy {
    /// `block_bits` in `1..=MAX_EXACT_BLOCK_BITS` and `k ≥ 1`, checked by the caller.
    fn new(block_bits: u32, k: u32) -> Self {
        Self::sectored(block_bits, 1, k)
    }

    /// Blocks of `sectors` sectors of `block_bits` bits, `k` positions in
    /// each; `sectors ≥ 1`, the rest as [`new`](Self::new).
    pub(super) fn sectored(block_bits: u32, sectors: u32, k: u32) -> Self {
        let b = block_bits as usize;
        let mut dist = vec![0.0f64; b + 1];
        dist[0] = 1.0;
        Self {
            block_bits: b,
            k,
            sectors,
            dist,
            next: vec![0.0f64; b + 1],
            thrown: 0,
            pass: Vec::new(),
            saturated: full_after(block_bits, sectors).div_ceil(k as usize).max(1),
        }
    }

    /// The rate of `n` items in `blocks` blocks.
    pub(super) fn fpr(&mut self, blocks: u64, n: u64) -> f64 {
        if n == 0 {
            return 0.0;
        }
        let p = 1.0 / blocks as f64;
        mixture(
            n as f64 * p,
            self.saturated,
            |i| self.pass(i),
            binomial_log_pmf(n, p),
        )
        .min(1.0)
    }

    /// The rate when a block's load is Poisson(`lambda`), as in
    /// [`fpr_poisson`], but with the exact pass probability of each load.
    pub(super) fn fpr_poisson(&mut self, lambda: f64) -> f64 {
        mixture(
            lambda,
            self.saturated,
            |i| self.pass(i),
            poisson_log_pmf(lambda),
        )
        .min(1.0)
    }

    /// `E[(X/B)^k]` for a block holding `i` items (to the power `sectors`),
    /// extending the recursion as far as needed.
    pub(super) fn pass(&mut self, i: usize) -> f64 {
        if let Some(&known) = self.pass.get(i) {
            return known;
        }
        let (b, bf) = (self.block_bits, self.block_bits as f64);
        let k = self.k as usize;
        while self.pass.len() <= i {
            let want = self.pass.len() * k;
            while self.thrown < want {
                let hi = (self.thrown + 1).min(b);
                self.next[..=hi].fill(0.0);
                for x in 0..=self.thrown.min(b) {
                    let q = self.dist[x];
                    if q == 0.0 {
                        continue;
                    }
                    let xf = x as f64;
                    self.next[x] += q * xf / bf;
                    if x < b {
                        self.next[x + 1] += q * (bf - xf) / bf;
                    }
                }
                std::mem::swap(&mut self.dist, &mut self.next);
                self.thrown += 1;
            }
            let pass = self
                .dist
                .iter()
                .enumerate()
                .map(|(x, &q)| q * (x as f64 / bf).powi(self.k as i32))
                .sum::<f64>()
                .powi(self.sectors as i32);
            self.pass.push(pass);
        }
        self.pass[i]
    }
}

/// Throws into each of `sectors` sectors of `block_bits` bits after which
/// every bit of the block is set except with probability below `2^−53`: a
/// union bound over the `sectors · block_bits` bits,
/// `sectors · B · (1 − 1/B)^j ≤ 2^−53`.
fn full_after(block_bits: u32, sectors: u32) -> usize {
    if block_bits == 1 {
        return 1;
    }
    let bf = f64::from(block_bits);
    ((LN_ULP + (bf * f64::from(sectors)).ln()) / -(-1.0 / bf).ln_1p()).ceil() as usize
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
/// for a zero block; [`ParamError::BlockTooLarge`] for a block over
/// [`MAX_BLOCK_BITS`]; [`ParamError::TooLarge`] for a rate so small (below
/// about 10^-250) that no size under a million bits per item reaches it.
pub fn bits_per_item(block_bits: u32, p: f64) -> Result<(f64, u32), ParamError> {
    check_fpr(p)?;
    if block_bits == 0 {
        return Err(ParamError::ZeroBits);
    }
    if block_bits > MAX_BLOCK_BITS {
        return Err(ParamError::BlockTooLarge {
            bits: u64::from(block_bits),
            max: u64::from(MAX_BLOCK_BITS),
        });
    }
    let b = f64::from(block_bits);
    least_bits(p, |c| {
        (1..=MAX_HASHES)
            .map(|k| (fpr_poisson(b, c, f64::from(k)), k))
            .min_by(|x, y| x.0.total_cmp(&y.0))
            .unwrap_or((1.0, 1))
    })
}

/// The least bits per item `c` (to 0.001 bit) for which `best(c)`, the
/// lowest rate at `c` bits per item and the `k` that gives it, reaches `p`;
/// with that `k`. `best` falls as `c` grows.
pub(super) fn least_bits(
    p: f64,
    mut best: impl FnMut(f64) -> (f64, u32),
) -> Result<(f64, u32), ParamError> {
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
/// Cost: about twenty evaluations of the exact rate. The occupancy
/// recursion behind it depends on `k` but not on the block count, so it runs
/// once per `k` and each evaluation after the first only sums the Binomial
/// weights. Only `k0` is searched in full; another `k` is searched only if
/// it reaches the rate with fewer blocks than the best so far, which one
/// evaluation tells. Measured (release build): 18 ms for a million items at
/// 1%, 0.2 s for `usize::MAX` items at a rate just below 1 (1.7 s before the
/// recursion was shared).
///
/// # Errors
///
/// As [`bits_per_item`]; [`ParamError::BlockTooLarge`] for a block over
/// [`MAX_EXACT_BLOCK_BITS`]; [`ParamError::ZeroItems`] for `n = 0`;
/// [`ParamError::TooLarge`] when the block count overflows.
pub fn size_for(block_bits: u32, n: u64, p: f64) -> Result<(u64, u32), ParamError> {
    if block_bits > MAX_EXACT_BLOCK_BITS {
        return Err(ParamError::BlockTooLarge {
            bits: u64::from(block_bits),
            max: u64::from(MAX_EXACT_BLOCK_BITS),
        });
    }
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
    // One occupancy table per k, shared by every evaluation with that k
    // (`tables[k - 1]`; the search tries k0 − 2 ..= k0 + 2, within 1..=MAX_HASHES).
    let mut tables: Vec<Occupancy> = (1..=MAX_HASHES.min(k0 + 2))
        .map(|k| Occupancy::new(block_bits, k))
        .collect();
    let mut rate = |blocks: u64, k: u32| tables[k as usize - 1].fpr(blocks, n);
    let mut blocks = min_blocks(p, guess, |b| rate(b, k0))?;
    let (mut best_rate, mut best_k) = (rate(blocks, k0), k0);
    for k in [k0.wrapping_sub(1), k0 + 1, k0.wrapping_sub(2), k0 + 2] {
        if !(1..=MAX_HASHES).contains(&k) {
            continue;
        }
        if blocks > 1 && rate(blocks - 1, k) <= p {
            blocks = min_blocks(p, blocks - 1, |b| rate(b, k))?;
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
pub(super) fn min_blocks(
    p: f64,
    guess: u64,
    mut rate: impl FnMut(u64) -> f64,
) -> Result<u64, ParamError> {
    let mut passes = |blocks: u64| rate(blocks) <= p;
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
    Ok(super::least_passing(lo, hi, passes))
}

/// `Σ_i exp(log_pmf(i)) · f(i)` for an `f` rising to 1, over the loads that
/// carry probability: from 0 to a dozen standard deviations past the mean
/// `lambda`, or to `saturated`, the first load with `f(i) ≥ 1 − 2^−53`, if
/// that comes first. The mass from `saturated` on is then added at 1, which
/// errs by less than `2^−53`. At most `min(last, saturated)` terms.
pub(super) fn mixture(
    lambda: f64,
    saturated: usize,
    mut f: impl FnMut(usize) -> f64,
    mut log_pmf: impl FnMut(usize) -> f64,
) -> f64 {
    let last = (lambda + 12.0 * lambda.sqrt() + 20.0).ceil() as usize;
    let mut total = 0.0;
    let mut head_mass = 0.0;
    for i in 0..=last.min(saturated.saturating_sub(1)) {
        // A load of no weight costs nothing: `f` is not asked for it (the
        // occupancy recursion of `fpr_exact` catches up at the next load it
        // is asked for), so a mean load far past the cut-off costs only the
        // weights.
        let w = log_pmf(i).exp();
        if w == 0.0 {
            continue;
        }
        head_mass += w;
        total += w * f(i);
    }
    if last >= saturated {
        total += (1.0 - head_mass).max(0.0);
    }
    total.min(1.0)
}

/// The log-pmf of Poisson(lambda), evaluated in increasing order of i.
pub(super) fn poisson_log_pmf(lambda: f64) -> impl FnMut(usize) -> f64 {
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
pub(super) fn binomial_log_pmf(n: u64, p: f64) -> Box<dyn FnMut(usize) -> f64> {
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

/// The estimate of how many distinct items a table of blocks holds, from
/// the fraction `zero` of its cells still zero (unset bits, or counters at
/// zero): `n̂ = −blocks · ln(zero) / (1 − (1 − 1/cells)^draws)`.
///
/// Each item falls in one block and makes `draws` independent uniform draws
/// among `cells` cells of each group it touches: the `k` positions of a
/// block of `cells` cells, or the `k/8` positions of each word of a
/// sectored block (`cells` the word's cells). With the block loads
/// Poisson(`n / blocks`), as in Putze, Sanders and Singler's model (see
/// [`fpr_poisson`]), a cell stays zero with probability
/// `exp(−(n / blocks) · (1 − (1 − 1/cells)^draws))`, which this inverts.
/// Pooled over the whole table, it is finite until every cell is set,
/// where summing the classic estimate of each block on its own is infinite
/// as soon as one block is full, and biased upwards before that (the
/// logarithm is convex, and small blocks spread widely).
///
/// ```
/// use bloomlab_core::theory::blocked::estimate_count;
///
/// // 1,000 blocks of 16 cells, one draw per item: a cell stays zero with
/// // probability e^{-n/16000}; at n = 16,000 that is e^{-1}.
/// let n = estimate_count(1_000.0, 16.0, 1.0, (-1.0f64).exp());
/// assert!((n - 16_000.0).abs() < 1e-6);
/// assert!(estimate_count(1_000.0, 16.0, 1.0, 0.0).is_infinite());
/// assert_eq!(estimate_count(1_000.0, 16.0, 1.0, 1.0), 0.0);
/// ```
///
/// NaN for no blocks, fewer than one cell, no draws, or `zero` outside
/// `0..=1`.
pub fn estimate_count(blocks: f64, cells: f64, draws: f64, zero: f64) -> f64 {
    let Some(hit) = count_hit(blocks, cells, draws, zero) else {
        return f64::NAN;
    };
    // −0.0 for an empty table: report 0.
    (-blocks * zero.ln() / hit).max(0.0)
}

/// For [`estimate_count`] and [`estimate_count_sd`]: `1 − (1 − 1/cells)^draws`,
/// the chance one item's draws hit a given cell of its block, or `None` for
/// arguments they refuse.
fn count_hit(blocks: f64, cells: f64, draws: f64, zero: f64) -> Option<f64> {
    (blocks > 0.0 && cells >= 1.0 && draws > 0.0 && (0.0..=1.0).contains(&zero))
        .then(|| -(draws * (-1.0 / cells).ln_1p()).exp_m1())
}

/// The sampling spread (one standard deviation) of [`estimate_count`] for a
/// table whose `counted` cells were tallied into `zero`: treating each cell
/// as zero independently with probability `zero`, the zero cells are
/// Binomial(`counted`, `zero`), and the delta method gives
/// `sd(n̂) = blocks / (1 − (1 − 1/cells)^draws) · √((1 − zero) / (zero · counted))`.
///
/// With one draw per group of `cells` (the sectored layouts at their usual
/// `k = 8`) the cells of a table are independent given the block loads,
/// and this is the spread over tables of the same load; with more draws a
/// group's cells are slightly dependent and it is an approximation. The
/// block loads are taken as Poisson, as in [`estimate_count`]; a table of
/// exactly `n` items spreads a little less (its blocks' loads, and so its
/// zero cells, are negatively correlated), so as a bound it errs wide.
///
/// ```
/// use bloomlab_core::theory::blocked::{estimate_count, estimate_count_sd};
///
/// // 1,000 blocks of eight 64-bit words, one bit a word, at n = 64,000:
/// // each bit is zero with probability e^{-1}.
/// let zero = (-1.0f64).exp();
/// let n = estimate_count(1_000.0, 64.0, 1.0, zero);
/// let sd = estimate_count_sd(1_000.0, 64.0, 1.0, 512_000.0, zero);
/// // 64,000 · √((1 − e^{-1}) / (e^{-1} · 512,000)): about 117.2 items.
/// assert!((n - 64_000.0).abs() < 1e-6);
/// assert!((sd - 117.24).abs() < 0.01, "{sd}");
/// ```
///
/// NaN for arguments [`estimate_count`] refuses or no cells counted;
/// infinite when every counted cell is set.
pub fn estimate_count_sd(blocks: f64, cells: f64, draws: f64, counted: f64, zero: f64) -> f64 {
    match count_hit(blocks, cells, draws, zero) {
        Some(hit) if counted >= 1.0 => blocks / hit * ((1.0 - zero) / (zero * counted)).sqrt(),
        _ => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spread's edges: none for a table with every cell zero, infinite
    /// with every cell set, NaN for what [`estimate_count`] refuses or no
    /// cells counted; and by hand for 100 blocks of 512 bits, k = 7, half
    /// unset over 51,200 bits: 100 / (1 − (511/512)^7) · √(1 / 51,200) =
    /// 32.515.
    #[test]
    fn the_count_estimates_spread_at_its_edges() {
        assert_eq!(estimate_count_sd(100.0, 512.0, 7.0, 51_200.0, 1.0), 0.0);
        assert!(estimate_count_sd(100.0, 512.0, 7.0, 51_200.0, 0.0).is_infinite());
        for (blocks, counted, zero) in [(0.0, 10.0, 0.5), (10.0, 0.0, 0.5), (10.0, 10.0, 1.5)] {
            assert!(estimate_count_sd(blocks, 64.0, 1.0, counted, zero).is_nan());
        }
        assert!(estimate_count_sd(10.0, 64.0, 1.0, f64::NAN, 0.5).is_nan());
        let sd = estimate_count_sd(100.0, 512.0, 7.0, 51_200.0, 0.5);
        assert!((sd - 32.515).abs() < 1e-3, "{sd}");
    }

    /// Simulated tables against [`rate_sd`]: the sample variance of `T`
    /// table rates, each a mean over 200 blocks and so near normal, lies
    /// within its 99.9% chi-square interval around the model's variance
    /// (`T − 1` degrees of freedom, normal approximation: `±3.29·√(2/(T−1))`).
    #[test]
    fn the_count_estimate_inverts_the_poisson_fill() {
        // 100 blocks of 512 bits, k = 7, half the bits unset: by hand,
        // 100 ln 2 / (1 − (511/512)^7) = 5,099.66.
        let n = estimate_count(100.0, 512.0, 7.0, 0.5);
        assert!((n - 5_099.660_263_980_6).abs() < 1e-6, "{n}");
        // Its own forward model gives the fill back.
        let zero = (-(n / 100.0) * (1.0 - (1.0 - 1.0 / 512.0f64).powi(7))).exp();
        assert!((zero - 0.5).abs() < 1e-12);
        for bad in [
            (0.0, 512.0, 7.0, 0.5),
            (1.0, 0.5, 7.0, 0.5),
            (1.0, 512.0, 0.0, 0.5),
        ] {
            assert!(
                estimate_count(bad.0, bad.1, bad.2, bad.3).is_nan(),
                "{bad:?}"
            );
        }
        assert!(estimate_count(1.0, 512.0, 7.0, 1.5).is_nan());
    }

    #[test]
    fn rate_sd_matches_simulated_tables() {
        let (bits, blocks, n, k) = (512u32, 200u64, 10_240u64, 7u32);
        let tables = 400;
        let mut state = 0x5eed_u64;
        let mut next = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            crate::hash::mix64(state)
        };
        let rates: Vec<f64> = (0..tables)
            .map(|_| {
                let mut table = vec![[0u64; 8]; blocks as usize];
                for _ in 0..n {
                    let block = &mut table[(next() % blocks) as usize];
                    for _ in 0..k {
                        let bit = (next() % u64::from(bits)) as usize;
                        block[bit / 64] |= 1 << (bit % 64);
                    }
                }
                table
                    .iter()
                    .map(|b| {
                        let set: u32 = b.iter().map(|w| w.count_ones()).sum();
                        (f64::from(set) / f64::from(bits)).powi(k as i32)
                    })
                    .sum::<f64>()
                    / blocks as f64
            })
            .collect();
        let mean = rates.iter().sum::<f64>() / tables as f64;
        let var = rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (tables - 1) as f64;
        let model = rate_sd(bits, blocks, n, k).powi(2);
        let half_width = 3.29 * (2.0 / (tables - 1) as f64).sqrt();
        assert!(
            (var / model - 1.0).abs() < half_width,
            "simulated {var:e}, model {model:e}"
        );
        // The mean is fpr_exact's, within 3.29 standard errors.
        let exact = fpr_exact(bits, blocks, n, k);
        assert!((mean - exact).abs() < 3.29 * (var / tables as f64).sqrt());
    }

    #[test]
    fn rate_sd_domain_and_extremes() {
        assert_eq!(rate_sd(512, 10, 0, 7), 0.0);
        assert!(rate_sd(0, 10, 10, 7).is_nan());
        assert!(rate_sd(512, 0, 10, 7).is_nan());
        assert!(rate_sd(512, 10, 10, 0).is_nan());
        assert!(rate_sd(MAX_EXACT_BLOCK_BITS + 1, 10, 10, 7).is_nan());
        for &n in &[1u64, 1_000, 1 << 40, u64::MAX] {
            for &blocks in &[1u64, 1_000, u64::MAX] {
                let sd = rate_sd(512, blocks, n, 7);
                assert!((0.0..=0.5).contains(&sd), "{n} {blocks}: {sd}");
            }
        }
        // Full blocks: every table passes every probe.
        assert_eq!(rate_sd(512, 1, u64::MAX, 7), 0.0);
    }

    #[test]
    fn putze_512_bit_blocks_need_9_90_bits_for_one_percent() {
        let (c, k) = bits_per_item(512, 0.01).unwrap();
        assert!((c - 9.90).abs() < 0.02, "{c} bits, k = {k}");
    }

    #[test]
    fn huge_blocks_approach_the_classic_rate() {
        // The gap is the variance of a block's load: about 9.3/λ relative at
        // 10 bits per item and k = 7 (λ = B/10 items per block).
        let classic = super::super::classic::fpr(10.0, 1.0, 7.0);
        let gap = |b: f64| fpr_poisson(b, 10.0, 7.0) / classic - 1.0;
        let (small, large) = (gap(512.0), gap(f64::from(MAX_BLOCK_BITS)));
        assert!(large > 0.0 && large < small / 64.0, "{small} then {large}");
        assert!(large < 2e-3, "{large}");
    }

    #[test]
    fn every_load_returns_quickly_and_stays_a_probability() {
        // Loads from empty to u64::MAX items in one block: each call is
        // bounded by the saturation cut-off, not by the load.
        let start = std::time::Instant::now();
        for &n in &[1u64, 1_000, 3_000_000, 1 << 40, u64::MAX] {
            for &blocks in &[1u64, 2, 1_000, u64::MAX] {
                for &k in &[1u32, 7, MAX_HASHES] {
                    let r = fpr_exact(512, blocks, n, k);
                    assert!((0.0..=1.0).contains(&r), "{n} {blocks} {k}: {r}");
                }
            }
        }
        // Full blocks pass every probe.
        assert_eq!(fpr_exact(512, 1, u64::MAX, 7), 1.0);
        assert_eq!(fpr_exact(512, 1, 3_000_000, 7), 1.0);
        assert!(fpr_exact(512, u64::MAX, u64::MAX, 7) < 1e-6);
        assert!(fpr_exact(MAX_EXACT_BLOCK_BITS, 1, u64::MAX, 1) == 1.0);
        for &c in &[1e-300, 1e-3, 1.0, 1e300] {
            for &k in &[1.0, 7.0, 1e300] {
                let r = fpr_poisson(512.0, c, k);
                assert!((0.0..=1.0).contains(&r), "{c} {k}: {r}");
                let r = fpr_poisson(f64::from(MAX_BLOCK_BITS), c, k);
                assert!((0.0..=1.0).contains(&r), "{c} {k}: {r}");
            }
        }
        assert_eq!(fpr_poisson(512.0, 1e-300, 7.0), 1.0);
        // Generous: about 30 ms in the test profile; the old sum took 58 s
        // for 3·10^6 items in one block and never ended for u64::MAX.
        assert!(start.elapsed().as_secs() < 60, "{:?}", start.elapsed());
    }

    /// The full mixture without a cut-off: every load up to `n`.
    fn fpr_exact_uncut(block_bits: usize, blocks: u64, n: u64, k: usize) -> f64 {
        let b = block_bits as f64;
        let mut dist = vec![0.0f64; block_bits + 1];
        dist[0] = 1.0;
        let mut total = 0.0;
        let mut log_pmf = binomial_log_pmf(n, 1.0 / blocks as f64);
        for i in 0..=n as usize {
            let w = log_pmf(i).exp();
            let pass: f64 = (0..=block_bits)
                .map(|x| dist[x] * (x as f64 / b).powi(k as i32))
                .sum();
            total += w * pass;
            for _ in 0..k {
                let mut next = vec![0.0f64; block_bits + 1];
                for x in 0..=block_bits {
                    next[x] += dist[x] * x as f64 / b;
                    if x < block_bits {
                        next[x + 1] += dist[x] * (b - x as f64) / b;
                    }
                }
                dist = next;
            }
        }
        total
    }

    #[test]
    fn the_saturation_cut_off_errs_by_less_than_an_ulp() {
        // 64-bit blocks are full to within 2^−53 after about 2,600 throws:
        // with k = 7, loads from 376 items on are added at 1. Two blocks and
        // 700 to 1,000 items put the mean load on both sides of the cut-off.
        for n in [700u64, 760, 800, 1_000] {
            let cut = fpr_exact(64, 2, n, 7);
            let full = fpr_exact_uncut(64, 2, n, 7);
            // The cut-off errs by under 2^−53; rounding in a sum of several
            // hundred weights, in either form, by up to about 10^−13.
            assert!((cut - full).abs() <= 1e-12, "{n}: {cut} vs {full}");
        }
        // Far below the cut-off nothing changes at all.
        assert_eq!(fpr_exact(64, 20, 200, 3), fpr_exact_uncut(64, 20, 200, 3));
        // The rate approaches 1 from below, monotonically.
        let mut last = 0.0;
        for per_block in [1_000u64, 2_000, 3_000, 4_000, 8_000] {
            let r = fpr_exact(512, 1, per_block, 7);
            assert!(r >= last && r <= 1.0, "{per_block}: {r}");
            last = r;
        }
        assert_eq!(last, 1.0);
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
        assert!(fpr_exact(MAX_EXACT_BLOCK_BITS + 1, 1, 1, 1).is_nan());
        assert!(fpr_poisson(f64::from(MAX_BLOCK_BITS) * 2.0, 10.0, 7.0).is_nan());
        assert!(fpr_poisson(512.0, 10.0, f64::INFINITY).is_nan());
        assert!(fpr_poisson(512.0, f64::NAN, 7.0).is_nan());
        assert!(matches!(
            size_for(u32::MAX, 10, 0.01),
            Err(ParamError::BlockTooLarge { .. })
        ));
        assert!(matches!(
            bits_per_item(u32::MAX, 0.01),
            Err(ParamError::BlockTooLarge { .. })
        ));
    }
}
