//! The experiments, one module each.

use std::path::Path;

use clap::ValueEnum;

use crate::report::Section;
use crate::scale::Scale;

pub mod adversarial;
pub mod deletion;
pub mod fpr;
pub mod growth;
pub mod guard;
pub mod seeds;
pub mod space;
pub mod subject;
pub mod throughput;
pub mod tradeoff;

/// What every experiment is given.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    /// How much work to spend.
    pub scale: Scale,
    /// The run's seed; parts derive their own with [`sub_seed`].
    pub seed: u64,
    /// The folder the CSV and SVG files go to.
    pub out: &'a Path,
}

/// An experiment `bloomlab reproduce` can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Experiment {
    /// The trade-off table: every variant at 1%, 0.1% and 0.01%.
    Tradeoff,
    /// False-positive rate against theory as the load grows.
    Fpr,
    /// Bits per item against the achieved rate, with the lower bound.
    Space,
    /// Deletion safety of the counting and cuckoo filters, against peers.
    Deletion,
    /// The scalable filter's rate and memory as it grows.
    Growth,
    /// Every claim of the source documents, checked.
    Seeds,
    /// Crafted false positives when the hash key is known.
    Adversarial,
    /// Indicative nanoseconds per insert and per look-up.
    Throughput,
    /// A filter guarding a real database (SQLite) behind a cache (Redis).
    Guard,
}

impl Experiment {
    /// Every experiment, in report order.
    pub fn all() -> &'static [Experiment] {
        &[
            Experiment::Tradeoff,
            Experiment::Fpr,
            Experiment::Space,
            Experiment::Deletion,
            Experiment::Growth,
            Experiment::Seeds,
            Experiment::Adversarial,
            Experiment::Throughput,
            Experiment::Guard,
        ]
    }
}

/// Runs one experiment, writing its files into `ctx.out`, and returns its report section.
pub fn run(e: Experiment, ctx: &Ctx<'_>) -> Result<Section, String> {
    match e {
        Experiment::Tradeoff => tradeoff::run(ctx),
        Experiment::Fpr => fpr::run(ctx),
        Experiment::Space => space::run(ctx),
        Experiment::Deletion => deletion::run(ctx),
        Experiment::Growth => growth::run(ctx),
        Experiment::Seeds => seeds::run(ctx),
        Experiment::Adversarial => adversarial::run(ctx),
        Experiment::Throughput => throughput::run(ctx),
        Experiment::Guard => guard::run(ctx),
    }
}

/// A seed for one part of an experiment, derived from the run's seed and the
/// part's name, so parts stay independent and stable when others are added.
pub fn sub_seed(seed: u64, part: &str) -> u64 {
    part.bytes().fold(bloomlab_core::hash::mix64(seed), |h, b| {
        bloomlab_core::hash::mix64(h ^ u64::from(b))
    })
}
