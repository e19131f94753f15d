//! The same seed gives the same CSV: the runner's promise of reproducibility.

use std::path::Path;

mod common;
use common::{quick, scratch};

/// Every CSV file in `dir`, by name, sorted.
fn csv_files(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .expect("output folder exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, std::fs::read_to_string(&p).expect("readable CSV"))
        })
        .collect();
    files.sort();
    files
}

/// Drops the columns whose name says they hold timings (`_ns`, `_ms`,
/// `_seconds`, and their intervals `_ns_…`, `_ms_…`), as
/// `scripts/same-csv.sh` does.
fn without_timings(csv: &str) -> String {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let keep: Vec<bool> = header
        .iter()
        .map(|c| {
            !(c.ends_with("_ns")
                || c.ends_with("_ms")
                || c.ends_with("_seconds")
                || c.contains("_ns_")
                || c.contains("_ms_"))
        })
        .collect();
    std::iter::once(header.join(","))
        .chain(lines.map(|l| {
            l.split(',')
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(c, _)| c)
                .collect::<Vec<_>>()
                .join(",")
        }))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn same_seed_same_csv_other_seed_other_csv() {
    let (a, b, c) = (scratch("a"), scratch("b"), scratch("c"));
    quick("reproduce", "7", &a, &[]);
    quick("reproduce", "7", &b, &[]);
    // The other seed only for the false-positive experiment, whose counts
    // come from the seed's keys: a third whole run took 35 s of CI.
    quick("reproduce", "8", &c, &["--only", "fpr"]);
    let (fa, fb, fc) = (csv_files(&a), csv_files(&b), csv_files(&c));
    assert!(!fa.is_empty(), "no CSV written");
    assert_eq!(fa.len(), fb.len());
    for ((name_a, csv_a), (name_b, csv_b)) in fa.iter().zip(&fb) {
        assert_eq!(name_a, name_b);
        assert_eq!(
            without_timings(csv_a),
            without_timings(csv_b),
            "{name_a} differs between runs"
        );
    }
    // A different seed draws other keys: the counts must change.
    let fpr = |files: &[(String, String)]| {
        files
            .iter()
            .find(|(name, _)| name == "fpr.csv")
            .map(|(_, csv)| without_timings(csv))
            .expect("fpr.csv written")
    };
    assert_ne!(fpr(&fa), fpr(&fc), "seed 8 gave the same fpr.csv as seed 7");
    report_reads_in_minutes(&a);
    for dir in [a, b, c] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// The report a run writes: a summary naming every claim of the source
/// documents with E5 shown wrong, then sections short enough to read, the
/// per-row tables in the appendix.
fn report_reads_in_minutes(dir: &Path) {
    let report = std::fs::read_to_string(dir.join("REPORT.md")).expect("REPORT.md written");
    let appendix = std::fs::read_to_string(dir.join("APPENDIX.md")).expect("APPENDIX.md written");
    let words = report.split_whitespace().count();
    assert!(words < 4_000, "REPORT.md has {words} words");
    let summary = report
        .split_once("## Summary")
        .and_then(|(_, rest)| rest.split_once("<!-- bloomlab section"))
        .map(|(s, _)| s)
        .expect("a summary before the first section");
    let ids = ["T", "E", "H", "V"]
        .iter()
        .zip([4, 6, 4, 6])
        .flat_map(|(g, n)| (1..=n).map(move |i| format!("{g}{i}")));
    for id in ids {
        assert!(summary.contains(&id), "{id} missing from the summary");
    }
    assert!(summary.contains("**E5: wrong**"), "{summary}");
    assert!(
        summary.lines().count() < 60,
        "the summary runs past a screen"
    );
    assert!(appendix.contains("## Run times"));
    assert!(
        appendix.split_whitespace().count() > words,
        "the appendix holds the long tables"
    );
}
