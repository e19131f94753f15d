//! Running the `bloomlab` binary as a user runs it, for the tests in this
//! folder; each test file uses its part.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `bloomlab` run with `args`, its output collected.
pub fn bloomlab<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bloomlab"))
        .args(args)
        .output()
        .expect("the bloomlab binary runs")
}

/// `bloomlab <command> --scale quick --seed <seed> --out <out>`, then
/// `extra`: it must succeed.
pub fn quick(command: &str, seed: &str, out: &Path, extra: &[&str]) {
    let status = Command::new(env!("CARGO_BIN_EXE_bloomlab"))
        .args([command, "--scale", "quick", "--seed", seed, "--out"])
        .arg(out)
        .args(extra)
        .status()
        .expect("the bloomlab binary runs");
    assert!(status.success(), "bloomlab {command} failed: {status}");
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The stdout of a run that must have succeeded (`what` names it if not).
pub fn succeeded(out: &Output, what: &str) -> String {
    assert!(out.status.success(), "{what}: {}", stderr(out));
    stdout(out)
}

/// A refused run: exit code 2, nothing on stdout, and a message on stderr
/// that contains `says`; returns that message. `what` names the input in
/// the failure messages.
pub fn refused(out: &Output, what: &str, says: &str) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert!(out.stdout.is_empty(), "{what}: {}", stdout(out));
    assert!(err.contains(says), "{what}: expected '{says}' in: {err}");
    err
}

/// An empty folder of its own for the test `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bloomlab-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// A CSV file the run wrote, as rows of (column name, cell); every line
/// has a cell for each column.
pub fn read_csv(path: &Path) -> Vec<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .expect("a header")
        .split(',')
        .map(str::to_owned)
        .collect();
    lines
        .map(|l| {
            assert_eq!(l.split(',').count(), header.len(), "{path:?}: {l}");
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(str::to_owned))
                .collect()
        })
        .collect()
}

/// The cell of column `name` in `row`.
pub fn cell<'a>(row: &'a [(String, String)], name: &str) -> &'a str {
    row.iter()
        .find(|(c, _)| c == name)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no column {name}"))
}

/// The cell of column `name` in `row`, a count.
pub fn count(row: &[(String, String)], name: &str) -> u64 {
    cell(row, name)
        .parse()
        .unwrap_or_else(|_| panic!("{name} = {:?}", cell(row, name)))
}
