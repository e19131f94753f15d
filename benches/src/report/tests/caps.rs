//! The caps on BENCH.md and FINDINGS.md, and the CSV files bench-report
//! writes beside them.

use super::*;

/// Words as `wc -w` counts them: runs of characters between white space.
fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// The rows of a `results/bench_rows.csv` as measurements: ns/op rows as
/// one operation an iteration, rows timed in turns as ratios.
fn measurements_from_rows(text: &str) -> Vec<Measurement> {
    let records = super::csv::parse(text).expect("closed quotes");
    assert_eq!(records[0], super::csv::ROWS_HEADER);
    records[1..]
        .iter()
        .map(|r| {
            let number = |i: usize| r[i].parse::<f64>().expect("a number");
            Measurement {
                group: r[3].clone(),
                subject: r[5].clone(),
                setting: Some(r[4].clone()).filter(|s| !s.is_empty()),
                unit: if r[6] == "ratio" {
                    Unit::Iteration
                } else {
                    Unit::Elements(1)
                },
                median_ns: number(7),
                lower_ns: number(8),
                upper_ns: number(9),
                modified: None,
                dir: PathBuf::new(),
            }
        })
        .collect()
}

/// A full run as the benches make it today: the rows of the last full run
/// in git (`results/bench_rows.csv`, 481 rows), plus the rows of the
/// benches added since (atomic, catalog, cmac) and of every goal the file
/// lacks (fuse, quotient): a subject at 10 ns, its peer at 12.5 and its
/// floor at 8.
fn full_run() -> Vec<Measurement> {
    let path = workspace_root().join("results/bench_rows.csv");
    let text = fs::read_to_string(&path).expect("results/bench_rows.csv is committed");
    let mut ms = measurements_from_rows(&text);
    let row = |group: &str, subject: &str, setting: Option<&str>, ns: f64| Measurement {
        group: group.to_owned(),
        subject: subject.to_owned(),
        setting: setting.map(str::to_owned),
        unit: Unit::Elements(1),
        median_ns: ns,
        lower_ns: ns * 0.98,
        upper_ns: ns * 1.02,
        modified: None,
        dir: PathBuf::new(),
    };
    for group in ["atomic/insert", "atomic/insert_batch", "atomic/lookup"] {
        for items in ["1000000", "20000000"] {
            for threads in ["1 thread", "2 threads", "4 threads"] {
                let setting = format!("{items} items, {threads}");
                ms.push(row(
                    group,
                    "bloomlab::AtomicBloomFilter",
                    Some(&setting),
                    10.0,
                ));
                ms.push(row(
                    group,
                    "fastbloom::AtomicBloomFilter",
                    Some(&setting),
                    12.5,
                ));
            }
        }
    }
    for group in [
        "catalog/insert",
        "catalog/lookup_hit",
        "catalog/lookup_miss",
    ] {
        for subject in ["bloomlab::BloomFilter", "bloomlab::CuckooFilter"] {
            ms.push(row(group, subject, Some("1M items, 1%"), 10.0));
        }
    }
    for input in ["8 bytes", "64 bytes", "1024 bytes"] {
        ms.push(row("cmac", "bloomlab::AesCmac", Some(input), 10.0));
        ms.push(row("cmac", "cmac::Cmac<Aes128>", Some(input), 12.5));
    }
    for goal in goals::all() {
        let reference_setting = goal.reference_setting.or(goal.setting);
        for (group, subject, setting, ns) in [
            (goal.group, goal.subject, goal.setting, 10.0),
            (
                goal.reference_group,
                goal.reference,
                reference_setting,
                if compare::is_floor_group(goal.reference_group) {
                    8.0
                } else {
                    12.5
                },
            ),
        ] {
            // A goal without a setting takes the subject's only one.
            let measured = match setting {
                Some(_) => compare::find_at(&ms, group, subject, setting),
                None => compare::find(&ms, group, subject, None),
            };
            if measured.is_none() {
                ms.push(row(group, subject, setting, ns));
            }
        }
    }
    ms
}

