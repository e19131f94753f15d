//! The report section (short) and its appendix (the method in full, the
//! verdicts row by row, the layer-boundary rows).

use super::*;

/// The rows of `which`.
fn rows_of(table: &Table, which: Which) -> Vec<&Vec<String>> {
    let col = table.column("filter").unwrap_or(0);
    table
        .rows()
        .iter()
        .filter(|r| r[col] == which.name())
        .collect()
}

pub(super) fn body(table: &Table, n0: u64, n_max: u64, n_probes: usize) -> String {
    let col = |name: &str| table.column(name).unwrap_or(0);
    let cell = |row: &[String], name: &str| row[col(name)].clone();
    let rows = table.rows();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Three growing filters asked for a total rate P = {TARGET} from n0 = {n0} take the \
         same {n_max} keys (ten doublings) and are probed with {n_probes} non-members at every \
         layer boundary and half-full layer. bloomlab's `ScalableBloomFilter` (r = 0.85) and \
         its RedisBloom preset (r = 0.5) split P over the layers; `growable-bloom-filter` 2.1 \
         gives P to its first layer, so its total is bounded only by P/(1 − r) = {:.4}. \
         Memory is compared with a classic filter right-sized for n.\n",
        Which::Peer.bound()
    );
    let count = |name: &str| rows.iter().filter(|r| cell(r, name) == "yes").count();
    let _ = write!(
        out,
        "Theory (the compound rate of each filter's layers at their fill) lies inside the 95% \
         interval in {} of {} rows, and within the filter-to-filter spread in {} of them (appendix).",
        count("theory_in_ci95"),
        rows.len(),
        count("theory_within_spread"),
    );
    for which in Which::ALL {
        let over = rows_of(table, which)
            .into_iter()
            .find(|r| cell(r, "theory_above_target") == "yes")
            .map_or_else(
                || "stays under P".to_string(),
                |r| format!("passes P from n = {}", cell(r, "items")),
            );
        let _ = write!(out, " {}: theory {over}.", which.name());
    }
    out.push_str("\n\n");
    let _ = writeln!(
        out,
        "| filter | rows | rows whose interval lies above P | rows where theory exceeds P | largest measured rate | bits/item at the end | memory vs classic at the end |\n|---|---|---|---|---|---|---|"
    );
    for which in Which::ALL {
        let mine: Vec<&Vec<String>> = rows
            .iter()
            .filter(|r| cell(r, "filter") == which.name())
            .collect();
        let over = mine
            .iter()
            .filter(|r| cell(r, "measured_above_target") == "yes")
            .count();
        let theory_over = mine
            .iter()
            .filter(|r| cell(r, "theory_above_target") == "yes")
            .count();
        let first_over = mine
            .iter()
            .find(|r| cell(r, "measured_above_target") == "yes")
            .map(|r| format!(" (from n = {})", cell(r, "items")))
            .unwrap_or_default();
        let worst = mine
            .iter()
            .map(|r| cell(r, "measured_fpr"))
            .max_by(|a, b| {
                let (x, y) = (
                    a.parse::<f64>().unwrap_or(0.0),
                    b.parse::<f64>().unwrap_or(0.0),
                );
                x.total_cmp(&y)
            })
            .unwrap_or_default();
        let last = mine.last();
        let _ = writeln!(
            out,
            "| {} | {} | {}{} | {} | {} | {} | {}× |",
            which.name(),
            mine.len(),
            over,
            first_over,
            theory_over,
            worst,
            last.map(|r| cell(r, "bits_per_item")).unwrap_or_default(),
            last.map(|r| cell(r, "memory_ratio_to_classic"))
                .unwrap_or_default(),
        );
    }
    let _ = writeln!(
        out,
        "\n![false-positive rate while growing](growth_fpr.svg)\n\n\
         ![bits per item while growing, one panel per filter](growth_memory.svg)\n"
    );
    let _ = writeln!(
        out,
        "Data: [`growth.csv`](growth.csv); the rows at the layer boundaries and the verdicts \
         row by row are in the appendix."
    );
    out
}

