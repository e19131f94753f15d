//! Experiment `space`: the false-positive rate each variant achieves against
//! the bits per item it takes, from 10^-1 to 10^-6, beside what its
//! constructor and theory give and the lower bound log2(1/ε); and the rates
//! at which a cuckoo filter (plain or semi-sorted) is smaller than a Bloom
//! filter holding the same items.

use std::fmt::Write as _;

use bloomlab::prelude::*;
use bloomlab::theory;
use bloomlab_core::InsertError;
use bloomlab_lab::keys::{members, probes};
use bloomlab_lab::stats::clopper_pearson;

use bloomlab::catalog::{Shape, Variant};

use super::subject;
use super::{Ctx, Error, Output, sub_seed};
use crate::plot::{self, Chart, Curve};
use crate::progress;
use crate::report::Section;
use crate::table::{AGAINST_THEORY, AGAINST_THEORY_VIEW, Table, against_theory, fixed, rate};

/// Target rates, one point per variant each.
pub const TARGETS: [f64; 11] = [
    1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6,
];

/// The variants drawn: one entry per table layout (the atomic filter has
/// the classic filter's, so it is left out).
pub fn kinds() -> Vec<Variant<u64>> {
    let mut layouts = Vec::new();
    let mut kinds = subject::all();
    kinds.retain(|v| {
        let layout = (v.plan)(1_000, 0.01).map(|p| p.shape).ok();
        let new = !layouts.contains(&layout);
        layouts.push(layout);
        new
    });
    kinds
}

/// Target rates of the crossover scan: this many per decade, 10^-1 to 10^-6.
const SCAN_PER_DECADE: u32 = 400;

/// One measured point.
#[derive(Debug, Clone)]
struct Point {
    kind: &'static str,
    shape: Shape,
    target: f64,
    items: usize,
    hits: u64,
    bits: f64,
    /// The theory rate at the filter's parameters and the load it reached.
    theory: f64,
}

/// Runs the experiment: `space.csv`, `space.svg`, `space_crossover.csv`
/// and `space_crossover.svg`.
pub fn run(ctx: &Ctx) -> Result<Output, Error> {
    let capacity = ctx.scale.capacity();
    let n_probes = ctx.scale.probes();
    let kinds = kinds();
    let bar = progress::bar((kinds.len() * TARGETS.len()) as u64, "space");
    let mut points = Vec::new();
    let mut skipped = Vec::new();
    for kind in &kinds {
        for &target in &TARGETS {
            bar.inc(1);
            let part = format!("space/{}/{target}", kind.id);
            let mut s = match subject::build(kind, capacity, target, sub_seed(ctx.seed, &part)) {
                Ok(s) => s,
                // A rate a variant cannot be built for is a finding, not a failure.
                Err(e) => {
                    skipped.push(e.to_string());
                    continue;
                }
            };
            // Every filter is filled to the capacity it was built for: for
            // the cuckoo filter that is its design load, which it must hold.
            let keys = members(sub_seed(ctx.seed, &format!("{part}/members")), capacity);
            for k in &keys {
                match s.filter.insert(k) {
                    Ok(_) => {}
                    Err(InsertError::Full) => {
                        return Err(Error::Invariant(format!(
                            "{part}: full before the {capacity} items it was built for"
                        )));
                    }
                    Err(e) => return Err(Error::filter(part)(e)),
                }
            }
            let f = &s.filter;
            let hits = probes(sub_seed(ctx.seed, &format!("{part}/probes")), n_probes)
                .filter(|q| f.contains(q))
                .count() as u64;
            points.push(Point {
                kind: kind.id,
                shape: s.shape.clone(),
                target,
                items: f.len(),
                hits,
                bits: f.bits_per_item().unwrap_or(f64::NAN),
                theory: s.theory(f.len() as u64),
            });
        }
    }
    bar.finish_and_clear();

    let head = ["variant", "target_fpr", "items", "probes"];
    let tail = ["bits_per_item", "theory_bits_per_item", "lower_bound_bits"];
    let mut table = Table::new(&[&head[..], &AGAINST_THEORY, &tail].concat());
    for p in &points {
        let head = vec![
            p.kind.into(),
            p.target.to_string(),
            p.items.to_string(),
            n_probes.to_string(),
        ];
        let tail = vec![
            fixed(p.bits),
            fixed(theory_bits(&p.shape, p.target)),
            fixed(theory::lower_bound_bits_per_item(p.target)),
        ];
        let rate = against_theory(p.hits, n_probes as u64, p.theory);
        table.push([head, rate.into(), tail].concat());
    }
    let chart = space_chart(&points, capacity, n_probes)?;
    let scan = Scan::run(capacity)?;
    let section = Section {
        title: "Space against rate".into(),
        body: body(&table, &skipped, &scan, n_probes),
    };
    Ok(Output::new(section)
        .table("space.csv", table)
        .table("space_crossover.csv", scan.table())
        .chart("space.svg", plot::draw("space.svg", &chart)?)
        .chart(
            "space_crossover.svg",
            plot::draw("space_crossover.svg", &scan.chart())?,
        ))
}

