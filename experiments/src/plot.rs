//! SVG charts (plotters): an x–y chart with a log or linear scale on each
//! axis, theory as lines, measurements as points with their intervals, and
//! horizontal reference lines (a target rate, a bound). The fpr, deletion
//! and growth experiments all draw with it.

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

use crate::exp::Error;

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
    /// Set the series' points a little apart on x, for charts whose series
    /// are measured at the same x with nearly the same value.
    pub dodge: bool,
}

/// `chart` as SVG; `name` (its file name) labels an error.
pub fn draw(name: &str, chart: &Chart) -> Result<String, Error> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1140, 580)).into_drawing_area();
        // plotters' errors are not Send: their messages are kept.
        let err = |e: Box<dyn std::error::Error>| Error::plot(name)(e.to_string());
        root.fill(&WHITE).map_err(|e| err(Box::new(e)))?;
        let (x0, x1) = x_range(chart);
        let (y0, y1) = y_range(chart);
        match (chart.x_log, chart.y_log) {
            (true, true) => panel(&root, chart, (x0..x1).log_scale(), (y0..y1).log_scale()),
            (true, false) => panel(&root, chart, (x0..x1).log_scale(), y0..y1),
            (false, true) => panel(&root, chart, x0..x1, (y0..y1).log_scale()),
            (false, false) => panel(&root, chart, x0..x1, y0..y1),
        }
        .map_err(err)?;
        root.present().map_err(|e| err(Box::new(e)))?;
    }
    Ok(svg)
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
        // Room on the right for the legend, so that it hides no point.
        .margin_right(CHART_LEGEND_WIDTH)
        .x_label_area_size(44)
        .y_label_area_size(74)
        .build_cartesian_2d(x, y)?;
    let (y_lo, y_hi) = (ctx.y_range().start, ctx.y_range().end);
    let (x0, x1) = (ctx.x_range().start, ctx.x_range().end);
    // A log axis of a decade or two gets labels between the powers of ten
    // (plotters adds them only when asked for many).
    let y_labels = if chart.y_log && (y_hi / y_lo).log10() <= 2.5 {
        30
    } else {
        12
    };
    ctx.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .x_labels(10)
        .y_labels(y_labels)
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .draw()?;

    let count = chart.curves.len().max(1) as f64;
    for (i, curve) in chart.curves.iter().enumerate() {
        let color = SAFE[i % SAFE.len()];
        // A theory line already drawn for an earlier series (the same
        // formula at the same parameters) is not drawn again over it: the
        // legend says whose line it shares.
        if same_line_as(chart, i).is_none() {
            // Theory below the axis is not drawn (a clamped line would look
            // like a value): the line is cut into the runs above it.
            let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
            for &(x, y) in &curve.theory {
                if y.is_finite() && y >= y_lo {
                    if let Some(run) = runs.last_mut() {
                        run.push((x, y));
                    }
                } else if runs.last().is_some_and(|r| !r.is_empty()) {
                    runs.push(Vec::new());
                }
            }
            for run in runs.into_iter().filter(|r| r.len() > 1) {
                let style = color.stroke_width(2);
                match i % 3 {
                    0 => drop(ctx.draw_series(LineSeries::new(run, style))?),
                    1 => drop(ctx.draw_series(DashedLineSeries::new(run, 10, 6, style))?),
                    _ => drop(ctx.draw_series(DashedLineSeries::new(run, 3, 4, style))?),
                }
            }
        }
        // Series sharing an x are set a few pixels apart, so that none
        // hides another, whatever the axis's scale.
        let dx = if chart.dodge {
            ((i as f64 - (count - 1.0) / 2.0) * DODGE_PIXELS).round() as i32
        } else {
            0
        };
        let at = |x: f64, y: f64| {
            let (px, py) = ctx.backend_coord(&(x, y));
            (px + dx, py)
        };
        let bar = color.stroke_width(1);
        for &(x, lo, y, hi) in &curve.points {
            if !chart.y_log || (y > 0.0 && y >= y_lo) {
                let (px, py) = at(x, y);
                let (top, bottom) = (at(x, hi).1, at(x, lo.max(y_lo)).1);
                area.draw(&PathElement::new([(px, top), (px, bottom)], bar))?;
                for end in [top, bottom] {
                    area.draw(&PathElement::new([(px - 3, end), (px + 3, end)], bar))?;
                }
                marker(area, i, (px, py), color)?;
            } else if hi > y_lo {
                // A value below the axis (no event counted) is an upper
                // limit: a bar from the axis to the top of its interval,
                // capped by a downward arrowhead.
                let (px, top) = at(x, hi);
                area.draw(&PathElement::new([(px, top), (px, at(x, y_lo).1)], bar))?;
                area.draw(&Polygon::new(
                    vec![(px - 4, top), (px + 4, top), (px, top + 7)],
                    color.filled(),
                ))?;
            }
        }
    }
    for (j, (_, y)) in chart.references.iter().enumerate() {
        ctx.draw_series(DashedLineSeries::new(
            [(x0, *y), (x1, *y)],
            8,
            5,
            reference_color(j).stroke_width(2),
        ))?;
    }
    legend(area, chart)
}