pub(super) fn appendix(table: &Table, n0: u64, n_max: u64, n_probes: usize) -> String {
    let col = |name: &str| table.column(name).unwrap_or(0);
    let cell = |row: &[String], name: &str| row[col(name)].clone();
    let rows = table.rows();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "**Method.** n grows to {n_max} = 1,023 × n0 (n0 = {n0}; ten full layers of growth \
         factor 2); each checkpoint is probed with the same {n_probes} keys never inserted. \
         `bloomlab r=0.85` is `ScalableBloomFilter` with its defaults (layer i at \
         P·(1 − r)·r^i); the RedisBloom preset is `.redisbloom()` (layer i at P·0.5^(i+1)); \
         `growable-bloom-filter` 2.1 is built with `desired_error_ratio(P)`, the rate of its \
         *first* layer (then P·0.8515625^i), and hashes with its own xxh3, taking no key. \
         *Theory* is the compound rate 1 − Π(1 − p_i) of each filter's present layers at \
         their actual fill: classic layers for ours, partitioned layers (one bit per slice) \
         for the peer. Memory: the filters' tables (ours measured; the peer's from its sizing \
         rule, which a unit test checks against its serialized buffers) against \
         `theory::classic::size_for(n, P)`.\n"
    );
    let count = |name: &str| rows.iter().filter(|r| cell(r, name) == "yes").count();
    let _ = writeln!(
        out,
        "Theory falls inside the 95% interval in {} of {} rows. That interval covers only the \
         probes; each row measures one filter, whose rate differs from theory's (the mean over \
         filters with other hash keys) by the chance occupancy of its tables, and successive \
         rows measure the same filter, so a deviation carries from row to row. The column \
         `instance_sd` gives that filter-to-filter standard deviation (from the occupancy \
         variance of each layer); counting it too, theory lies within 1.96 standard deviations \
         of the measurement in {} of {} rows.",
        count("theory_in_ci95"),
        rows.len(),
        count("theory_within_spread"),
        rows.len()
    );
    for which in Which::ALL {
        let num = |r: &Vec<String>, name: &str| cell(r, name).parse::<f64>().unwrap_or(f64::NAN);
        let mine: Vec<&Vec<String>> = rows
            .iter()
            .filter(|r| cell(r, "filter") == which.name())
            .collect();
        let (mut below, mut over) = (0, 0);
        for r in &mine {
            let t = num(r, "theory_fpr");
            below += usize::from(t > num(r, "ci95_high"));
            over += usize::from(t < num(r, "ci95_low"));
        }
        let spread = mine
            .iter()
            .filter(|r| cell(r, "theory_within_spread") == "yes")
            .count();
        let _ = write!(
            out,
            " {}: measured above theory's interval in {over} rows, below it in {below}; \
             within the spread in {spread} of {}.",
            which.name(),
            mine.len()
        );
    }
    out.push_str("\n\n");
    // A filter whose rows sit beyond the spread, all on the high side, is
    // not unlucky: say what it has that the others lack.
    for which in [Which::Ours, Which::Redis] {
        let mine: Vec<&Vec<String>> = rows
            .iter()
            .filter(|r| cell(r, "filter") == which.name())
            .collect();
        let beyond: Vec<&&Vec<String>> = mine
            .iter()
            .filter(|r| cell(r, "theory_within_spread") == "no")
            .collect();
        let all_high = beyond.iter().all(|r| {
            cell(r, "theory_fpr").parse::<f64>().unwrap_or(0.0)
                < cell(r, "measured_fpr").parse::<f64>().unwrap_or(0.0)
        });
        if beyond.len() * 2 < mine.len() || !all_high {
            continue;
        }
        let first = theory::scalable::layer_size(n0, GROWTH, TARGET, which.ratio(), 0)
            .map(|(m, k)| format!("{m} bits with k = {k}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{}: {} of {} rows lie above theory beyond that spread, none below. Its first \
             layer is a table of {first}. The classic formula assumes independent positions; \
             in tables this small, bloomlab's double-hashed positions \
             (`bloomlab_core::hash::Positions`) pass more probes than it predicts, more so \
             for larger k, and the first layer's excess stays in every later row's compound \
             rate. It is a property of the hashing in small tables, not of the layering, and \
             fades as the tables grow (see the default scale, whose n0 is larger).\n",
            which.name(),
            beyond.len(),
            mine.len()
        );
    }
    let _ = write!(
        out,
        "Lines are theory for n distinct items; points are measured (with 95% intervals on \
         the rates). The compound rate rises at each new layer and flattens as the layers' \
         rates shrink."
    );
    for which in Which::ALL {
        let mine: Vec<&Vec<String>> = rows
            .iter()
            .filter(|r| cell(r, "filter") == which.name())
            .collect();
        let over = mine
            .iter()
            .find(|r| cell(r, "theory_above_target") == "yes")
            .map_or_else(
                || "stays under P at every size".to_string(),
                |r| format!("passes P from n = {} on", cell(r, "items")),
            );
        let _ = write!(out, " {}: theory {over}.", which.name());
    }
    if let Some(last) = rows.last() {
        let at_end = |which: Which| {
            rows.iter()
                .rev()
                .find(|r| cell(r, "filter") == which.name())
                .map(|r| cell(r, "bits_per_item"))
                .unwrap_or_default()
        };
        let _ = write!(
            out,
            " At n = {} the bits per item are {} (r = 0.85), {} (preset) and {} (peer), \
             against {} for a classic filter right-sized for n: the guarantee of the total \
             rate costs memory, and more with the preset's halving rates.",
            cell(last, "items"),
            at_end(Which::Ours),
            at_end(Which::Redis),
            at_end(Which::Peer),
            cell(last, "classic_bits_per_item"),
        );
    }
    out.push_str("\n\n");
    let _ = writeln!(out, "The rows at the layer boundaries (all layers full):\n");
    let full: Vec<String> = checkpoints(LAYERS)
        .iter()
        .filter(|m| (*m + 1).is_power_of_two())
        .map(u64::to_string)
        .collect();
    out.push_str(&table.to_markdown_filtered(
        &[
            ("filter", "filter"),
            ("items", "n"),
            ("growth", "n/n0"),
            ("layers", "layers"),
            ("measured_fpr", "measured"),
            ("ci95_low", "95% low"),
            ("ci95_high", "95% high"),
            ("theory_fpr", "theory"),
            ("theory_in_ci95", "inside"),
            ("measured_above_target", "above P"),
            ("bits_per_item", "bits/item"),
            ("classic_bits_per_item", "classic bits/item"),
            ("memory_ratio_to_classic", "memory ratio"),
        ],
        |row| full.contains(&row[col("growth")]),
    ));
    out
}