/// Bits per item theory gives for a table of `shape`'s kind built for rate `eps`.
pub fn theory_bits(shape: &Shape, eps: f64) -> f64 {
    match *shape {
        Shape::Bits { .. } => theory::classic::bits_per_item(eps),
        Shape::Blocks { block_bits, .. } => {
            theory::blocked::bits_per_item(block_bits, eps).map_or(f64::NAN, |(c, _)| c)
        }
        Shape::Counters { width, .. } => theory::counting::bits_per_item(eps, width),
        // After growing from 1,000 to 10,000 items (the subject's tenfold growth).
        Shape::Layers {
            growth, tightening, ..
        } => theory::scalable::bits_after(1_000, growth, eps, tightening, 10_000)
            .map_or(f64::NAN, |b| b as f64 / 1e4),
        Shape::Buckets { semi_sorted, .. } => cuckoo_theory_bits(eps, semi_sorted),
    }
}

/// The cuckoo filter's bits per item at rate `eps` with 4-slot buckets at
/// their design load α: `f/α` plain, `(f − 1)/α` semi-sorted, `f` the
/// narrowest fingerprint whose rate at α is at most `eps`.
fn cuckoo_theory_bits(eps: f64, semi_sorted: bool) -> f64 {
    let Some(load) = theory::cuckoo::design_load(4) else {
        return f64::NAN;
    };
    match theory::cuckoo::fingerprint_bits_at_load(eps, 4, load) {
        Ok(f) if semi_sorted => theory::cuckoo::bits_per_item_semi_sorted(f, load),
        Ok(f) => theory::cuckoo::bits_per_item(f, load),
        Err(_) => f64::NAN,
    }
}

/// Rate (y, log) against bits per item (x, log): the measured points with
/// their intervals, each variant's line through what its constructor
/// builds for a grid of target rates (its table at `items` items, and the
/// rate theory gives that table), and the lower bound `2^−bits`.
fn space_chart(points: &[Point], items: usize, n_probes: usize) -> Result<Chart, Error> {
    let mut chart = Chart {
        title: format!("False-positive rate against space, {items} items"),
        x_label: "bits per item (log scale)".into(),
        y_label: "false-positive rate (fraction of probes; log scale)".into(),
        x_log: true,
        y_log: true,
        y_floor: 0.3 / n_probes as f64,
        ..Chart::default()
    };
    let grid: Vec<f64> = (0..=50)
        .map(|i| 10f64.powf(-1.0 - 5.0 * f64::from(i) / 50.0))
        .collect();
    for kind in &kinds() {
        let mut line = Vec::new();
        for &eps in &grid {
            // Built, not filled: the table is allocated lazily and never touched.
            let Ok(s) = subject::build(kind, items, eps, 0) else {
                continue;
            };
            let bits = match s.shape {
                // Its layers after growing tenfold, as theory sizes them.
                Shape::Layers { .. } => theory_bits(&s.shape, eps),
                _ => s.filter.memory_bytes() as f64 * 8.0 / items as f64,
            };
            line.push((bits, s.theory(items as u64)));
        }
        line.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart.curves.push(Curve {
            label: kind.label(),
            theory: line,
            points: points
                .iter()
                .filter(|p| p.kind == kind.id)
                .map(|p| {
                    let (lo, hi) = clopper_pearson(p.hits, n_probes as u64, 0.95);
                    (p.bits, lo, p.hits as f64 / n_probes as f64, hi)
                })
                .collect(),
        });
    }
    chart.curves.push(Curve {
        label: "lower bound: rate 2^−bits".into(),
        theory: (0..=60)
            .map(|i| {
                let bits = 3.0 + f64::from(i) * 1.5;
                (bits, (-bits).exp2())
            })
            .collect(),
        points: Vec::new(),
    });
    Ok(chart)
}

