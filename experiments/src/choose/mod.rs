//! `bloomlab choose`: which filter fits a workload (being written, issue #7).

use clap::Args;

/// The workload an engineer describes.
#[derive(Debug, Clone, Args)]
pub struct ChooseArgs {
    /// How many items the filter must hold.
    #[arg(long)]
    pub items: u64,
    /// The false-positive rate the workload tolerates, in (0, 1).
    #[arg(long)]
    pub fpr: f64,
}

/// Prints the recommendation for `args`.
pub fn run(args: &ChooseArgs) -> Result<(), String> {
    Err(format!("choose is not written yet ({args:?})"))
}
