//! SVG charts (plotters): an x–y chart with a log or linear scale on each
//! axis, theory as lines, measurements as points with their intervals, and
//! horizontal reference lines (a target rate, a bound); several such charts
//! stacked as the panels of one figure; and a chart of named categories.
//! A chart drawn elsewhere (the throughput experiment's Pareto chart) takes
//! its SVG, palette, dashes and log axes from here.
//!
//! Every series has its own colour (Okabe and Ito's palette, which reads on
//! white and for colour-blind readers), its own marker and its own dash
//! pattern, so that series are told apart without colour. No value is
//! clamped onto an axis: theory below (or above) the axis is cut, and a
//! measurement of zero (or one below a log axis) is drawn as an upper limit,
//! an open down-arrow at the top of its interval, which the legend explains.

use plotters::coord::Shift;
use plotters::coord::combinators::WithKeyPoints;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

use crate::exp::Error;

mod categories;
mod style;

pub use categories::{CategoryChart, Series, draw_categories};
use style::*;
pub(crate) use style::{LEGEND_WIDTH, Legend, SAFE, dashed, legend_bottom};

/// One subject: its theory as a line, its measurements as points.
#[derive(Debug, Clone, Default)]
pub struct Curve {
    /// Legend text.
    pub label: String,
    /// Theory, as (x, y) pairs drawn as a line (each series its own dash
    /// pattern).
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
    /// On a log y axis, the lowest value the axis may reach. Theory below
    /// the axis is cut; a measurement below it (zero) is drawn as an upper
    /// limit at the top of its interval, never at the floor.
    pub y_floor: f64,
    /// The subjects.
    pub curves: Vec<Curve>,
    /// Horizontal dashed lines: (legend text, y).
    pub references: Vec<(String, f64)>,
    /// Set the series' points a little apart on x, for charts whose series
    /// are measured at the same x with nearly the same value.
    pub dodge: bool,
    /// The y axis (low, high), instead of one spanning the values: the
    /// panels of one figure share theirs. Values outside are not drawn.
    pub y_range: Option<(f64, f64)>,
    /// Lines of text under the legend: what a symbol means, what varies
    /// from run to run.
    pub notes: Vec<String>,
}

/// Pixels to move series `i`'s point at `x` sideways: the series with a
/// point at `x`, in legend order, are spread [`DODGE_PIXELS`] apart and
/// centred on it.
fn dodge(chart: &Chart, i: usize, x: f64) -> i32 {
    let here: Vec<usize> = (0..chart.curves.len())
        .filter(|&j| chart.curves[j].points.iter().any(|p| p.0 == x))
        .collect();
    let rank = here.iter().position(|&j| j == i).unwrap_or(0) as f64;
    let middle = (here.len().max(1) - 1) as f64 / 2.0;
    ((rank - middle) * DODGE_PIXELS).round() as i32
}

/// The drawing area of a chart (a whole figure or one of its panels).
pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// What a panel's drawing returns: plotters' errors are not Send, so they
/// travel as boxes and are kept as their messages.
pub(crate) type Drawn<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// `chart` as SVG; `name` (its file name) labels an error.
pub fn draw(name: &str, chart: &Chart) -> Result<String, Error> {
    draw_panels(name, std::slice::from_ref(chart))
}

/// `panels` as the panels of one SVG, stacked top to bottom, each with its
/// own axes and legend (a shared `y_range` makes them compare by height);
/// `name` (its file name) labels an error.
pub fn draw_panels(name: &str, panels: &[Chart]) -> Result<String, Error> {
    let height = match panels.len() {
        0 | 1 => 580,
        n => 430 * n as u32,
    };
    svg(name, (1140, height), |root| {
        let areas = root.split_evenly((panels.len().max(1), 1));
        for (area, chart) in areas.iter().zip(panels) {
            draw_chart(area, chart)?;
        }
        Ok(())
    })
}

/// An SVG of `size` pixels that `paint` draws on white; `name` (its file
/// name) labels an error.
pub(crate) fn svg(
    name: &str,
    size: (u32, u32),
    paint: impl FnOnce(&Area<'_>) -> Drawn,
) -> Result<String, Error> {
    let mut svg = String::new();
    let drawn = || -> Drawn {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE)?;
        paint(&root)?;
        Ok(root.present()?)
    };
    drawn().map_err(|e| Error::plot(name)(e.to_string()))?;
    Ok(svg)
}

/// The lowest and the highest of `values`, if there is one.
pub(crate) fn extent(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |span, v| match span {
        None => Some((v, v)),
        Some((lo, hi)) => Some((v.min(lo), v.max(hi))),
    })
}

/// A chart on `area` captioned `title`, with room on its right for the
/// legend, so that the legend hides no point.
fn framed<'a, 'b>(area: &'a Area<'b>, title: &str) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(title, ("sans-serif", 20))
        .margin(14)
        .margin_right(LEGEND_WIDTH)
        .x_label_area_size(44)
        .y_label_area_size(74);
    builder
}

