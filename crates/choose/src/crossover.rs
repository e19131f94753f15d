//! Where a cuckoo filter becomes smaller than a classic Bloom filter.
//!
//! Fan et al. (CoNEXT 2014, §5) report cuckoo filters with semi-sorted
//! buckets smaller than space-optimal Bloom filters below a rate of about 3%:
//! `(log2(1/ε) + 2)/α` bits per item against `log2(1/ε)/ln 2`, with
//! fractional fingerprints. A real table is coarser: its fingerprint has
//! whole bits (the narrowest whose rate at the design load is at most ε), so
//! its size is a step function of ε, while the Bloom filter's falls smoothly
//! as ε grows. The rates at which the cuckoo filter wins therefore form a set
//! of intervals, computed here for one number of items.
//!
//! The rates from 1/2 down to the lowest bloomlab-cuckoo builds (32-bit
//! fingerprints) are scanned at [`PER_DECADE`] points a decade; where the
//! winner changes between two neighbours, bisection finds the rate where it
//! does. A fingerprint step is a factor of two in ε, far wider than the
//! scan's step, so no band is missed. No rate is typed in: every size comes
//! from the filters' own plans (`bloomlab::cuckoo::descriptor::Buckets::plan`,
//! `bloomlab::classic::descriptor::plan_bits`).

use serde::Serialize;

use bloomlab::classic::descriptor::plan_bits;
use bloomlab::cuckoo::descriptor::Buckets;

use bloomlab::cuckoo::BUCKET_SIZES;
use bloomlab::theory::classic;

/// Scan points per decade of rates.
pub const PER_DECADE: u32 = 200;

/// The rates at which the smallest buildable cuckoo filter takes fewer bytes
/// than a classic `BloomFilter` holding the same number of items.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Crossover {
    /// The number of items compared at.
    pub items: u64,
    /// Rate intervals `[low, high)` where the cuckoo filter is smaller,
    /// in increasing order, adjacent ones merged.
    pub cuckoo_smaller: Vec<[f64; 2]>,
    /// The crossover: the Bloom filter is smaller at every rate from this
    /// one up (the end of the last interval, or the floor if there is none).
    pub bloom_smaller_above: f64,
    /// The lowest rate of the scan at which bloomlab-cuckoo builds a table
    /// (32-bit fingerprints at most): below it only the Bloom filters exist.
    pub cuckoo_floor: f64,
    /// The intervals read as a few: neighbours joined across the gaps
    /// where the Bloom filter is smaller by no more than its own sizing
    /// slack ([`classic::SLACK_PARTS`]), which are near-ties.
    pub spans: Vec<Span>,
}

/// A run of rates where the cuckoo filter is smaller, but for near-ties.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Span {
    /// The lowest rate of the run.
    pub low: f64,
    /// The end of the run (excluded).
    pub high: f64,
    /// Gaps inside the run where the Bloom filter is smaller.
    pub exceptions: usize,
    /// The most the Bloom filter saves in those gaps, as a fraction of the
    /// cuckoo filter's bytes (0 without exceptions), at the rates sampled.
    pub bloom_saves_at_most: f64,
}

/// Rates sampled in a gap to weigh it, spread evenly in log space from its
/// start, where the Bloom filter is smaller or as small.
const GAP_SAMPLES: u32 = 16;

/// The most the Bloom filter saves against the cuckoo filter in the gap
/// `[low, high)`, as a fraction of the cuckoo filter's bytes.
fn bloom_saving(items: u64, low: f64, high: f64) -> f64 {
    let (lo, hi) = (low.ln(), high.ln());
    (0..GAP_SAMPLES)
        .map(|i| (lo + (hi - lo) * f64::from(i) / f64::from(GAP_SAMPLES)).exp())
        .filter_map(|eps| Some((cuckoo_bytes(items, eps)?, bloom_bytes(items, eps)?)))
        .map(|(c, b)| (c as f64 - b as f64) / c as f64)
        .fold(0.0, f64::max)
}

