#![doc = include_str!("../README.md")]
//!
//! Which bloomlab filter fits a workload, from theory alone: the library
//! behind `bloomlab choose`.
//!
//! An engineer describes the workload (how many items, what rate, whether
//! items are removed, whether and how the set grows, whether many threads
//! insert, how much memory there is); `choose` sizes every bloomlab filter
//! for it exactly as that filter's constructor would, from the formulas in
//! `bloomlab_core::theory` ([`candidates`]), decides which ones meet the
//! workload and ranks them ([`decide`]), and prints a table and a
//! recommendation ([`render`]) or the same as JSON (`--json`, from the serde
//! derives of [`Report`]; its `version` changes when a field is removed or
//! changes meaning).
//!
//! Nothing is measured and no number is typed in: `choose` runs in
//! milliseconds (a blocked filter's sizing evaluates its exact rate a few
//! dozen times), and its numbers are what `memory_bytes()` of the real
//! filter reports, which the unit tests check by building each one.

pub mod candidates;
pub mod crossover;
pub mod decide;
mod decimal;
pub mod family;
pub mod numbers;
pub mod render;
pub mod workload;

use std::io::Write as _;

use serde::Serialize;

use bloomlab::theory;

pub use self::crossover::Crossover;
pub use self::decide::{Candidate, Recommendation};
pub use self::family::{FamilyReport, Target};
pub use self::workload::{Growth, Workload, parse_bytes, parse_count, parse_rate};

/// The workload an engineer describes.
#[derive(Debug, Clone, Default)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ChooseArgs {
    /// How many items the filter must hold (at the start, with --grows-to or
    /// --unknown-size): 100000000, 100_000_000, 100,000,000 or 1e8.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", value_parser = parse_count, allow_negative_numbers = true))]
    pub items: u64,
    /// The false-positive rate the workload tolerates, in (0, 1): 0.0001,
    /// 1e-4 or 1/10000.
    #[cfg_attr(feature = "cli", arg(long, value_name = "P", value_parser = parse_rate, allow_negative_numbers = true))]
    pub fpr: f64,
    /// Items are removed as well as added.
    #[cfg_attr(feature = "cli", arg(long))]
    pub deletes: bool,
    /// The set starts at --items and grows to M items (a known upper bound).
    #[cfg_attr(feature = "cli", arg(
        long,
        value_name = "M",
        value_parser = parse_count,
        conflicts_with = "unknown_size",
        allow_negative_numbers = true
    ))]
    pub grows_to: Option<u64>,
    /// The set starts at --items and may grow without a known upper bound.
    #[cfg_attr(feature = "cli", arg(long))]
    pub unknown_size: bool,
    /// Many threads of one process insert at the same time.
    #[cfg_attr(feature = "cli", arg(long))]
    pub concurrent: bool,
    /// The set is built at once from all its items and rebuilt when it
    /// changes (every id of a table, loaded at start-up and reloaded now and
    /// then): no item is added to a built filter, so the filters built from
    /// their keys are weighed too, with what a rebuild costs.
    #[cfg_attr(feature = "cli", arg(
        long = "static",
        conflicts_with_all = ["deletes", "grows_to", "unknown_size", "concurrent"]
    ))]
    pub static_set: bool,
    /// The most memory the filter may take, in whole bytes: 200000000,
    /// 64MiB, 1.5GB, … (kB, MB, GB, TB are powers of 1000; KiB, MiB, GiB,
    /// TiB powers of 1024).
    // Hyphen values reach the parser, so that `-1` or `-64MiB` is refused
    // for being negative rather than taken for a flag.
    #[cfg_attr(feature = "cli", arg(long, value_name = "BYTES", value_parser = parse_bytes, allow_hyphen_values = true))]
    pub max_memory: Option<u64>,
    /// The filter is shared by several processes: answer with the filters
    /// of bloomlab-redis, kept in Redis, and the memory Redis holds for them.
    #[cfg_attr(feature = "cli", arg(long, conflicts_with = "java"))]
    pub shared: bool,
    /// A Java service reads the filter: answer with bloomlab-guava's
    /// filter, which writes Guava's BloomFilter file, and the file's size.
    #[cfg_attr(feature = "cli", arg(long, visible_alias = "guava"))]
    pub java: bool,
    /// Print the report as JSON instead of a table.
    #[cfg_attr(feature = "cli", arg(long))]
    pub json: bool,
}

impl ChooseArgs {
    /// Where the filter lives: `None` in the process, else in Redis or in
    /// a file for Java.
    pub fn target(&self) -> Option<Target> {
        if self.shared {
            Some(Target::Redis)
        } else if self.java {
            Some(Target::Guava)
        } else {
            None
        }
    }
}

/// Everything `choose` concludes about a workload; `--json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The format's version: 3 (the workload's `rebuilt`, `--static`, and a
    /// candidate's `rebuild`, its cost where it is built from its keys;
    /// 2: a candidate's `params` became its table's line and its
    /// parameters by name).
    pub version: u32,
    /// The workload, as checked.
    pub workload: Workload,
    /// `log2(1/ε)`: the fewest bits per item any filter can use.
    pub lower_bound_bits_per_item: f64,
    /// Every candidate, ranked (the recommendation first).
    pub candidates: Vec<Candidate>,
    /// What to use, and why.
    pub recommendation: Recommendation,
    /// Where a cuckoo filter is smaller than a Bloom filter at the
    /// workload's peak size, if a cuckoo filter can be built for it.
    pub space_crossover: Option<Crossover>,
}

/// The report for a checked workload, over the standard catalog.
pub fn choose(w: &Workload) -> Report {
    choose_in(&bloomlab::catalog::Catalog::standard(), w)
}

/// The report for a checked workload, over the filters of `catalog`.
pub fn choose_in(catalog: &bloomlab::catalog::Catalog<u64>, w: &Workload) -> Report {
    let candidates = decide::evaluate(catalog, w);
    let recommendation = decide::recommend(w, &candidates);
    Report {
        version: 3,
        workload: *w,
        lower_bound_bits_per_item: theory::lower_bound_bits_per_item(w.fpr),
        candidates,
        recommendation,
        space_crossover: crossover::crossover(w.peak_items()),
    }
}

/// Prints the recommendation for `args`; `Ok(false)` when no filter meets
/// every requirement (the report, printed all the same, says what comes
/// closest), so that a script can tell.
///
/// # Errors
///
/// A message for a workload that makes no sense (see
/// [`Workload::from_args`]) or output that cannot be written.
pub fn run(args: &ChooseArgs) -> Result<bool, String> {
    let w = Workload::from_args(args)?;
    let (fits, out) = match args.target() {
        None => {
            let report = choose(&w);
            let out = if args.json {
                json(&report)?
            } else {
                render::text(&report)
            };
            (report.recommendation.id.is_some(), out)
        }
        Some(target) => {
            let report = family::report(&w, target);
            let out = if args.json {
                json(&report)?
            } else {
                render::family_text(&report)
            };
            (report.recommendation.id.is_some(), out)
        }
    };
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", out.trim_end()).map_err(|e| format!("cannot write the report: {e}"))?;
    Ok(fits)
}

/// `value` as pretty JSON.
fn json<T: Serialize>(value: &T) -> Result<String, String> {
    serde_json::to_string_pretty(value).map_err(|e| format!("cannot encode JSON: {e}"))
}
