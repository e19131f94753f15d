//! Where a cuckoo filter becomes smaller than a classic Bloom filter.
//!
//! Fan et al. (CoNEXT 2014, §5) report cuckoo filters smaller than
//! space-optimal Bloom filters below a rate of about 3%, with their
//! semi-sorted buckets, which save a bit per item and which bloomlab does not
//! implement. Their formula without semi-sorting, `(log2(1/ε) + 3)/α` bits
//! per item with 4-slot buckets against `1.44·log2(1/ε)`, puts the crossover
//! near ε = 0.4% at α = 95.5%. That is the ideal, with fractional
//! fingerprints and a table exactly at its load. A real table is coarser: its
//! fingerprint has whole bits, `f = ⌈log2(2b/ε)⌉`, so its size is constant on
//! each octave of rates `[2^−j, 2^−j+1)` and jumps by one bit per item at the
//! octave's lower edge, while the Bloom filter's falls smoothly with ε; and
//! its bucket count is a power of two, so its load, hence its bits per item,
//! depends on the number of items. The rates at which it wins therefore form
//! a set of intervals, computed here for one number of items.
//!
//! Within an octave the cuckoo size `C` is fixed and the classic size
//! `B(ε)` is non-increasing, so the cuckoo filter is smaller exactly on
//! `[2^−j, x)` where `x` is where `B` falls to `C`, found by bisection. No
//! rate is typed in: every size comes from
//! [`candidates::size`].

use serde::Serialize;

use super::candidates::{self, BUCKET_SIZES, Kind};
use super::workload::Workload;

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
    /// The lowest rate bloomlab-cuckoo builds (16-bit fingerprints): below
    /// it only the Bloom filters exist.
    pub cuckoo_floor: f64,
}

/// Bytes of the smallest cuckoo filter that bloomlab-cuckoo builds for
/// `items` at `eps`, over its bucket sizes.
fn cuckoo_bytes(items: u64, eps: f64) -> Option<u64> {
    let w = Workload::fixed(items, eps);
    BUCKET_SIZES
        .iter()
        .filter_map(|&b| candidates::size(Kind::Cuckoo(b), &w).ok())
        .filter(|s| s.unbuildable.is_empty())
        .map(|s| s.figures.memory_bytes)
        .min()
}

/// Bytes of the classic filter for `items` at `eps`.
fn bloom_bytes(items: u64, eps: f64) -> Option<u64> {
    candidates::size(Kind::Classic, &Workload::fixed(items, eps))
        .ok()
        .map(|s| s.figures.memory_bytes)
}

