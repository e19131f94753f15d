//! `pareto.svg`: miss look-up time against bits per item, one panel per
//! target rate on shared axes, one colour and marker per filter (filled for
//! bloomlab's, hollow for a peer's), the Pareto frontier as a dashed line.
//!
//! Its panels, point labels and hollow markers are its own; the SVG, the
//! palette, the dashes, the log axes and their labels are `crate::plot`'s.

use plotters::prelude::*;

use super::{RATES, Row, frontier};
use crate::exp::Error;
use crate::plot::{
    Area, Drawn, LEGEND_WIDTH, Legend, SAFE, dashed, extent, legend_bottom, log_axis, svg, tick,
};
use crate::table::{percent, short_percent};
use bloomlab_choose::numbers::grouped;

/// Marker shapes, cycled with the colours.
const SHAPES: usize = 4;

const SIZE: (u32, u32) = (1400, 620);

/// The notes under the legend.
const NOTES: [&str; 5] = [
    "filled: bloomlab; hollow: peer crate",
    "frontier: filters that take inserts, on target, no other beating both axes",
    "labels: the rate measured; grey: not on the frontier (off target, static: built once from all keys)",
    "markers that would overlap are set a few pixels apart sideways",
    "a label set away from its marker has a grey line back to it",
];

/// The chart's size: [`SIZE`], taller where the legend of `filters` rows,
/// the frontier's and the notes would run past the bottom.
fn size(filters: usize) -> (u32, u32) {
    let bottom = legend_bottom(filters + 1, &NOTES) + 20;
    (SIZE.0, SIZE.1.max(u32::try_from(bottom).unwrap_or(SIZE.1)))
}

/// The frontier's dash pattern (pixels on, off).
const FRONTIER_DASH: &[i32] = &[8, 5];

/// The chart of `rows` (every filter at every rate of [`RATES`]) as SVG;
/// `name` (its file name) labels an error.
pub(super) fn draw(name: &str, rows: &[Row], n: usize) -> Result<String, Error> {
    svg(name, size(names(rows).len()), |root| panels(root, rows, n))
}

/// The filters in order of first appearance: each one's colour and marker.
fn names(rows: &[Row]) -> Vec<(&str, bool)> {
    let mut out: Vec<(&str, bool)> = Vec::new();
    for r in rows {
        if !out.iter().any(|(n, _)| *n == r.name) {
            out.push((&r.name, r.crate_name.starts_with("bloomlab")));
        }
    }
    out
}

fn panels(root: &Area<'_>, rows: &[Row], n: usize) -> Drawn {
    let names = names(rows);
    let style = |name: &str| {
        let i = names.iter().position(|(n, _)| *n == name).unwrap_or(0);
        (SAFE[i % SAFE.len()], i % SHAPES, names[i].1)
    };
    // Shared log axes, so that the two rates read against each other and the
    // filters a few bits and nanoseconds apart do not pile up.
    let span = |v: &dyn Fn(&Row) -> f64| {
        let shown = rows.iter().map(v).filter(|x| x.is_finite() && *x > 0.0);
        extent(shown).map_or((1.0, 10.0), |(lo, hi)| {
            (nice(lo / 1.1, f64::floor), nice(hi * 1.1, f64::ceil))
        })
    };
    let (x0, x1) = span(&|r| r.bits_per_item);
    let (y0, y1) = span(&|r| r.measured.miss_ns);
    let (plots, _) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let halves = plots.split_evenly((1, RATES.len()));
    for (area, target) in halves.iter().zip(RATES) {
        let title = format!(
            "target {}: {} items and probes",
            short_percent(target),
            grouped(n as u64)
        );
        let mut ctx = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 18))
            .margin(14)
            .x_label_area_size(44)
            .y_label_area_size(64)
            // Every digit labelled up to two decades: times read closely.
            .build_cartesian_2d(log_axis(x0, x1, 2.0), log_axis(y0, y1, 2.0))?;
        ctx.configure_mesh()
            .x_desc("bits per item (table bytes × 8 / items), log scale")
            .y_desc("miss look-up (ns per op, best of 3), log scale")
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .draw()?;
        let best = frontier(rows, target);
        // The frontier's points first, so that the dodge moves the others:
        // the frontier's line joins true positions.
        let mut here: Vec<&Row> = rows.iter().filter(|r| r.target == target).collect();
        here.sort_by_key(|r| !best.iter().any(|b| b.name == r.name));
        let pixels = dodge(
            here.iter()
                .map(|r| ctx.backend_coord(&(r.bits_per_item, r.measured.miss_ns)))
                .collect(),
        );
        let at = |r: &Row| {
            here.iter()
                .position(|h| h.name == r.name)
                .map_or((0, 0), |i| pixels[i])
        };
        let line: Vec<(i32, i32)> = best.iter().map(|r| at(r)).collect();
        dashed(root, &line, FRONTIER_DASH, BLACK.stroke_width(2))?;
        let (xs, ys) = ctx.plotting_area().get_pixel_range();
        let bounds = (xs.start, ys.start, xs.end, ys.end);
        let mut labels = Labels::new(here.iter().map(|r| at(r)).collect(), bounds);
        for r in &here {
            let (color, shape, filled) = style(&r.name);
            marker(root, shape, filled, at(r), color)?;
        }
        // Every point named with the rate it measured: the frontier's in
        // black first (they get the places nearest their markers), then
        // the others in grey, those off target or static saying so.
        for r in &best {
            let font = ("sans-serif", 15).into_text_style(root);
            let text = format!("{} ({})", r.name, percent(r.fpr(n)));
            labels.place(root, text, at(r), font)?;
        }
        for r in here
            .iter()
            .filter(|r| !best.iter().any(|b| b.name == r.name))
        {
            let why = if !r.on_target() {
                ", off target"
            } else if !r.takes_inserts {
                ", static"
            } else {
                ""
            };
            let font = ("sans-serif", 13).into_font().color(&SAFE[8]);
            let text = format!("{} ({}{why})", r.name, percent(r.fpr(n)));
            labels.place(root, text, at(r), font)?;
        }
    }
    legend(root, &names)
}

