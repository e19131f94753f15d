//! How series look: colours, markers, dash patterns, upper limits and the
//! legend.

use super::*;
use crate::report::wrap;

/// Pixels between the points of neighbouring series when a chart dodges.
pub(super) const DODGE_PIXELS: f64 = 9.0;

/// Dash patterns of the theory lines, one per series (pixels on, off, …;
/// empty: solid): solid, dashed, dotted, dash-dot, long dashes,
/// dash-dot-dot, long-short.
pub(super) const DASHES: [&[i32]; 7] = [
    &[],
    &[11, 5],
    &[2, 4],
    &[12, 4, 2, 4],
    &[24, 6],
    &[12, 3, 2, 3, 2, 3],
    &[18, 4, 6, 4],
];

/// The dash pattern of the reference lines (drawn thinner than theory).
pub(super) const REFERENCE_DASH: &[i32] = &[7, 4];

/// Markers told apart without colour (the open down-triangle is kept for
/// upper limits).
pub(super) const MARKERS: usize = 11;

/// The polyline `points` (pixels of `area`) with dash `pattern`, which
/// runs on across the vertices.
pub(crate) fn dashed(
    area: &Area<'_>,
    points: &[(i32, i32)],
    pattern: &[i32],
    style: ShapeStyle,
) -> Drawn {
    if pattern.is_empty() {
        return path(area, points, style);
    }
    let period: f64 = pattern.iter().map(|&p| f64::from(p)).sum();
    // Whether the pattern is on at distance `d` along the line, and where
    // its current dash or gap ends.
    let phase = |d: f64| {
        let mut rest = d.rem_euclid(period);
        for (k, &len) in pattern.iter().enumerate() {
            let len = f64::from(len);
            if rest < len {
                return (k % 2 == 0, d + (len - rest));
            }
            rest -= len;
        }
        (false, d)
    };
    let mut travelled = 0.0;
    for w in points.windows(2) {
        let [a, b] = [w[0], w[1]].map(|(x, y)| (f64::from(x), f64::from(y)));
        let length = (b.0 - a.0).hypot(b.1 - a.1);
        if length == 0.0 {
            continue;
        }
        let at = |d: f64| {
            let t = (d - travelled) / length;
            let lerp = |u: f64, v: f64| (u + t * (v - u)).round() as i32;
            (lerp(a.0, b.0), lerp(a.1, b.1))
        };
        let mut d = travelled;
        let end = travelled + length;
        while d < end {
            let (on, next) = phase(d);
            let stop = next.min(end);
            if on {
                path(area, &[at(d), at(stop)], style)?;
            }
            // A step of at least a hundredth of a pixel: no float stall.
            d = stop.max(d + 0.01);
        }
        travelled = end;
    }
    Ok(())
}

pub(super) fn color(i: usize) -> RGBColor {
    SAFE[i % SAFE.len()]
}

/// The earlier series whose theory line is exactly series `i`'s, if any.
pub(super) fn same_line_as(chart: &Chart, i: usize) -> Option<usize> {
    let theory = &chart.curves[i].theory;
    let shared = chart.curves[..i].iter().position(|c| c.theory == *theory);
    shared.filter(|_| !theory.is_empty())
}

/// Series `i`'s marker at pixel `at` of `area`: filled circle, triangle,
/// cross, filled square, filled diamond, open circle, open square, plus,
/// open diamond, open triangle, asterisk.
pub(super) fn marker(area: &Area<'_>, i: usize, at: (i32, i32), color: RGBColor) -> Drawn {
    let (x, y) = at;
    let (line, fill) = (color.stroke_width(2), color.filled());
    let square = [(x - 4, y - 4), (x + 4, y + 4)];
    let diamond = [(x, y - 6), (x + 5, y), (x, y + 6), (x - 5, y), (x, y - 6)];
    let triangle = [(x - 5, y + 4), (x + 5, y + 4), (x, y - 5), (x - 5, y + 4)];
    match i % MARKERS {
        0 => area.draw(&Circle::new(at, 4, fill))?,
        1 => area.draw(&Polygon::new(triangle[..3].to_vec(), fill))?,
        2 => {
            path(area, &square, line)?;
            path(area, &[(x - 4, y + 4), (x + 4, y - 4)], line)?;
        }
        3 => area.draw(&Rectangle::new(square, fill))?,
        4 => area.draw(&Polygon::new(diamond[..4].to_vec(), fill))?,
        5 => area.draw(&Circle::new(at, 4, line))?,
        6 => area.draw(&Rectangle::new(square, line))?,
        7 => {
            path(area, &[(x - 5, y), (x + 5, y)], line)?;
            path(area, &[(x, y - 5), (x, y + 5)], line)?;
        }
        8 => path(area, &diamond, line)?,
        9 => path(area, &triangle, line)?,
        _ => {
            path(area, &[(x - 5, y), (x + 5, y)], line)?;
            path(area, &[(x - 3, y - 5), (x + 3, y + 5)], line)?;
            path(area, &[(x - 3, y + 5), (x + 3, y - 5)], line)?;
        }
    }
    Ok(())
}

