//! Experiment `space`: bits per item against the false-positive rate each
//! variant actually achieves, from 10^-1 to 10^-6, beside the theory curves
//! and the lower bound log2(1/ε); and the rate below which the cuckoo filter
//! takes less space than the classic one, measured and predicted.

use std::fmt::Write as _;

use bloomlab::theory;
use bloomlab_core::InsertError;
use bloomlab_lab::keys::{members, probes};
use bloomlab_lab::stats::clopper_pearson;
use plotters::prelude::*;

use super::subject::{self, Kind};
use super::{Ctx, Error, Output, sub_seed};
use crate::progress;
use crate::report::Section;
use crate::table::{Table, fixed, rate};

/// Target rates, one point per variant each.
pub const TARGETS: [f64; 11] = [
    1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6,
];

/// The variants drawn (the atomic filter has the classic filter's layout).
pub const KINDS: [Kind; 5] = [
    Kind::Classic,
    Kind::Blocked,
    Kind::Counting,
    Kind::Scalable,
    Kind::Cuckoo,
];

/// One measured point.
#[derive(Debug, Clone)]
struct Point {
    kind: Kind,
    target: f64,
    items: usize,
    hits: u64,
    bits: f64,
    /// The theory rate at the filter's parameters and the load it reached.
    theory: f64,
}

/// Runs the experiment: `space.csv` and `space.svg`.
pub fn run(ctx: &Ctx) -> Result<Output, Error> {
    let capacity = ctx.scale.capacity();
    let n_probes = ctx.scale.probes();
    let bar = progress::bar((KINDS.len() * TARGETS.len()) as u64, "space");
    let mut points = Vec::new();
    let mut skipped = Vec::new();
    for kind in KINDS {
        for &target in &TARGETS {
            bar.inc(1);
            let part = format!("space/{}/{target}", kind.name());
            let mut s = match subject::build(kind, capacity, target, sub_seed(ctx.seed, &part)) {
                Ok(s) => s,
                // A rate a variant cannot be built for is a finding, not a failure.
                Err(e) => {
                    skipped.push(e.to_string());
                    continue;
                }
            };
            // Bloom filters are filled to the capacity they were built for; the
            // cuckoo filter, whose table is rounded up to a power of two, to its
            // first Full: the load it really reaches.
            let limit = if kind == Kind::Cuckoo {
                capacity * 4
            } else {
                capacity
            };
            let keys = members(sub_seed(ctx.seed, &format!("{part}/members")), limit);
            for k in &keys {
                match s.filter.insert(k) {
                    Ok(_) => {}
                    Err(InsertError::Full) => break,
                    Err(e) => return Err(Error::filter(part)(e)),
                }
            }
            let f = &s.filter;
            let hits = probes(sub_seed(ctx.seed, &format!("{part}/probes")), n_probes)
                .filter(|q| f.contains(q))
                .count() as u64;
            points.push(Point {
                kind,
                target,
                items: f.len(),
                hits,
                bits: f.bits_per_item().unwrap_or(f64::NAN),
                theory: (s.theory)(f.len() as u64),
            });
        }
    }
    bar.finish_and_clear();

    let mut table = Table::new(&[
        "variant",
        "target_fpr",
        "items",
        "probes",
        "false_positives",
        "measured_fpr",
        "ci95_low",
        "ci95_high",
        "theory_fpr",
        "theory_in_ci95",
        "bits_per_item",
        "theory_bits_per_item",
        "lower_bound_bits",
    ]);
    for p in &points {
        let (lo, hi) = clopper_pearson(p.hits, n_probes as u64, 0.95);
        table.push(vec![
            p.kind.name().into(),
            p.target.to_string(),
            p.items.to_string(),
            n_probes.to_string(),
            p.hits.to_string(),
            rate(p.hits as f64 / n_probes as f64),
            rate(lo),
            rate(hi),
            rate(p.theory),
            if (lo..=hi).contains(&p.theory) {
                "yes"
            } else {
                "no"
            }
            .into(),
            fixed(p.bits),
            fixed(theory_bits(p.kind, p.target)),
            fixed(theory::lower_bound_bits_per_item(p.target)),
        ]);
    }
    let mut svg = String::new();
    draw(&mut svg, &points, n_probes).map_err(|e| Error::plot("space.svg")(e.to_string()))?;

    let predicted = predicted_crossover();
    let measured = measured_crossover(&points, n_probes);
    let section = Section {
        title: "Space against rate".into(),
        body: body(&table, &skipped, predicted, measured, n_probes),
    };
    Ok(Output::new(section)
        .table("space.csv", table)
        .chart("space.svg", svg))
}

