//! The experiments, one module each.

use std::path::Path;

use clap::ValueEnum;

use crate::report::Section;
use crate::scale::Scale;

pub mod fpr;
pub mod subject;

/// An experiment `bloomlab reproduce` can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Experiment {
    /// False-positive rate against theory as the load grows.
    Fpr,
}

impl Experiment {
    /// Every experiment, in report order.
    pub fn all() -> &'static [Experiment] {
        &[Experiment::Fpr]
    }
}

/// Runs one experiment, writing its files into `out`, and returns its report section.
pub fn run(e: Experiment, scale: Scale, seed: u64, out: &Path) -> Result<Section, String> {
    match e {
        Experiment::Fpr => fpr::run(scale, seed, out),
    }
}

/// A seed for one part of an experiment, derived from the run's seed and the
/// part's name, so parts stay independent and stable when others are added.
pub fn sub_seed(seed: u64, part: &str) -> u64 {
    part.bytes().fold(bloomlab_core::hash::mix64(seed), |h, b| {
        bloomlab_core::hash::mix64(h ^ u64::from(b))
    })
}
