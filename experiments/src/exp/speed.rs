//! Section `speed`: speed past the cache, from the last benchmark run
//! (`results/bench_rows.csv`, written by `bench-report`), beside the
//! throughput section's in-cache timings. It measures nothing itself: the
//! criterion benches take half an hour on a quiet machine, and a report
//! run is neither.

use std::collections::HashMap;
use std::path::Path;

use super::{Ctx, Error, Output};
use crate::report::Section;
use crate::table::markdown;

/// The benchmark rows the section reads: the repository's, where
/// `bench-report` writes them.
const ROWS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../results/bench_rows.csv");

/// The sizes of the table, as `bench_rows.csv` names their settings.
const SIZES: [(&str, &str, &str); 3] = [
    ("1M items", "scale/lookup_miss", "1M items, 1%"),
    ("20M items", "scale/lookup_miss", "20M items, 1%"),
    ("1 GiB", "big/lookup_miss", "1 GiB, 1%"),
];

/// The bloomlab filters of the table, one lookup at a time and batched.
const FILTERS: [&str; 4] = [
    "bloomlab::BloomFilter",
    "bloomlab::BlockedBloomFilter",
    "bloomlab::CuckooFilter",
    "bloomlab::CountingBloomFilter",
];

/// Writes the section from the repository's benchmark rows.
pub fn run(_ctx: &Ctx) -> Result<Output, Error> {
    Ok(Output::new(Section::new(
        "Speed past the cache",
        body(Path::new(ROWS)),
    )))
}

/// One benchmark row's fields, by column.
type Row = HashMap<String, String>;

/// The section's text from the rows at `path`; a line saying they are
/// missing when they cannot be read.
fn body(path: &Path) -> String {
    let rows: Vec<Row> = csv::Reader::from_path(path)
        .map(|mut r| r.deserialize().filter_map(Result::ok).collect())
        .unwrap_or_default();
    let Some(first) = rows.first() else {
        return "No benchmark rows were found (`results/bench_rows.csv`, written by \
                `bench-report` after `cargo bench -p bloomlab-benches`).\n"
            .into();
    };
    let get = |group: &str, setting: &str, subject: &str| {
        rows.iter()
            .find(|r| {
                cell(r, "group") == group
                    && cell(r, "setting") == setting
                    && cell(r, "subject") == subject
            })
            .and_then(|r| cell(r, "median").parse::<f64>().ok())
    };
    // The fastest peer at each size: a row that is neither bloomlab's nor
    // a hash variant of one.
    let peer = |group: &str, setting: &str| {
        rows.iter()
            .filter(|r| cell(r, "group") == group && cell(r, "setting") == setting)
            .filter(|r| !cell(r, "subject").starts_with("bloomlab"))
            .filter_map(|r| Some((cell(r, "median").parse::<f64>().ok()?, cell(r, "subject"))))
            .min_by(|a, b| a.0.total_cmp(&b.0))
    };
    let ns = |x: Option<f64>| x.map_or_else(|| "–".to_owned(), |x| format!("{x:.1}"));
    let mut heads = vec!["ns per miss (batched)".to_owned()];
    heads.extend(SIZES.iter().map(|s| s.0.to_owned()));
    let mut table: Vec<Vec<String>> = FILTERS
        .iter()
        .map(|&f| {
            let mut cells = vec![format!("`{}`", f.trim_start_matches("bloomlab::"))];
            cells.extend(SIZES.iter().map(|&(_, group, setting)| {
                let one = get(group, setting, f);
                let batch = get(group, setting, &format!("{f} (batch)"));
                format!("{} ({})", ns(one), ns(batch))
            }));
            cells
        })
        .collect();
    let mut best = vec!["fastest peer".to_owned()];
    best.extend(SIZES.iter().map(|&(_, group, setting)| {
        peer(group, setting).map_or_else(|| "–".into(), |(t, who)| format!("{t:.1} ({who})"))
    }));
    table.push(best);
    // Inserts from one and two threads into the concurrent filters, as
    // `benches/benches/atomic.rs` names their settings.
    let inserts = |subject: &str| {
        let setting = |threads| format!("20000000 items, {threads}");
        let at = |threads| get("atomic/insert", &setting(threads), subject);
        format!("{} → {}", ns(at("1 thread")), ns(at("2 threads")))
    };
    format!(
        "The last full criterion run (`{}`, {}; [BENCH.md](BENCH.md), rows in \
         [`bench_rows.csv`](bench_rows.csv), goals of every run in \
         [`bench_history.csv`](bench_history.csv)): misses at 1% as the table outgrows the \
         cache (1.2 MB at 1M items, 24 MB at 20M):\n\n{}\nThreads, ns per insert of \
         wall time filling 20M items from 1 → 2 threads: `AtomicBloomFilter` {}, \
         fastbloom's `AtomicBloomFilter` {} (4 threads in `bench_rows.csv`).\n",
        cell(first, "commit"),
        cell(first, "run_start_utc").replace('T', " "),
        markdown(&heads, table),
        inserts("bloomlab::AtomicBloomFilter"),
        inserts("fastbloom::AtomicBloomFilter"),
    )
}

/// The cell `col` of `row`, or `""`.
fn cell<'a>(row: &'a Row, col: &str) -> &'a str {
    row.get(col).map_or("", String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_rows_give_every_cell() {
        let text = body(Path::new(ROWS));
        // Every filter at every size, and the peers and threads, measured.
        assert!(!text.contains('–'), "{text}");
        assert!(text.contains("| `BlockedBloomFilter` |"), "{text}");
    }

    #[test]
    fn missing_rows_say_so() {
        assert!(body(Path::new("/nonexistent/bench_rows.csv")).starts_with("No benchmark rows"));
    }
}