/// Bits per item theory gives for a filter built for rate `eps`.
pub fn theory_bits(kind: Kind, eps: f64) -> f64 {
    match kind {
        Kind::Classic | Kind::Atomic => theory::classic::bits_per_item(eps),
        Kind::Blocked => theory::blocked::bits_per_item(512, eps).map_or(f64::NAN, |(c, _)| c),
        Kind::Counting => theory::counting::bits_per_item(eps, 4),
        Kind::Scalable => {
            // After growing from 1,000 to 10,000 items (the subject's tenfold growth).
            theory::scalable::bits_after(1_000, 2, eps, 0.85, 10_000)
                .map_or(f64::NAN, |b| b as f64 / 1e4)
        }
        Kind::Cuckoo => cuckoo_bits(eps, true),
    }
}

/// The cuckoo filter's bits per item at rate `eps` and the 95% load of 4-slot
/// buckets: `f/α` with `f = ⌈log2(2b/ε)⌉` (`whole`), or with the real-valued
/// `log2(2b/ε)` the ceiling rounds up.
fn cuckoo_bits(eps: f64, whole: bool) -> f64 {
    let f = (8.0 / eps).log2();
    if whole {
        theory::cuckoo::bits_per_item(f.ceil() as u32, 0.95)
    } else {
        f / 0.95
    }
}

/// The rate below which theory says the cuckoo filter (4-slot buckets at 95%
/// load) needs fewer bits per item than the optimal classic filter, scanning
/// 10^-1 down to 10^-9 in steps of 1%: (with whole fingerprint bits, with
/// real-valued ones).
pub fn predicted_crossover() -> (Option<f64>, Option<f64>) {
    let scan = |whole: bool| {
        let mut eps = 0.1f64;
        while eps > 1e-9 {
            if cuckoo_bits(eps, whole) < theory::classic::bits_per_item(eps) {
                return Some(eps);
            }
            eps *= 0.99;
        }
        None
    };
    (scan(true), scan(false))
}

/// Where the measured cuckoo curve (bits per item against achieved log-rate,
/// interpolated linearly) drops below the measured classic curve. Points with
/// fewer than 20 false positives are too noisy to place and are left out.
fn measured_crossover(points: &[Point], n_probes: usize) -> Option<f64> {
    let curve = |kind: Kind| -> Vec<(f64, f64)> {
        let mut c: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p.kind == kind && p.hits >= 20)
            .map(|p| ((p.hits as f64 / n_probes as f64).log10(), p.bits))
            .collect();
        c.sort_by(|a, b| a.0.total_cmp(&b.0));
        c
    };
    let (classic, cuckoo) = (curve(Kind::Classic), curve(Kind::Cuckoo));
    let at = |c: &[(f64, f64)], x: f64| -> Option<f64> {
        c.windows(2).find(|w| w[0].0 <= x && x <= w[1].0).map(|w| {
            let t = (x - w[0].0) / (w[1].0 - w[0].0);
            w[0].1 + t * (w[1].1 - w[0].1)
        })
    };
    let lo = classic.first()?.0.max(cuckoo.first()?.0);
    let hi = classic.last()?.0.min(cuckoo.last()?.0);
    // Scan from high rates to low: the first x where the cuckoo filter is smaller.
    let mut x = hi;
    while x >= lo {
        if let (Some(a), Some(b)) = (at(&classic, x), at(&cuckoo, x))
            && b < a
        {
            return Some(10f64.powf(x));
        }
        x -= 0.005;
    }
    None
}