/// Pixels between markers that would cover each other (filters of the same
/// size and about the same time), after setting them apart.
const DODGE_PIXELS: i32 = 11;

/// `points` with each one that would cover an earlier one moved sideways,
/// alternately right and left, until it covers none: a few pixels of x, so
/// that no marker hides another.
fn dodge(points: Vec<(i32, i32)>) -> Vec<(i32, i32)> {
    let mut out: Vec<(i32, i32)> = Vec::with_capacity(points.len());
    for (x, y) in points {
        let covers = |px: i32, out: &[(i32, i32)]| {
            out.iter()
                .any(|&(a, b)| (a - px).abs() < DODGE_PIXELS && (b - y).abs() < DODGE_PIXELS)
        };
        let mut px = x;
        for k in 1..8 {
            if !covers(px, &out) {
                break;
            }
            let side = if k % 2 == 1 { 1 } else { -1 };
            px = x + side * DODGE_PIXELS * (k + 1) / 2;
        }
        out.push((px, y));
    }
    out
}

/// Pixels kept clear around a label, across and up and down: the height
/// plotters estimates for a line of text leaves its glyphs touching a label
/// just above or below.
const LABEL_GAP: i32 = 3;

/// Point labels set beside their points where they cover no other label
/// and no marker: the first free place of a few around the point.
struct Labels {
    /// Boxes taken: (left, top, right, bottom) in pixels.
    taken: Vec<(i32, i32, i32, i32)>,
    /// The plotting area, the same way: a label stays inside it.
    bounds: (i32, i32, i32, i32),
}

impl Labels {
    /// Room for labels among markers at `points`, inside `bounds`.
    fn new(points: Vec<(i32, i32)>, bounds: (i32, i32, i32, i32)) -> Self {
        let r = MARKER_BOX;
        Self {
            taken: points
                .into_iter()
                .map(|(x, y)| (x - r, y - r, x + r, y + r))
                .collect(),
            bounds,
        }
    }

    /// Draws `text` in `font` beside the point `at`, with a thin grey line
    /// back to the point when the nearest free place is not next to it.
    fn place(
        &mut self,
        root: &Area<'_>,
        text: String,
        at: (i32, i32),
        font: TextStyle<'_>,
    ) -> Drawn {
        let (w, h) = root.estimate_text_size(&text, &font)?;
        let (l, t, beside) = self.spot(at, (w as i32, h as i32));
        if !beside {
            let (x, y) = at;
            let end = (
                x.clamp(l, l + w as i32),
                if y < t { t } else { t + h as i32 },
            );
            root.draw(&PathElement::new(vec![at, end], SAFE[8].stroke_width(1)))?;
        }
        root.draw(&Text::new(text, (l, t), font))?;
        Ok(())
    }

