//! The report section (short) and its appendix (the method in full, the
//! verdicts row by row, the rows where the tables have just doubled).

use super::*;

/// The first n at which subject `which`'s theory passes P.
fn theory_passes(rows: &[Row], which: usize) -> Option<u64> {
    rows_of(rows, which).find(|r| r.theory_above()).map(|r| r.n)
}

pub(super) fn body(
    rows: &[Row],
    subjects: &[Subject],
    n0: u64,
    n_max: u64,
    n_probes: usize,
) -> String {
    let mut out = format!(
        "{} growing filters asked for a total rate P = {TARGET} from n0 = {n0} take {n_max} \
         keys (ten doublings), probed with {n_probes} non-members at every doubling and halfway \
         between, in {INSTANCES} instances each with its own hash key and keys. bloomlab's \
         filters split P over their layers or generations; `growable-bloom-filter` 2.1 gives P \
         to its first layer, bounding its total only by P/(1 − r) = {:.4}. Memory is compared \
         with a classic filter right-sized for n, a miss by the cache lines it reads.\n\n",
        subjects.len(),
        peer_bound()
    );
    let passing: Vec<String> = subjects
        .iter()
        .enumerate()
        .filter_map(|(s, subject)| {
            theory_passes(rows, s).map(|n| format!("{} (past P from n = {n})", subject.name))
        })
        .collect();
    out += &format!(
        "Theory (each filter's own, at the items it holds) lies inside the 95% interval of the \
         instances' mean rate in {} of {} rows (appendix); it stays under P for every filter{}.\n\n",
        rows.iter().filter(|r| r.within_spread()).count(),
        rows.len(),
        if passing.is_empty() {
            String::new()
        } else {
            format!(" except {}", passing.join(", "))
        }
    );
    let table = subjects.iter().enumerate().map(|(s, subject)| {
        let mine: Vec<&Row> = rows_of(rows, s).collect();
        let over = mine.iter().filter(|r| r.measured_above() == "yes").count();
        let theory_over = mine.iter().filter(|r| r.theory_above()).count();
        let first_over = mine
            .iter()
            .find(|r| r.measured_above() == "yes")
            .map(|r| format!(" (from n = {})", r.n))
            .unwrap_or_default();
        let worst = mine.iter().map(|r| r.fp.rate()).fold(0.0, f64::max);
        let (first, last) = (mine.first(), mine.last());
        let lines = |r: Option<&&Row>| r.map(|r| r.lines.to_string()).unwrap_or_default();
        let at_end = |f: fn(&Row) -> f64| last.map(|r| fixed(f(r))).unwrap_or_default();
        vec![
            ("filter", subject.name.clone()),
            ("rows", mine.len().to_string()),
            (
                "rows whose interval lies above P",
                format!("{over}{first_over}"),
            ),
            ("rows where theory exceeds P", theory_over.to_string()),
            ("largest measured rate", rate(worst)),
            (
                "lines a miss reads at 1× / at the end",
                format!("{} / {}", lines(first), lines(last)),
            ),
            ("bits/item at the end", at_end(Row::bits_per_item)),
            (
                "memory vs classic at the end",
                format!("{}×", at_end(Row::memory_ratio)),
            ),
        ]
    });
    out.push_str(&markdown_records(table));
    out.push_str(
        "\n![false-positive rate while growing](growth_fpr.svg)\n\n\
         ![bits per item while growing, one panel per filter](growth_memory.svg)\n\n",
    );
    out.push_str(
        "Data: [`growth.csv`](growth.csv); the rows at the doublings and the verdicts \
         row by row are in the appendix.\n",
    );
    out
}