/// Pixels of `area` for the values of `ctx`: a panel may not start at the
/// figure's corner.
fn pixels<'c, X, Y>(
    area: &Area<'_>,
    ctx: &'c ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, Y>>,
) -> impl Fn(f64, f64) -> (i32, i32) + 'c
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let base = area.get_base_pixel();
    move |x, y| {
        let (px, py) = ctx.backend_coord(&(x, y));
        (px - base.0, py - base.1)
    }
}

fn draw_chart(area: &Area<'_>, chart: &Chart) -> Drawn {
    let (x0, x1) = x_range(chart);
    let (y0, y1) = chart.y_range.unwrap_or_else(|| y_range(chart));
    match (chart.x_log, chart.y_log) {
        (true, true) => {
            let (x, y) = (log_axis(x0, x1, DIGITS), log_axis(y0, y1, DIGITS));
            panel(area, chart, x, y)
        }
        (true, false) => panel(area, chart, log_axis(x0, x1, DIGITS), y0..y1),
        (false, true) => panel(area, chart, x0..x1, log_axis(y0, y1, DIGITS)),
        (false, false) => panel(area, chart, x0..x1, y0..y1),
    }
}

/// The span, in decades, up to which a log axis of this module labels every
/// digit 1–9 × 10^e: a decade or so.
const DIGITS: f64 = 1.2;

/// A log axis from `lo` to `hi` labelled by [`log_ticks`].
pub(crate) fn log_axis(lo: f64, hi: f64, digits: f64) -> WithKeyPoints<LogCoord<f64>> {
    let (bold, light) = log_ticks(lo, hi, digits);
    (lo..hi)
        .log_scale()
        .with_key_points(bold)
        .with_light_points(light)
}

/// The labelled and the grid-only values of a log axis from `lo` to `hi`:
/// 1–9 × 10^e over up to `digits` decades ([`DIGITS`] on the charts of
/// this module), 1, 2, 5 × 10^e over up to three, powers of ten
/// beyond (every other one past ten decades). Each value is read
/// from its decimal text, so none is labelled twice or missed by rounding
/// (plotters' own log ticks repeat the top power of ten and can skip the
/// bottom one).
fn log_ticks(lo: f64, hi: f64, digits: f64) -> (Vec<f64>, Vec<f64>) {
    let (mut bold, mut light) = (Vec::new(), Vec::new());
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return (bold, light);
    }
    let decades = (hi / lo).log10();
    let labelled: &[u32] = if decades <= digits {
        &[1, 2, 3, 4, 5, 6, 7, 8, 9]
    } else if decades <= 3.2 {
        &[1, 2, 5]
    } else {
        &[1]
    };
    let every = if decades > 10.0 { 2 } else { 1 };
    let inside = |v: f64| v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9);
    for e in (lo.log10().floor() as i32)..=(hi.log10().ceil() as i32) {
        for m in 1..=9u32 {
            let v: f64 = format!("{m}e{e}").parse().unwrap_or(f64::NAN);
            if !inside(v) {
                continue;
            }
            if labelled.contains(&m) && (m != 1 || e.rem_euclid(every) == 0) {
                bold.push(v);
            } else if decades <= 8.0 {
                light.push(v);
            }
        }
    }
    if bold.len() < 2 {
        // Less than a decade between labels: five values evenly spaced on
        // the log scale, with the fewest digits that keep them apart.
        let even: Vec<f64> = (0..5)
            .map(|i| lo * (hi / lo).powf(f64::from(i) / 4.0))
            .collect();
        for digits in 1..=6 {
            let mut shown: Vec<f64> = even
                .iter()
                .map(|v| format!("{v:.digits$e}").parse().unwrap_or(*v))
                .filter(|&v| inside(v))
                .collect();
            shown.dedup();
            if shown.len() >= 4 {
                bold = shown;
                break;
            }
        }
    }
    (bold, light)
}

fn ys(chart: &Chart) -> impl Iterator<Item = f64> + '_ {
    let curves = chart.curves.iter().flat_map(|c| {
        let points = c.points.iter().flat_map(|p| [p.1, p.2, p.3]);
        c.theory.iter().map(|p| p.1).chain(points)
    });
    let references = chart.references.iter().map(|r| r.1);
    curves.chain(references).filter(|y| y.is_finite())
}