    /// Where a label of `w × h` pixels for the point `at` goes: its top
    /// left corner, and whether that is beside the point. The places
    /// tried are first those around the point, then the same sides at one
    /// line more above or below at a time; the first that covers no label
    /// or marker taken so far (with [`LABEL_GAP`] kept clear) and stays in
    /// the bounds wins. If none is free, the one overlapping least. The
    /// label's box is then taken.
    fn spot(&mut self, at: (i32, i32), (w, h): (i32, i32)) -> (i32, i32, bool) {
        let (x, y) = at;
        // Clear of the point's own marker, sideways or above and below.
        let (right, left) = (x + BESIDE, x - BESIDE - w);
        let near = [
            (right, y - h - 4),
            (right, y + 4),
            (left, y - h - 4),
            (left, y + 4),
            (right, y - h / 2),
            (left, y - h / 2),
            (x - w / 2, y - h - BESIDE),
            (x - w / 2, y + BESIDE),
        ];
        let line = h + LABEL_GAP;
        let farther = (1..=FARTHEST_LINES).flat_map(|k| {
            let (up, down) = (y - h - 4 - k * line, y + 4 + k * line);
            [(right, up), (right, down), (left, up), (left, down)]
        });
        let (bl, bt, br, bb) = self.bounds;
        let inside = |&(l, t): &(i32, i32)| l >= bl && t >= bt && l + w <= br && t + h <= bb;
        let overlap = |&(l, t): &(i32, i32)| -> i64 {
            self.taken
                .iter()
                .map(|&(a, b, c, d)| {
                    let across = (l + w + LABEL_GAP).min(c + LABEL_GAP) - l.max(a - LABEL_GAP);
                    let down = (t + h + LABEL_GAP).min(d + LABEL_GAP) - t.max(b - LABEL_GAP);
                    i64::from(across.max(0)) * i64::from(down.max(0))
                })
                .sum()
        };
        let candidates: Vec<(i32, i32)> = near.into_iter().chain(farther).collect();
        let index = candidates
            .iter()
            .position(|c| inside(c) && overlap(c) == 0)
            .or_else(|| {
                (0..candidates.len())
                    .filter(|&i| inside(&candidates[i]))
                    .min_by_key(|&i| overlap(&candidates[i]))
            })
            .unwrap_or(0);
        let (l, t) = candidates[index];
        self.taken.push((l, t, l + w, t + h));
        (l, t, index < near.len())
    }
}

/// Pixels from a point to the near edge of a label set beside it: past
/// its marker's box ([`Labels::new`]) and [`LABEL_GAP`].
const BESIDE: i32 = MARKER_BOX + LABEL_GAP + 1;

/// Pixels from a point to each side of the box its marker takes.
const MARKER_BOX: i32 = 7;

/// How many lines above or below its point a label may be moved to find
/// room.
const FARTHEST_LINES: i32 = 6;

/// Marker `shape` of `color` at pixel `at`: filled for bloomlab's filters,
/// an outline on white for a peer's.
fn marker(root: &Area<'_>, shape: usize, filled: bool, at: (i32, i32), color: RGBColor) -> Drawn {
    let (x, y) = at;
    let r = 6;
    let outline: Vec<(i32, i32)> = match shape {
        0 => Vec::new(),
        1 => vec![(x, y - r - 1), (x + r, y + r - 1), (x - r, y + r - 1)],
        2 => vec![
            (x - r + 1, y - r + 1),
            (x + r - 1, y - r + 1),
            (x + r - 1, y + r - 1),
            (x - r + 1, y + r - 1),
        ],
        _ => vec![
            (x, y - r - 1),
            (x + r + 1, y),
            (x, y + r + 1),
            (x - r - 1, y),
        ],
    };
    // A peer's outline is drawn over white, so that nothing shows through.
    let fill = if filled { color } else { WHITE };
    if outline.is_empty() {
        root.draw(&Circle::new(at, r, fill.filled()))?;
        if !filled {
            root.draw(&Circle::new(at, r, color.stroke_width(2)))?;
        }
        return Ok(());
    }
    root.draw(&Polygon::new(outline.clone(), fill.filled()))?;
    if !filled {
        let closed = outline.iter().chain(outline.first()).copied();
        root.draw(&PathElement::new(
            closed.collect::<Vec<_>>(),
            color.stroke_width(2),
        ))?;
    }
    Ok(())
}

