//! How series look: colours, markers, dash patterns, upper limits and the
//! legend.

use super::*;

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
        area.draw(&PathElement::new(points.to_vec(), style))?;
        return Ok(());
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
        let (a, b) = (
            (f64::from(w[0].0), f64::from(w[0].1)),
            (f64::from(w[1].0), f64::from(w[1].1)),
        );
        let length = (b.0 - a.0).hypot(b.1 - a.1);
        if length == 0.0 {
            continue;
        }
        let at = |d: f64| {
            let t = (d - travelled) / length;
            (
                (a.0 + t * (b.0 - a.0)).round() as i32,
                (a.1 + t * (b.1 - a.1)).round() as i32,
            )
        };
        let mut d = travelled;
        let end = travelled + length;
        while d < end {
            let (on, next) = phase(d);
            let stop = next.min(end);
            if on {
                area.draw(&PathElement::new([at(d), at(stop)], style))?;
            }
            // A step of at least a hundredth of a pixel: no float stall.
            d = stop.max(d + 0.01);
        }
        travelled = end;
    }
    Ok(())
}

/// The colour of series `i`.
pub(super) fn color(i: usize) -> RGBColor {
    SAFE[i % SAFE.len()]
}

/// The earlier series whose theory line is exactly series `i`'s, if any.
pub(super) fn same_line_as(chart: &Chart, i: usize) -> Option<usize> {
    let theory = &chart.curves[i].theory;
    if theory.is_empty() {
        return None;
    }
    chart.curves[..i].iter().position(|c| c.theory == *theory)
}

/// Series `i`'s marker at pixel `at` of `area`: filled circle, triangle,
/// cross, filled square, filled diamond, open circle, open square, plus,
/// open diamond, open triangle, asterisk.
pub(super) fn marker(area: &Area<'_>, i: usize, at: (i32, i32), color: RGBColor) -> Drawn {
    let (x, y) = at;
    let line = color.stroke_width(2);
    match i % MARKERS {
        0 => area.draw(&Circle::new(at, 4, color.filled()))?,
        1 => area.draw(&Polygon::new(
            vec![(x - 5, y + 4), (x + 5, y + 4), (x, y - 5)],
            color.filled(),
        ))?,
        2 => {
            area.draw(&PathElement::new([(x - 4, y - 4), (x + 4, y + 4)], line))?;
            area.draw(&PathElement::new([(x - 4, y + 4), (x + 4, y - 4)], line))?;
        }
        3 => area.draw(&Rectangle::new(
            [(x - 4, y - 4), (x + 4, y + 4)],
            color.filled(),
        ))?,
        4 => area.draw(&Polygon::new(
            vec![(x, y - 6), (x + 5, y), (x, y + 6), (x - 5, y)],
            color.filled(),
        ))?,
        5 => area.draw(&Circle::new(at, 4, line))?,
        6 => area.draw(&Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], line))?,
        7 => {
            area.draw(&PathElement::new([(x - 5, y), (x + 5, y)], line))?;
            area.draw(&PathElement::new([(x, y - 5), (x, y + 5)], line))?;
        }
        8 => area.draw(&PathElement::new(
            [(x, y - 6), (x + 5, y), (x, y + 6), (x - 5, y), (x, y - 6)],
            line,
        ))?,
        9 => area.draw(&PathElement::new(
            [(x - 5, y + 4), (x + 5, y + 4), (x, y - 5), (x - 5, y + 4)],
            line,
        ))?,
        _ => {
            area.draw(&PathElement::new([(x - 5, y), (x + 5, y)], line))?;
            area.draw(&PathElement::new([(x - 3, y - 5), (x + 3, y + 5)], line))?;
            area.draw(&PathElement::new([(x - 3, y + 5), (x + 3, y - 5)], line))?;
        }
    }
    Ok(())
}

/// An interval at pixel column `x` from `ends` (top, bottom), capped at both.
pub(super) fn error_bar(area: &Area<'_>, x: i32, ends: (i32, i32), color: RGBColor) -> Drawn {
    let bar = color.stroke_width(1);
    area.draw(&PathElement::new([(x, ends.0), (x, ends.1)], bar))?;
    for end in [ends.0, ends.1] {
        area.draw(&PathElement::new([(x - 3, end), (x + 3, end)], bar))?;
    }
    Ok(())
}

