//! Why an experiment could not finish.
//!
//! An experiment that fails stops the run (the files of the experiments
//! before it are already written). Each kind says where to look: a filter
//! or peer that refused what the experiment asked of it, the cache or
//! database of the guard experiment, a chart, or a number that does not fit
//! the type a filter takes. [`Error::Invariant`] is different in kind: the
//! experiment checked its own measurement and found it impossible, which is
//! a bug in a filter or in the experiment, never a result to report.
//!
//! The constructors return closures for `map_err`:
//!
//! ```ignore
//! let f = BloomFilter::builder(n, p).build().map_err(Error::filter("classic at 1%"))?;
//! ```

use std::fmt;

/// Any error a filter, peer or component returns.
pub type Source = Box<dyn std::error::Error + Send + Sync>;

/// Why an experiment could not finish.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A filter (bloomlab's or a peer's) could not be built for the
    /// parameters asked, or refused an insert or remove the experiment
    /// relies on.
    Filter {
        /// Which filter, in which part of which experiment.
        subject: String,
        /// The filter's own error.
        source: Source,
    },
    /// The cache (Redis), the database (SQLite) or a temporary folder failed.
    Store {
        /// What was being done.
        what: String,
        /// The component's error.
        source: Source,
    },
    /// A chart could not be drawn.
    Plot {
        /// The chart's file name.
        chart: String,
        /// The plotting library's error.
        source: Source,
    },
    /// A count or size the experiment derives does not fit the type the
    /// filter, peer or formula takes.
    Size {
        /// Which number.
        what: String,
        /// The conversion's error.
        source: Source,
    },
    /// A check of the experiment's own measurement failed: a bug in a filter
    /// or in the experiment, not a finding.
    Invariant(String),
}

impl Error {
    /// `map_err` for a filter's error, `subject` naming the filter and part.
    pub fn filter<E: Into<Source>>(subject: impl fmt::Display) -> impl FnOnce(E) -> Error {
        wrap(subject, |subject, source| Error::Filter { subject, source })
    }

    /// `map_err` for the cache's, the database's or the file system's error.
    pub fn store<E: Into<Source>>(what: impl fmt::Display) -> impl FnOnce(E) -> Error {
        wrap(what, |what, source| Error::Store { what, source })
    }

    /// `map_err` for a plotting error of the chart `chart`.
    pub fn plot<E: Into<Source>>(chart: impl fmt::Display) -> impl FnOnce(E) -> Error {
        wrap(chart, |chart, source| Error::Plot { chart, source })
    }

    /// `map_err` for a conversion of the number `what`.
    pub fn size<E: Into<Source>>(what: impl fmt::Display) -> impl FnOnce(E) -> Error {
        wrap(what, |what, source| Error::Size { what, source })
    }
}

/// `map_err` to the error `kind` makes of `what` and the error met.
fn wrap<E: Into<Source>>(
    what: impl fmt::Display,
    kind: fn(String, Source) -> Error,
) -> impl FnOnce(E) -> Error {
    move |e| kind(what.to_string(), e.into())
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Filter { subject, source } => write!(f, "{subject}: {source}"),
            Error::Store { what, source } => write!(f, "{what}: {source}"),
            Error::Plot { chart, source } => write!(f, "drawing {chart}: {source}"),
            Error::Size { what, source } => write!(f, "{what} out of range: {source}"),
            Error::Invariant(what) => write!(f, "{what} (a bug, not a measurement)"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Filter { source, .. }
            | Error::Store { source, .. }
            | Error::Plot { source, .. }
            | Error::Size { source, .. } => Some(&**source),
            Error::Invariant(_) => None,
        }
    }
}
