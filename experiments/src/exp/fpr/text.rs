//! The experiment's text: the section (what was done, the counts per
//! variant, why rows miss, as measured) and the appendix's per-row table.

use bloomlab::catalog::Descriptor;
use bloomlab_lab::stats::clopper_pearson;

use super::coverage::{Coverage, SIMULATED};
use super::{LOADS, MIN_EXPECTED, Plan, Row, spread};
use crate::table::{Table, markdown, short_percent};

/// The section's body.
pub(super) fn body(
    rows: &[Row],
    kinds: &[Descriptor<u64>],
    plan: &Plan,
    simulated: &Coverage,
) -> String {
    let mut out = format!(
        "{r} keyed instances per variant, target and load (10%–150% of {cap} items; cuckoo: \
         to its first `Full`). Rows expecting under {min} false positives are not counted. A \
         row is judged by Student's t over its instances' rates, which counts the tables' \
         spread; the pooled Clopper–Pearson interval counts probe noise alone. Method and why \
         rows miss: the appendix.\n\n",
        r = plan.instances,
        cap = plan.capacity,
        min = MIN_EXPECTED,
    );
    let heads = ["variant", "theory inside t", "spread"];
    let table = kinds.iter().map(|kind| {
        let own = rows.iter().filter(|r| r.variant == kind.id);
        let powered: Vec<&Row> = own.filter(|r| r.powered).collect();
        let inside = powered.iter().filter(|r| r.inside()).count();
        [
            kind.label(),
            format!("{inside} of {}", powered.len()),
            spread_summary(&powered),
        ]
    });
    out.push_str(&markdown(&heads, table));
    out.push_str(
        "\nSpread: the rate's variance between instances over its theory's (± one standard \
         error).\n\n",
    );
    out.push_str(&misses(rows, simulated));
    out.push_str(
        "\n![every variant at 1%, measured over theory](fpr.svg)\n\n\
         Per variant: `fpr_<variant>.svg` (rate by load) and `fpr_residuals_<variant>.svg`. \
         Data: [`fpr.csv`](fpr.csv); every row is in the appendix.\n",
    );
    out
}

/// The spread column: the pooled variance ratio, or with no model the
/// tightest upper limit relative to the rate.
fn spread_summary(powered: &[&Row]) -> String {
    // A configuration's rows at successive loads measure the same filters:
    // one group, named by its target's bits.
    let with_model: Vec<(spread::Spread, f64, usize, u64)> = powered
        .iter()
        .filter_map(|r| Some((r.spread?, r.spread_theory?, r.instances, r.target.to_bits())))
        .collect();
    if let Some((ratio, se)) = spread::pooled_ratio(&with_model) {
        return format!("{ratio:.2} ± {se:.2}");
    }
    // No model: the row that resolves the spread best (most false
    // positives per instance), relative to its rate.
    let best = powered
        .iter()
        .filter(|r| r.spread.is_some() && r.pooled > 0.0 && !r.full)
        .max_by_key(|r| r.hits / r.instances as u64);
    match best.and_then(|r| Some((r, r.spread?))) {
        Some((r, s)) => format!("no model; ≤ {:.1}% of rate", 100.0 * s.hi / r.pooled),
        None => "no model".into(),
    }
}

/// How many rows miss against chance, with the intervals' simulated
/// coverage.
fn misses(rows: &[Row], simulated: &Coverage) -> String {
    let powered: Vec<&Row> = rows.iter().filter(|r| r.powered).collect();
    let missed = powered.iter().filter(|r| !r.inside()).count() as u64;
    let missed_pooled = powered.iter().filter(|r| !r.inside_pooled()).count() as u64;
    let n = powered.len() as u64;
    format!(
        "**Misses.** Theory is outside the t interval in {missed} of {n} counted rows, \
         outside the pooled one in {missed_pooled}; chance expects {:.1} (binomial P of as many \
         or more: {:.2} and {:.2e}). **Coverage** of a nominal 95%, simulated on {} rows of 20 \
         classic tables (capacity {}, probes as here): t {:.1}%, pooled {:.1}%, pooled widened \
         by the instances' scatter (the other sections' interval) {:.1}%.\n",
        0.05 * n as f64,
        spread::misses_p_value(missed, n),
        spread::misses_p_value(missed_pooled, n),
        simulated.rows,
        SIMULATED.capacity,
        100.0 * simulated.covered(simulated.instance_misses),
        100.0 * simulated.covered(simulated.pooled_misses),
        100.0 * simulated.covered(simulated.dispersed_misses),
    )
}

