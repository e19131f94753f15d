//! Experiment `growth`: the false-positive rate, memory and lookup cost of
//! every catalog variant that grows (the scalable Bloom filter, the growing
//! quotient filter), as it grows from its initial capacity n0 to 1,023 × n0
//! (ten doublings), side by side with RedisBloom's schedule and with
//! `growable-bloom-filter`, on the same keys, against the target P and a
//! right-sized classic filter. Each is measured over [`INSTANCES`]
//! instances, each with its own hash key and its own items.

use bloomlab::prelude::*;
use bloomlab::theory;
use bloomlab_lab::keys::{members, probes};

use super::{Ctx, Error, Output, sub_seed};
use crate::plot;
use crate::progress;
use crate::report::Section;
use crate::scale::Scale;
use crate::table::{
    AGAINST_THEORY, AGAINST_THEORY_VIEW, Hits, Table, against_theory, fixed, markdown_records,
    or_empty, rate, yes_no,
};

mod lines;
mod report;
mod rows;
mod subjects;

use lines::*;
use report::*;
use rows::*;
use subjects::*;

/// The total false-positive rate every filter is asked for.
pub const TARGET: f64 = 0.01;

/// Growth factor of every filter compared (each defaults to 2; the
/// quotient filter doubles).
const GROWTH: u32 = 2;

/// Instances of every filter, each with its own hash key and items; the
/// probes of a checkpoint are shared out among them.
pub const INSTANCES: usize = 20;

/// Layers the run fills: n grows to n0 · (2^10 − 1) = 1,023 × n0.
pub const LAYERS: u32 = 10;

/// `growable-bloom-filter`'s tightening ratio: its `DEFAULT_TIGHTENING_RATIO`
/// (0.8515625, "about 0.85 with an exact binary representation"), which the
/// crate keeps private.
pub const PEER_RATIO: f64 = bloomlab_lab::peers::growable::DEFAULT_TIGHTENING_RATIO;

/// The section's title.
pub const TITLE: &str = "Growth: filters that grow, from 1× to 1,000× their initial capacity";

/// The rate `growable-bloom-filter`'s construction bounds its total by:
/// P/(1 − r), its first layer at P.
fn peer_bound() -> f64 {
    theory::scalable::compound_bound(TARGET, PEER_RATIO)
}

/// The initial capacity per scale, so that 1,023-fold growth fits the budget.
pub fn initial_capacity(scale: Scale) -> u64 {
    match scale {
        Scale::Quick => 100,
        Scale::Default => 1_000,
        Scale::Full => 10_000,
    }
}

/// The item counts measured, as multiples of n0: every layer boundary
/// (`2^l − 1`, all layers full: where the compound rate has just risen) and
/// the midpoint of the next layer (`2^l − 1 + 2^(l−1)`, that layer half full).
pub fn checkpoints(layers: u32) -> Vec<u64> {
    let mut out = Vec::new();
    for l in 1..=layers {
        let full = (1u64 << l) - 1;
        if l > 1 {
            out.push(full - (1u64 << (l - 1)) / 2);
        }
        out.push(full);
    }
    out
}

