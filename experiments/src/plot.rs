//! SVG charts (plotters): an x–y chart with a log or linear scale on each
//! axis, theory as lines, measurements as points with their intervals, and
//! horizontal reference lines (a target rate, a bound). The fpr, deletion
//! and growth experiments all draw with it.

use std::path::Path;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

use crate::files::write_atomic;

/// One subject: its theory as a line, its measurements as points.
#[derive(Debug, Clone, Default)]
pub struct Curve {
    /// Legend text.
    pub label: String,
    /// Theory, as (x, y) pairs drawn as a solid line.
    pub theory: Vec<(f64, f64)>,
    /// Measurements: (x, low, measured, high); low = high = measured when
    /// the value carries no interval.
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// A chart.
#[derive(Debug, Clone, Default)]
pub struct Chart {
    /// Caption.
    pub title: String,
    /// Label of the x axis, with its unit.
    pub x_label: String,
    /// Label of the y axis, with its unit.
    pub y_label: String,
    /// Log scale on x.
    pub x_log: bool,
    /// Log scale on y.
    pub y_log: bool,
    /// On a log y axis, the lowest value shown: smaller values (zero) are
    /// drawn at this floor.
    pub y_floor: f64,
    /// The subjects.
    pub curves: Vec<Curve>,
    /// Horizontal dashed lines: (legend text, y).
    pub references: Vec<(String, f64)>,
}

/// Writes `chart` as an SVG file at `path` (drawn in memory, then written
/// whole: [`write_atomic`]).
pub fn draw(path: &Path, chart: &Chart) -> Result<(), String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (820, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let err = |e: Box<dyn std::error::Error>| format!("plot {}: {e}", path.display());
        let (x0, x1) = x_range(chart);
        let (y0, y1) = y_range(chart);
        match (chart.x_log, chart.y_log) {
            (true, true) => panel(&root, chart, (x0..x1).log_scale(), (y0..y1).log_scale()),
            (true, false) => panel(&root, chart, (x0..x1).log_scale(), y0..y1),
            (false, true) => panel(&root, chart, x0..x1, (y0..y1).log_scale()),
            (false, false) => panel(&root, chart, x0..x1, y0..y1),
        }
        .map_err(err)?;
        root.present()
            .map_err(|e| format!("plot {}: {e}", path.display()))?;
    }
    write_atomic(path, svg)
}

fn xs(chart: &Chart) -> impl Iterator<Item = f64> + '_ {
    chart.curves.iter().flat_map(|c| {
        c.theory
            .iter()
            .map(|p| p.0)
            .chain(c.points.iter().map(|p| p.0))
    })
}

fn ys(chart: &Chart) -> impl Iterator<Item = f64> + '_ {
    chart
        .curves
        .iter()
        .flat_map(|c| {
            c.theory
                .iter()
                .map(|p| p.1)
                .chain(c.points.iter().flat_map(|p| [p.1, p.2, p.3]))
        })
        .chain(chart.references.iter().map(|r| r.1))
        .filter(|y| y.is_finite())
}

fn x_range(chart: &Chart) -> (f64, f64) {
    let (lo, hi) = xs(chart)
        .filter(|x| x.is_finite() && (!chart.x_log || *x > 0.0))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
    if !lo.is_finite() {
        return (1.0, 10.0);
    }
    if chart.x_log {
        (lo / 1.25, hi * 1.25)
    } else {
        let pad = (hi - lo).max(1e-9) * 0.04;
        (lo - pad, hi + pad)
    }
}

fn y_range(chart: &Chart) -> (f64, f64) {
    if chart.y_log {
        let floor = if chart.y_floor > 0.0 {
            chart.y_floor
        } else {
            1e-6
        };
        let (lo, hi) = ys(chart)
            .filter(|&y| y >= floor)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
                (a.min(y), b.max(y))
            });
        if !lo.is_finite() {
            return (floor, 1.0);
        }
        (
            10f64.powf(lo.log10().floor()).max(floor),
            10f64.powf(hi.log10().ceil()).max(lo * 10.0),
        )
    } else {
        let hi = ys(chart).fold(0.0f64, f64::max);
        let lo = ys(chart).fold(0.0f64, f64::min);
        (lo, if hi > lo { hi * 1.08 } else { lo + 1.0 })
    }
}

fn panel<X, Y>(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    chart: &Chart,
    x: X,
    y: Y,
) -> Result<(), Box<dyn std::error::Error>>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut ctx = ChartBuilder::on(area)
        .caption(&chart.title, ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(74)
        .build_cartesian_2d(x, y)?;
    let y_lo = ctx.y_range().start;
    let clamp = |v: f64| if v < y_lo { y_lo } else { v };
    ctx.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .draw()?;

    for (i, curve) in chart.curves.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let legend = move |(x, y): (i32, i32)| {
            PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
        };
        if curve.theory.is_empty() {
            ctx.draw_series(
                curve
                    .points
                    .iter()
                    .map(|&(x, _, y, _)| Circle::new((x, clamp(y)), 3, color.filled())),
            )?
            .label(&curve.label)
            .legend(legend);
        } else {
            ctx.draw_series(LineSeries::new(
                curve.theory.iter().map(|&(x, y)| (x, clamp(y))),
                color.stroke_width(2),
            ))?
            .label(&curve.label)
            .legend(legend);
        }
        ctx.draw_series(curve.points.iter().map(|&(x, lo, y, hi)| {
            ErrorBar::new_vertical(
                x,
                clamp(lo),
                clamp(y),
                clamp(hi),
                color.filled().stroke_width(1),
                7,
            )
        }))?;
    }
    let (x0, x1) = (ctx.x_range().start, ctx.x_range().end);
    for (j, (label, y)) in chart.references.iter().enumerate() {
        let color = if j == 0 {
            BLACK
        } else {
            RGBColor(120, 120, 120)
        };
        ctx.draw_series(DashedLineSeries::new(
            [(x0, *y), (x1, *y)],
            8,
            5,
            color.stroke_width(2),
        ))?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    ctx.configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// A tick label: powers of ten as `1e5`, other values with at most four
/// significant decimals and no trailing zeros.
fn tick(v: &f64) -> String {
    let v = *v;
    if v == 0.0 {
        return "0".into();
    }
    if v.abs() >= 1e5 || v.abs() < 1e-2 {
        return format!("{v:.0e}");
    }
    let text = format!("{v:.4}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(&1.0500000000000003), "1.05");
        assert_eq!(tick(&100.0), "100");
        assert_eq!(tick(&0.0), "0");
        assert_eq!(tick(&100_000.0), "1e5");
        assert_eq!(tick(&0.001), "1e-3");
    }
}
