//! SVG plots (plotters): rates on a log scale, theory as lines, measurements
//! as points with their confidence intervals.

use std::path::Path;

use plotters::prelude::*;

/// One curve: theory as a line, measurements as points with intervals.
#[derive(Debug, Clone, Default)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Theory, as (x, rate) pairs drawn as a line.
    pub theory: Vec<(f64, f64)>,
    /// Measurements: (x, low, measured, high).
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// One chart of a figure.
#[derive(Debug, Clone, Default)]
pub struct Panel {
    /// Caption above the chart.
    pub title: String,
    /// Label of the x axis, with its unit.
    pub x_label: String,
    /// Label of the y axis, with its unit.
    pub y_label: String,
    /// The curves.
    pub series: Vec<Series>,
    /// The lowest rate shown (for example, below one hit in all the probes);
    /// lower values are drawn at this floor. 0 lets the data decide.
    pub y_floor: f64,
}

/// Draws `panels` side by side into an SVG file at `path`.
pub fn log_rate_chart(path: &Path, panels: &[Panel]) -> Result<(), String> {
    let width = 640 * panels.len().max(1) as u32;
    let root = SVGBackend::new(path, (width, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let areas = root.split_evenly((1, panels.len().max(1)));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        draw_panel(area, panel).map_err(|e| format!("plot {}: {e}", path.display()))?;
    }
    root.present()
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn draw_panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    panel: &Panel,
) -> Result<(), Box<dyn std::error::Error>> {
    let xs = panel.series.iter().flat_map(|s| {
        s.theory
            .iter()
            .map(|p| p.0)
            .chain(s.points.iter().map(|p| p.0))
    });
    let (x_min, x_max) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    let ys = panel.series.iter().flat_map(|s| {
        s.theory
            .iter()
            .map(|p| p.1)
            .chain(s.points.iter().flat_map(|p| [p.1, p.2, p.3]))
    });
    let y_min = ys
        .filter(|&y| y > panel.y_floor)
        .fold(1.0f64, f64::min)
        .max(panel.y_floor);
    let y_lo = 10f64.powf(y_min.log10().floor());
    let (x_min, x_max) = if x_min.is_finite() {
        (x_min, x_max)
    } else {
        (0.0, 1.0)
    };
    let pad = (x_max - x_min).max(1e-9) * 0.04;

    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((x_min - pad)..(x_max + pad), (y_lo..1.0).log_scale())?;
    chart
        .configure_mesh()
        .x_desc(&panel.x_label)
        .y_desc(&panel.y_label)
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .draw()?;

    for (i, s) in panel.series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let clamp = |y: f64| y.max(y_lo);
        chart
            .draw_series(LineSeries::new(
                s.theory.iter().map(|&(x, y)| (x, clamp(y))),
                color.stroke_width(2),
            ))?
            .label(&s.label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart.draw_series(s.points.iter().map(|&(x, lo, y, hi)| {
            ErrorBar::new_vertical(
                x,
                clamp(lo),
                clamp(y),
                clamp(hi),
                color.filled().stroke_width(1),
                6,
            )
        }))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}