fn x_range(chart: &Chart) -> (f64, f64) {
    let xs = chart.curves.iter().flat_map(|c| {
        let points = c.points.iter().map(|p| p.0);
        c.theory.iter().map(|p| p.0).chain(points)
    });
    let shown = xs.filter(|x| x.is_finite() && (!chart.x_log || *x > 0.0));
    let Some((lo, hi)) = extent(shown) else {
        return (1.0, 10.0);
    };
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
        let Some((lo, hi)) = extent(ys(chart).filter(|&y| y >= floor)) else {
            return (floor, 1.0);
        };
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

/// The parts of a theory line inside the y axis `[lo, hi]`, each ended
/// where it crosses the axis's edge (interpolated on the axes' scales), so
/// that no part of a line is clamped onto the axis.
fn runs_inside(chart: &Chart, line: &[(f64, f64)], lo: f64, hi: f64) -> Vec<Vec<(f64, f64)>> {
    let fy = |y: f64| if chart.y_log { y.log10() } else { y };
    let fx = |x: f64| if chart.x_log { x.log10() } else { x };
    let gx = |t: f64| if chart.x_log { 10f64.powf(t) } else { t };
    let ok = |y: f64| y.is_finite() && (!chart.y_log || y > 0.0);
    let inside = |y: f64| ok(y) && (lo..=hi).contains(&y);
    // Where the segment a–b meets the level `edge`.
    let cross = |a: (f64, f64), b: (f64, f64), edge: f64| {
        let t = (fy(edge) - fy(a.1)) / (fy(b.1) - fy(a.1));
        (gx(fx(a.0) + t * (fx(b.0) - fx(a.0))), edge)
    };
    let edge_of = |y: f64| if y > hi { hi } else { lo };
    let mut runs: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut prev: Option<(f64, f64)> = None;
    for &p in line {
        if !p.0.is_finite() || (chart.x_log && p.0 <= 0.0) {
            prev = None;
            continue;
        }
        match (prev, inside(p.1)) {
            (Some(a), true) if inside(a.1) => {
                if let Some(run) = runs.last_mut() {
                    run.push(p);
                }
            }
            (Some(a), true) if ok(a.1) => runs.push(vec![cross(a, p, edge_of(a.1)), p]),
            (_, true) => runs.push(vec![p]),
            (Some(a), false) if inside(a.1) && ok(p.1) => {
                if let Some(run) = runs.last_mut() {
                    run.push(cross(a, p, edge_of(p.1)));
                }
            }
            _ => {}
        }
        prev = Some(p);
    }
    runs.retain(|r| r.len() > 1);
    runs
}

fn panel<X, Y>(area: &Area<'_>, chart: &Chart, x: X, y: Y) -> Drawn
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut ctx = framed(area, &chart.title).build_cartesian_2d(x, y)?;
    let (y_lo, y_hi) = (ctx.y_range().start, ctx.y_range().end);
    let (x0, x1) = (ctx.x_range().start, ctx.x_range().end);
    ctx.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .x_labels(10)
        .y_labels(12)
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .draw()?;
    let pixel = pixels(area, &ctx);

    let mut limits = false;
    for (i, curve) in chart.curves.iter().enumerate() {
        let color = color(i);
        // A theory line already drawn for an earlier series (the same
        // formula at the same parameters) is not drawn again over it: the
        // legend says whose line it shares.
        if same_line_as(chart, i).is_none() {
            for run in runs_inside(chart, &curve.theory, y_lo, y_hi) {
                let run: Vec<(i32, i32)> = run.iter().map(|&(x, y)| pixel(x, y)).collect();
                dashed(area, &run, DASHES[i % DASHES.len()], color.stroke_width(2))?;
            }
        }
        // Series sharing an x are set a few pixels apart, so that none
        // hides another, whatever the axis's scale: spread around that x
        // among the series measured there, so that a lone point sits on
        // its x.
        let at = |x: f64, y: f64| {
            let (px, py) = pixel(x, y);
            let dx = if chart.dodge { dodge(chart, i, x) } else { 0 };
            (px + dx, py)
        };
        for &(x, lo, y, hi) in &curve.points {
            let shown = |v: f64| v.is_finite() && (!chart.y_log || v > 0.0);
            let within_x = (x0.min(x1)..=x0.max(x1)).contains(&x);
            // A zero count (or a value below a log axis) with an interval
            // above it: an upper limit at the top of that interval.
            let below = y <= 0.0 && hi > y || chart.y_log && !(shown(y) && y >= y_lo);
            if !within_x || y > y_hi {
                continue;
            }
            if below {
                if shown(hi) && hi >= y_lo && hi <= y_hi {
                    upper_limit(area, at(x, hi), color)?;
                    limits = true;
                }
                continue;
            }
            if hi > lo {
                let bottom = if shown(lo) { lo.max(y_lo) } else { y_lo };
                let (px, top) = at(x, hi.min(y_hi));
                error_bar(area, px, (top, at(x, bottom).1), color)?;
            }
            marker(area, i, at(x, y), color)?;
        }
    }
    for (j, (_, y)) in chart.references.iter().enumerate() {
        if (y_lo..=y_hi).contains(y) {
            let line = reference_color(j).stroke_width(1);
            dashed(area, &[pixel(x0, *y), pixel(x1, *y)], REFERENCE_DASH, line)?;
        }
    }
    legend(area, chart, limits)
}

/// A tick label: powers of ten as `1e5`, other values with at most four
/// significant decimals and no trailing zeros.
pub(crate) fn tick(v: &f64) -> String {
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
    fn dodged_points_centre_on_their_x_among_the_series_there() {
        let at = |xs: &[f64]| Curve {
            points: xs.iter().map(|&x| (x, 1.0, 1.0, 1.0)).collect(),
            ..Curve::default()
        };
        let chart = Chart {
            curves: vec![at(&[1.0, 2.0]), at(&[2.0, 3.0]), at(&[1.0, 2.0])],
            dodge: true,
            ..Chart::default()
        };
        let step = DODGE_PIXELS.round() as i32;
        // Three series at x = 2, two at x = 1 (the middle one has none),
        // one at x = 3.
        assert_eq!([0, 1, 2].map(|i| dodge(&chart, i, 2.0)), [-step, 0, step]);
        let half = (DODGE_PIXELS / 2.0).round() as i32;
        assert_eq!([0, 2].map(|i| dodge(&chart, i, 1.0)), [-half, half]);
        assert_eq!(dodge(&chart, 1, 3.0), 0, "a lone point sits on its x");
    }

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(&1.0500000000000003), "1.05");
        assert_eq!(tick(&100.0), "100");
        assert_eq!(tick(&0.0), "0");
        assert_eq!(tick(&100_000.0), "1e5");
        assert_eq!(tick(&0.001), "1e-3");
    }

    /// Every label once, the bottom power of ten included (plotters' own
    /// ticks gave 0.1 twice and no 1e-3 on 1e-3..0.1).
    #[test]
    fn log_ticks_label_each_value_once() {
        let (bold, light) = log_ticks(1e-3, 0.1, DIGITS);
        assert_eq!(bold, [1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 0.1], "{bold:?}");
        assert!(light.iter().all(|v| !bold.contains(v)));
        let (bold, _) = log_ticks(1e-7, 1.0, DIGITS);
        assert_eq!(bold.len(), 8);
        let (bold, _) = log_ticks(0.5, 0.9, DIGITS);
        assert_eq!(bold, vec![0.5, 0.6, 0.7, 0.8, 0.9]);
        let (bold, _) = log_ticks(1.01, 1.09, DIGITS);
        assert!(bold.len() >= 2, "{bold:?}");
    }

    fn chart(y_log: bool) -> Chart {
        Chart {
            y_log,
            ..Chart::default()
        }
    }

    /// A line leaving the axis ends at the axis's edge, never below it.
    #[test]
    fn theory_is_cut_at_the_axis() {
        let line = [(1.0, 1e-2), (2.0, 1e-4), (3.0, 1e-6), (4.0, 1e-4)];
        let runs = runs_inside(&chart(true), &line, 1e-5, 1.0);
        assert_eq!(runs.len(), 2, "{runs:?}");
        assert_eq!(runs[0][..2], [(1.0, 1e-2), (2.0, 1e-4)]);
        let end = runs[0][2];
        assert!(
            (end.0 - 2.5).abs() < 1e-9 && (end.1 - 1e-5).abs() < 1e-18,
            "{end:?}"
        );
        assert!((runs[1][0].1 - 1e-5).abs() < 1e-18);
        // Zero (log of −∞) cannot be crossed: the line stops at the last value.
        let line = [(1.0, 0.1), (2.0, 0.01), (3.0, 0.0)];
        let runs = runs_inside(&chart(true), &line, 1e-5, 1.0);
        assert_eq!(runs, vec![vec![(1.0, 0.1), (2.0, 0.01)]]);
        let runs = runs_inside(&chart(false), &[(0.0, 0.0), (1.0, 20.0)], 0.0, 10.0);
        assert_eq!(runs, vec![vec![(0.0, 0.0), (0.5, 10.0)]]);
    }

    /// A zero count is drawn as an upper limit and the legend says what
    /// the arrow means; the figure draws every panel.
    #[test]
    fn zeros_are_upper_limits() {
        let mut c = chart(true);
        c.y_floor = 1e-6;
        c.curves.push(Curve {
            label: "a".into(),
            theory: vec![(1.0, 1e-2), (2.0, 1e-8)],
            points: vec![(1.0, 9e-3, 1e-2, 1.1e-2), (2.0, 0.0, 0.0, 3e-5)],
        });
        let svg = draw("t.svg", &c).unwrap();
        assert!(svg.contains("upper bound"), "{svg}");
        let two = draw_panels("t.svg", &[c.clone(), c]).unwrap();
        assert_eq!(two.matches("upper bound").count(), 2);
    }
}