/// Bits per item of the filters each constructor builds for a scan of
/// target rates at a fixed item count: the classic filter and the cuckoo
/// filter in both layouts, beside theory for each.
struct Scan {
    items: usize,
    rows: Vec<ScanRow>,
}

/// Bits per item of the tables the constructors allocate for one target rate.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ScanRow {
    target: f64,
    classic: f64,
    cuckoo: f64,
    cuckoo_semi: f64,
}

impl Scan {
    /// Builds each filter for every target rate (tables allocated lazily,
    /// never filled: their size is fixed when built).
    fn run(items: usize) -> Result<Self, Error> {
        let per_item = |bytes: usize| bytes as f64 * 8.0 / items as f64;
        let mut rows = Vec::new();
        for i in 0..=5 * SCAN_PER_DECADE {
            let eps = 10f64.powf(-1.0 - f64::from(i) / f64::from(SCAN_PER_DECADE));
            let classic = BloomFilter::<u64>::builder(items, eps)
                .seed(0)
                .build()
                .map_err(Error::filter(format!("BloomFilter at {eps:e}")))?;
            let cuckoo = |semi: bool| {
                CuckooFilter::<u64>::builder(items, eps)
                    .semi_sorted(semi)
                    .seed(0)
                    .build()
                    .map(|f| per_item(f.memory_bytes()))
                    .map_err(Error::filter(format!("CuckooFilter at {eps:e}")))
            };
            rows.push(ScanRow {
                target: eps,
                classic: per_item(classic.memory_bytes()),
                cuckoo: cuckoo(false)?,
                cuckoo_semi: cuckoo(true)?,
            });
        }
        Ok(Self { items, rows })
    }

    /// The target rates, as intervals `[low, high]` of the scan, at which
    /// `smaller` holds, from high rates to low.
    fn intervals(&self, smaller: impl Fn(&ScanRow) -> bool) -> Vec<(f64, f64)> {
        let mut out: Vec<(f64, f64)> = Vec::new();
        let mut open: Option<f64> = None;
        let mut last = f64::NAN;
        for row in &self.rows {
            match (smaller(row), open) {
                (true, None) => open = Some(row.target),
                (false, Some(high)) => {
                    out.push((last, high));
                    open = None;
                }
                _ => {}
            }
            last = row.target;
        }
        if let Some(high) = open {
            out.push((last, high));
        }
        out
    }

