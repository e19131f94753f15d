//! `bloomlab reproduce` loses no work: the output folder is checked before
//! anything runs, and a partial run keeps the sections of an earlier report.
//! (Issue 12, point 6.) These use `tradeoff`, one of the quickest experiments.

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use common::stderr;

fn bloomlab(args: &[&str], out: &Path) -> Output {
    let flags = args.iter().chain(&["--scale", "quick", "--out"]);
    common::bloomlab(flags.map(OsStr::new).chain([out.as_os_str()]))
}

/// An empty folder of its own for each test.
fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("reproduce-{name}"))
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// A report as the runner wrote them before sections carried markers: the
/// trade-off section (which the run below replaces) and two others.
const EARLIER: &str = "# bloomlab results

Written by `bloomlab reproduce --scale default --seed 2024`. Every number below is measured in that run.

| experiment | run time |
|---|---|
| The trade-off table | 1.2 s |
| False-positive rate against theory | 4.6 s |
| Growth: the scalable filter from 1× to 1,000× its initial capacity | 5.6 s |
| total | 11.4 s |

## The trade-off table

OLD TRADE-OFF TEXT

## False-positive rate against theory

The fpr body, with a table:

| a | b |
|---|---|
| 1 | 2 |

### A sub-heading

More text.

## Growth: the scalable filter from 1× to 1,000× its initial capacity

The growth body.
";

#[test]
fn a_partial_run_keeps_the_other_sections_and_says_so() {
    let dir = scratch("partial");
    let report = dir.join("REPORT.md");
    std::fs::write(&report, EARLIER).expect("written");

    let out = bloomlab(&["reproduce", "--only", "tradeoff"], &dir);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("wrote the sections of tradeoff and kept 2 sections from the earlier report"),
        "{err}"
    );
    assert!(err.contains("False-positive rate against theory"), "{err}");
    let text = std::fs::read_to_string(&report).expect("REPORT.md");
    assert!(!text.contains("OLD TRADE-OFF TEXT"), "{text}");
    assert!(
        text.contains("Each variant built by `builder(n, p)`"),
        "{text}"
    );
    for kept in [
        "## False-positive rate against theory\n",
        "The fpr body, with a table:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n### A sub-heading\n\nMore text.\n",
        "## Growth: the scalable filter from 1× to 1,000× its initial capacity\n",
        "The growth body.\n",
        "*Written by `bloomlab reproduce --scale default --seed 2024`.*",
    ] {
        assert!(text.contains(kept), "lost {kept:?}:\n{text}");
    }
    assert!(
        text.contains(
            "*Written by `bloomlab reproduce --only tradeoff --scale quick --seed 2024`.*"
        ),
        "{text}"
    );
    let order: Vec<usize> = ["## The trade-off table", "## False-positive", "## Growth"]
        .iter()
        .map(|h| text.find(h).expect("a heading"))
        .collect();
    assert!(order.is_sorted(), "{order:?}");
    assert!(dir.join("tradeoff.csv").exists());

    // A second partial run reads the merged report back and loses nothing.
    let out = bloomlab(&["reproduce", "--only", "tradeoff"], &dir);
    assert!(out.status.success(), "{}", stderr(&out));
    let again = std::fs::read_to_string(&report).expect("REPORT.md");
    for kept in [
        "More text.\n",
        "The growth body.\n",
        "Each variant built by `builder",
    ] {
        assert!(again.contains(kept), "lost {kept:?}:\n{again}");
    }
    assert_eq!(
        again.matches("## The trade-off table").count(),
        1,
        "{again}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_partial_run_does_not_replace_a_report_it_cannot_read() {
    let dir = scratch("foreign");
    let report = dir.join("REPORT.md");
    std::fs::write(&report, "# My own notes\n\nNot written by bloomlab.\n").expect("written");
    let out = bloomlab(&["reproduce", "--only", "tradeoff"], &dir);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("is not a report bloomlab can add to"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&report).expect("still there"),
        "# My own notes\n\nNot written by bloomlab.\n"
    );
    // Refused before running: no CSV.
    assert_eq!(files_under(&dir), [report]);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_unwritable_output_folder_fails_before_any_experiment_runs() {
    // A folder under a regular file cannot be created, even by root (which
    // permission bits would not stop).
    let dir = scratch("unwritable");
    std::fs::write(dir.join("file"), "not a folder").expect("written");
    let out_dir = dir.join("file/sub");
    for args in [
        &["reproduce"][..],
        &["reproduce", "--only", "tradeoff,space"],
        &["tradeoff"],
        &["adversarial"],
    ] {
        let started = Instant::now();
        let out = bloomlab(args, &out_dir);
        let took = started.elapsed();
        assert!(!out.status.success(), "{args:?}");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("cannot create the output folder") && err.contains("file/sub"),
            "{args:?}: {err}"
        );
        assert!(took < Duration::from_secs(5), "{args:?} took {took:?}");
        assert_eq!(files_under(&dir), [dir.join("file")], "{args:?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Each experiment's subcommand says what the experiment does, in `--help`
/// and in its own help: its registry entry's text, not the shared options'.
#[test]
fn every_experiment_subcommand_says_what_it_runs() {
    let help = common::succeeded(&common::bloomlab(["--help"]), "bloomlab --help");
    assert!(!help.contains("Options every experiment takes"), "{help}");
    for (name, about) in [
        ("fpr", "False-positive rate of every variant against theory"),
        ("guard", "a filter in front of SQLite"),
    ] {
        assert!(help.contains(about), "{name}: {help}");
        let own = common::succeeded(&common::bloomlab([name, "--help"]), name);
        assert!(own.contains(about) && own.contains("--scale"), "{own}");
    }
}

/// A negative seed is refused for its value, not as an unknown flag.
#[test]
fn a_negative_seed_is_refused_for_its_value() {
    let out = common::bloomlab(["reproduce", "--seed", "-1"]);
    let err = common::refused(
        &out,
        "reproduce --seed -1",
        "invalid value '-1' for '--seed",
    );
    assert!(!err.contains("unexpected argument"), "{err}");
}
