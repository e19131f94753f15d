//! `bloomlab`: the experiment runner.
//!
//! `bloomlab reproduce` runs every experiment and writes `results/`: one CSV
//! per experiment, SVG plots and `REPORT.md`. Each experiment is also a
//! subcommand of its own (`bloomlab fpr`), writing its files and its own
//! report (`fpr.md`) into the same folder, so it never overwrites `REPORT.md`.
//! `reproduce --only` replaces its own sections of an existing `REPORT.md`
//! and keeps the others ([`report`]), saying so on stderr.
//! Every run is seeded: the same seed gives the same CSV, byte for byte,
//! apart from columns of timings.
//!
//! The output folder is created and checked for writing before any
//! experiment runs, and every file is written whole or not at all
//! ([`files`]).
#![forbid(unsafe_code)]

mod choose;
mod exp;
mod files;
mod inspect;
mod naive;
mod plot;
mod progress;
mod report;
mod scale;
mod table;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::report::Report;
use crate::scale::Scale;

/// Measures approximate-membership filters against theory and against each other.
#[derive(Debug, Parser)]
#[command(name = "bloomlab", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run every experiment and write the CSV files, plots and REPORT.md.
    ///
    /// With --only, the sections of those experiments replace their own in
    /// an existing REPORT.md and every other section is kept, marked with
    /// the command that wrote it; stderr lists what was kept. A REPORT.md
    /// that bloomlab did not write is left alone and the run refused.
    Reproduce {
        #[command(flatten)]
        common: Common,
        /// Run only these experiments (comma-separated), e.g. `--only
        /// fpr,space`; their sections replace their own in an existing
        /// REPORT.md and the others are kept.
        #[arg(long, value_delimiter = ',', value_enum)]
        only: Vec<exp::Experiment>,
    },
    /// The trade-off table: every variant at 1%, 0.1% and 0.01%.
    Tradeoff(Common),
    /// False-positive rate of every variant against theory, by load.
    Fpr(Common),
    /// Bits per item against the achieved rate, with the lower bound.
    Space(Common),
    /// Deletion safety of the counting and cuckoo filters, against peer crates.
    Deletion(Common),
    /// The scalable filter's rate and memory as it grows, against peers.
    Growth(Common),
    /// Every claim of the source documents (shared/seeds/CLAIMS.md), checked.
    Seeds(Common),
    /// Crafted false positives when the attacker knows the hash key.
    Adversarial(Common),
    /// Indicative nanoseconds per insert and look-up (criterion benches are the reference).
    Throughput(Common),
    /// The documents' scenario: a filter in front of SQLite, behind a Redis (or LRU) cache.
    Guard(Common),
    /// Recommend a filter for a workload, from theory alone.
    Choose(choose::ChooseArgs),
    /// Say what filter a file holds: a bloomlab file of any variant, or a
    /// Guava BloomFilter written with writeTo.
    ///
    /// Prints the variant, its parameters, how full it is, the items it
    /// recorded or holds by estimate, and the false-positive rate a probe
    /// sees now. Exit code 2, with the reason on stderr, for a file of
    /// neither format.
    Inspect {
        /// The file to read.
        file: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Options every experiment takes.
#[derive(Debug, Clone, Args)]
struct Common {
    /// How much work to spend: quick (CI, under a minute), default, or full.
    #[arg(long, value_enum, default_value_t = Scale::Default)]
    scale: Scale,
    /// Folder for the CSV, SVG and REPORT.md files (created if missing,
    /// and checked for writing before any experiment runs).
    #[arg(long, default_value = "results")]
    out: PathBuf,
    /// Seed of every key, probe and hash key: same seed, same CSV.
    #[arg(long, default_value_t = 2024)]
    seed: u64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    use exp::Experiment as E;
    let (common, experiments, single) = match cli.command {
        Command::Reproduce { common, only } => {
            // In report order, once each.
            let chosen: Vec<E> = E::all()
                .iter()
                .copied()
                .filter(|e| only.is_empty() || only.contains(e))
                .collect();
            (common, chosen, None)
        }
        Command::Tradeoff(c) => (c, vec![E::Tradeoff], Some(E::Tradeoff)),
        Command::Fpr(c) => (c, vec![E::Fpr], Some(E::Fpr)),
        Command::Space(c) => (c, vec![E::Space], Some(E::Space)),
        Command::Deletion(c) => (c, vec![E::Deletion], Some(E::Deletion)),
        Command::Growth(c) => (c, vec![E::Growth], Some(E::Growth)),
        Command::Seeds(c) => (c, vec![E::Seeds], Some(E::Seeds)),
        Command::Adversarial(c) => (c, vec![E::Adversarial], Some(E::Adversarial)),
        Command::Throughput(c) => (c, vec![E::Throughput], Some(E::Throughput)),
        Command::Guard(c) => (c, vec![E::Guard], Some(E::Guard)),
        Command::Inspect { file, json } => {
            return match inspect::inspect(&file) {
                Ok(found) if json => match serde_json::to_string_pretty(&found) {
                    Ok(text) => {
                        println!("{text}");
                        ExitCode::SUCCESS
                    }
                    Err(e) => {
                        eprintln!("bloomlab inspect: {e}");
                        ExitCode::FAILURE
                    }
                },
                Ok(found) => {
                    println!("{found}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("bloomlab inspect: {e}");
                    ExitCode::from(2)
                }
            };
        }
        Command::Choose(args) => {
            return match choose::run(&args) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("bloomlab choose: {e}");
                    ExitCode::from(2)
                }
            };
        }
    };
    match run(&common, &experiments, single) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bloomlab: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `experiments` and writes their report: `REPORT.md` for `reproduce`,
/// `<name>.md` for a `single` experiment's own subcommand. A partial
/// `reproduce` keeps the sections of an existing `REPORT.md` it does not
/// rewrite. Nothing runs until the folder is known to be writable and any
/// earlier report to be readable.
fn run(
    common: &Common,
    experiments: &[exp::Experiment],
    single: Option<exp::Experiment>,
) -> Result<(), Box<dyn std::error::Error>> {
    files::prepare_dir(&common.out)?;
    let started = Instant::now();
    let name = |e: &exp::Experiment| {
        e.to_possible_value()
            .map(|v| v.get_name().to_owned())
            .unwrap_or_default()
    };
    let names: Vec<String> = experiments.iter().map(name).collect();
    let partial = single.is_none() && experiments != exp::Experiment::all();
    let (command, file) = match single {
        Some(_) => (names.join(","), format!("{}.md", names.join(","))),
        None if !partial => ("reproduce".to_owned(), "REPORT.md".to_owned()),
        None => (
            format!("reproduce --only {}", names.join(",")),
            "REPORT.md".to_owned(),
        ),
    };
    let path = common.out.join(file);
    let earlier = if partial {
        earlier_report(&path)?
    } else {
        Vec::new()
    };
    let mut report = Report::new(&command, common.scale, common.seed);
    for (&e, name) in experiments.iter().zip(&names) {
        let t = Instant::now();
        let ctx = exp::Ctx {
            scale: common.scale,
            seed: common.seed,
            out: &common.out,
        };
        let section = exp::run(e, &ctx)?;
        report.push(name, section, t.elapsed());
    }
    if !earlier.is_empty() {
        let order: Vec<String> = exp::Experiment::all().iter().map(name).collect();
        let order: Vec<&str> = order.iter().map(String::as_str).collect();
        let kept = report.keep_earlier(earlier, &order);
        if !kept.is_empty() {
            eprintln!(
                "bloomlab: {}: wrote the sections of {} and kept {} {} from the earlier \
                 report, each marked with the command that wrote it: {}",
                path.display(),
                names.join(", "),
                kept.len(),
                if kept.len() == 1 {
                    "section"
                } else {
                    "sections"
                },
                kept.join("; ")
            );
        }
    }
    files::write_atomic(&path, report.render(started.elapsed()))?;
    eprintln!(
        "bloomlab: wrote {} in {:.1} s",
        common.out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The sections of the report at `path`, if there is one.
///
/// # Errors
///
/// A message if the file cannot be read or is not a bloomlab report: a
/// partial run would otherwise replace it.
fn earlier_report(path: &Path) -> Result<Vec<report::Entry>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(format!(
                "cannot read the earlier report {}: {e}",
                path.display()
            ));
        }
    };
    report::parse(&text).map_err(|why| {
        format!(
            "{} is not a report bloomlab can add to ({why}); a partial run would replace it: \
             move it away, run every experiment, or choose another --out",
            path.display()
        )
    })
}
