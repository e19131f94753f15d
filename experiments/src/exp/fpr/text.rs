//! The experiment's text: the section (what was done, the counts per
//! variant, why rows miss, as measured) and the appendix's per-row table.

use bloomlab::catalog::Descriptor;
use bloomlab_lab::stats::clopper_pearson;

use super::{LOADS, MIN_EXPECTED, Plan, Row, spread};
use crate::table::{Table, markdown, short_percent};

/// The section's body.
pub(super) fn body(rows: &[Row], kinds: &[Descriptor<u64>], plan: &Plan) -> String {
    let mut out = format!(
        "{r} instances per variant, target and load, each with its own hash key, built for \
         {cap} items (scalable: a tenth, so it grows), filled to 10%–150% (cuckoo: to its \
         first `Full`), probed with fresh non-members. A row's pooled probes expect {min} \
         false positives by theory: at least {floor} per instance, at most {budget} per row. \
         Rows that cannot are *underpowered* and not counted. Rows with a spread model get, \
         budget allowing, probe noise below that spread. Spread: the rate's between-instance \
         standard deviation less probe noise (method of moments), against `classic::rate_sd`, \
         `blocked::rate_sd` or `sectored::rate_sd`.\n\n",
        r = plan.instances,
        cap = plan.capacity,
        min = MIN_EXPECTED,
        floor = plan.floor,
        budget = plan.budget
    );
    let heads = [
        "variant",
        "rows",
        "underpowered",
        "inside (powered)",
        "spread",
    ];
    let table = kinds.iter().map(|kind| {
        let own: Vec<&Row> = rows.iter().filter(|r| r.variant == kind.id).collect();
        let powered: Vec<&&Row> = own.iter().filter(|r| r.powered).collect();
        let inside = powered.iter().filter(|r| r.inside()).count();
        [
            kind.label(),
            own.len().to_string(),
            (own.len() - powered.len()).to_string(),
            format!("{inside} of {}", powered.len()),
            spread_summary(&powered),
        ]
    });
    out.push_str(&markdown(&heads, table));
    out.push_str(
        "\nSpread column: measured / theory variance, pooled over powered rows (± one \
         standard error); without a model, the measured spread at the best-resolved row.\n\n",
    );
    out.push_str(&misses(rows));
    out.push_str(
        "\n![every variant at 1%, measured over theory](fpr.svg)\n\n\
         Per variant, rate by load (all rows; residuals of the powered rows in \
         `fpr_residuals_<variant>.svg`):\n",
    );
    let links: Vec<String> = kinds
        .iter()
        .map(|k| format!("[{id}](fpr_{id}.svg)", id = k.id))
        .collect();
    out += &format!(
        "{}. Data: [`fpr.csv`](fpr.csv); every row is in the appendix.\n",
        links.join(", ")
    );
    out
}

/// The spread column: the pooled variance ratio, or with no model the
/// tightest upper limit relative to the rate.
fn spread_summary(powered: &[&&Row]) -> String {
    let with_model: Vec<(spread::Spread, f64, usize)> = powered
        .iter()
        .filter_map(|r| Some((r.spread?, r.spread_theory?, r.instances)))
        .collect();
    if let Some((ratio, se)) = spread::pooled_ratio(&with_model) {
        return format!("{ratio:.2} ± {se:.2} (variance)");
    }
    // No model: the row that resolves the spread best (most false
    // positives per instance), relative to its rate.
    let best = powered
        .iter()
        .filter(|r| r.spread.is_some() && r.pooled > 0.0 && !r.full)
        .max_by_key(|r| r.hits / r.instances as u64);
    match best.and_then(|r| Some((r, r.spread?))) {
        Some((r, s)) => format!(
            "no model; {:.1}% of rate (≤ {:.1}%), {} at load {:.2}",
            100.0 * s.sd / r.pooled,
            100.0 * s.hi / r.pooled,
            short_percent(r.target),
            r.load
        ),
        None => "no model".into(),
    }
}

/// Why rows miss, from the measurements.
fn misses(rows: &[Row]) -> String {
    let mut out = String::new();
    let powered: Vec<&Row> = rows.iter().filter(|r| r.powered).collect();
    let missed: Vec<&&Row> = powered.iter().filter(|r| !r.inside()).collect();
    let spread_shown = missed
        .iter()
        .filter(|r| r.spread.is_some_and(|s| s.lo > 0.0))
        .count();
    out += &format!(
        "**Why rows miss.** By chance about one powered row in twenty misses: {:.1} of {}; \
         {} do. In {} of them the spread interval is above 0 (table scatter the pooled \
         interval does not count).",
        0.05 * powered.len() as f64,
        powered.len(),
        missed.len(),
        spread_shown
    );
    // The cuckoo filters near full load: theory at the average occupancy
    // against the pooled rate, pooled over targets (the rows expecting the
    // most false positives weigh most).
    // Both layouts store the same fingerprints in the same buckets: equal
    // sentences are written once.
    let mut said: Vec<(String, String)> = Vec::new();
    for variant in ["cuckoo", "cuckoo-ss"] {
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
    // The scalable filter at its highest load: theory assumes every insert
    // lands in a layer; the filter skips items it already reports present.
    let last = LOADS[LOADS.len() - 1];
    let scalable: Vec<&Row> = rows
        .iter()
        .filter(|r| r.variant == "scalable" && r.load == last)
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

/// `0.012` as `+1.2%`.
fn signed_percent(x: f64) -> String {
    format!("{:+.1}%", 100.0 * x)
}

/// The appendix: every row.
pub(super) fn appendix(table: &Table) -> String {
    let mut out = String::from(
        "Every row of `fpr.csv`: the pooled rate over the instances' probes with its 95% \
         Clopper–Pearson interval, theory, and the between-instance spread of the rate \
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
        ("theory_fpr", "theory"),
        ("underpowered", "underpowered"),
        ("theory_in_ci95", "inside"),
        ("rate_sd", "spread"),
        ("rate_sd_ci95_low", "spread low"),
        ("rate_sd_ci95_high", "spread high"),
        ("rate_sd_theory", "spread theory"),
        ("probe_sd", "probe noise"),
    ]));
    out
}
