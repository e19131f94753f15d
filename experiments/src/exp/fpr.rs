//! Experiment `fpr`: the measured false-positive rate of each filter against
//! theory as its load goes from 10% to 150% of the capacity it was built for.

use std::fmt::Write as _;
use std::path::Path;

use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::stats::clopper_pearson;

use super::sub_seed;
use super::subject::{self, Kind};
use crate::plot::{self, Panel, Series};
use crate::progress;
use crate::report::Section;
use crate::scale::Scale;
use crate::table::{Table, fixed, rate};

/// Target rates the filters are built for.
pub const TARGETS: [f64; 4] = [0.1, 0.01, 0.001, 0.0001];

/// Loads at which the rate is measured, as fractions of capacity.
pub const LOADS: [f64; 7] = [0.1, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5];

/// The variants this experiment measures.
pub const KINDS: [Kind; 2] = [Kind::Classic, Kind::Blocked];

/// Runs the experiment: `fpr.csv` … see the module docs.
pub fn run(scale: Scale, seed: u64, out: &Path) -> Result<Section, String> {
    let capacity = scale.capacity();
    let n_probes = scale.probes();
    let mut table = Table::new(&[
        "variant",
        "target_fpr",
        "params",
        "capacity",
        "load",
        "items",
        "probes",
        "false_positives",
        "measured_fpr",
        "ci95_low",
        "ci95_high",
        "theory_fpr",
        "theory_in_ci95",
        "bits_per_item",
    ]);
    let bar = progress::bar((KINDS.len() * TARGETS.len() * LOADS.len()) as u64, "fpr");
    let mut panels = Vec::new();
    for kind in KINDS {
        let mut panel = Panel {
            title: format!("{} Bloom filter, {} items", kind.name(), capacity),
            x_label: "load (items / capacity)".into(),
            y_label: "false-positive rate".into(),
            series: Vec::new(),
            // Below a tenth of one hit in all the probes nothing is measured.
            y_floor: 0.1 / n_probes as f64,
        };
        for &target in &TARGETS {
            let part = format!("fpr/{}/{target}", kind.name());
            let mut subject = subject::build(kind, capacity, target, sub_seed(seed, &part))?;
            let max_items = (capacity as f64 * LOADS[LOADS.len() - 1]).round() as usize;
            let keys = members(sub_seed(seed, &format!("{part}/members")), max_items);
            let probe_seed = sub_seed(seed, &format!("{part}/probes"));
            let mut series = Series {
                label: format!("target {}", percent(target)),
                ..Series::default()
            };
            let mut inserted = 0;
            for &load in &LOADS {
                let items = (capacity as f64 * load).round() as usize;
                for k in &keys[inserted..items] {
                    subject
                        .filter
                        .insert(k)
                        .map_err(|e| format!("{part}: {e}"))?;
                }
                inserted = items;
                let f = &subject.filter;
                let hits = probes(probe_seed, n_probes)
                    .filter(|p| f.contains(p))
                    .count() as u64;
                let measured = hits as f64 / n_probes as f64;
                let (lo, hi) = clopper_pearson(hits, n_probes as u64, 0.95);
                let theory = (subject.theory)(items as u64);
                let inside = (lo..=hi).contains(&theory);
                table.push(vec![
                    kind.name().into(),
                    target.to_string(),
                    subject.params.clone(),
                    capacity.to_string(),
                    fixed(load),
                    items.to_string(),
                    n_probes.to_string(),
                    hits.to_string(),
                    rate(measured),
                    rate(lo),
                    rate(hi),
                    rate(theory),
                    if inside { "yes" } else { "no" }.into(),
                    fixed(f.bits_per_item().unwrap_or(f64::NAN)),
                ]);
                series.points.push((load, lo, measured, hi));
                bar.inc(1);
            }
            series.theory = (2..=32)
                .map(|i| {
                    let load = f64::from(i) * 0.05;
                    (
                        load,
                        (subject.theory)((capacity as f64 * load).round() as u64),
                    )
                })
                .collect();
            panel.series.push(series);
        }
        panels.push(panel);
    }
    bar.finish_and_clear();

    table.write_csv(&out.join("classic_fpr.csv"))?;
    plot::log_rate_chart(&out.join("classic_fpr.svg"), &panels)?;
    Ok(Section {
        title: "False-positive rate of the classic filters".into(),
        body: body(&table, n_probes),
    })
}

fn percent(p: f64) -> String {
    format!("{}%", p * 100.0)
}

fn body(table: &Table, n_probes: usize) -> String {
    let inside = table.rows().iter().filter(|r| r[12] == "yes").count();
    let total = table.rows().len();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Each filter is built for its capacity and target rate, filled with random keys to \
         10%–150% of capacity, and probed with {n_probes} keys that were never inserted. \
         The measured rate carries a 95% Clopper–Pearson interval; theory is \
         `theory::classic::fpr` (the classic formula) for the classic filter and \
         `theory::blocked::fpr_exact` (the exact binomial-occupancy formula) for the \
         512-bit-blocked one, evaluated at the same parameters.\n"
    );
    let _ = writeln!(
        out,
        "Theory lies inside the 95% interval in **{inside} of {total}** rows. With 95% intervals \
         about one row in twenty misses by chance alone, so a few misses are expected; a \
         systematic miss (every row of one target on one side) would mean the formula or the \
         hashing is wrong.\n"
    );
    let _ = writeln!(
        out,
        "![false-positive rate against load](classic_fpr.svg)\n"
    );
    let _ = writeln!(out, "Data: [`classic_fpr.csv`](classic_fpr.csv).\n");
    out.push_str(&table.to_markdown(&[
        ("variant", "variant"),
        ("target_fpr", "target"),
        ("params", "parameters"),
        ("load", "load"),
        ("false_positives", "false positives"),
        ("measured_fpr", "measured"),
        ("ci95_low", "95% low"),
        ("ci95_high", "95% high"),
        ("theory_fpr", "theory"),
        ("theory_in_ci95", "theory inside"),
        ("bits_per_item", "bits/item"),
    ]));
    out
}
