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

use bloomlab_experiments::{exp, files, report, summary};

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::builder::PossibleValuesParser;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use bloomlab_experiments::report::Report;
use bloomlab_experiments::scale::Scale;

/// Measures approximate-membership filters against theory and against each other.
///
/// Each experiment is also a subcommand of its own (`bloomlab fpr --scale
/// quick`), which writes its files and `<name>.md` and leaves REPORT.md alone.
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
        #[arg(long, value_delimiter = ',', value_parser = experiment_names())]
        only: Vec<String>,
    },
    /// `choose` and `inspect`, from the light command line (bloomlab-cli).
    #[command(flatten)]
    Tool(bloomlab_cli::Command),
}

/// The names `--only` accepts: every experiment's.
fn experiment_names() -> PossibleValuesParser {
    PossibleValuesParser::new(exp::ALL.iter().map(|e| e.name))
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
    /// Seed of every key, probe and hash key: same seed, same CSV (a whole
    /// number from 0 to 2^64 − 1).
    #[arg(long, default_value_t = 2024, allow_negative_numbers = true)]
    seed: u64,
}

fn main() -> ExitCode {
    // The derived commands, and one subcommand per experiment from the registry.
    let cli = exp::ALL.iter().fold(Cli::command(), |cli, e| {
        // The about after the arguments: `augment_args` sets `Common`'s own.
        cli.subcommand(Common::augment_args(clap::Command::new(e.name)).about(e.about))
    });
    let matches = cli.get_matches();
    if let Some((name, args)) = matches.subcommand()
        && let Some(e) = exp::find(name)
    {
        let common = Common::from_arg_matches(args).unwrap_or_else(|e| e.exit());
        return finish(run(&common, &[e], true));
    }
    match Cli::from_arg_matches(&matches)
        .unwrap_or_else(|e| e.exit())
        .command
    {
        Command::Reproduce { common, only } => {
            // In report order, once each.
            let chosen: Vec<&exp::Experiment> = exp::ALL
                .iter()
                .filter(|e| only.is_empty() || only.iter().any(|o| o == e.name))
                .collect();
            finish(run(&common, &chosen, false))
        }
        Command::Tool(tool) => bloomlab_cli::run(&tool, "bloomlab"),
    }
}

/// The exit code of a run, its error on stderr.
fn finish(result: Result<(), Box<dyn std::error::Error>>) -> ExitCode {
    let Err(e) = result else {
        return ExitCode::SUCCESS;
    };
    eprintln!("bloomlab: {e}");
    ExitCode::FAILURE
}

/// Runs `experiments`, writes the files each returns, and writes their
/// report and appendix: `REPORT.md` (opening with a summary drawn from the
/// CSV files in the folder) and `APPENDIX.md` for `reproduce`, `<name>.md`
/// and `<name>-appendix.md` for an experiment's own subcommand. A partial
/// `reproduce` keeps the sections of an existing report and appendix it does
/// not rewrite. Nothing runs until the folder is known to be writable and
/// any earlier report to be readable.
fn run(
    common: &Common,
    experiments: &[&exp::Experiment],
    single: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    files::prepare_dir(&common.out)?;
    let started = Instant::now();
    let names: Vec<&str> = experiments.iter().map(|e| e.name).collect();
    let partial = !single && experiments.len() != exp::ALL.len();
    let command = match (single, partial) {
        (true, _) => names.join(","),
        (false, false) => "reproduce".to_owned(),
        (false, true) => format!("reproduce --only {}", names.join(",")),
    };
    let (file, appendix_file) = match single {
        true => (format!("{command}.md"), format!("{command}-appendix.md")),
        false => ("REPORT.md".to_owned(), "APPENDIX.md".to_owned()),
    };
    let path = common.out.join(file);
    let appendix_path = common.out.join(appendix_file);
    let (earlier, earlier_appendix) = if partial {
        (earlier_report(&path)?, earlier_report(&appendix_path)?)
    } else {
        (Vec::new(), Vec::new())
    };
    let mut report = Report::new(&command, common.scale, common.seed);
    let mut appendix = Report::appendix(&command, common.scale, common.seed);
    let ctx = exp::Ctx::standard(common.scale, common.seed);
    for e in experiments {
        let t = Instant::now();
        let output = (e.run)(&ctx)?;
        for (name, table) in &output.tables {
            files::write_atomic(&common.out.join(name), table.to_csv())?;
        }
        for (name, svg) in &output.charts {
            files::write_atomic(&common.out.join(name), svg)?;
        }
        let extra = report::Section::new(&output.section.title, output.appendix);
        report.push(e.name, output.section, t.elapsed());
        appendix.push(e.name, extra, t.elapsed());
    }
    let order: Vec<&str> = exp::ALL.iter().map(|e| e.name).collect();
    let kept = report.keep_earlier(earlier, &order);
    if !kept.is_empty() {
        let n = kept.len();
        eprintln!(
            "bloomlab: {}: wrote the sections of {} and kept {n} {} from the earlier report, \
             each marked with the command that wrote it: {}",
            path.display(),
            names.join(", "),
            if n == 1 { "section" } else { "sections" },
            kept.join("; ")
        );
    }
    appendix.keep_earlier(earlier_appendix, &order);
    let summary = if single {
        String::new()
    } else {
        summary::compose(&common.out, &report.sections())
    };
    files::write_atomic(&path, report.render(started.elapsed(), &summary))?;
    files::write_atomic(&appendix_path, appendix.render(started.elapsed(), ""))?;
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
    let unreadable =
        |e: std::io::Error| format!("cannot read the earlier report {}: {e}", path.display());
    let text = match std::fs::read_to_string(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        read => read.map_err(unreadable)?,
    };
    report::parse(&text).map_err(|why| {
        format!(
            "{} is not a report bloomlab can add to ({why}); a partial run would replace it: \
             move it away, run every experiment, or choose another --out",
            path.display()
        )
    })
}
