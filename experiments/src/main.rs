//! `bloomlab`: the experiment runner.
//!
//! `bloomlab reproduce` runs every experiment and writes `results/`: one CSV
//! per experiment, SVG plots and `REPORT.md`. Each experiment is also a
//! subcommand of its own (`bloomlab fpr`), writing its files and its own
//! report (`fpr.md`) into the same folder, so it never overwrites `REPORT.md`.
//! Every run is seeded: the same seed gives the same CSV, byte for byte,
//! apart from columns of timings.
#![forbid(unsafe_code)]

mod choose;
mod exp;
mod naive;
mod plot;
mod progress;
mod report;
mod scale;
mod table;

use std::path::PathBuf;
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
    Reproduce {
        #[command(flatten)]
        common: Common,
        /// Run only these experiments (comma-separated), e.g. `--only fpr,space`.
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
    /// Recommend a filter for a workload, from theory alone.
    Choose(choose::ChooseArgs),
}

/// Options every experiment takes.
#[derive(Debug, Clone, Args)]
struct Common {
    /// How much work to spend: quick (CI, under a minute), default, or full.
    #[arg(long, value_enum, default_value_t = Scale::Default)]
    scale: Scale,
    /// Folder for the CSV, SVG and REPORT.md files (created if missing).
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
            let all = if only.is_empty() {
                E::all().to_vec()
            } else {
                only
            };
            (common, all, None)
        }
        Command::Tradeoff(c) => (c, vec![E::Tradeoff], Some(E::Tradeoff)),
        Command::Fpr(c) => (c, vec![E::Fpr], Some(E::Fpr)),
        Command::Space(c) => (c, vec![E::Space], Some(E::Space)),
        Command::Deletion(c) => (c, vec![E::Deletion], Some(E::Deletion)),
        Command::Growth(c) => (c, vec![E::Growth], Some(E::Growth)),
        Command::Seeds(c) => (c, vec![E::Seeds], Some(E::Seeds)),
        Command::Adversarial(c) => (c, vec![E::Adversarial], Some(E::Adversarial)),
        Command::Throughput(c) => (c, vec![E::Throughput], Some(E::Throughput)),
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
/// `<name>.md` for a `single` experiment's own subcommand.
fn run(
    common: &Common,
    experiments: &[exp::Experiment],
    single: Option<exp::Experiment>,
) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(&common.out)
        .map_err(|e| format!("cannot create {}: {e}", common.out.display()))?;
    let started = Instant::now();
    let names: Vec<String> = experiments
        .iter()
        .filter_map(|e| e.to_possible_value().map(|v| v.get_name().to_owned()))
        .collect();
    let (command, file) = match single {
        Some(_) => (names.join(","), format!("{}.md", names.join(","))),
        None if experiments == exp::Experiment::all() => {
            ("reproduce".to_owned(), "REPORT.md".to_owned())
        }
        None => (
            format!("reproduce --only {}", names.join(",")),
            "REPORT.md".to_owned(),
        ),
    };
    let mut report = Report::new(&command, common.scale, common.seed);
    for &e in experiments {
        let t = Instant::now();
        let ctx = exp::Ctx {
            scale: common.scale,
            seed: common.seed,
            out: &common.out,
        };
        let section = exp::run(e, &ctx)?;
        report.push(section, t.elapsed());
    }
    let path = common.out.join(file);
    std::fs::write(&path, report.render(started.elapsed()))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!(
        "bloomlab: wrote {} in {:.1} s",
        common.out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
