//! A chart of a few named categories on x.

use super::*;

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

/// `chart` as SVG, with a log y axis spanning every value: a zero with an
/// interval above it is drawn as an upper limit at the top of that
/// interval, and a zero without one is left out (the caller says so);
/// `name` (its file name) labels an error.
pub fn draw_categories(name: &str, chart: &CategoryChart) -> Result<String, Error> {
    svg(name, (1080, 620), |root| category_panel(root, chart))
}

pub(super) fn category_panel(area: &Area<'_>, chart: &CategoryChart) -> Drawn {
    let values = chart.series.iter().flat_map(|s| {
        let theory = s.theory.iter().map(|t| t.1);
        s.points.iter().flat_map(|p| [p.1, p.2, p.3]).chain(theory)
    });
    let positive = values.filter(|y| y.is_finite() && *y > 0.0);
    let (lo, hi) = extent(positive).map_or((0.1, 1.0), |(lo, hi)| {
        let (bottom, top) = (lo.log10().floor(), hi.log10().ceil());
        let decade = |e: f64| 10f64.powf(e);
        (decade(bottom), decade(top).max(decade(bottom + 1.0)))
    });
    let n = chart.categories.len();
    let x = -0.5..n as f64 - 0.5;
    let mut ctx = framed(area, &chart.title).build_cartesian_2d(x, log_axis(lo, hi, DIGITS))?;
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
    let pixel = pixels(area, &ctx);
    let count = chart.series.len().max(1) as f64;
    let width = 0.8 / count;
    let mut limits = false;
    for (j, s) in chart.series.iter().enumerate() {
        let color = color(j);
        let dx = (j as f64 - (count - 1.0) / 2.0) * width;
        let x = |c: usize| c as f64 + dx;
        let line: Vec<(i32, i32)> = s
            .theory
            .iter()
            .filter(|t| t.1 > 0.0)
            .map(|&(c, y)| pixel(x(c), y))
            .collect();
        if line.len() > 1 {
            dashed(area, &line, DASHES[j % DASHES.len()], color.stroke_width(1))?;
        }
        for &(c, l, y, h) in &s.points {
            if y <= 0.0 {
                if h > 0.0 {
                    upper_limit(area, pixel(x(c), h), color)?;
                    limits = true;
                }
                continue;
            }
            if h > l {
                let (px, top) = pixel(x(c), h);
                error_bar(area, px, (top, pixel(x(c), l.max(lo)).1), color)?;
            }
            marker(area, j, pixel(x(c), y), color)?;
        }
    }
    let mut legend = Legend::new(area);
    for (j, s) in chart.series.iter().enumerate() {
        let color = color(j);
        let line =
            (!s.theory.is_empty()).then(|| (DASHES[j % DASHES.len()], color.stroke_width(1)));
        legend.entry(line, |area, at| marker(area, j, at, color), &s.label)?;
    }
    if limits {
        legend.upper_limits()?;
    }
    Ok(())
}
