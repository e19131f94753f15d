//! The experiments, one module each.

use std::time::Duration;

pub use error::Error;

use crate::report::Section;
use crate::scale::Scale;
use crate::table::Table;

pub mod adversarial;
pub mod deletion;
mod error;
pub mod fpr;
pub mod growth;
pub mod guard;
pub mod literature;
pub mod seeds;
pub mod space;
pub mod speed;
pub mod subject;
pub mod throughput;
pub mod tradeoff;

/// What every experiment is given.
#[derive(Debug, Clone, Copy)]
pub struct Ctx {
    /// How much work to spend.
    pub scale: Scale,
    /// The run's seed; parts derive their own with [`sub_seed`].
    pub seed: u64,
    /// The variants measured: the standard catalog ([`subject::standard`])
    /// unless a program registered more.
    pub catalog: &'static bloomlab::catalog::Catalog<u64>,
}

impl Ctx {
    /// A run of the standard catalog at `scale` with `seed`.
    pub fn standard(scale: Scale, seed: u64) -> Self {
        let catalog = subject::standard();
        Self {
            scale,
            seed,
            catalog,
        }
    }
}

/// What an experiment produces, as data: the runner writes the files.
#[derive(Debug, Default)]
pub struct Output {
    /// CSV tables, by file name (`fpr.csv`).
    pub tables: Vec<(String, Table)>,
    /// SVG charts, by file name (`fpr.svg`).
    pub charts: Vec<(String, String)>,
    /// The experiment's section of the report: what a reader needs, short.
    pub section: Section,
    /// Its part of the appendix (`APPENDIX.md`, under the section's title):
    /// the long per-row tables; empty if it has none.
    pub appendix: String,
}

impl Output {
    /// An output of `section` alone; add files with [`table`](Self::table)
    /// and [`chart`](Self::chart).
    pub fn new(section: Section) -> Self {
        Self {
            section,
            ..Self::default()
        }
    }

    /// Adds the CSV file `name`.
    pub fn table(mut self, name: impl Into<String>, table: Table) -> Self {
        self.tables.push((name.into(), table));
        self
    }

    /// Adds `body` (Markdown: long per-row tables) to the experiment's part
    /// of the appendix.
    pub fn appendix(mut self, body: impl AsRef<str>) -> Self {
        self.appendix.push_str(body.as_ref());
        self
    }

    /// Adds the SVG file `name`.
    pub fn chart(mut self, name: impl Into<String>, svg: String) -> Self {
        self.charts.push((name.into(), svg));
        self
    }
}

/// An experiment `bloomlab reproduce` runs, and a subcommand of its own.
#[derive(Debug, Clone, Copy)]
pub struct Experiment {
    /// Its name: the subcommand, the `--only` value and the report marker.
    pub name: &'static str,
    /// One line for `--help`.
    pub about: &'static str,
    /// The experiment.
    pub run: fn(&Ctx) -> Result<Output, Error>,
}

/// Every experiment, in report order: adding one is a module and a line here.
pub const ALL: &[Experiment] = &[
    Experiment {
        name: "tradeoff",
        about: "The trade-off table: every variant at 1%, 0.1% and 0.01%.",
        run: tradeoff::run,
    },
    Experiment {
        name: "fpr",
        about: "False-positive rate of every variant against theory, by load.",
        run: fpr::run,
    },
    Experiment {
        name: "space",
        about: "Bits per item against the achieved rate, with the lower bound.",
        run: space::run,
    },
    Experiment {
        name: "deletion",
        about: "Deletion safety of the counting and cuckoo filters, against peer crates.",
        run: deletion::run,
    },
    Experiment {
        name: "growth",
        about: "The scalable filter's rate and memory as it grows, against peers.",
        run: growth::run,
    },
    Experiment {
        name: "seeds",
        about: "Every claim of the source documents (shared/seeds/CLAIMS.md), checked.",
        run: seeds::run,
    },
    Experiment {
        name: "literature",
        about: "Each paper's headline figure against this run's measurement of it.",
        run: literature::run,
    },
    Experiment {
        name: "adversarial",
        about: "Crafted false positives when the attacker knows the hash key.",
        run: adversarial::run,
    },
    Experiment {
        name: "throughput",
        about: "Speed, space and accuracy at 1% and 0.1%: every variant and peer crate, with a Pareto chart (timings indicative).",
        run: throughput::run,
    },
    Experiment {
        name: "speed",
        about: "Speed past the cache: the last criterion run's lookups at 1M, 20M items and 1 GiB, and two threads (reads results/bench_rows.csv).",
        run: speed::run,
    },
    Experiment {
        name: "guard",
        about: "The documents' scenario: a filter in front of SQLite, behind a Redis (or LRU) cache.",
        run: guard::run,
    },
];

/// The experiment called `name`.
pub fn find(name: &str) -> Option<&'static Experiment> {
    ALL.iter().find(|e| e.name == name)
}

/// Nanoseconds per item of `items` handled in `took`.
pub fn ns_per_item(took: Duration, items: usize) -> f64 {
    took.as_nanos() as f64 / items.max(1) as f64
}

/// A seed for one part of an experiment, derived from the run's seed and the
/// part's name, so parts stay independent and stable when others are added.
pub fn sub_seed(seed: u64, part: &str) -> u64 {
    part.bytes().fold(bloomlab_core::hash::mix64(seed), |h, b| {
        bloomlab_core::hash::mix64(h ^ u64::from(b))
    })
}