#[test]
fn a_full_runs_report_stays_within_three_thousand_words() {
    let ms = full_run();
    assert!(ms.len() >= 480, "{} rows", ms.len());
    let findings = workspace_root().join("benches/FINDINGS.md");
    let report = Report {
        criterion_dir: PathBuf::from("target/criterion"),
        measurements: ms,
        stale: Vec::new(),
        stale_after: STALE_AFTER,
        commit: Some("ea8e487".to_owned()),
        machine: Machine::detect(),
        findings: read_findings(&findings).expect("readable"),
        findings_path: findings,
    };
    let outcomes = report.outcomes();
    // Every goal is judged, as in a full run.
    assert!(
        outcomes
            .iter()
            .all(|o| !matches!(o.verdict, Verdict::NotMeasured(_))),
        "a goal's rows are missing from the fixture"
    );
    let md = report.to_markdown();
    let count = words(&md);
    assert!(count <= 3_000, "{count} words:\n{md}");
    // Every family has its table; the rows are in the CSV, not the markdown.
    for family in [
        "classic", "counting", "cuckoo", "scalable", "scale", "big", "atomic", "fuse", "quotient",
    ] {
        assert!(
            md.contains(&format!("\n### {family}\n")),
            "no {family} table"
        );
    }
    let csv = report.rows_csv();
    assert_eq!(csv.lines().count(), 1 + report.measurements.len());
}

#[test]
fn the_committed_reports_stay_within_their_caps() {
    let root = workspace_root();
    for (path, cap) in [("results/BENCH.md", 3_000), ("benches/FINDINGS.md", 4_000)] {
        let text = fs::read_to_string(root.join(path)).expect("committed");
        let count = words(&text);
        assert!(count <= cap, "{path}: {count} words, over {cap}");
    }
}

#[test]
fn the_committed_csvs_have_the_columns_bench_report_writes() {
    let root = workspace_root();
    for (path, header) in [
        ("results/bench_rows.csv", &super::csv::ROWS_HEADER[..]),
        ("results/bench_history.csv", &super::csv::HISTORY_HEADER[..]),
    ] {
        let text = fs::read_to_string(root.join(path)).expect("committed");
        let records = super::csv::parse(&text).expect("closed quotes");
        assert_eq!(records[0], header, "{path}");
        assert!(records.len() > 1, "{path} has no rows");
        assert!(
            records.iter().all(|r| r.len() == header.len()),
            "{path}: a line with another number of fields"
        );
    }
}

#[test]
fn the_history_replaces_a_runs_lines_and_keeps_the_others() {
    let f = Fixture::standard();
    let path = f.root.join("history.csv");
    let mut report =
        Report::read(&f.root, &f.root.join("none.md"), STALE_AFTER).expect("fixture parses");
    report.commit = Some("aaaaaaa".to_owned());
    let history = f.root.join("rows.csv");
    report.write_csv(&history, &path).expect("writable");
    let first = fs::read_to_string(&path).expect("written");
    let goals = goals::all().len();
    assert_eq!(first.lines().count(), 1 + goals);
    // The same run again: the same file, not its lines twice.
    report.write_csv(&history, &path).expect("writable");
    assert_eq!(fs::read_to_string(&path).expect("written"), first);
    // Another commit is another run: both kept.
    report.commit = Some("bbbbbbb".to_owned());
    report.write_csv(&history, &path).expect("writable");
    let both = fs::read_to_string(&path).expect("written");
    assert_eq!(both.lines().count(), 1 + 2 * goals);
    assert_eq!(both.matches(",aaaaaaa,").count(), goals);
    assert_eq!(both.matches(",bbbbbbb,").count(), goals);
    // A line of the run's: the goal, its rows, its ratio and verdict.
    assert!(both.contains(
        ",aaaaaaa,8,\"BloomFilter miss lookup at most fastbloom's time, same hasher\",\
         classic/lookup_miss/bloomlab::BloomFilter,classic/lookup_miss/fastbloom (SipHash-1-3),,,\
         0.833,1.000,,met,false\n"
    ));
    // A file that is not the history is refused, not overwritten.
    fs::write(&path, "something,else\n").expect("writable");
    assert!(matches!(
        report.write_csv(&history, &path),
        Err(ReportError::Csv { .. })
    ));
    assert_eq!(fs::read_to_string(&path).expect("kept"), "something,else\n");
}
