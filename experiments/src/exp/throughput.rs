//! Experiment `throughput`: being written (issue #6).

use super::Ctx;
use crate::report::Section;

/// Runs the experiment.
pub fn run(ctx: &Ctx<'_>) -> Result<Section, String> {
    let _ = ctx;
    Ok(Section {
        title: "throughput".into(),
        body: "Not measured yet.".into(),
    })
}