/// Runs the experiment: `growth.csv`, `growth_fpr.svg`, `growth_memory.svg`.
pub fn run(ctx: &Ctx) -> Result<Output, Error> {
    let n0 = initial_capacity(ctx.scale);
    let marks = checkpoints(LAYERS);
    let n_max = n0 * marks.last().copied().unwrap_or(1);
    let n_probes = ctx.scale.probes();
    let subjects = subjects(ctx, n0)?;
    let bar = progress::bar((INSTANCES * subjects.len() * marks.len()) as u64, "growth");
    // samples[subject][checkpoint]: one per instance.
    let mut samples = vec![vec![Vec::with_capacity(INSTANCES); marks.len()]; subjects.len()];
    for i in 0..INSTANCES {
        let keys = members(
            sub_seed(ctx.seed, &format!("growth/members/{i}")),
            usize::try_from(n_max).map_err(Error::size("growth: items"))?,
        );
        let probe_keys: Vec<u64> = probes(
            sub_seed(ctx.seed, &format!("growth/probes/{i}")),
            n_probes / INSTANCES,
        )
        .collect();
        for (s, subject) in subjects.iter().enumerate() {
            let seed = sub_seed(ctx.seed, &format!("growth/{}/{i}", subject.name));
            let mut filter = subject.build(n0, seed)?;
            let mut inserted = 0;
            for (m, &mark) in marks.iter().enumerate() {
                let n = (n0 * mark) as usize;
                for &key in &keys[inserted..n] {
                    filter.insert(key)?;
                }
                inserted = n;
                samples[s][m].push(Sample::of(&filter, &probe_keys));
                bar.inc(1);
            }
        }
    }
    bar.finish_and_clear();
    let mut rows = Vec::new();
    for (s, subject) in subjects.iter().enumerate() {
        for (m, &mark) in marks.iter().enumerate() {
            rows.push(Row::pool(s, subject, &samples[s][m], n0, mark)?);
        }
    }
    let table = table(&rows, &subjects, n0);
    let fpr_chart = plot::Chart {
        title: format!("Growing from n0 = {n0} to {n_max} items at P = {TARGET}"),
        x_label: "items inserted n (log scale)".into(),
        y_label: "false-positive rate (fraction of probes; log scale)".into(),
        x_log: true,
        y_log: true,
        y_floor: 0.1 / n_probes as f64,
        curves: subjects
            .iter()
            .enumerate()
            .map(|(s, subject)| plot::Curve {
                label: subject.name.clone(),
                theory: theory_line(subject, n0, n_max),
                points: rows_of(&rows, s).map(|r| r.fp.point(r.n as f64)).collect(),
            })
            .collect(),
        references: vec![
            (format!("target P = {TARGET}"), TARGET),
            (
                format!("P/(1 − r) = {:.4}: growable's bound", peer_bound()),
                peer_bound(),
            ),
        ],
        ..plot::Chart::default()
    };
    // One panel per filter (their sawtooths cross and would hide each
    // other), on one y axis, each beside the right-sized classic filter.
    let memory_lines = subjects
        .iter()
        .map(|subject| memory_line(subject, n0, n_max))
        .collect::<Result<Vec<_>, _>>()?;
    let top = memory_lines
        .iter()
        .flatten()
        .map(|p| p.1)
        .fold(0.0f64, f64::max);
    let classic_line: Vec<(f64, f64)> = rows_of(&rows, 0)
        .map(|r| (r.n as f64, r.classic_bits_per_item()))
        .collect();
    let bound = theory::lower_bound_bits_per_item(TARGET);
    let memory_charts: Vec<plot::Chart> = subjects
        .iter()
        .enumerate()
        .zip(memory_lines)
        .map(|((s, subject), line)| plot::Chart {
            title: format!(
                "{}: memory while growing from n0 = {n0}, P = {TARGET}",
                subject.name
            ),
            x_label: "items inserted n (log scale)".into(),
            y_label: "bits per item".into(),
            x_log: true,
            curves: vec![
                plot::Curve {
                    label: subject.name.clone(),
                    theory: line,
                    points: rows_of(&rows, s)
                        .map(|r| (r.n as f64, r.bits_per_item()))
                        .map(|(n, b)| (n, b, b, b))
                        .collect(),
                },
                plot::Curve {
                    label: "classic filter right-sized for n".into(),
                    theory: classic_line.clone(),
                    points: Vec::new(),
                },
            ],
            references: vec![(format!("lower bound log2(1/P) = {bound:.2}"), bound)],
            y_range: Some((0.0, top * 1.05)),
            ..plot::Chart::default()
        })
        .collect();
    let section = Section::new(TITLE, body(&rows, &subjects, n0, n_max, n_probes));
    Ok(Output::new(section)
        .appendix(appendix(&rows, &subjects, &table, n0, n_max, n_probes))
        .chart("growth_fpr.svg", plot::draw("growth_fpr.svg", &fpr_chart)?)
        .chart(
            "growth_memory.svg",
            plot::draw_panels("growth_memory.svg", &memory_charts)?,
        )
        .table("growth.csv", table))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_are_boundaries_and_midpoints() {
        assert_eq!(checkpoints(4), vec![1, 2, 3, 5, 7, 11, 15]);
        let all = checkpoints(LAYERS);
        assert_eq!(all.last(), Some(&1023));
        assert!(all.windows(2).all(|w| w[0] < w[1]));
    }

    /// Every bloomlab subject keeps the total at every checkpoint in theory.
    #[test]
    fn bloomlab_stays_under_target_in_theory() {
        let ctx = Ctx::standard(Scale::Quick, 1);
        let subjects = subjects(&ctx, 100).unwrap();
        assert!(subjects.len() >= 3);
        for subject in subjects.iter().filter(|s| !s.is_peer()) {
            for mark in checkpoints(LAYERS) {
                let t = subject.fpr_after(100, 100 * mark);
                assert!(t < TARGET, "{} at {mark}: {t}", subject.name);
            }
        }
    }
}