    /// Where each cuckoo layout is smaller than the classic filter, built
    /// (`measured`) and in theory.
    fn crossovers(&self) -> [(&'static str, Vec<(f64, f64)>); 4] {
        let theory_classic = |eps: f64| theory::classic::bits_per_item(eps);
        [
            ("plain, built", self.intervals(|r| r.cuckoo < r.classic)),
            (
                "semi-sorted, built",
                self.intervals(|r| r.cuckoo_semi < r.classic),
            ),
            (
                "plain, theory",
                self.intervals(|r| cuckoo_theory_bits(r.target, false) < theory_classic(r.target)),
            ),
            (
                "semi-sorted, theory",
                self.intervals(|r| cuckoo_theory_bits(r.target, true) < theory_classic(r.target)),
            ),
        ]
    }

    /// The largest relative gap between a built cuckoo table's bits per
    /// item and its theory, f/α or (f − 1)/α, over the scan.
    fn cuckoo_gap(&self) -> f64 {
        self.rows
            .iter()
            .flat_map(|r| {
                [
                    r.cuckoo / cuckoo_theory_bits(r.target, false),
                    r.cuckoo_semi / cuckoo_theory_bits(r.target, true),
                ]
            })
            .map(|ratio| (ratio - 1.0).abs())
            .fold(0.0, f64::max)
    }

    fn table(&self) -> Table {
        let mut t = Table::new(&[
            "target_fpr",
            "items",
            "classic_bits_per_item",
            "cuckoo_bits_per_item",
            "cuckoo_ss_bits_per_item",
            "classic_theory_bits",
            "cuckoo_theory_bits",
            "cuckoo_ss_theory_bits",
        ]);
        for r in &self.rows {
            t.push(vec![
                rate(r.target),
                self.items.to_string(),
                fixed(r.classic),
                fixed(r.cuckoo),
                fixed(r.cuckoo_semi),
                fixed(theory::classic::bits_per_item(r.target)),
                fixed(cuckoo_theory_bits(r.target, false)),
                fixed(cuckoo_theory_bits(r.target, true)),
            ]);
        }
        t
    }

    /// Bits per item against the target rate: what the constructors build
    /// (steps: whole fingerprint bits, whole hash counts) and the theory
    /// curves.
    fn chart(&self) -> Chart {
        let series = |label: &str, f: &dyn Fn(&ScanRow) -> f64| Curve {
            label: label.into(),
            theory: self.rows.iter().map(|r| (r.target, f(r))).collect(),
            points: Vec::new(),
        };
        Chart {
            title: format!(
                "Space of a Bloom and a cuckoo filter for {} items",
                self.items
            ),
            x_label: "target false-positive rate (log scale)".into(),
            y_label: "bits per item".into(),
            x_log: true,
            curves: vec![
                series("Bloom theory −log2(ε)/ln 2", &|r| {
                    theory::classic::bits_per_item(r.target)
                }),
                series("BloomFilter, built", &|r| r.classic),
                series("CuckooFilter plain, built", &|r| r.cuckoo),
                series("CuckooFilter semi-sorted, built", &|r| r.cuckoo_semi),
            ],
            ..Chart::default()
        }
    }
}

/// `[1.2e-3, 1.9e-3]; [8.4e-4, 9.8e-4]`, or "none".
fn show_intervals(intervals: &[(f64, f64)]) -> String {
    if intervals.is_empty() {
        return "none".into();
    }
    intervals
        .iter()
        .map(|(lo, hi)| format!("[{lo:.2e}, {hi:.2e}]"))
        .collect::<Vec<_>>()
        .join("; ")
}

fn body(table: &Table, skipped: &[String], scan: &Scan, n_probes: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Each variant is built for each target rate from 10^-1 to 10^-6 and filled to the \
         capacity it was built for (the cuckoo filters to their design load, which they must \
         hold), then probed with {n_probes} non-members. A point is a filter: the rate it \
         achieved, with a 95% Clopper–Pearson interval, against its bits per item (table \
         bytes × 8 / items). A line joins what the variant's constructor builds for a grid of \
         target rates: its table's bits per item against the rate theory gives that table at \
         full load. The black line is the lower bound: no filter reaches a rate below \
         2^−(bits per item). Every cuckoo filter here has 4-slot buckets; the plain and \
         semi-sorted layouts are drawn apart.\n"
    );
    let _ = writeln!(out, "![rate against bits per item](space.svg)\n");
    let _ = writeln!(
        out,
        "**Where a cuckoo filter is smaller than a Bloom filter.** The constructors of \
         `BloomFilter` and `CuckooFilter` (4-slot buckets, each layout forced) were asked for \
         {} items at {} target rates per decade from 10^-1 to 10^-6, and their tables compared \
         at that load, the one they are built to hold. Fingerprints come in whole bits and \
         hash counts in whole numbers, so the answer is a set of rates, not one threshold:\n",
        scan.items, SCAN_PER_DECADE
    );
    let crossovers = scan.crossovers();
    // The highest rate of the first band, and where the last band begins.
    let first = |i: &[(f64, f64)]| i.first().map_or(f64::NAN, |b| b.1);
    let last = |i: &[(f64, f64)]| i.last().map_or(f64::NAN, |b| b.1);
    let _ = writeln!(out, "| cuckoo layout | target rates where it is smaller |");
    let _ = writeln!(out, "|---|---|");
    for (what, intervals) in &crossovers {
        let _ = writeln!(out, "| {what} | {} |", show_intervals(intervals));
    }
    let _ = writeln!(
        out,
        "\nTheory compares the optimal Bloom filter, −log2(ε)/ln 2 bits per item, with f/α \
         (plain) and (f − 1)/α (semi-sorted), f the narrowest fingerprint whose rate at the \
         design load α = 0.95 is at most ε; the tables built take those bits per item to \
         within {:.2}% (the bucket count is rounded up to an even number), so the chart draws \
         the built steps only. Fan et al. report the semi-sorted cuckoo filter smaller than a \
         Bloom filter below about 3%, comparing with real-valued fingerprint widths; with \
         whole bits and the exact rate at α, the semi-sorted layout is first smaller at \
         {:.2e} and smaller throughout below {:.2e}, the plain layout (one bit more per slot) \
         first at {:.2e} and throughout below {:.2e}.\n",
        100.0 * scan.cuckoo_gap(),
        first(&crossovers[1].1),
        last(&crossovers[1].1),
        first(&crossovers[0].1),
        last(&crossovers[0].1),
    );
    let _ = writeln!(
        out,
        "![bits per item of each constructor against the target rate](space_crossover.svg)\n"
    );
    let _ = writeln!(
        out,
        "Data: [`space.csv`](space.csv), [`space_crossover.csv`](space_crossover.csv).\n"
    );
    if !skipped.is_empty() {
        let _ = writeln!(out, "Not built (the variant cannot reach the rate):\n");
        for s in skipped {
            let _ = writeln!(out, "- {s}");
        }
        out.push('\n');
    }
    out.push_str(
        &table.to_markdown_filtered(
            &[
                ("variant", "variant"),
                ("target_fpr", "built for"),
                ("items", "items"),
            ]
            .iter()
            .chain(&AGAINST_THEORY_VIEW)
            .chain(&[
                ("bits_per_item", "bits/item"),
                ("theory_bits_per_item", "theory bits/item"),
                ("lower_bound_bits", "lower bound"),
            ])
            .copied()
            .collect::<Vec<_>>(),
            |_| true,
        ),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semi_sorting_saves_one_bit_a_slot_in_theory() {
        let load = theory::cuckoo::design_load(4).unwrap();
        for eps in [0.03, 0.01, 1e-3, 1e-4, 1e-6] {
            let diff = cuckoo_theory_bits(eps, false) - cuckoo_theory_bits(eps, true);
            assert!((diff - 1.0 / load).abs() < 1e-12, "{eps}: {diff}");
        }
    }

    #[test]
    fn intervals_follow_the_scan() {
        let row = |target, cuckoo, cuckoo_semi| ScanRow {
            target,
            classic: 10.0,
            cuckoo,
            cuckoo_semi,
        };
        let scan = Scan {
            items: 1,
            rows: vec![
                row(1e-1, 11.0, 9.0),
                row(5e-2, 9.0, 9.0),
                row(2e-2, 9.5, 9.0),
                row(1e-2, 12.0, 9.0),
                row(5e-3, 9.0, 11.0),
            ],
        };
        assert_eq!(
            scan.intervals(|r| r.cuckoo < r.classic),
            vec![(2e-2, 5e-2), (5e-3, 5e-3)]
        );
        assert_eq!(
            scan.intervals(|r| r.cuckoo_semi < r.classic),
            vec![(1e-2, 1e-1)]
        );
        assert!(scan.intervals(|r| r.classic < 0.0).is_empty());
    }
}
