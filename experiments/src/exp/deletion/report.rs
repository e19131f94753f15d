//! The report section: the tables of each part and what they show.

use super::*;

pub(super) fn find<'a>(
    rows: &'a [Row],
    part: Part,
    kind: Kind,
    metric: &str,
    x: &str,
) -> Option<&'a Row> {
    rows.iter().find(|r| {
        let at = &r.at;
        at.part == part && at.subject == kind && r.metric == metric && (x.is_empty() || at.x == x)
    })
}

/// "count of trials (rate)" for the report, with the real value even for
/// unseeded rows.
pub(super) fn shown(r: Option<&Row>) -> String {
    r.map_or("—".into(), |r| match r.trials {
        Some(t) => format!("{} of {t}{}", r.count, r.mark()),
        None => format!("{}{}", r.count, r.mark()),
    })
}

/// The rows of `part` as a Markdown table.
fn part_table(rows: &[Row], part: Part) -> String {
    let cells = rows.iter().filter(|r| r.at.part == part).map(|r| {
        let interval = r
            .interval()
            .map(|(lo, hi)| format!("{} – {}", rate(lo), rate(hi)))
            .unwrap_or_default();
        let theory = match r.theory_value() {
            t if t.is_empty() => String::new(),
            t => format!("{t} ({})", r.theory_kind),
        };
        vec![
            ("subject", r.at.subject.name()),
            ("x", r.at.x.clone()),
            ("metric", r.metric.to_string()),
            ("count", format!("{}{}", r.count, r.mark())),
            ("of", or_empty(r.trials)),
            ("rate", r.rate().map(rate).unwrap_or_default()),
            ("95% interval", interval),
            ("theory", theory),
            ("check", r.check().to_string()),
            ("note", r.note.clone()),
        ]
    });
    markdown_records(cells)
}

pub(super) fn body(
    paired: [Kind; 4],
    rows: &[Row],
    scale: Scale,
    capacity: usize,
    slots: usize,
) -> String {
    let mut out = format!(
        "bloomlab's `CountingBloomFilter` (counters stick at 15) and `CuckooFilter` (a failed \
         insert is undone) against `fastbloom-rs` 0.5's counting filter (saturated counters \
         are decremented) and the `cuckoofilter` 0.5 crate (a failed insert drops a \
         fingerprint), fed the same keys at scale `{scale}` (capacity {capacity}, rate \
         {TARGET}; cuckoo tables of {slots} slots for duplicates and overfill). †: the \
         cuckoofilter crate relocates with an unseeded RNG, so these vary between runs \
         (the appendix has repeated runs).\n\n"
    );

    // The summary: what each subject loses, scenario by scenario.
    let wrongful_x = rows
        .iter()
        .filter(|r| r.at.part == Part::Wrongful)
        .map(|r| r.at.x.clone())
        .max_by_key(|x| x.parse::<u64>().unwrap_or(0))
        .unwrap_or_default();
    let heads: Vec<String> = std::iter::once("items reported absent that must not be".into())
        .chain(paired.map(Kind::name))
        .collect();
    // Beside the kept items lost of a saturation, the price of losing none:
    // the rate the filter answers with afterwards.
    let line = |label: String, part: Part, metric: &str, x: &str| -> Vec<String> {
        let cell = |k| {
            let lost = shown(find(rows, part, k, metric, x));
            match find(rows, part, k, "fpr_after_removal", x).and_then(Row::rate) {
                Some(fpr) => format!("{lost}; then a rate of {}", rate(fpr)),
                None => lost,
            }
        };
        std::iter::once(label).chain(paired.map(cell)).collect()
    };
    let saturation_x = |label: &str| {
        rows.iter()
            .find(|r| r.at.part == Part::Saturation && r.at.x.starts_with(label))
            .map(|r| r.at.x.clone())
            .unwrap_or_default()
    };
    let (issue, eight) = (saturation_x("issue"), saturation_x("8x"));
    let table = [
        line(
            format!("churn: held items, over {TURNOVER}× capacity of replacements"),
            Part::Churn,
            "held_items_absent",
            "",
        ),
        line(
            format!("after {wrongful_x} false positives removed: members"),
            Part::Wrongful,
            "members_absent",
            &wrongful_x,
        ),
        line(
            format!("saturation ({eight}): kept items"),
            Part::Saturation,
            "kept_items_absent",
            &eight,
        ),
        line(
            format!("saturation, 8,192 counters, k = 4 ({issue}): kept items"),
            Part::Saturation,
            "kept_items_absent",
            &issue,
        ),
        line(
            "one item inserted 2b + 1 = 9 times: other items".into(),
            Part::Duplicates,
            "other_items_absent",
            "",
        ),
        line(
            format!("overfill to {OVERFILL}× the slots: acknowledged items"),
            Part::Overfill,
            "acknowledged_items_absent",
            "",
        ),
    ];
    out.push_str(&markdown(&heads, table));

    // Members lost per removal after the most removals, measured and modelled.
    let [counting, fastbloom, cuckoo, crate_] = paired;
    let per_removal = |kind: Kind| {
        find(rows, Part::Wrongful, kind, "members_absent", &wrongful_x).map_or_else(
            || "—".to_string(),
            |r| {
                let x = r.at.x.parse::<f64>().unwrap_or(f64::NAN);
                let n = r.trials.unwrap_or(0) as f64;
                let model = match r.theory {
                    Theory::Rate(t) => format!(" (model {:.2})", t * n / x),
                    _ => String::new(),
                };
                format!("{:.2}{}{model}", r.count as f64 / x, r.mark())
            },
        )
    };
    out += &format!(
        "\nMembers lost per false positive removed, after {wrongful_x} removals: {} and {} \
         (bloomlab and fastbloom-rs counting), {} and {} (bloomlab cuckoo and the crate).\n\n\
         ![members lost per false positive removed](deletion_wrongful.svg)\n\n\
         ![overfilling a cuckoo table](deletion_overfill.svg)\n\n",
        per_removal(counting),
        per_removal(fastbloom),
        per_removal(cuckoo),
        per_removal(crate_)
    );
    // Counted by part (the rows come part by part): each row is in the
    // appendix, with its note.
    let outside: Vec<&Row> = (rows.iter())
        .filter(|r| matches!(r.check(), "outside" | "differs"))
        .collect();
    let parts: Vec<String> = (outside.chunk_by(|a, b| a.at.part == b.at.part))
        .map(|c| format!("{} {}", c[0].at.part.name(), c.len()))
        .collect();
    let total = outside.len();
    out += &format!(
        "Rows where the measurement disagrees with its theory: {}; each is in the appendix, \
         whose note says what the model leaves out. Data: [`deletion.csv`](deletion.csv) (one \
         row per measured value).\n",
        if total == 0 {
            "none".to_string()
        } else {
            format!("{total} ({})", parts.join(", "))
        }
    );
    out
}