/// An upper limit whose bound is at pixel `at`: a cap at the bound and an
/// open arrowhead pointing down from it, narrower than [`DODGE_PIXELS`] so
/// that the limits of neighbouring series at one x stay apart.
pub(super) fn upper_limit(area: &Area<'_>, at: (i32, i32), color: RGBColor) -> Drawn {
    let (x, y) = at;
    let w = UPPER_LIMIT_HALF_WIDTH;
    let line = color.stroke_width(2);
    area.draw(&PathElement::new([(x - w, y), (x + w, y)], line))?;
    area.draw(&PathElement::new(
        [(x, y), (x, y + 10)],
        color.stroke_width(1),
    ))?;
    area.draw(&PathElement::new(
        [
            (x - w, y + 10),
            (x + w, y + 10),
            (x, y + 17),
            (x - w, y + 10),
        ],
        line,
    ))?;
    Ok(())
}

/// Pixels from an upper limit's axis to either end of its cap and
/// arrowhead: with the 2-pixel stroke, limits [`DODGE_PIXELS`] apart do
/// not touch.
const UPPER_LIMIT_HALF_WIDTH: i32 = 3;
const _: () = assert!(2 * UPPER_LIMIT_HALF_WIDTH + 2 < DODGE_PIXELS as i32);
const _: () = assert!(SAFE.len() == MARKERS);

/// Black for the first reference line, grey for the others.
pub(super) fn reference_color(j: usize) -> RGBColor {
    if j == 0 {
        BLACK
    } else {
        RGBColor(120, 120, 120)
    }
}

/// What the upper-limit symbol means, in every legend that shows it.
pub(super) const UPPER_LIMIT_TEXT: &str = "none counted: the arrow stands at the 95% upper bound";

/// `text` in lines of at most `width` characters, broken at spaces.
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// Characters of legend text that fit a legend's width.
pub(super) const LEGEND_CHARS: usize = 46;

/// The legend's line under the series of a chart that draws both theory
/// and measurements for them.
pub(super) const THEORY_AND_POINTS: &str = "lines: theory; markers: measured";

/// The legend of a [`Chart`], in the right margin of its area (plotters'
/// own legend box cannot leave the plotting area): each series' line
/// pattern, marker and label, then the reference lines, the upper-limit
/// symbol if any was drawn, and the notes.
pub(super) fn legend(area: &Area<'_>, chart: &Chart, limits: bool) -> Drawn {
    let (width, _) = area.dim_in_pixel();
    let x0 = width as i32 - CHART_LEGEND_WIDTH as i32 + 4;
    let mut y = 56;
    let font = ("sans-serif", 12);
    let small = ("sans-serif", 11);
    for (i, curve) in chart.curves.iter().enumerate() {
        let color = color(i);
        if !curve.theory.is_empty() && same_line_as(chart, i).is_none() {
            dashed(
                area,
                &[(x0, y), (x0 + 40, y)],
                DASHES[i % DASHES.len()],
                color.stroke_width(2),
            )?;
        }
        if !curve.points.is_empty() {
            marker(area, i, (x0 + 20, y), color)?;
        }
        let label = match same_line_as(chart, i) {
            Some(j) => format!("{} (line as {})", curve.label, chart.curves[j].label),
            None => curve.label.clone(),
        };
        for (n, line) in wrap(&label, LEGEND_CHARS).into_iter().enumerate() {
            if n > 0 {
                y += 14;
            }
            area.draw(&Text::new(line, (x0 + 46, y - 6), font))?;
        }
        y += 18;
    }
    // A line and a marker beside one label: say which is which.
    if chart
        .curves
        .iter()
        .any(|c| !c.theory.is_empty() && !c.points.is_empty())
    {
        area.draw(&Text::new(THEORY_AND_POINTS, (x0, y - 6), small))?;
        y += 18;
    }
    for (j, (label, _)) in chart.references.iter().enumerate() {
        dashed(
            area,
            &[(x0, y), (x0 + 40, y)],
            REFERENCE_DASH,
            reference_color(j).stroke_width(1),
        )?;
        area.draw(&Text::new(label.clone(), (x0 + 46, y - 6), font))?;
        y += 18;
    }
    if limits {
        upper_limit(area, (x0 + 20, y - 6), BLACK)?;
        for line in wrap(UPPER_LIMIT_TEXT, LEGEND_CHARS) {
            area.draw(&Text::new(line, (x0 + 46, y - 6), small))?;
            y += 14;
        }
        y += 8;
    }
    for note in &chart.notes {
        for line in wrap(note, LEGEND_CHARS + 6) {
            area.draw(&Text::new(line, (x0, y - 6), small))?;
            y += 14;
        }
        y += 4;
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
    RGBColor(120, 120, 120),
    RGBColor(51, 34, 136),
    RGBColor(136, 34, 85),
];

/// Pixels to the right of a [`Chart`]'s plot, for its legend (labels name
/// the series whose line they share).
pub(super) const CHART_LEGEND_WIDTH: u32 = 330;

/// Pixels to the right of a [`CategoryChart`]'s plot, for its legend.
pub(super) const LEGEND_WIDTH: u32 = 250;