/// The crossover for `items`; `None` if no cuckoo filter can be built for
/// that many items at any rate.
pub fn crossover(items: u64) -> Option<Crossover> {
    let mut intervals: Vec<[f64; 2]> = Vec::new();
    let mut floor = None;
    // Octave j holds the rates [2^-j, 2^-(j-1)); j = 1 is [0.5, 1).
    for j in 1..=60 {
        let low = 0.5f64.powi(j);
        let high = 2.0 * low;
        let Some(c) = cuckoo_bytes(items, low) else {
            break; // a lower rate only needs wider fingerprints
        };
        floor = Some(low);
        let wins = |eps: f64| bloom_bytes(items, eps).is_some_and(|b| b > c);
        if !wins(low) {
            continue;
        }
        // Bisect t in [0, 1) with eps = low·2^t: wins at t_lo, not at t_hi.
        let at = |t: f64| low * 2f64.powf(t);
        let top = 1.0 - 1e-9;
        let end = if wins(at(top)) {
            high
        } else {
            let (mut t_lo, mut t_hi) = (0.0f64, top);
            for _ in 0..40 {
                let mid = 0.5 * (t_lo + t_hi);
                if wins(at(mid)) {
                    t_lo = mid;
                } else {
                    t_hi = mid;
                }
            }
            at(t_hi)
        };
        match intervals.iter_mut().find(|i| i[0] == high) {
            // The octave above already starts where this one ends: merge.
            Some(above) if end == high => above[0] = low,
            _ => intervals.push([low, end]),
        }
    }
    let floor = floor?;
    intervals.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let bloom_smaller_above = intervals.last().map_or(floor, |last| last[1]);
    Some(Crossover {
        items,
        cuckoo_smaller: intervals,
        bloom_smaller_above,
        cuckoo_floor: floor,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choose::decide::{evaluate, recommend};
    use bloomlab::theory::{classic, cuckoo};

    /// What `choose` recommends for a fixed set with no other requirement.
    fn pick(items: u64, eps: f64) -> String {
        let w = Workload::fixed(items, eps);
        recommend(&w, &evaluate(&w)).id.expect("something fits")
    }

    /// 3,900,000 items fill a table of 2^20 four-slot buckets to 93%, near
    /// the load the paper's space figures assume.
    const ITEMS: u64 = 3_900_000;

    #[test]
    fn cuckoo_wins_below_the_crossover_and_bloom_above() {
        let x = crossover(ITEMS).expect("a cuckoo filter can be built");
        assert!(!x.cuckoo_smaller.is_empty());
        // Sorted, disjoint, within [floor, 1).
        for pair in x.cuckoo_smaller.windows(2) {
            assert!(pair[0][1] < pair[1][0], "{pair:?}");
        }
        assert!(
            x.cuckoo_smaller
                .iter()
                .all(|[lo, hi]| lo < hi && *lo >= x.cuckoo_floor)
        );
        assert_eq!(x.bloom_smaller_above, x.cuckoo_smaller.last().unwrap()[1]);

        // Inside every interval the decision logic picks a cuckoo filter …
        for [lo, hi] in &x.cuckoo_smaller {
            let mid = (lo * hi).sqrt();
            let id = pick(ITEMS, mid);
            assert!(id.starts_with("cuckoo-"), "{mid}: {id}");
        }
        // … and in every gap, and above the crossover, a classic or blocked one.
        let mut outside: Vec<f64> = x
            .cuckoo_smaller
            .windows(2)
            .map(|pair| (pair[0][1] * pair[1][0]).sqrt())
            .collect();
        outside.extend([1.5 * x.bloom_smaller_above, 0.01, 0.1]);
        for eps in outside {
            let id = pick(ITEMS, eps);
            assert!(id == "classic" || id == "blocked", "{eps}: {id}");
        }
    }

    #[test]
    fn crossover_lies_where_the_papers_bits_per_item_put_it() {
        let x = crossover(ITEMS).unwrap();
        // The load of the 4-slot table (the b = 8 one has the same, b = 2 less).
        let plan = candidates::cuckoo_plan(ITEMS, 0.01, 4).unwrap();
        let load = ITEMS as f64 / (plan.buckets * 4) as f64;
        assert!((load - 0.93).abs() < 0.005, "{load}");
        // The fingerprint takes between log2(1/ε) + 3 and + 4 bits; a Bloom
        // filter at least log2(1/ε)/ln 2. Solve L/ln 2 = (L + extra)/α.
        let crossing = |extra: f64| {
            let l = extra / (load / std::f64::consts::LN_2 - 1.0);
            0.5f64.powf(l)
        };
        let (sure, ideal) = (crossing(4.0), crossing(3.0));
        assert!(
            (classic::bits_per_item(sure) - (-sure.log2() + 4.0) / load).abs() < 1e-9,
            "the solution solves the equation"
        );
        // Below `sure` a cuckoo filter is smaller wherever one can be built
        // with 4 slots (16-bit fingerprints reach 8/2^16).
        let floor4 = (1..30)
            .map(|j| 0.5f64.powi(j))
            .take_while(|&eps| cuckoo::fingerprint_bits(eps, 4).unwrap() <= 16)
            .last()
            .unwrap();
        assert!(
            x.cuckoo_smaller
                .iter()
                .any(|[lo, hi]| *lo <= floor4 && *hi >= sure),
            "{x:?} {floor4} {sure}"
        );
        // Whole-bit fingerprints only move the crossover below the paper's
        // ideal one; the classic filter's whole words and whole k, which move
        // it up, cost it under 1% here.
        let (m, _) = classic::size_for(ITEMS, ideal).unwrap();
        let overhead = m as f64 / (ITEMS as f64 * classic::bits_per_item(ideal)) - 1.0;
        assert!(overhead < 0.01, "{overhead}");
        assert!(
            x.bloom_smaller_above <= ideal,
            "{} vs {ideal}",
            x.bloom_smaller_above
        );
        assert!(x.bloom_smaller_above >= sure);
    }

    #[test]
    fn a_half_empty_table_never_wins() {
        // 10,000 items: every bucket size rounds up to a table about 61% full.
        let x = crossover(10_000).unwrap();
        assert!(x.cuckoo_smaller.is_empty(), "{x:?}");
        assert_eq!(x.bloom_smaller_above, x.cuckoo_floor);
        // 16-bit fingerprints with 2 slots reach 4/2^16.
        assert_eq!(x.cuckoo_floor, 0.5f64.powi(14));
    }
}