pub(super) fn appendix(
    rows: &[Row],
    subjects: &[Subject],
    table: &Table,
    n0: u64,
    n_max: u64,
    n_probes: usize,
) -> String {
    let mut out = format!(
        "**Method.** n grows to {n_max} = 1,023 × n0 (n0 = {n0}; ten doublings). Every \
         catalog variant that grows is built by its descriptor for n0 items at P; the \
         RedisBloom preset is `ScalableBloomFilter`'s `.redisbloom()` (layer i at \
         P·0.5^(i+1)); `growable-bloom-filter` 2.1 is built with `desired_error_ratio(P)`, the \
         rate of its *first* layer (then P·0.8515625^i), and hashes with its own xxh3, taking \
         no key. Each filter is measured in {INSTANCES} instances: instance i has its own \
         hash key and its own {n_max} keys, and {} of the {n_probes} non-members of a \
         checkpoint, never inserted. *Theory* is each filter's own at the items it holds: the \
         compound rate 1 − Π(1 − p_i) of the scalable filters' layers, the quotient filter's \
         generations (`Table::fpr` of their descriptors), the peer's partitioned layers \
         (one bit per slice). Memory: the filters' tables (bloomlab's measured; the peer's \
         from its sizing rule, which a unit test checks against its serialized buffers) \
         against `theory::classic::size_for(n, P)`; *lines* are the cache lines a miss reads \
         at most (a scalable filter's every layer).\n\n",
        n_probes / INSTANCES
    );
    out += &format!(
        "The interval of a row is Student's t over its {INSTANCES} instances' rates, which \
         holds both the probes' noise and the spread of the tables (hash keys and items) \
         around theory; the Clopper–Pearson interval of the pooled probes, which counts the \
         probes alone, holds theory in {} of {} rows, this one in {}. The rows of one filter \
         are not independent: its instances are measured again at every checkpoint, so a \
         deviation at one (a few more entries that match, a few more bits set) carries into \
         the next, and misses come in runs.",
        rows.iter().filter(|r| r.theory_inside()).count(),
        rows.len(),
        rows.iter().filter(|r| r.within_spread()).count(),
    );
    for (s, subject) in subjects.iter().enumerate() {
        let mine: Vec<&Row> = rows_of(rows, s).collect();
        let interval = |r: &&Row| r.instance_ci.unwrap_or_else(|| r.fp.interval());
        let below = mine.iter().filter(|r| r.theory > interval(r).1).count();
        let over = mine.iter().filter(|r| r.theory < interval(r).0).count();
        out += &format!(
            " {}: measured above theory in {over} rows, below it in {below}, of {}.",
            subject.name,
            mine.len()
        );
    }
    out.push_str("\n\n");
    out.push_str(
        "Lines are theory for n distinct items; points are measured (with 95% intervals on \
         the rates). The scalable filters' compound rate rises at each new layer and \
         flattens as the layers' rates shrink; the quotient filter's rises with the entries \
         each generation adds, at a remainder that widens as it grows.",
    );
    for (s, subject) in subjects.iter().enumerate() {
        let over = theory_passes(rows, s).map_or_else(
            || "stays under P at every size".to_string(),
            |n| format!("passes P from n = {n} on"),
        );
        out += &format!(" {}: theory {over}.", subject.name);
    }
    if let Some(last) = rows.last() {
        let ends: Vec<String> = subjects
            .iter()
            .enumerate()
            .filter_map(|(s, subject)| {
                let r = rows_of(rows, s).last()?;
                Some(format!(
                    "{} ({}, {} lines a miss)",
                    fixed(r.bits_per_item()),
                    subject.name,
                    r.lines
                ))
            })
            .collect();
        out += &format!(
            " At n = {} the bits per item are {}, against {} for a classic filter right-sized \
             for n: keeping the total rate while growing costs memory, more with the preset's \
             halving rates.",
            last.n,
            ends.join(", "),
            fixed(last.classic_bits_per_item())
        );
    }
    out.push_str("\n\n");
    out.push_str("The rows at the doublings (the scalable filters' layers all full):\n\n");
    let growth = table.column("growth").unwrap_or(0);
    let full: Vec<String> = checkpoints(LAYERS)
        .iter()
        .filter(|m| (*m + 1).is_power_of_two())
        .map(u64::to_string)
        .collect();
    out.push_str(
        &table.to_markdown_filtered(
            &[
                &[
                    ("filter", "filter"),
                    ("items", "n"),
                    ("growth", "n/n0"),
                    ("lookup_lines", "lines"),
                ][..],
                // The measured rate against theory, without the count.
                &AGAINST_THEORY_VIEW[1..3],
                &[
                    ("instance_ci95_low", "95% low"),
                    ("instance_ci95_high", "95% high"),
                    ("theory_fpr", "theory"),
                    ("theory_in_instance_ci95", "inside"),
                    ("measured_above_target", "above P"),
                    ("bits_per_item", "bits/item"),
                    ("classic_bits_per_item", "classic bits/item"),
                    ("memory_ratio_to_classic", "memory ratio"),
                ],
            ]
            .concat(),
            |row| full.contains(&row[growth]),
        ),
    );
    out
}
