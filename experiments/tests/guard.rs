//! `bloomlab guard` at quick scale (issue 15): every answer right, churn
//! included; the database queries for absent ids are exactly the guard's
//! false positives; and their count is what `expected_fpr()` predicts.

use std::process::Command;

use bloomlab_lab::stats::clopper_pearson;

mod common;
use common::{cell, count, quick, read_csv, scratch};

/// The chance that the test fails on a correct implementation, over all
/// rows together: each row's Clopper–Pearson interval (exact, from the
/// binomial distribution: it holds the true rate with at least its
/// confidence) is taken at 1 − FAMILY/rows (Bonferroni). The report's 95%
/// intervals would each miss theory in about one row in twenty by chance,
/// and there are dozens of rows; the seed is fixed, so the test is also
/// deterministic.
const FAMILY: f64 = 0.001;

fn redis_installed() -> bool {
    Command::new("redis-server")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn every_answer_is_right_and_false_positives_match_theory() {
    let dir = scratch("guard");
    quick("guard", "15", &dir, &[]);
    let rows = read_csv(&dir.join("guard.csv"));
    assert!(!rows.is_empty());

    // Redis ran where it is installed (CI installs it); the LRU otherwise.
    let redis = redis_installed();
    let guards: Vec<&str> = rows.iter().map(|r| cell(r, "guard")).collect();
    assert_eq!(guards.contains(&"redis counting 1%"), redis);
    for r in &rows {
        assert_eq!(cell(r, "cache"), if redis { "redis" } else { "lru" });
    }
    // The database's temporary folder is gone.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("output folder")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(".guard-db-"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");

    let tested: Vec<&Vec<(String, String)>> = rows
        .iter()
        .filter(|r| cell(r, "theory_applies") == "yes" && cell(r, "guard") != "none")
        .collect();
    assert!(tested.len() >= 30, "only {} rows to test", tested.len());
    let confidence = 1.0 - FAMILY / tested.len() as f64;
    for r in &rows {
        let what = format!("{} / {}", cell(r, "guard"), cell(r, "workload"));
        assert_eq!(count(r, "wrong_answers"), 0, "{what}");
        // Counted at the database and at the guard, independently.
        assert_eq!(
            count(r, "absent_db_queries"),
            count(r, "false_positives"),
            "{what}"
        );
        if cell(r, "guard") == "none" {
            assert_eq!(count(r, "false_positives"), count(r, "absent_requests"));
        }
        // A filter that cannot delete lets every deleted row through.
        if cell(r, "workload") == "churn" && cell(r, "theory_applies") == "no" {
            assert_eq!(
                count(r, "false_positives"),
                count(r, "absent_requests"),
                "{what}"
            );
        }
    }
    for r in tested {
        let what = format!("{} / {}", cell(r, "guard"), cell(r, "workload"));
        let trials = count(r, "absent_requests");
        let expected: f64 = cell(r, "expected_fpr").parse().expect("a rate");
        let fp = count(r, "false_positives");
        let (lo, hi) = clopper_pearson(fp, trials, confidence);
        assert!(
            (lo..=hi).contains(&expected),
            "{what}: {fp} false positives in {trials}, expected rate {expected}, \
             {confidence} interval [{lo}, {hi}]"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}
