//! What can go wrong while reading criterion's output or writing the report.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// An error of the report tool; every variant names the path it concerns.
#[derive(Debug)]
pub enum ReportError {
    /// The criterion directory does not exist (no benchmark has been run
    /// with this target directory yet).
    MissingCriterionDir(PathBuf),
    /// The criterion directory holds no `new/benchmark.json` at all.
    NoBenchmarks(PathBuf),
    /// A file or directory could not be read.
    Read {
        /// The file or directory.
        path: PathBuf,
        /// The underlying I/O error.
        source: io::Error,
    },
    /// A file is not valid JSON.
    Json {
        /// The file.
        path: PathBuf,
        /// The parser's error, with line and column.
        source: serde_json::Error,
    },
    /// A JSON file parses but a field is missing or has the wrong shape.
    Field {
        /// The file.
        path: PathBuf,
        /// The field, as a dotted path (`median.point_estimate`).
        field: &'static str,
        /// What the field should have been.
        expected: &'static str,
    },
    /// A CSV file this tool upserts does not hold what it wrote.
    Csv {
        /// The file.
        path: PathBuf,
        /// What it should have held.
        expected: &'static str,
    },
    /// The report could not be written.
    Write {
        /// The output file.
        path: PathBuf,
        /// The underlying I/O error.
        source: io::Error,
    },
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingCriterionDir(path) => write!(
                f,
                "criterion directory {} does not exist: run `cargo bench -p bloomlab-benches` \
                 first, or pass --criterion DIR",
                path.display()
            ),
            Self::NoBenchmarks(path) => write!(
                f,
                "no criterion results (*/new/benchmark.json) under {}",
                path.display()
            ),
            Self::Read { path, source } => write!(f, "cannot read {}: {source}", path.display()),
            Self::Json { path, source } => {
                write!(f, "malformed JSON in {}: {source}", path.display())
            }
            Self::Field {
                path,
                field,
                expected,
            } => write!(
                f,
                "unexpected content in {}: field `{field}` should be {expected}",
                path.display()
            ),
            Self::Csv { path, expected } => write!(
                f,
                "unexpected content in {}: it should hold {expected}",
                path.display()
            ),
            Self::Write { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for ReportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Read { source, .. } | Self::Write { source, .. } => Some(source),
            Self::Json { source, .. } => Some(source),
            Self::MissingCriterionDir(_)
            | Self::NoBenchmarks(_)
            | Self::Field { .. }
            | Self::Csv { .. } => None,
        }
    }
}