/// Draws the chart as SVG into `svg`.
fn draw(
    svg: &mut String,
    points: &[Point],
    n_probes: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::with_string(svg, (900, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Bits per item against the rate achieved",
            ("sans-serif", 22),
        )
        .margin(14)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d((1e-7f64..0.3).log_scale(), 0f64..120.0)?;
    chart
        .configure_mesh()
        .x_desc("false-positive rate (fraction of probes, log scale)")
        .y_desc("bits per item")
        .x_label_formatter(&|x| format!("{x:.0e}"))
        .draw()?;
    let grid: Vec<f64> = (0..=60)
        .map(|i| 10f64.powf(-1.0 - 5.0 * f64::from(i) / 60.0))
        .collect();
    let lb = BLACK.stroke_width(2);
    chart
        .draw_series(LineSeries::new(
            grid.iter()
                .map(|&e| (e, theory::lower_bound_bits_per_item(e))),
            lb,
        ))?
        .label("lower bound log2(1/ε)")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], lb));
    for (i, kind) in KINDS.into_iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let style = color.stroke_width(2);
        chart
            .draw_series(LineSeries::new(
                grid.iter()
                    .map(|&e| (e, theory_bits(kind, e)))
                    .filter(|p| p.1.is_finite()),
                style,
            ))?
            .label(format!(
                "{} (theory line, measured points)",
                kind.type_name()
            ))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        for p in points.iter().filter(|p| p.kind == kind && p.hits > 0) {
            let (lo, hi) = clopper_pearson(p.hits, n_probes as u64, 0.95);
            let m = p.hits as f64 / n_probes as f64;
            chart.draw_series(std::iter::once(ErrorBar::new_horizontal(
                p.bits,
                lo.max(1e-7),
                m,
                hi,
                color.filled(),
                6,
            )))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

fn body(
    table: &Table,
    skipped: &[String],
    predicted: (Option<f64>, Option<f64>),
    measured: Option<f64>,
    n_probes: usize,
) -> String {
    let show =
        |x: Option<f64>| x.map_or_else(|| "none in range".to_owned(), |e| format!("{e:.2e}"));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Each variant is built for each target rate from 10^-1 to 10^-6 and filled to its \
         capacity (the cuckoo filter until its first `Full`, the load it really reaches), then \
         probed with {n_probes} non-members. A point is a filter: its bits per item (table bytes \
         × 8 / items held) against the rate it achieved, with a 95% Clopper–Pearson interval as \
         a horizontal bar. Lines are theory for a filter built for that rate; the black line is \
         the information-theoretic lower bound log2(1/ε). At 10^-6 with {n_probes} probes a \
         filter shows about one false positive at default scale, so those intervals are wide.\n"
    );
    let _ = writeln!(out, "![bits per item against rate](space.svg)\n");
    let _ = writeln!(
        out,
        "**Where the cuckoo filter gets smaller than the classic one.** Theory (4-slot buckets at \
         95% load against an optimal classic filter): below ε = {} with whole fingerprint bits, \
         {} with real-valued ones (the step of ⌈log2(8/ε)⌉ moves it). Measured (interpolating \
         the achieved rates of the filters below): {}. Fan et al. quote about 3% for the cuckoo \
         filter with semi-sorted buckets, which saves one bit per item; bloomlab does not \
         semi-sort, so its crossover is lower.\n",
        show(predicted.0),
        show(predicted.1),
        show(measured)
    );
    if !skipped.is_empty() {
        let _ = writeln!(out, "Not built (the variant cannot reach the rate):\n");
        for s in skipped {
            let _ = writeln!(out, "- {s}");
        }
        out.push('\n');
    }
    let _ = writeln!(out, "Data: [`space.csv`](space.csv).\n");
    out.push_str(&table.to_markdown_filtered(
        &[
            ("variant", "variant"),
            ("target_fpr", "built for"),
            ("items", "items"),
            ("false_positives", "false positives"),
            ("measured_fpr", "measured"),
            ("ci95_low", "95% low"),
            ("ci95_high", "95% high"),
            ("theory_fpr", "theory"),
            ("theory_in_ci95", "inside"),
            ("bits_per_item", "bits/item"),
            ("theory_bits_per_item", "theory bits/item"),
            ("lower_bound_bits", "lower bound"),
        ],
        |_| true,
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossover_follows_from_the_formulas() {
        let (whole, real) = predicted_crossover();
        // Real-valued: x/ln 2 = (x + 3)/0.95 for x = log2(1/ε), so x = 3/(0.95/ln 2 − 1) ≈ 8.10.
        let x = -real.expect("a crossover exists").log2();
        let solved = 3.0 / (0.95 / std::f64::consts::LN_2 - 1.0);
        assert!((x - solved).abs() < 0.02, "{x} vs {solved}");
        // Whole bits only ever add space to the cuckoo filter: its crossover is at a lower rate.
        assert!(whole.expect("a crossover exists") <= real.expect("exists"));
    }
}