/// The appendix: the crate's repeated overfills, each part's method and
/// model, and its rows.
pub(super) fn appendix(rows: &[Row], crate_runs: &[OverfillRun], slots: usize) -> String {
    let mut out = String::new();
    // The crate's overfill on the same keys, which its unseeded relocations
    // make differ.
    if !crate_runs.is_empty() {
        let runs: Vec<String> = (crate_runs.iter())
            .map(|r| format!("{} lost after {} failed inserts", r.lost, r.failed))
            .collect();
        out += &format!(
            "The cuckoofilter crate's overfill, run {} times on the same keys: {}.\n\n",
            crate_runs.len(),
            runs.join("; ")
        );
    }
    out += &format!(
        "#### 1. Churn\n\nEach filter is filled with `capacity` items; then {TURNOVER} × \
         capacity times a random held item is removed and a new one inserted (the same \
         choices for every filter). Every held item is checked after the fill and after each \
         capacity's worth of replacements. No filter may report a held item absent, refuse to \
         remove one, or fail an insert at this load; the rate afterwards should be the rate of \
         a filter holding `capacity` items.\n\n"
    );
    out.push_str(&part_table(rows, Part::Churn));
    out.push_str("\n#### 2. Removing false positives\n\nEach filter holds `capacity` items. A stream of \
         keys never inserted is run through every filter; each key a filter reports present (a \
         false positive), it is asked to remove. After 1, 2, 5, 10 … such removals the members \
         reported absent are counted. For a counting filter each removal decrements k counters \
         and every member whose counter it brings to zero is lost: the Poisson model \
         (`theory::counting::RemovalLoss`) predicts k·λe^−λ/(1 − e^−λ) members per removal at first, \
         λ = nk/m: 3.8 for the default k = 5 at 1% (λ ≈ 0.51), k·ln 2 ≈ 4.9 at the optimal k = 7. A cuckoo filter deletes one \
         fingerprint, whose owner is lost unless another copy of it sits in the same buckets: \
         just under one member per removal (`theory::cuckoo::removal_loss`). Losses of a counting filter come \
         in clusters (one zeroed counter can cost several members), so the binomial interval \
         understates their spread.\n\n");
    out.push_str(&part_table(rows, Part::Wrongful));
    out += &format!(
        "\n#### 3. Saturation of 4-bit counters\n\nFilters built for `capacity` items at \
         {TARGET} take 2×, 4× and 8× that many, then all but the last `capacity` items are \
         removed, so that the rate would be back at {TARGET} without saturation; the issue's \
         case is 8,192 counters with k = 4 taking 40,000 items, the first half removed. \
         Saturated counters are counted before the removes (theory: \
         `theory::counting::expected_saturated`). bloomlab's counters stay at 15 once there, \
         which keeps every kept item but leaves positions set: the rate after the removes is \
         predicted by the Poisson model `theory::counting::zero_after_removal` (sticky) and bounded by \
         `theory::counting::fpr_with_stuck` (in the note, beside the rate without \
         saturation). fastbloom-rs decrements \
         saturated counters, so the removed items alone can bring a counter that stopped at \
         15 to zero: a kept item is then lost, with probability about \
         1 − (1 − P(Poisson(λ_removed) ≥ 15))^k.\n\n"
    );
    out.push_str(&part_table(rows, Part::Saturation));
    out += &format!(
        "\n#### 4. Cuckoo: duplicates and overfill\n\nDuplicates: a table of {slots} slots \
         half full takes one more item 2b + 1 = 9 times. Two buckets of four slots hold 8 \
         copies; the ninth insert must fail. Then another item goes in through the unique \
         insert (`insert_unique`, the crate's `test_and_add`) nine times: stored once. \
         Overfill: the same table size takes {OVERFILL}× its slots in distinct items; the \
         items whose insert reported success are checked at the end.\n\n"
    );
    out.push_str(&part_table(rows, Part::Duplicates));
    out.push('\n');
    out.push_str(&part_table(rows, Part::Overfill));
    out
}