/// The polyline `points` (pixels of `area`) in `style`.
fn path(area: &Area<'_>, points: &[(i32, i32)], style: ShapeStyle) -> Drawn {
    Ok(area.draw(&PathElement::new(points.to_vec(), style))?)
}

/// An interval at pixel column `x` from `ends` (top, bottom), capped at both.
pub(super) fn error_bar(area: &Area<'_>, x: i32, ends: (i32, i32), color: RGBColor) -> Drawn {
    let bar = color.stroke_width(1);
    path(area, &[(x, ends.0), (x, ends.1)], bar)?;
    for end in [ends.0, ends.1] {
        path(area, &[(x - 3, end), (x + 3, end)], bar)?;
    }
    Ok(())
}

/// An upper limit whose bound is at pixel `at`: a cap at the bound and an
/// open arrowhead pointing down from it, narrower than [`DODGE_PIXELS`] so
/// that the limits of neighbouring series at one x stay apart.
pub(super) fn upper_limit(area: &Area<'_>, at: (i32, i32), color: RGBColor) -> Drawn {
    let (x, y, w) = (at.0, at.1, UPPER_LIMIT_HALF_WIDTH);
    let head = [
        (x - w, y + 10),
        (x + w, y + 10),
        (x, y + 17),
        (x - w, y + 10),
    ];
    path(area, &[(x - w, y), (x + w, y)], color.stroke_width(2))?;
    path(area, &[(x, y), (x, y + 10)], color.stroke_width(1))?;
    path(area, &head, color.stroke_width(2))
}

/// Pixels from an upper limit's axis to either end of its cap and
/// arrowhead: with the 2-pixel stroke, limits [`DODGE_PIXELS`] apart do
/// not touch.
const UPPER_LIMIT_HALF_WIDTH: i32 = 3;
const _: () = assert!(2 * UPPER_LIMIT_HALF_WIDTH + 2 < DODGE_PIXELS as i32);
const _: () = assert!(SAFE.len() == MARKERS);

/// Black for the first reference line, grey for the others.
pub(super) fn reference_color(j: usize) -> RGBColor {
    if j == 0 { BLACK } else { GREY }
}

/// Where a legend's first row stands, the pixels between its rows, between
/// the lines of one wrapped label or note, and after a note.
const LEGEND_TOP: i32 = 56;
const LEGEND_ROW: i32 = 18;
const LEGEND_LINE: i32 = 14;
const NOTE_GAP: i32 = 4;

/// Characters of legend text that fit [`LEGEND_WIDTH`] beside a key.
const LEGEND_CHARS: usize = 46;

/// The one legend every chart draws, in the [`LEGEND_WIDTH`] pixels at the
/// right of its area (plotters' own legend box cannot leave the plotting
/// area), top to bottom: a row per series (a line pattern, a marker, a
/// label), then notes in smaller type.
pub(crate) struct Legend<'a, 'b> {
    area: &'a Area<'b>,
    /// Left edge of the keys; labels start 46 pixels to its right.
    x: i32,
    /// Where the next row stands.
    y: i32,
}

impl<'a, 'b> Legend<'a, 'b> {
    pub(crate) fn new(area: &'a Area<'b>) -> Self {
        let x = area.dim_in_pixel().0 as i32 - LEGEND_WIDTH as i32 + 4;
        Self {
            area,
            x,
            y: LEGEND_TOP,
        }
    }

