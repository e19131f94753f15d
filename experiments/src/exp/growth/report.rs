//! The report section (short) and its appendix (the method in full, the
//! verdicts row by row, the layer-boundary rows).

use super::*;

/// The first n at which `which`'s theory passes P.
fn theory_passes(rows: &[Row], which: Which) -> Option<u64> {
    rows_of(rows, which).find(|r| r.theory_above()).map(|r| r.n)
}

pub(super) fn body(rows: &[Row], n0: u64, n_max: u64, n_probes: usize) -> String {
    let mut out = format!(
        "Three growing filters asked for a total rate P = {TARGET} from n0 = {n0} take the \
         same {n_max} keys (ten doublings) and are probed with {n_probes} non-members at every \
         layer boundary and half-full layer. bloomlab's `ScalableBloomFilter` (r = 0.85) and \
         its RedisBloom preset (r = 0.5) split P over the layers; `growable-bloom-filter` 2.1 \
         gives P to its first layer, so its total is bounded only by P/(1 − r) = {:.4}. \
         Memory is compared with a classic filter right-sized for n.\n\n",
        Which::Peer.bound()
    );
    out += &format!(
        "Theory (the compound rate of each filter's layers at their fill) lies inside the 95% \
         interval in {} of {} rows, and within the filter-to-filter spread in {} of them (appendix).",
        rows.iter().filter(|r| r.theory_inside()).count(),
        rows.len(),
        rows.iter().filter(|r| r.within_spread()).count()
    );
    for which in Which::ALL {
        let over = theory_passes(rows, which).map_or_else(
            || "stays under P".to_string(),
            |n| format!("passes P from n = {n}"),
        );
        out += &format!(" {}: theory {over}.", which.name());
    }
    out.push_str("\n\n");
    let heads = [
        "filter",
        "rows",
        "rows whose interval lies above P",
        "rows where theory exceeds P",
        "largest measured rate",
        "bits/item at the end",
        "memory vs classic at the end",
    ];
    let table = Which::ALL.map(|which| {
        let mine: Vec<&Row> = rows_of(rows, which).collect();
        let over = mine.iter().filter(|r| r.measured_above() == "yes").count();
        let theory_over = mine.iter().filter(|r| r.theory_above()).count();
        let first_over = mine
            .iter()
            .find(|r| r.measured_above() == "yes")
            .map(|r| format!(" (from n = {})", r.n))
            .unwrap_or_default();
        let worst = mine.iter().map(|r| r.fp.rate()).fold(0.0, f64::max);
        let last = mine.last();
        [
            which.name().to_string(),
            mine.len().to_string(),
            format!("{over}{first_over}"),
            theory_over.to_string(),
            rate(worst),
            last.map(|r| fixed(r.bits_per_item())).unwrap_or_default(),
            format!(
                "{}×",
                last.map(|r| fixed(r.memory_ratio())).unwrap_or_default()
            ),
        ]
    });
    out.push_str(&markdown(&heads, table));
    out.push_str(
        "\n![false-positive rate while growing](growth_fpr.svg)\n\n\
         ![bits per item while growing, one panel per filter](growth_memory.svg)\n\n",
    );
    out.push_str(
        "Data: [`growth.csv`](growth.csv); the rows at the layer boundaries and the verdicts \
         row by row are in the appendix.\n",
    );
    out
}

pub(super) fn appendix(
    rows: &[Row],
    table: &Table,
    n0: u64,
    n_max: u64,
    n_probes: usize,
) -> String {
    let mut out = format!(
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
         `theory::classic::size_for(n, P)`.\n\n"
    );
    let within = rows.iter().filter(|r| r.within_spread()).count();
    out += &format!(
        "Theory falls inside the 95% interval in {} of {} rows. That interval covers only the \
         probes; each row measures one filter, whose rate differs from theory's (the mean over \
         filters with other hash keys) by the chance occupancy of its tables, and successive \
         rows measure the same filter, so a deviation carries from row to row. The column \
         `instance_sd` gives that filter-to-filter standard deviation (from the occupancy \
         variance of each layer); counting it too, theory lies within 1.96 standard deviations \
         of the measurement in {within} of {} rows.\n",
        rows.iter().filter(|r| r.theory_inside()).count(),
        rows.len(),
        rows.len()
    );
    for which in Which::ALL {
        let mine: Vec<&Row> = rows_of(rows, which).collect();
        let interval = |r: &&Row| r.fp.interval();
        let below = mine
            .iter()
            .filter(|r| r.state.theory > interval(r).1)
            .count();
        let over = mine
            .iter()
            .filter(|r| r.state.theory < interval(r).0)
            .count();
        let spread = mine.iter().filter(|r| r.within_spread()).count();
        out += &format!(
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
        let mine = rows_of(rows, which).count();
        let beyond: Vec<&Row> = rows_of(rows, which)
            .filter(|r| !r.within_spread())
            .collect();
        let all_high = beyond.iter().all(|r| r.state.theory < r.fp.rate());
        if beyond.len() * 2 < mine || !all_high {
            continue;
        }
        let first = theory::scalable::layer_size(n0, GROWTH, TARGET, which.ratio(), 0)
            .map(|(m, k)| format!("{m} bits with k = {k}"))
            .unwrap_or_default();
        out += &format!(
            "{}: {} of {mine} rows lie above theory beyond that spread, none below. Its first \
             layer is a table of {first}. The classic formula assumes independent positions; \
             in tables this small, bloomlab's double-hashed positions \
             (`bloomlab_core::hash::FixedPositions`) pass more probes than it predicts, more so \
             for larger k, and the first layer's excess stays in every later row's compound \
             rate. It is a property of the hashing in small tables, not of the layering, and \
             fades as the tables grow (see the default scale, whose n0 is larger).\n\n",
            which.name(),
            beyond.len()
        );
    }
    out.push_str(
        "Lines are theory for n distinct items; points are measured (with 95% intervals on \
         the rates). The compound rate rises at each new layer and flattens as the layers' \
         rates shrink.",
    );
    for which in Which::ALL {
        let over = theory_passes(rows, which).map_or_else(
            || "stays under P at every size".to_string(),
            |n| format!("passes P from n = {n} on"),
        );
        out += &format!(" {}: theory {over}.", which.name());
    }
    if let Some(last) = rows.last() {
        let at_end = |which: Which| {
            rows_of(rows, which)
                .last()
                .map(|r| fixed(r.bits_per_item()))
                .unwrap_or_default()
        };
        out += &format!(
            " At n = {} the bits per item are {} (r = 0.85), {} (preset) and {} (peer), \
             against {} for a classic filter right-sized for n: the guarantee of the total \
             rate costs memory, and more with the preset's halving rates.",
            last.n,
            at_end(Which::Ours),
            at_end(Which::Redis),
            at_end(Which::Peer),
            fixed(last.classic_bits_per_item())
        );
    }
    out.push_str("\n\n");
    out.push_str("The rows at the layer boundaries (all layers full):\n\n");
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
                    ("layers", "layers"),
                ][..],
                // The measured rate against theory, without the count.
                &AGAINST_THEORY_VIEW[1..],
                &[
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