/// The legend in the right margin: each filter's marker and name, the
/// frontier's line, and what the fills and grey labels mean.
fn legend(root: &Area<'_>, names: &[(&str, bool)]) -> Drawn {
    let mut legend = Legend::new(root);
    for (i, (name, filled)) in names.iter().enumerate() {
        let key = |area: &Area<'_>, at| marker(area, i % SHAPES, *filled, at, SAFE[i % SAFE.len()]);
        legend.entry(None, key, name)?;
    }
    let frontier = (FRONTIER_DASH, BLACK.stroke_width(2));
    legend.entry(Some(frontier), |_, _| Ok(()), "Pareto frontier")?;
    NOTES.iter().try_for_each(|note| legend.note(note))
}

/// `x` rounded by `round` to a whole number of its leading decade's half
/// (5, 10, 15, … 50, 100, 150 …), so that a log axis ends on a tick.
fn nice(x: f64, round: fn(f64) -> f64) -> f64 {
    let step = 10f64.powf(x.log10().floor()) / 2.0;
    (round(x / step) * step).max(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_ticks_and_dodges() {
        assert_eq!(nice(187.0, f64::ceil), 200.0);
        assert_eq!(nice(8.1, f64::floor), 8.0);
        assert_eq!(nice(13.0, f64::floor), 10.0);
        let moved = dodge(vec![(100, 50), (102, 52), (101, 49), (300, 50)]);
        assert_eq!(moved[..2], [(100, 50), (113, 52)]);
        assert_eq!(moved[3], (300, 50), "a point far from the others stays");
        for (i, a) in moved.iter().enumerate() {
            for b in &moved[..i] {
                let apart = (a.0 - b.0).abs() >= DODGE_PIXELS || (a.1 - b.1).abs() >= DODGE_PIXELS;
                assert!(apart, "{a:?} covers {b:?}");
            }
        }
    }

    /// Whether two boxes (left, top, right, bottom) come within
    /// `LABEL_GAP` of each other.
    fn touch(p: (i32, i32, i32, i32), q: (i32, i32, i32, i32)) -> bool {
        let g = LABEL_GAP;
        p.0 < q.2 + g && q.0 < p.2 + g && p.1 < q.3 + g && q.1 < p.3 + g
    }

    #[test]
    fn labels_of_crowded_points_cover_no_label_and_no_marker() {
        // Six points within 24 pixels of each other, as the fast small
        // filters sit in the chart, each with a label of 80 × 10 pixels.
        let points = vec![
            (100, 150),
            (112, 156),
            (104, 168),
            (95, 140),
            (120, 145),
            (108, 174),
        ];
        let bounds = (0, 0, 400, 300);
        let mut labels = Labels::new(points.clone(), bounds);
        let markers = labels.taken.clone();
        let mut boxes = Vec::new();
        for (i, &at) in points.iter().enumerate() {
            let (l, t, _) = labels.spot(at, (80, 10));
            let b = (l, t, l + 80, t + 10);
            assert!(
                b.0 >= 0 && b.1 >= 0 && b.2 <= 400 && b.3 <= 300,
                "{b:?} out of bounds"
            );
            assert!(
                !markers.iter().any(|&m| touch(b, m)),
                "label {i} {b:?} covers a marker"
            );
            assert!(
                !boxes.iter().any(|&o| touch(b, o)),
                "label {i} {b:?} covers a label"
            );
            boxes.push(b);
        }
        // A point alone has its label up and to the right, beside it.
        let mut alone = Labels::new(vec![(200, 150)], bounds);
        assert_eq!(
            alone.spot((200, 150), (80, 10)),
            (200 + BESIDE, 150 - 10 - 4, true)
        );
        // Where no place is free, the least crowded one is taken.
        let mut full = Labels::new(vec![(10, 10)], (0, 0, 40, 30));
        let (l, t, _) = full.spot((10, 10), (80, 10));
        assert_eq!(
            (l, t),
            (10 + BESIDE, 10 - 10 - 4),
            "the first place, none being inside"
        );
    }
}