/// `intervals` joined across near-ties: a gap where the Bloom filter saves
/// at most `1/SLACK_PARTS` of the bytes, the slack `BloomFilter::new`
/// itself accepts to need fewer hashes, does not split a run.
fn spans(items: u64, intervals: &[[f64; 2]]) -> Vec<Span> {
    let tie = 1.0 / classic::SLACK_PARTS as f64;
    let mut out: Vec<Span> = Vec::new();
    for &[low, high] in intervals {
        if let Some(last) = out.last_mut() {
            let saving = bloom_saving(items, last.high, low);
            if saving <= tie {
                last.high = high;
                last.exceptions += 1;
                last.bloom_saves_at_most = last.bloom_saves_at_most.max(saving);
                continue;
            }
        }
        out.push(Span {
            low,
            high,
            exceptions: 0,
            bloom_saves_at_most: 0.0,
        });
    }
    out
}

/// Bytes of the smallest cuckoo filter that bloomlab-cuckoo builds for
/// `items` at `eps`, over its bucket sizes.
fn cuckoo_bytes(items: u64, eps: f64) -> Option<u64> {
    BUCKET_SIZES
        .iter()
        .filter_map(|&b| Buckets::plan(items, eps, b, false).ok())
        .filter(|plan| plan.table.unbuildable().is_empty())
        .filter_map(|plan| u64::try_from(plan.memory_bytes).ok())
        .min()
}

/// Bytes of the classic filter for `items` at `eps`.
fn bloom_bytes(items: u64, eps: f64) -> Option<u64> {
    let plan = plan_bits(items, eps).ok()?;
    u64::try_from(plan.memory_bytes).ok()
}

/// Whether a cuckoo filter for `items` at `eps` is smaller than the Bloom filter.
fn cuckoo_wins(items: u64, eps: f64) -> bool {
    match (cuckoo_bytes(items, eps), bloom_bytes(items, eps)) {
        (Some(c), Some(b)) => c < b,
        _ => false,
    }
}

/// The scan's `i`-th rate: 1/2 at `i = 0`, a decade lower every [`PER_DECADE`].
fn scan_rate(i: u32) -> f64 {
    0.5 * 10f64.powf(-f64::from(i) / f64::from(PER_DECADE))
}

/// The crossover for `items`; `None` if no cuckoo filter can be built for
/// that many items at any rate.
pub fn crossover(items: u64) -> Option<Crossover> {
    // From high rates to low, the edges where the winner changes.
    let mut edges = Vec::new();
    let mut floor = None;
    let mut above: Option<(f64, bool)> = None;
    // 1/2 down to 10^-15: past any rate 32-bit fingerprints reach.
    for i in 0..=15 * PER_DECADE {
        let eps = scan_rate(i);
        if cuckoo_bytes(items, eps).is_none() {
            if floor.is_some() {
                break; // a lower rate only needs wider fingerprints
            }
            continue;
        }
        floor = Some(eps);
        let wins = cuckoo_wins(items, eps);
        if let Some((high, won)) = above
            && won != wins
        {
            edges.push(edge(items, eps, high, wins));
        }
        above = Some((eps, wins));
    }
    let floor = floor?;
    // Pair the edges into intervals, from the floor up.
    let mut intervals = Vec::new();
    let mut low = cuckoo_wins(items, floor).then_some(floor);
    for &e in edges.iter().rev() {
        match low.take() {
            Some(l) => intervals.push([l, e]),
            None => low = Some(e),
        }
    }
    if let Some(l) = low {
        intervals.push([l, 1.0]);
    }
    let bloom_smaller_above = intervals.last().map_or(floor, |last| last[1]);
    Some(Crossover {
        items,
        spans: spans(items, &intervals),
        cuckoo_smaller: intervals,
        bloom_smaller_above,
        cuckoo_floor: floor,
    })
}