/// Pixels between the points of neighbouring series when a chart dodges.
const DODGE_PIXELS: f64 = 7.0;

/// The earlier series whose theory line is exactly series `i`'s, if any.
fn same_line_as(chart: &Chart, i: usize) -> Option<usize> {
    let theory = &chart.curves[i].theory;
    if theory.is_empty() {
        return None;
    }
    chart.curves[..i].iter().position(|c| c.theory == *theory)
}

/// Series `i`'s marker (one of four shapes) at pixel `at` of `area`.
fn marker(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    i: usize,
    at: (i32, i32),
    color: RGBColor,
) -> Result<(), Box<dyn std::error::Error>> {
    match i % 4 {
        0 => area.draw(&Circle::new(at, 4, color.filled()))?,
        1 => area.draw(&TriangleMarker::new(at, 5, color.filled()))?,
        2 => area.draw(&Cross::new(at, 4, color.stroke_width(2)))?,
        _ => area.draw(&Rectangle::new(
            [(at.0 - 4, at.1 - 4), (at.0 + 4, at.1 + 4)],
            color.filled(),
        ))?,
    }
    Ok(())
}

/// Black for the first reference line, grey for the others.
fn reference_color(j: usize) -> RGBColor {
    if j == 0 {
        BLACK
    } else {
        RGBColor(120, 120, 120)
    }
}

/// The legend of a [`Chart`], in the right margin of the whole area
/// (plotters' own legend box cannot leave the plotting area): each series'
/// line style, marker and label, then the reference lines.
fn legend(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    chart: &Chart,
) -> Result<(), Box<dyn std::error::Error>> {
    let (width, _) = area.dim_in_pixel();
    let x0 = width as i32 - CHART_LEGEND_WIDTH as i32 + 4;
    let mut y = 56;
    let font = ("sans-serif", 12);
    for (i, curve) in chart.curves.iter().enumerate() {
        let color = SAFE[i % SAFE.len()];
        let line = [(x0, y), (x0 + 26, y)];
        let style = color.stroke_width(2);
        if !curve.theory.is_empty() && same_line_as(chart, i).is_none() {
            match i % 3 {
                0 => area.draw(&PathElement::new(line, style))?,
                1 => area.draw(&PathElement::new([(x0, y), (x0 + 10, y)], style))?,
                _ => {
                    for k in 0..4 {
                        area.draw(&PathElement::new(
                            [(x0 + 7 * k, y), (x0 + 7 * k + 3, y)],
                            style,
                        ))?;
                    }
                }
            }
            if i % 3 == 1 {
                area.draw(&PathElement::new([(x0 + 16, y), (x0 + 26, y)], style))?;
            }
        }
        if !curve.points.is_empty() {
            marker(area, i, (x0 + 13, y), color)?;
        }
        let label = match same_line_as(chart, i) {
            Some(j) => format!("{} (line as {})", curve.label, chart.curves[j].label),
            None => curve.label.clone(),
        };
        area.draw(&Text::new(label, (x0 + 32, y - 6), font))?;
        y += 18;
    }
    for (j, (label, _)) in chart.references.iter().enumerate() {
        let style = reference_color(j).stroke_width(2);
        area.draw(&PathElement::new([(x0, y), (x0 + 10, y)], style))?;
        area.draw(&PathElement::new([(x0 + 16, y), (x0 + 26, y)], style))?;
        area.draw(&Text::new(label.clone(), (x0 + 32, y - 6), font))?;
        y += 18;
    }
    if chart.y_log
        && chart
            .curves
            .iter()
            .any(|c| c.points.iter().any(|p| p.2 <= 0.0))
    {
        area.draw(&Text::new(
            "arrow: none counted (upper limit)",
            (x0, y + 4),
            ("sans-serif", 11),
        ))?;
    }
    Ok(())
}

/// Colours that read on white and for colour-blind readers (Okabe and Ito,
/// with a darker yellow), then grey: one per series of a [`CategoryChart`].
const SAFE: [RGBColor; 9] = [
    RGBColor(0, 0, 0),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 158, 115),
    RGBColor(190, 165, 0),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(204, 121, 167),
    RGBColor(120, 120, 120),
];

/// Pixels to the right of a [`Chart`]'s plot, for its legend (labels name
/// the series whose line they share).
const CHART_LEGEND_WIDTH: u32 = 330;

/// Pixels to the right of a [`CategoryChart`]'s plot, for its legend.
const LEGEND_WIDTH: u32 = 250;

/// One subject of a [`CategoryChart`].
#[derive(Debug, Clone, Default)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Measurements: (category, low, measured, high).
    pub points: Vec<(usize, f64, f64, f64)>,
    /// Theory per category, drawn as a line through the series' points.
    pub theory: Vec<(usize, f64)>,
}

