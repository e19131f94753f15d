//! Experiment `space`: the false-positive rate each variant achieves against
//! the bits per item it takes, from 10^-1 to 10^-6, beside what its
//! constructor and theory give and the lower bound log2(1/ε); and the rates
//! at which a cuckoo filter (plain or semi-sorted) is smaller than a Bloom
//! filter holding the same items.

use std::sync::Arc;

use bloomlab::catalog::{self, Catalog, Descriptor};
use bloomlab::prelude::*;
use bloomlab::theory;
use bloomlab_lab::keys::{members, probes};

use super::fpr::{MIN_EXPECTED, parallel};
use super::subject;
use super::tradeoff::INSTANCES;
use super::{Ctx, Error, Output, sub_seed};
use crate::plot::{self, Chart, Curve};
use crate::progress;
use crate::report::Section;
use crate::table::{
    AGAINST_INSTANCES, AGAINST_THEORY, AGAINST_THEORY_VIEW, Hits, Table, against_instances,
    against_theory, fixed, instance_interval, markdown, rate, yes_no,
};

mod crossover;
use crossover::{Scan, show_intervals};

/// Target rates, one point per variant each.
pub const TARGETS: [f64; 11] = [
    1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6,
];

/// The variants drawn: one entry per table layout (the atomic filter has
/// the classic filter's, so it is left out).
pub fn kinds(catalog: &Catalog<u64>) -> Vec<Descriptor<u64>> {
    let mut layouts = Vec::new();
    let mut kinds: Vec<_> = catalog.iter().cloned().collect();
    kinds.retain(|v| {
        let layout = (v.plan)(1_000, 0.01).map(|p| format!("{:?}", p.table)).ok();
        let new = !layouts.contains(&layout);
        layouts.push(layout);
        new
    });
    kinds
}

/// Target rates of the crossover scan: this many per decade, 10^-1 to 10^-6.
const SCAN_PER_DECADE: u32 = 400;

/// The probe budget of one row, as a multiple of the scale's probes.
const PROBE_BUDGET: usize = 40;

/// Probes for a filter whose theory rate is `theory`: enough to expect
/// [`MIN_EXPECTED`] false positives, at least the scale's `base`; a row
/// that would need more than `cap` gets `base` and is underpowered.
fn probes_for(theory: f64, base: usize, cap: usize) -> usize {
    let want = (MIN_EXPECTED / theory).ceil();
    if want.is_finite() && want > base as f64 && want <= cap as f64 {
        want as usize
    } else {
        base
    }
}

/// One measured point.
#[derive(Debug, Clone)]
struct Point {
    kind: &'static str,
    table: Arc<dyn catalog::Table>,
    target: f64,
    items: usize,
    /// False positives among the probes of all instances.
    fp: Hits,
    /// The instances' 95% interval ([`instance_interval`]).
    interval: (f64, f64),
    /// The keyed instances' false positives.
    instances: Vec<Hits>,
    bits: f64,
    /// The theory rate at the filter's parameters and the load it reached.
    theory: f64,
}

impl Point {
    /// Theory expects too few false positives in its probes to test it.
    fn underpowered(&self) -> bool {
        self.theory * (self.fp.trials as f64) < MIN_EXPECTED
    }

    /// Whether the instances' interval holds theory.
    fn holds_theory(&self) -> bool {
        (self.interval.0..=self.interval.1).contains(&self.theory)
    }
}