/// The rate between `low` and `high` where the winner changes: the cuckoo
/// filter wins at `low` exactly when `wins_low`. Bisected in log space.
fn edge(items: u64, low: f64, high: f64, wins_low: bool) -> f64 {
    let (mut lo, mut hi) = (low.ln(), high.ln());
    for _ in 0..50 {
        let mid = 0.5 * (lo + hi);
        if cuckoo_wins(items, mid.exp()) == wins_low {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi.exp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Workload;
    use crate::decide::{evaluate, recommend};
    use bloomlab::catalog::Catalog;
    use bloomlab::theory::{classic, cuckoo};

    /// What `choose` recommends for a fixed set with no other requirement.
    fn pick(items: u64, eps: f64) -> String {
        let w = Workload::fixed(items, eps);
        recommend(&w, &evaluate(&Catalog::standard(), &w))
            .id
            .expect("something fits")
    }

    /// A large set: the table is sized at the design load, with no rounding
    /// that matters.
    const ITEMS: u64 = 3_900_000;

    #[test]
    fn cuckoo_wins_inside_the_intervals_and_bloom_outside() {
        let x = crossover(ITEMS).expect("a cuckoo filter can be built");
        assert!(!x.cuckoo_smaller.is_empty());
        // Sorted, disjoint, within [floor, 1).
        for pair in x.cuckoo_smaller.windows(2) {
            assert!(pair[0][1] < pair[1][0], "{pair:?}");
        }
        assert!(
            x.cuckoo_smaller
                .iter()
                .all(|[lo, hi]| lo < hi && *lo >= x.cuckoo_floor && *hi < 1.0)
        );
        assert_eq!(x.bloom_smaller_above, x.cuckoo_smaller.last().unwrap()[1]);

        // Inside every interval the decision logic picks a cuckoo filter
        // (or the quotient filter, which the crossover does not weigh,
        // where it is smaller than both) …
        for [lo, hi] in &x.cuckoo_smaller {
            let mid = (lo * hi).sqrt();
            let id = pick(ITEMS, mid);
            assert!(id.starts_with("cuckoo-") || id == "quotient", "{mid}: {id}");
        }
        // … and in every gap, and above the crossover, a classic or blocked one.
        let mut outside: Vec<f64> = x
            .cuckoo_smaller
            .windows(2)
            .map(|pair| (pair[0][1] * pair[1][0]).sqrt())
            .collect();
        outside.extend([1.5 * x.bloom_smaller_above, 0.1]);
        for eps in outside {
            let id = pick(ITEMS, eps);
            assert!(
                id == "classic" || id == "blocked" || id == "quotient",
                "{eps}: {id}"
            );
        }
    }

    #[test]
    fn the_intervals_agree_with_a_direct_comparison() {
        let x = crossover(ITEMS).unwrap();
        let inside = |eps: f64| {
            x.cuckoo_smaller
                .iter()
                .any(|[lo, hi]| *lo <= eps && eps < *hi)
        };
        // 1,000 rates that are not scan points, down to the floor.
        let decades = (0.5 / x.cuckoo_floor).log10();
        for i in 0..1_000 {
            let eps = 0.5 * 10f64.powf(-decades * (f64::from(i) + 0.37) / 1_000.0);
            let near_edge = x
                .cuckoo_smaller
                .iter()
                .flatten()
                .any(|e| (eps / e - 1.0).abs() < 1e-6);
            if !near_edge {
                assert_eq!(inside(eps), cuckoo_wins(ITEMS, eps), "{eps}");
            }
        }
    }

    #[test]
    fn crossover_lies_where_the_papers_bits_per_item_put_it() {
        let x = crossover(ITEMS).unwrap();
        let load = cuckoo::design_load(4).unwrap();
        // A 4-slot table's fingerprint takes at most log2(1/ε) + 4 bits
        // (2^f ≥ 8α/ε + 1 suffices), so f/α is at most (L + 4)/α for
        // L = log2(1/ε); the paper's ideal is (L + 3)/α; a Bloom filter takes
        // at least L/ln 2, and `BloomFilter::new` up to 1/32 more to need
        // fewer hashes. Solve c·L/ln 2 = (L + extra)/α.
        let crossing = |extra: f64, c: f64| {
            let l = extra / (c * load / std::f64::consts::LN_2 - 1.0);
            0.5f64.powf(l)
        };
        let (sure, ideal) = (crossing(4.0, 1.0), crossing(3.0, 1.0));
        assert!(
            (classic::bits_per_item(sure) - (-sure.log2() + 4.0) / load).abs() < 1e-9,
            "the solution solves the equation"
        );
        // Below `sure` (with a margin for the table's rounding) a cuckoo
        // filter is smaller at every rate the crate builds …
        let lowest = x.cuckoo_smaller[0];
        assert!(lowest[0] <= x.cuckoo_floor * 1.000_001, "{x:?}");
        assert!(lowest[1] >= sure / 1.05, "{x:?} {sure}");
        // … and never above the paper's ideal against a Bloom filter 1/32
        // larger, which whole-bit fingerprints only lower; the classic
        // filter's whole words, which could raise it, cost it under 1% here.
        let slack = 1.0 + 1.0 / classic::SLACK_PARTS as f64;
        let (m, _) = classic::smallest_size_for(ITEMS, ideal).unwrap();
        let overhead = m as f64 / (ITEMS as f64 * classic::bits_per_item(ideal)) - 1.0;
        assert!(overhead < 0.01, "{overhead}");
        let ideal = crossing(3.0, slack);
        assert!(
            x.bloom_smaller_above <= ideal,
            "{} vs {ideal}",
            x.bloom_smaller_above
        );
    }

    #[test]
    fn spans_join_the_intervals_across_near_ties_only() {
        let tie = 1.0 / classic::SLACK_PARTS as f64;
        for items in [1_000, ITEMS] {
            let x = crossover(items).unwrap();
            let (first, last) = (x.cuckoo_smaller[0], x.cuckoo_smaller.last().unwrap());
            assert_eq!(x.spans[0].low, first[0]);
            assert_eq!(x.spans.last().unwrap().high, last[1]);
            let joined: usize = x.spans.iter().map(|s| s.exceptions).sum();
            assert_eq!(x.spans.len() + joined, x.cuckoo_smaller.len());
            // Each gap is inside a span exactly when the Bloom filter saves
            // at most the tie there; a span's figure is its worst gap's.
            let mut worst = vec![0.0f64; x.spans.len()];
            for pair in x.cuckoo_smaller.windows(2) {
                let saving = bloom_saving(items, pair[0][1], pair[1][0]);
                assert!(!cuckoo_wins(items, pair[0][1]), "{pair:?}");
                let within = x
                    .spans
                    .iter()
                    .position(|s| s.low <= pair[0][1] && pair[1][0] < s.high);
                match within {
                    Some(i) => {
                        assert!(saving <= tie, "{saving}");
                        worst[i] = worst[i].max(saving);
                    }
                    None => assert!(saving > tie, "{saving}"),
                }
            }
            let stated: Vec<f64> = x.spans.iter().map(|s| s.bloom_saves_at_most).collect();
            assert_eq!(stated, worst);
        }
    }

    #[test]
    fn the_floor_is_where_32_bit_fingerprints_end() {
        let x = crossover(ITEMS).unwrap();
        // The next scan rate down needs more than 32 bits with every bucket size.
        let i = ((0.5 / x.cuckoo_floor).log10() * f64::from(PER_DECADE)).round() as u32;
        assert_eq!(scan_rate(i), x.cuckoo_floor);
        assert!(cuckoo_bytes(ITEMS, scan_rate(i)).is_some());
        assert!(cuckoo_bytes(ITEMS, scan_rate(i + 1)).is_none());
        // 2-slot buckets at their design load reach about 4α/2^32.
        assert!(
            (1e-10..1e-8).contains(&x.cuckoo_floor),
            "{}",
            x.cuckoo_floor
        );
    }
}
