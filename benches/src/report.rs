//! The report tool behind `bench-report`: criterion's saved results in,
//! `results/BENCH.md` out.
//!
//! # What it reads
//!
//! Criterion keeps one folder per benchmark under its output directory
//! (`$CARGO_TARGET_DIR/criterion`, else `target/criterion`). The folder names
//! are mangled ids (`classic_lookup_miss/bloomlab__BloomFilter/1M items, 1%`),
//! so the tool never parses them; it reads the ids from the JSON instead:
//!
//! ```text
//! criterion/
//!   <group>/<function>/<value>/
//!     new/benchmark.json   {"group_id", "function_id", "value_str",
//!                           "throughput": {"Elements": n}, ...}
//!     new/estimates.json   {"median": {"point_estimate",
//!                           "confidence_interval": {"lower_bound", "upper_bound"}}, ...}
//!     base/  change/  report/   (earlier run, differences, HTML: skipped)
//! ```
//!
//! Times in `estimates.json` are nanoseconds per iteration; every benchmark
//! of the naming contract sets `Throughput::Elements(batch)`, so ns per
//! operation is the median divided by the batch length.
//!
//! Criterion never deletes the folder of a benchmark that was renamed or
//! removed, so results written well before the newest one (by default
//! [`STALE_AFTER`]) are listed apart and left out of the tables and goals.
//! A rename is only caught this way once the old folder is that much older;
//! deleting the criterion directory before a full run leaves no doubt.
//!
//! # What it writes
//!
//! `results/BENCH.md` ([`render`]), kept under 3,000 words: the run's
//! identity (commit, dates, CPU, instruction-set flags and the code
//! `bloomlab-core` chose), how to reproduce it, the machine, the goals of
//! issues 8, 20, 51, 52 and 55 ([`goals::all`]) with their verdicts, one
//! summary table per bench family ([`render::is_key_table`]), then the
//! hand-written findings file, in which `{{group|subject|setting}}` stands
//! for that row's median ns/op ([`render::expand`]), so a number quoted
//! from the tables has one source.
//!
//! Beside it, two CSV files ([`csv`]): `results/bench_rows.csv`, every row
//! of the run with its interval, its ratio against the group's best peer
//! and, where its family has floors (`big/*`, `scale/*`), against the floor
//! that bounds it ([`compare::tables`]); and `results/bench_history.csv`,
//! one line per run and goal, where this run's lines replace those of the
//! same run and the others stay.

pub mod compare;
pub mod criterion;
pub mod csv;
mod error;
pub mod goals;
pub mod machine;
pub mod render;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

pub use criterion::{Measurement, Unit};
pub use error::ReportError;
pub use goals::{Goal, Outcome, Verdict};
pub use machine::Machine;

/// Default age, relative to the newest result, beyond which a result is
/// stale: a full `cargo bench -p bloomlab-benches` takes well under this.
pub const STALE_AFTER: Duration = Duration::from_secs(60 * 60);

/// Everything the markdown is made from.
#[derive(Clone, Debug)]
pub struct Report {
    /// The criterion directory read.
    pub criterion_dir: PathBuf,
    /// Results of the latest run.
    pub measurements: Vec<Measurement>,
    /// Results left out as stale (see [`STALE_AFTER`]).
    pub stale: Vec<Measurement>,
    /// The age beyond which a result was judged stale.
    pub stale_after: Duration,
    /// Short git commit of the workspace, if git answers.
    pub commit: Option<String>,
    /// The machine description.
    pub machine: Machine,
    /// Where the findings were looked for.
    pub findings_path: PathBuf,
    /// The findings file's text, `None` when the file is absent.
    pub findings: Option<String>,
}

impl Report {
    /// Reads the criterion results and the findings, setting apart results
    /// written more than `stale_after` before the newest; leaves `commit` and
    /// `machine` empty (see [`Report::describe_environment`]).
    pub fn read(
        criterion_dir: &Path,
        findings_path: &Path,
        stale_after: Duration,
    ) -> Result<Self, ReportError> {
        let (measurements, stale) =
            compare::split_stale(criterion::read_results(criterion_dir)?, stale_after);
        Ok(Self {
            criterion_dir: criterion_dir.to_path_buf(),
            measurements,
            stale,
            stale_after,
            commit: None,
            machine: Machine::default(),
            findings_path: findings_path.to_path_buf(),
            findings: read_findings(findings_path)?,
        })
    }