/// A chart of a few named categories on x, each series drawn a little to
/// the side of the others within a category so that none hides another.
#[derive(Debug, Clone, Default)]
pub struct CategoryChart {
    /// Caption.
    pub title: String,
    /// Label of the x axis.
    pub x_label: String,
    /// Label of the y axis, with its unit.
    pub y_label: String,
    /// The categories, left to right.
    pub categories: Vec<String>,
    /// The subjects (at most nine: one colour each).
    pub series: Vec<Series>,
}

/// `chart` as SVG, with a log y axis spanning every value (no value is
/// drawn at the floor: zeros are left out and the caller says so); `name`
/// (its file name) labels an error.
pub fn draw_categories(name: &str, chart: &CategoryChart) -> Result<String, Error> {
    // plotters' errors are not Send: their messages are kept.
    let err = |e: Box<dyn std::error::Error>| Error::plot(name)(e.to_string());
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1080, 620)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(Box::new(e)))?;
        category_panel(&root, chart).map_err(err)?;
        root.present().map_err(|e| err(Box::new(e)))?;
    }
    Ok(svg)
}

fn category_panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    chart: &CategoryChart,
) -> Result<(), Box<dyn std::error::Error>> {
    let positive = chart
        .series
        .iter()
        .flat_map(|s| {
            s.points
                .iter()
                .flat_map(|p| [p.1, p.2, p.3])
                .chain(s.theory.iter().map(|t| t.1))
        })
        .filter(|y| y.is_finite() && *y > 0.0);
    let (lo, hi) = positive.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
        (a.min(y), b.max(y))
    });
    let (lo, hi) = if lo.is_finite() {
        (
            10f64.powf(lo.log10().floor()),
            10f64.powf(hi.log10().ceil()),
        )
    } else {
        (0.1, 1.0)
    };
    let n = chart.categories.len();
    let mut ctx = ChartBuilder::on(area)
        .caption(&chart.title, ("sans-serif", 20))
        .margin(14)
        // Room on the right for the legend, so that it hides no point.
        .margin_right(LEGEND_WIDTH)
        .x_label_area_size(44)
        .y_label_area_size(74)
        .build_cartesian_2d(-0.5..n as f64 - 0.5, (lo..hi).log_scale())?;
    let names = chart.categories.clone();
    let category = move |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-9 && i >= 0.0 {
            names.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    ctx.configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .x_label_formatter(&category)
        .y_label_formatter(&tick)
        .draw()?;
    let count = chart.series.len().max(1) as f64;
    let width = 0.8 / count;
    for (j, s) in chart.series.iter().enumerate() {
        let color = SAFE[j % SAFE.len()];
        let dx = (j as f64 - (count - 1.0) / 2.0) * width;
        let x = |c: usize| c as f64 + dx;
        let shape = j % 3;
        let shown: Vec<(f64, f64, f64, f64)> = s
            .points
            .iter()
            .filter(|p| p.2 > 0.0)
            .map(|&(c, l, y, h)| (x(c), l.max(lo), y, h))
            .collect();
        if !s.theory.is_empty() {
            ctx.draw_series(LineSeries::new(
                s.theory
                    .iter()
                    .filter(|t| t.1 > 0.0)
                    .map(|&(c, y)| (x(c), y)),
                color.stroke_width(1),
            ))?;
        }
        ctx.draw_series(
            shown
                .iter()
                .map(|&(x, l, y, h)| ErrorBar::new_vertical(x, l, y, h, color.stroke_width(1), 5)),
        )?;
        // One marker shape per series as well as one colour.
        let at = shown.iter().map(|&(x, _, y, _)| (x, y));
        match shape {
            0 => drop(ctx.draw_series(at.map(|p| Circle::new(p, 4, color.filled())))?),
            1 => drop(ctx.draw_series(at.map(|p| TriangleMarker::new(p, 5, color.filled())))?),
            _ => drop(ctx.draw_series(at.map(|p| Cross::new(p, 4, color.stroke_width(2))))?),
        }
    }
    // The legend, drawn in the right margin of the whole area (plotters'
    // own legend box cannot leave the chart's plotting area).
    let (width, _) = area.dim_in_pixel();
    let x0 = width as i32 - LEGEND_WIDTH as i32 + 10;
    for (j, s) in chart.series.iter().enumerate() {
        let color = SAFE[j % SAFE.len()];
        let (gx, y) = (x0 + 6, 56 + 16 * j as i32);
        match j % 3 {
            0 => area.draw(&Circle::new((gx, y), 4, color.filled()))?,
            1 => area.draw(&TriangleMarker::new((gx, y), 5, color.filled()))?,
            _ => area.draw(&Cross::new((gx, y), 4, color.stroke_width(2)))?,
        }
        area.draw(&Text::new(
            s.label.clone(),
            (x0 + 18, y - 6),
            ("sans-serif", 12),
        ))?;
    }
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
