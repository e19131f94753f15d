//! How much work an experiment spends.

use clap::ValueEnum;

/// The size of a run: `quick` checks the pipeline in seconds (CI), `default`
/// gives the published results in minutes, `full` runs the documents' own sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scale {
    /// Small filters and 10^5 probes: under a minute on two cores.
    Quick,
    /// 10^5-item filters and 10^6 probes per point.
    Default,
    /// Larger filters and 10^7 probes per point.
    Full,
}

impl Scale {
    /// The scale's name, filter capacity and probes per point, in one table.
    fn spec(self) -> (&'static str, usize, usize) {
        match self {
            Scale::Quick => ("quick", 10_000, 100_000),
            Scale::Default => ("default", 100_000, 1_000_000),
            Scale::Full => ("full", 1_000_000, 10_000_000),
        }
    }

    /// Items a filter is built for in the rate experiments.
    pub fn capacity(self) -> usize {
        self.spec().1
    }

    /// Non-member probes per measured point.
    pub fn probes(self) -> usize {
        self.spec().2
    }

    /// The name used on the command line and in the report.
    pub fn name(self) -> &'static str {
        self.spec().0
    }
}

impl std::fmt::Display for Scale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