/// Runs the experiment: `space.csv`, `space.svg`, `space_crossover.csv`
/// and `space_crossover.svg`.
pub fn run(ctx: &Ctx) -> Result<Output, Error> {
    let capacity = ctx.scale.capacity();
    let base_probes = ctx.scale.probes();
    let max_probes = base_probes * PROBE_BUDGET;
    let kinds = kinds(ctx.catalog);
    let bar = progress::bar((kinds.len() * TARGETS.len()) as u64, "space");
    let mut points = Vec::new();
    let mut skipped = Vec::new();
    for kind in &kinds {
        for &target in &TARGETS {
            bar.inc(1);
            let part = format!("space/{}/{target}", kind.id);
            // Every filter holds the capacity it was built for: for the
            // cuckoo filter that is its design load, which it must hold.
            let build = |i: usize| {
                let part = format!("{part}/{i}");
                let keys = members(sub_seed(ctx.seed, &format!("{part}/members")), capacity);
                subject::holding(kind, &keys, target, sub_seed(ctx.seed, &part)).map(|(s, _)| s)
            };
            // The first instance tells whether the rate can be built at all.
            let first = match build(0) {
                Ok(s) => s,
                // Full before its capacity: a failure of the filter.
                Err(e @ Error::Invariant(_)) => return Err(e),
                // A rate a variant cannot be built for is a finding, not a failure.
                Err(e) => {
                    skipped.push(e.to_string());
                    continue;
                }
            };
            let theory = first.theory(first.filter.len() as u64);
            // The row's probes shared out among the instances.
            let per_instance = probes_for(theory, base_probes, max_probes).div_ceil(INSTANCES);
            let probe = |i: usize, s: &subject::Subject| {
                let seed = sub_seed(ctx.seed, &format!("{part}/{i}/probes"));
                let hits = probes(seed, per_instance)
                    .filter(|q| s.filter.contains(q))
                    .count();
                Hits::new(hits as u64, per_instance as u64)
            };
            let mut instances = vec![probe(0, &first)];
            instances.extend(parallel(INSTANCES - 1, |i| {
                let s = build(i + 1)?;
                Ok(probe(i + 1, &s))
            })?);
            points.push(Point {
                kind: kind.id,
                table: first.table.clone(),
                target,
                items: first.filter.len(),
                fp: Hits::pooled(&instances),
                interval: instance_interval(&instances),
                instances,
                bits: first.filter.bits_per_item().unwrap_or(f64::NAN),
                theory,
            });
        }
    }
    bar.finish_and_clear();

    let table = Table::from_records(points.iter().map(|p| {
        let head = [
            ("variant", p.kind.into()),
            ("target_fpr", p.target.to_string()),
            ("items", p.items.to_string()),
            ("probes", p.fp.trials.to_string()),
        ];
        let expected = p.theory * p.fp.trials as f64;
        let theory_bits = p.table.theory_bits_per_item(p.target, p.items as u64);
        let tail = [
            ("expected_false_positives", fixed(expected)),
            ("underpowered", yes_no(p.underpowered()).into()),
            ("bits_per_item", fixed(p.bits)),
            ("theory_bits_per_item", fixed(theory_bits)),
            (
                "lower_bound_bits",
                fixed(theory::lower_bound_bits_per_item(p.target)),
            ),
        ];
        let rate = against_theory(p.fp.hits, p.fp.trials, p.theory);
        let spread = against_instances(&p.instances, p.theory);
        (head.into_iter())
            .chain(AGAINST_THEORY.into_iter().zip(rate))
            .chain(AGAINST_INSTANCES.into_iter().zip(spread))
            .chain(tail)
            .collect()
    }));
    let charts = space_charts(&kinds, &points, capacity)?;
    let scan = Scan::run(capacity)?;
    let body = body(&kinds, &points, &scan, capacity, base_probes, max_probes);
    let section = Section::new("Space against rate", body);
    let crossover_svg = plot::draw("space_crossover.svg", &scan.chart())?;
    Ok(Output::new(section)
        .appendix(appendix(&table, &skipped, &scan))
        .table("space.csv", table)
        .table("space_crossover.csv", scan.table())
        .chart("space.svg", plot::draw_panels("space.svg", &charts)?)
        .chart("space_crossover.svg", crossover_svg))
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

/// Rate (y, log) against bits per item (x, log), in two panels sharing the
/// y axis: every variant of bits or fingerprints, then the counting filters
/// (four bits a counter: the classic layout and the one-line blocks). Points are the measured filters with their intervals, at their
/// tables' bits per item; each variant's line is theory on the same
/// footing: for a grid of target rates, the bits per item of the table its
/// constructor builds and the rate theory gives that table at full load.
/// The lower bound is `2^−bits`.
fn space_charts(
    kinds: &[Descriptor<u64>],
    points: &[Point],
    items: usize,
) -> Result<Vec<Chart>, Error> {
    // One y axis for both panels, from the decade of the lowest value drawn.
    let lowest = (points.iter())
        .flat_map(|p| [p.interval.0, p.interval.1])
        .filter(|&y| y > 0.0)
        .fold(1.0f64, f64::min);
    let y_range = (10f64.powf(lowest.log10().floor()), 0.2);
    let panel = |title: String| Chart {
        title,
        x_label: "bits per item (log scale)".into(),
        y_label: "false-positive rate (log scale)".into(),
        x_log: true,
        y_log: true,
        y_floor: y_range.0,
        y_range: Some(y_range),
        ..Chart::default()
    };
    let mut panels = [
        panel(format!(
            "False-positive rate against space, {items} items (points measured, lines theory)"
        )),
        panel(format!(
            "The counting filters: 4-bit counters, {items} items"
        )),
    ];
    let grid: Vec<f64> = (0..=50)
        .map(|i| 10f64.powf(-1.0 - 5.0 * f64::from(i) / 50.0))
        .collect();
    for kind in kinds {
        let mut line = Vec::new();
        let mut counters = false;
        for &eps in &grid {
            // Planned, not built: what the constructor allocates (a
            // growing filter: its layers after growing to `items`, as
            // theory sizes them), where its crate builds it.
            let capacity = subject::capacity(kind, items) as u64;
            let Ok(plan) = (kind.plan)(capacity, eps) else {
                continue;
            };
            let (Ok(bytes), true) = (
                plan.bytes_holding(items as u64),
                plan.table.unbuildable().is_empty(),
            ) else {
                continue;
            };
            let bits = bytes as f64 * 8.0 / items as f64;
            counters = plan.table.counters();
            line.push((bits, plan.table.fpr(items as u64)));
        }
        line.sort_by(|a, b| a.0.total_cmp(&b.0));
        line.dedup();
        let curve = Curve {
            label: kind.label(),
            theory: staircase(&line),
            points: (points.iter())
                .filter(|p| p.kind == kind.id)
                .map(|p| (p.bits, p.interval.0, p.fp.rate(), p.interval.1))
                .collect(),
        };
        panels[usize::from(counters)].curves.push(curve);
    }
    // The bound down to the bottom of the axis (2^−bits at the floor).
    let last = -y_range.0.log2();
    panels[0].curves.push(Curve {
        label: "lower bound: rate 2^−bits".into(),
        theory: (0..=40)
            .map(|i| {
                let bits = 3.0 + (last - 3.0) * f64::from(i) / 40.0;
                (bits, (-bits).exp2())
            })
            .collect(),
        points: Vec::new(),
    });
    panels[1].notes.push(
        "CountingBloomFilter's line is BloomFilter's with every bit made a 4-bit counter: \
         the same rate at exactly four times the bits; BlockedCountingBloomFilter's is \
         that of a blocked filter of 128-bit blocks in eight 16-bit sectors, at four times \
         its bits."
            .into(),
    );
    Ok(panels.into())
}

/// The line through `points` (by bits per item) drawn as the sizes it
/// joins are: a rate holds until the next table, so each step down comes
/// at the next table's bits. Where the tables are dense (a Bloom filter's
/// bits) the steps do not show; where they are few (a binary fuse
/// filter's 8-, 16- and 32-bit fingerprints) the line does not suggest
/// tables between them that no constructor builds.
fn staircase(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut line = Vec::with_capacity(points.len() * 2);
    for pair in points.windows(2) {
        let ((x0, y0), (x1, _)) = (pair[0], pair[1]);
        line.extend([(x0, y0), (x1, y0)]);
    }
    line.extend(points.last());
    line
}

/// Rows, per variant, of the bits per item a filter built for each of
/// `rates` takes.
fn bits_table(kinds: &[Descriptor<u64>], points: &[Point], rates: &[f64]) -> String {
    let row = |first: String, cell: &dyn Fn(f64) -> String| {
        let cells = rates.iter().map(|&r| cell(r));
        std::iter::once(first).chain(cells).collect::<Vec<_>>()
    };
    let mut rows: Vec<Vec<String>> = kinds
        .iter()
        .map(|kind| {
            row(kind.label(), &|r| {
                points
                    .iter()
                    .find(|p| p.kind == kind.id && p.target == r)
                    .map_or("—".into(), |p| format!("{:.1}", p.bits))
            })
        })
        .collect();
    rows.push(row("lower bound log2(1/ε)".into(), &|r| {
        format!("{:.1}", theory::lower_bound_bits_per_item(r))
    }));
    let heads = row("bits per item at target".into(), &|r| format!("{r:.0e}"));
    markdown(&heads, rows)
}

fn body(
    kinds: &[Descriptor<u64>],
    points: &[Point],
    scan: &Scan,
    items: usize,
    base: usize,
    cap: usize,
) -> String {
    let mut out = format!(
        "Each variant built for {} target rates from 10^-1 to 10^-6 for {items} items and \
         filled (cuckoo filters to their design load), in {INSTANCES} keyed instances sharing \
         {base} probes, or up to {cap} so that theory expects {MIN_EXPECTED} false positives. \
         Points: the 95% interval of the instances' mean, widened by their scatter; lines: \
         theory for the tables built; lower bound 2^−bits.\n\n",
        TARGETS.len()
    );
    out.push_str("![rate against bits per item](space.svg)\n\n");
    let powered: Vec<&Point> = points.iter().filter(|p| !p.underpowered()).collect();
    let missed: Vec<String> = powered
        .iter()
        .filter(|p| !p.holds_theory())
        .map(|p| format!("{} at {:.0e}", p.kind, p.target))
        .collect();
    let n_under = points.iter().filter(|p| p.underpowered()).count();
    out += &format!(
        "**Theory against measurement.** Theory lies inside the 95% interval in {} of the {} \
         rows that expect {MIN_EXPECTED} or more false positives{} (about {:.0} would fall \
         outside by chance). {} rows expect fewer within the budget and test nothing \
         (`underpowered` in the CSV and the appendix); they are not counted.\n\n",
        powered.len() - missed.len(),
        powered.len(),
        if missed.is_empty() {
            String::new()
        } else {
            format!(" (outside: {})", missed.join(", "))
        },
        0.05 * powered.len() as f64,
        n_under,
    );
    out.push_str(&bits_table(kinds, points, &[1e-2, 1e-3, 1e-4, 1e-6]));
    let crossovers = scan.crossovers();
    // The highest rate of the first band, and where the last band begins.
    let first = |i: &[(f64, f64)]| i.first().map_or(f64::NAN, |b| b.1);
    let last = |i: &[(f64, f64)]| i.last().map_or(f64::NAN, |b| b.1);
    let same = show_intervals(&crossovers[0].1) == show_intervals(&crossovers[2].1)
        && show_intervals(&crossovers[1].1) == show_intervals(&crossovers[3].1);
    out += &format!(
        "\n**Where a cuckoo filter is smaller than a Bloom filter** (4-slot buckets; both \
         built for {} items and compared at that load; {SCAN_PER_DECADE} target rates a \
         decade): the semi-sorted layout at every target below {:.2e} and in bands up to \
         {:.2e}; the plain layout below {:.2e}, in bands up to {:.2e}. Fingerprints come in \
         whole bits, so the answer is a set of rates, not one threshold (Fan et al.'s \
         \"below about 3%\" assumes real-valued widths). Theory's bands are {} (appendix). \
         Against the optimal Bloom filter (k not rounded), the semi-sorted table is smaller \
         only below {:.2e}.\n\n",
        scan.items,
        last(&crossovers[1].1),
        first(&crossovers[1].1),
        last(&crossovers[0].1),
        first(&crossovers[0].1),
        if same { "the same" } else { "nearly the same" },
        last(&scan.intervals(|r| r.cuckoo[1] < theory::classic::bits_per_item(r.target))),
    );
    out.push_str(
        "![bits per item of each constructor against the target rate](space_crossover.svg)\n\n",
    );
    out.push_str("Data: [`space.csv`](space.csv), [`space_crossover.csv`](space_crossover.csv).\n");
    out
}

/// The appendix: the crossover bands, how theory sizes the cuckoo filter,
/// the variants not built, and every measured row.
fn appendix(table: &Table, skipped: &[String], scan: &Scan) -> String {
    let mut out = format!(
        "Target rates at which each cuckoo layout is smaller than the classic filter, built \
         and in theory (−log2(ε)/ln 2 bits against f/α plain and (f − 1)/α semi-sorted, f the \
         narrowest fingerprint whose rate at α = 0.95 is at most ε; the built tables are \
         within {:.2}% of those bits):\n\n",
        100.0 * scan.cuckoo_gap()
    );
    out.push_str(&markdown(
        &["cuckoo layout", "target rates where it is smaller"],
        scan.crossovers()
            .iter()
            .map(|(what, intervals)| [what.clone(), show_intervals(intervals)]),
    ));
    out.push('\n');
    if !skipped.is_empty() {
        out.push_str("Not built (the variant cannot reach the rate):\n\n");
        for s in skipped {
            out += &format!("- {s}\n");
        }
        out.push('\n');
    }
    out.push_str("Every measured filter:\n\n");
    let columns = [
        &[("variant", "variant"), ("target_fpr", "built for")][..],
        &AGAINST_THEORY_VIEW,
        &[
            ("probes", "probes"),
            ("underpowered", "underpowered"),
            ("bits_per_item", "bits/item"),
            ("theory_bits_per_item", "theory bits/item"),
        ],
    ];
    out.push_str(&table.to_markdown(&columns.concat()));
    out
}

#[cfg(test)]
mod tests {
    use bloomlab_lab::stats::clopper_pearson;

    use super::crossover::ScanRow;
    use super::*;

    #[test]
    fn a_staircase_steps_down_at_the_next_table() {
        let tables = [(9.0, 4e-3), (18.0, 2e-5), (36.0, 2e-10)];
        let steps = [
            (9.0, 4e-3),
            (18.0, 4e-3),
            (18.0, 2e-5),
            (36.0, 2e-5),
            (36.0, 2e-10),
        ];
        assert_eq!(staircase(&tables), steps);
        assert_eq!(staircase(&tables[..1]), tables[..1]);
        assert!(staircase(&[]).is_empty());
    }

    #[test]
    fn semi_sorting_saves_one_bit_a_slot_in_theory() {
        let load = theory::cuckoo::design_load(4).unwrap();
        for eps in [0.03, 0.01, 1e-3, 1e-4, 1e-6] {
            let diff = cuckoo_theory_bits(eps, false) - cuckoo_theory_bits(eps, true);
            assert!((diff - 1.0 / load).abs() < 1e-12, "{eps}: {diff}");
        }
    }

    /// Rows run to 4·10^7 probes, where statrs 0.18's inverse beta CDF
    /// did not return: the interval must, and match the Poisson limit
    /// χ²(2x, 2.5%)/2n … χ²(2x + 2, 97.5%)/2n for x = 100, n = 4e7.
    #[test]
    fn intervals_of_the_largest_rows_return() {
        let (lo, hi) = clopper_pearson(100, 40_000_000, 0.95);
        assert!((lo / (81.3636 / 4e7) - 1.0).abs() < 1e-3, "{lo}");
        assert!((hi / (121.627 / 4e7) - 1.0).abs() < 1e-3, "{hi}");
        let (lo, hi) = clopper_pearson(1, 40_000_000, 0.95);
        assert!(lo > 0.0 && hi < 1e-6, "{lo} {hi}");
    }

    #[test]
    fn rows_are_sized_to_expect_enough_false_positives() {
        assert_eq!(probes_for(1e-2, 1_000_000, 40_000_000), 1_000_000);
        assert_eq!(probes_for(1e-5, 1_000_000, 40_000_000), 10_000_000);
        // Beyond the budget: the base, and the row is underpowered.
        assert_eq!(probes_for(1e-6, 1_000_000, 40_000_000), 1_000_000);
        assert_eq!(probes_for(0.0, 1_000, 4_000), 1_000);
    }

    #[test]
    fn intervals_follow_the_scan() {
        let row = |target, plain, semi| ScanRow {
            target,
            classic: 10.0,
            cuckoo: [plain, semi],
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
            scan.intervals(|r| r.cuckoo[0] < r.classic),
            vec![(2e-2, 5e-2), (5e-3, 5e-3)]
        );
        assert_eq!(
            scan.intervals(|r| r.cuckoo[1] < r.classic),
            vec![(1e-2, 1e-1)]
        );
        assert!(scan.intervals(|r| r.classic < 0.0).is_empty());
    }
}
