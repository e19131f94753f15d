//! The experiment's charts: measured over theory for every variant at 1%,
//! and per variant the rate by load and its residuals.

use bloomlab::catalog::Descriptor;

use super::{Error, Row, TARGETS};
use crate::plot::{self, Chart, Curve};
use crate::table::short_percent;

/// Every chart, as (file name, SVG).
pub(super) fn draw(
    rows: &[Row],
    kinds: &[Descriptor<u64>],
    capacity: usize,
) -> Result<Vec<(String, String)>, Error> {
    let svg = |name: String, chart: &Chart| plot::draw(&name, chart).map(|svg| (name, svg));
    // Measured over theory of `variant` at `target`, as a series `label`.
    let ratios = |label: String, variant: &str, target: f64| Curve {
        label,
        theory: Vec::new(),
        points: residuals(rows, variant, target),
    };
    let title = format!("every variant at target 1%: measured / theory, capacity {capacity}");
    let at_one = kinds
        .iter()
        .map(|k| ratios(k.label(), k.id, 0.01))
        .collect();
    let combined = residual_chart(title, at_one);
    let mut out = vec![svg("fpr.svg".to_owned(), &combined)?];
    for kind in kinds {
        let rates = rate_chart(rows, kind, capacity);
        out.push(svg(format!("fpr_{}.svg", kind.id), &rates)?);
        let chart = residual_chart(
            format!("{}: measured / theory, capacity {capacity}", kind.label()),
            TARGETS
                .iter()
                .map(|&t| ratios(format!("target {}", short_percent(t)), kind.id, t))
                .collect(),
        );
        out.push(svg(format!("fpr_residuals_{}.svg", kind.id), &chart)?);
    }
    Ok(out)
}

/// A chart of measured over theory by load, its series set apart, its y
/// axis fitted to their intervals and to 1 (a linear axis otherwise starts
/// at 0, squeezing the ratios near 1).
fn residual_chart(title: String, curves: Vec<Curve>) -> Chart {
    let (lo, hi) = curves
        .iter()
        .flat_map(|c| c.points.iter())
        .fold((1.0f64, 1.0f64), |(a, b), &(_, lo, _, hi)| {
            (a.min(lo), b.max(hi))
        });
    let pad = (hi - lo) * 0.06;
    Chart {
        title,
        x_label: "load (items / capacity)".into(),
        y_label: "mean rate / theory (95% t interval over instances), powered rows".into(),
        references: vec![("theory".into(), 1.0)],
        dodge: true,
        y_range: Some((lo - pad, hi + pad)),
        curves,
        ..Chart::default()
    }
}

/// The powered rows of `variant` at `target` as (load, low, mean, high) of
/// the instance interval over theory; underpowered rows are left out.
fn residuals(rows: &[Row], variant: &str, target: f64) -> Vec<(f64, f64, f64, f64)> {
    rows.iter()
        .filter(|r| r.variant == variant && r.target == target && r.powered)
        .map(|r| {
            (
                r.load,
                r.instance_lo / r.theory,
                r.mean_rate / r.theory,
                r.instance_hi / r.theory,
            )
        })
        .collect()
}

/// `kind`'s pooled rate by load for every target, theory as lines. Rows
/// with no false positive are points at 0 with their upper bound.
fn rate_chart(rows: &[Row], kind: &Descriptor<u64>, capacity: usize) -> Chart {
    let own: Vec<&Row> = rows.iter().filter(|r| r.variant == kind.id).collect();
    // The lowest bound of any interval or theory's rate, halved: every
    // point and line is above it.
    let floor = own
        .iter()
        .map(|r| if r.lo > 0.0 { r.lo } else { r.hi }.min(r.theory))
        .fold(f64::INFINITY, f64::min)
        / 2.0;
    let curves = TARGETS
        .iter()
        .map(|&target| {
            let series: Vec<&&Row> = own.iter().filter(|r| r.target == target).collect();
            let last = series.iter().map(|r| r.load).fold(0.0, f64::max);
            let theory = series.first().map_or_else(Vec::new, |r| {
                (2..=32)
                    .map(|i| f64::from(i) * 0.05)
                    .filter(|&load| load <= last + 1e-9)
                    .map(|load| {
                        let items = (capacity as f64 * load).round() as u64;
                        (load, r.table.fpr(items))
                    })
                    .collect()
            });
            Curve {
                label: format!("target {}", short_percent(target)),
                theory,
                points: series
                    .iter()
                    .map(|r| (r.load, r.lo, r.pooled, r.hi))
                    .collect(),
            }
        })
        .collect();
    Chart {
        title: format!("{}, capacity {capacity}: pooled rate by load", kind.label()),
        x_label: "load (items / capacity)".into(),
        y_label: "false-positive rate (pooled, 95% interval; log scale)".into(),
        y_log: true,
        y_floor: if floor.is_finite() && floor > 0.0 {
            floor
        } else {
            1e-9
        },
        // The targets' series lie decades apart: none hides another, and
        // each point stands at its load, above its theory.
        dodge: false,
        notes: own
            .iter()
            .any(|r| r.full)
            .then(|| {
                "markers past load 1: each instance filled until its first refused insert, at \
                 their mean load"
                    .to_owned()
            })
            .into_iter()
            .collect(),
        curves,
        ..Chart::default()
    }
}