/// Why rows miss, from the measurements.
fn why_rows_miss(rows: &[Row]) -> String {
    let powered: Vec<&Row> = rows.iter().filter(|r| r.powered).collect();
    let mut out = "**Why rows miss.**".to_string();
    // The filters of buckets (cuckoo) near full load: theory at the average
    // occupancy against the pooled rate, pooled over targets (the rows
    // expecting the most false positives weigh most). Layouts that store the
    // same fingerprints in the same buckets get one sentence.
    let mut said: Vec<(String, String)> = Vec::new();
    let mut bucketed: Vec<&str> = (powered.iter())
        .filter(|r| has(r, "buckets"))
        .map(|r| r.variant)
        .collect();
    bucketed.dedup();
    for variant in bucketed {
        let near_full: Vec<&&Row> = powered
            .iter()
            .filter(|r| r.variant == variant && r.load >= LOADS[4] - 1e-9)
            .collect();
        let hits: u64 = near_full.iter().map(|r| r.hits).sum();
        let probes: u64 = near_full.iter().map(|r| r.probes).sum();
        let expected: f64 = near_full.iter().map(|r| r.theory * r.probes as f64).sum();
        if probes > 0 {
            let (lo, hi) = clopper_pearson(hits, probes, 0.95);
            let scale = probes as f64 / expected;
            let ratio = format!(
                "{:.3} (95% {:.3}–{:.3})",
                hits as f64 / expected,
                lo * scale,
                hi * scale
            );
            match said.iter_mut().find(|(_, r)| *r == ratio) {
                Some((names, _)) => *names += &format!(" and `{variant}`"),
                None => said.push((format!("`{variant}`"), ratio)),
            }
        }
    }
    for (names, ratio) in said {
        out += &format!(
            " {names} at ≥ 100% load, targets pooled: measured / `theory::cuckoo::fpr` = {ratio}."
        );
    }
    // A filter that grows by layers (scalable) at its highest load: theory
    // assumes every insert lands in a layer; the filter skips items it
    // already reports present.
    let last = LOADS[LOADS.len() - 1];
    let scalable: Vec<&Row> = (rows.iter())
        .filter(|r| has(r, "growth_factor") && r.load == last)
        .collect();
    if let Some(r) = scalable.first() {
        let rest = scalable[1..]
            .iter()
            .map(|r| (r.theory / r.expected - 1.0).abs())
            .fold(0.0, f64::max);
        out += &format!(
            " The scalable filter skips items it already reports present: at 150% load theory \
             (every item stored) exceeds its own `expected_fpr()` by {} at {}, by at most {} \
             at lower targets; measured / `expected_fpr()` there is {:.3} (95% {:.3}–{:.3}).",
            signed_percent(r.theory / r.expected - 1.0),
            short_percent(r.target),
            signed_percent(rest).trim_start_matches('+'),
            r.pooled / r.expected,
            r.lo / r.expected,
            r.hi / r.expected
        );
    }
    out.push('\n');
    out
}

/// Whether `r`'s table has the parameter `name`: what a sentence about one
/// shape of table selects its rows by.
fn has(r: &Row, name: &str) -> bool {
    r.table.parameters().iter().any(|p| p.0 == name)
}

/// `0.012` as `+1.2%`.
fn signed_percent(x: f64) -> String {
    format!("{:+.1}%", 100.0 * x)
}

/// The appendix: how rows are probed, why they miss, and every row.
pub(super) fn appendix(table: &Table, rows: &[Row], plan: &Plan) -> String {
    let mut out = format!(
        "A row's pooled probes expect {min} false positives by theory: at least {floor} per \
         instance, at most {budget} per row; rows that cannot are underpowered. Rows with a \
         spread model get, budget allowing, probe noise below that spread. Spread: the rate's \
         between-instance standard deviation less probe noise (method of moments), against \
         `classic::rate_sd`, `blocked::rate_sd` or `sectored::rate_sd`; a configuration's rows \
         at successive loads measure the same filters and count as one sample in the pooled \
         ratio. `AtomicBloomFilter` stores the same bits as `BloomFilter` for the same key \
         and items, so it has the same spread theory. Without a model the spread column shows the measured spread at the \
         best-resolved row.\n\n{}\n",
        why_rows_miss(rows),
        min = MIN_EXPECTED,
        floor = plan.floor,
        budget = plan.budget
    );
    out.push_str(
        "Every row of `fpr.csv`: the pooled rate over the instances' probes with its 95% \
         Clopper–Pearson interval, the Student-t interval over the instances' rates (the \
         one rows are judged by), theory, and the between-instance spread of the rate \
         (method of moments, 95% chi-square interval) beside its theory and the probe \
         noise of one instance.\n\n",
    );
    out.push_str(&table.to_markdown(&[
        ("variant", "variant"),
        ("target_fpr", "target"),
        ("load", "load"),
        ("instances", "instances"),
        ("probes_per_instance", "probes / instance"),
        ("false_positives", "false positives"),
        ("measured_fpr", "pooled"),
        ("ci95_low", "95% low"),
        ("ci95_high", "95% high"),
        ("instance_ci95_low", "t low"),
        ("instance_ci95_high", "t high"),
        ("theory_fpr", "theory"),
        ("underpowered", "underpowered"),
        ("theory_in_instance_ci95", "inside"),
        ("rate_sd", "spread"),
        ("rate_sd_ci95_low", "spread low"),
        ("rate_sd_ci95_high", "spread high"),
        ("rate_sd_theory", "spread theory"),
        ("probe_sd", "probe noise"),
    ]));
    out
}
