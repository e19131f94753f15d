//! Turns criterion's saved results into `results/BENCH.md`, writes every
//! row to `results/bench_rows.csv` and upserts the run's goals into
//! `results/bench_history.csv`.
//!
//! ```text
//! cargo bench -p bloomlab-benches
//! cargo run --release -p bloomlab-benches --bin bench-report -- \
//!     [--criterion DIR] [--out FILE] [--rows FILE] [--history FILE] \
//!     [--findings FILE] [--stale-after-minutes N] [--commit COMMIT]
//! ```
//!
//! Exits with status 2 and a message naming the file when the results cannot
//! be read.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use bloomlab_benches::report::{self, Report, ReportError};
use clap::Parser;

/// Command-line options; relative defaults are taken from the workspace root.
#[derive(Parser, Debug)]
#[command(
    about = "Write results/BENCH.md, bench_rows.csv and bench_history.csv from criterion's saved results",
    after_help = "WORKSPACE is the current directory when it is the bloomlab workspace root, else the root this tool was built from."
)]
struct Args {
    /// Criterion's output directory [default: $CARGO_TARGET_DIR/criterion,
    /// else WORKSPACE/target/criterion].
    #[arg(long, value_name = "DIR")]
    criterion: Option<PathBuf>,
    /// The markdown file to write [default: WORKSPACE/results/BENCH.md].
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Every row of the run, as CSV [default: WORKSPACE/results/bench_rows.csv].
    #[arg(long, value_name = "FILE")]
    rows: Option<PathBuf>,
    /// The history of runs and goals, as CSV, upserted
    /// [default: WORKSPACE/results/bench_history.csv].
    #[arg(long, value_name = "FILE")]
    history: Option<PathBuf>,
    /// Hand-written findings appended verbatim [default: WORKSPACE/benches/FINDINGS.md].
    #[arg(long, value_name = "FILE")]
    findings: Option<PathBuf>,
    /// Leave out results written more than this many minutes before the
    /// newest one (folders of renamed or removed benchmarks).
    #[arg(long, value_name = "MINUTES", default_value_t = report::STALE_AFTER.as_secs() / 60)]
    stale_after_minutes: u64,
    /// The commit the results were measured at, when it is not the
    /// workspace's HEAD (the report was rewritten after later commits)
    /// [default: `git rev-parse --short HEAD`].
    #[arg(long, value_name = "COMMIT")]
    commit: Option<String>,
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-report: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Args) -> Result<(), ReportError> {
    let root = report::workspace_root();
    let criterion = args
        .criterion
        .unwrap_or_else(|| report::default_criterion_dir(&root));
    let out = args.out.unwrap_or_else(|| root.join("results/BENCH.md"));
    let rows = args
        .rows
        .unwrap_or_else(|| root.join("results/bench_rows.csv"));
    let history = args
        .history
        .unwrap_or_else(|| root.join("results/bench_history.csv"));
    let findings = args
        .findings
        .unwrap_or_else(|| root.join("benches/FINDINGS.md"));

    let stale_after = Duration::from_secs(args.stale_after_minutes.saturating_mul(60));
    let mut report = Report::read(&criterion, &findings, stale_after)?;
    report.describe_environment(&root);
    if let Some(commit) = args.commit {
        report.commit = Some(commit);
    }
    // The report names the findings file as a reader of the repository sees it.
    if let Ok(relative) = findings.strip_prefix(&root) {
        report.findings_path = relative.to_path_buf();
    }
    report::write_report(&out, &report.to_markdown())?;
    report.write_csv(&rows, &history)?;

    let outcomes = report.outcomes();
    let counted = outcomes.iter().filter(|o| !o.goal.informational);
    let met = counted.clone().filter(|o| o.verdict.is_met()).count();
    println!(
        "wrote {}, {} and {}: {} benchmarks ({} stale left out), {met} of {} goals met",
        out.display(),
        rows.display(),
        history.display(),
        report.measurements.len(),
        report.stale.len(),
        counted.count()
    );
    Ok(())
}