    /// Fills in the machine and the git commit of `workspace`.
    pub fn describe_environment(&mut self, workspace: &Path) {
        self.machine = Machine::detect();
        self.commit = git_commit(workspace);
    }

    /// The goals judged against this run.
    pub fn outcomes(&self) -> Vec<Outcome> {
        goals::evaluate_all(&self.measurements)
    }

    /// The markdown.
    pub fn to_markdown(&self) -> String {
        render::render(self)
    }

    /// The run's identity in the CSV files: its first and last result's
    /// times (the report's time when the files carry none) and its commit.
    pub fn run_id(&self) -> csv::RunId {
        let (start, end) = render::run_dates(self).unwrap_or_else(|| {
            let now = std::time::SystemTime::now();
            (now, now)
        });
        csv::RunId {
            start: csv::timestamp(start),
            end: csv::timestamp(end),
            commit: self.commit.clone().unwrap_or_else(|| "unknown".to_owned()),
        }
    }

    /// `results/bench_rows.csv`: every row of this run.
    pub fn rows_csv(&self) -> String {
        csv::rows_csv(&self.run_id(), &compare::tables(&self.measurements))
    }

    /// Writes every row of this run to `rows` and upserts this run's goals
    /// into the history at `history`.
    pub fn write_csv(&self, rows: &Path, history: &Path) -> Result<(), ReportError> {
        write_file(rows, &self.rows_csv())?;
        let run = self.run_id();
        csv::upsert_history(history, &run, &csv::history_lines(&run, &self.outcomes()))
    }
}

/// The findings file's text; `None` when it does not exist.
pub fn read_findings(path: &Path) -> Result<Option<String>, ReportError> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ReportError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The line that starts the part of `results/BENCH.md` this report does not
/// write (the Redis benchmarks, `cargo bench -p bloomlab-redis`, which need a
/// server): everything from it on is kept when the report is rewritten.
pub const KEPT_MARKER: &str = "<!-- kept by bench-report: ";

/// Writes `text` to `path`, creating its parent directory, and keeps the
/// part of the old file from [`KEPT_MARKER`] on.
pub fn write_report(path: &Path, text: &str) -> Result<(), ReportError> {
    let kept = read_findings(path)?
        .and_then(|old| old.find(KEPT_MARKER).map(|at| old[at..].to_owned()))
        .unwrap_or_default();
    let mut out = text.trim_end_matches('\n').to_owned();
    out.push('\n');
    if !kept.is_empty() {
        out.push('\n');
        out.push_str(&kept);
    }
    write_file(path, &out)
}

/// Writes `text` to `path`, creating its parent directory.
pub fn write_file(path: &Path, text: &str) -> Result<(), ReportError> {
    let write_err = |source| ReportError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(write_err)?;
    }
    fs::write(path, text).map_err(write_err)
}

/// The workspace root: the current directory when it is this workspace's
/// root (it holds `benches/Cargo.toml`), else the directory above this
/// crate's manifest as it was at compile time.
pub fn workspace_root() -> PathBuf {
    if let Ok(cwd) = std::env::current_dir()
        && cwd.join("Cargo.toml").is_file()
        && cwd.join("benches/Cargo.toml").is_file()
    {
        return cwd;
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// Criterion's output directory: `$CARGO_TARGET_DIR/criterion` when the
/// variable is set, else `<workspace>/target/criterion`.
pub fn default_criterion_dir(workspace: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR").filter(|v| !v.is_empty()) {
        Some(target) => PathBuf::from(target).join("criterion"),
        None => workspace.join("target").join("criterion"),
    }
}

/// `git rev-parse --short HEAD` in `dir`, if git is there and answers.
pub fn git_commit(dir: &Path) -> Option<String> {
    let out = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(dir)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    Some(text.trim().to_owned()).filter(|s| out.status.success() && !s.is_empty())
}

#[cfg(test)]
mod tests;