    /// A row: `line` (a dash pattern and style) if given, the marker `key`
    /// draws at the middle of the line, and `label`, wrapped.
    pub(crate) fn entry(
        &mut self,
        line: Option<(&[i32], ShapeStyle)>,
        key: impl FnOnce(&Area<'_>, (i32, i32)) -> Drawn,
        label: &str,
    ) -> Drawn {
        let (x, y) = (self.x, self.y);
        if let Some((pattern, style)) = line {
            dashed(self.area, &[(x, y), (x + 40, y)], pattern, style)?;
        }
        key(self.area, (x + 20, y))?;
        self.text(46, label, LEGEND_CHARS, 12)?;
        self.y += LEGEND_ROW - LEGEND_LINE;
        Ok(())
    }

    /// The upper-limit symbol and what it means, in every legend that shows it.
    pub(crate) fn upper_limits(&mut self) -> Drawn {
        upper_limit(self.area, (self.x + 20, self.y - 6), BLACK)?;
        let meaning = "none counted: the arrow stands at the 95% upper bound";
        self.text(46, meaning, LEGEND_CHARS, 11)?;
        self.y += 8;
        Ok(())
    }

    /// `note` in smaller type under the rows.
    pub(crate) fn note(&mut self, note: &str) -> Drawn {
        self.text(0, note, LEGEND_CHARS + 6, 11)?;
        self.y += NOTE_GAP;
        Ok(())
    }

    /// `text` wrapped to `chars`, `indent` pixels right of the keys' edge.
    fn text(&mut self, indent: i32, text: &str, chars: usize, size: u32) -> Drawn {
        for line in wrap(text, chars).lines() {
            let at = (self.x + indent, self.y - 6);
            self.area.draw(&Text::new(line, at, ("sans-serif", size)))?;
            self.y += LEGEND_LINE;
        }
        Ok(())
    }
}

/// How far down a legend of `rows` one-line labels and `notes` reaches: for
/// a figure that grows to hold its legend.
pub(crate) fn legend_bottom(rows: usize, notes: &[&str]) -> i32 {
    let lines = notes
        .iter()
        .map(|n| wrap(n, LEGEND_CHARS + 6).lines().count() as i32);
    LEGEND_TOP + LEGEND_ROW * rows as i32 + lines.map(|l| LEGEND_LINE * l + NOTE_GAP).sum::<i32>()
}

/// The legend of a [`Chart`]: each series' line pattern, marker and label,
/// then the reference lines, the upper-limit symbol if any was drawn, and
/// the notes.
pub(super) fn legend(area: &Area<'_>, chart: &Chart, limits: bool) -> Drawn {
    let mut legend = Legend::new(area);
    for (i, curve) in chart.curves.iter().enumerate() {
        let color = color(i);
        let shared = same_line_as(chart, i);
        let line = (!curve.theory.is_empty() && shared.is_none())
            .then(|| (DASHES[i % DASHES.len()], color.stroke_width(2)));
        let key = |area: &Area<'_>, at| match curve.points.is_empty() {
            true => Ok(()),
            false => marker(area, i, at, color),
        };
        let label = match shared {
            Some(j) => format!("{} (line as {})", curve.label, chart.curves[j].label),
            None => curve.label.clone(),
        };
        legend.entry(line, key, &label)?;
    }
    // A line and a marker beside one label: say which is which.
    let both = |c: &Curve| !c.theory.is_empty() && !c.points.is_empty();
    if chart.curves.iter().any(both) {
        legend.note("lines: theory; markers: measured")?;
    }
    for (j, (label, _)) in chart.references.iter().enumerate() {
        let line = (REFERENCE_DASH, reference_color(j).stroke_width(1));
        legend.entry(Some(line), |_, _| Ok(()), label)?;
    }
    if limits {
        legend.upper_limits()?;
    }
    for note in &chart.notes {
        legend.note(note)?;
    }
    Ok(())
}

/// Colours that read on white and for colour-blind readers: Okabe and
/// Ito's, black first, with a darker yellow in place of their pale one,
/// then grey, then Tol's indigo and wine: with [`MARKERS`] as many, every
/// series of a chart of eleven has a colour and a marker of its own.
pub(crate) const SAFE: [RGBColor; 11] = [
    RGBColor(0, 0, 0),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 158, 115),
    RGBColor(190, 165, 0),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(204, 121, 167),
    GREY,
    RGBColor(51, 34, 136),
    RGBColor(136, 34, 85),
];

/// The grey of the ninth series and of the reference lines after the first.
const GREY: RGBColor = RGBColor(120, 120, 120);

/// Pixels to the right of a chart's plot, for its legend (labels name the
/// series whose line they share).
pub(crate) const LEGEND_WIDTH: u32 = 330;
