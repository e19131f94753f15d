//! Reading criterion's saved results: one [`Measurement`] per
//! `<benchmark dir>/new/{benchmark.json,estimates.json}` pair.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

use super::ReportError;

/// Folders criterion writes beside `new/` that hold older runs, differences
/// between runs, or HTML: never results of the latest run.
const SKIPPED_DIRS: [&str; 3] = ["base", "change", "report"];

/// What one iteration of a benchmark processes (criterion's `Throughput`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// `Throughput::Elements(n)` (or `ElementsAndBytes`): `n` operations.
    Elements(u64),
    /// `Throughput::Bytes(n)` or `BytesDecimal(n)`: `n` bytes.
    Bytes(u64),
    /// `Throughput::Bits(n)`: `n` bits.
    Bits(u64),
    /// No throughput was set: one operation per iteration.
    Iteration,
}

impl Unit {
    /// How many operations (elements, bytes or bits) one iteration covers.
    pub fn count(self) -> u64 {
        match self {
            Self::Elements(n) | Self::Bytes(n) | Self::Bits(n) => n,
            Self::Iteration => 1,
        }
    }

    /// The noun for one operation, as the report prints it.
    pub fn noun(self) -> &'static str {
        match self {
            Self::Elements(_) => "op",
            Self::Bytes(_) => "byte",
            Self::Bits(_) => "bit",
            Self::Iteration => "iteration",
        }
    }
}

/// One benchmark's latest result.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// The group id, e.g. `classic/lookup_miss`.
    pub group: String,
    /// The function id, e.g. `bloomlab::BloomFilter` (the value string when a
    /// benchmark has no function id).
    pub subject: String,
    /// The parameter string, e.g. `1M items, 1%`, when there is a function id
    /// beside it.
    pub setting: Option<String>,
    /// What one iteration processes.
    pub unit: Unit,
    /// Median time per iteration, in nanoseconds.
    pub median_ns: f64,
    /// Lower bound of the 95% confidence interval of the median, ns per iteration.
    pub lower_ns: f64,
    /// Upper bound of the 95% confidence interval of the median, ns per iteration.
    pub upper_ns: f64,
    /// When `estimates.json` was written, if the file system says.
    pub modified: Option<SystemTime>,
    /// The `new/` directory the result was read from.
    pub dir: PathBuf,
}

impl Measurement {
    /// Median nanoseconds per operation: the median per iteration divided by
    /// the iteration's element count.
    pub fn ns_per_op(&self) -> f64 {
        self.median_ns / self.unit.count() as f64
    }

    /// The 95% confidence interval of [`Self::ns_per_op`].
    pub fn ci_per_op(&self) -> (f64, f64) {
        let n = self.unit.count() as f64;
        (self.lower_ns / n, self.upper_ns / n)
    }
}

/// Every result under `root`, sorted by group, subject and setting.
///
/// Walks the tree for `new/benchmark.json` files, skipping `base/`, `change/`
/// and `report/` folders, and pairs each with the `estimates.json` beside it.
pub fn read_results(root: &Path) -> Result<Vec<Measurement>, ReportError> {
    if !root.is_dir() {
        return Err(ReportError::MissingCriterionDir(root.to_path_buf()));
    }
    let mut found = Vec::new();
    walk(root, &mut found)?;
    if found.is_empty() {
        return Err(ReportError::NoBenchmarks(root.to_path_buf()));
    }
    found.sort_by(|a, b| {
        (&a.group, &a.subject, &a.setting).cmp(&(&b.group, &b.subject, &b.setting))
    });
    Ok(found)
}

fn walk(dir: &Path, found: &mut Vec<Measurement>) -> Result<(), ReportError> {
    let read_err = |source| ReportError::Read {
        path: dir.to_path_buf(),
        source,
    };
    let mut subdirs = Vec::new();
    for entry in fs::read_dir(dir).map_err(read_err)? {
        let entry = entry.map_err(read_err)?;
        if entry.file_type().map_err(read_err)?.is_dir() {
            subdirs.push(entry.path());
        }
    }
    subdirs.sort();
    for sub in subdirs {
        let name = sub.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if SKIPPED_DIRS.contains(&name) {
            continue;
        }
        if name == "new" && sub.join("benchmark.json").is_file() {
            found.push(read_measurement(&sub)?);
        } else {
            walk(&sub, found)?;
        }
    }
    Ok(())
}

/// Reads one `new/` directory: `benchmark.json` for the ids and throughput,
/// `estimates.json` for the median and its confidence interval.
pub fn read_measurement(new_dir: &Path) -> Result<Measurement, ReportError> {
    let bench_path = new_dir.join("benchmark.json");
    let estimates_path = new_dir.join("estimates.json");
    let bench = read_json(&bench_path)?;
    let estimates = read_json(&estimates_path)?;
    let modified = fs::metadata(&estimates_path)
        .and_then(|m| m.modified())
        .ok();

    let field = |field, expected| ReportError::Field {
        path: bench_path.clone(),
        field,
        expected,
    };
    let group = bench
        .get("group_id")
        .and_then(Value::as_str)
        .ok_or_else(|| field("group_id", "a string"))?
        .to_owned();
    let function = optional_str(&bench, "function_id")
        .map_err(|()| field("function_id", "a string or null"))?;
    let value =
        optional_str(&bench, "value_str").map_err(|()| field("value_str", "a string or null"))?;
    let (subject, setting) = match (function, value) {
        (Some(f), v) => (f, v),
        (None, Some(v)) => (v, None),
        (None, None) => (group.clone(), None),
    };
    let unit = parse_unit(bench.get("throughput")).ok_or_else(|| {
        field(
            "throughput",
            "null or one of Elements, Bytes, BytesDecimal, Bits, ElementsAndBytes with a count above 0",
        )
    })?;

    let number = |pointer: &str, name: &'static str| {
        estimates
            .pointer(pointer)
            .and_then(Value::as_f64)
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| ReportError::Field {
                path: estimates_path.clone(),
                field: name,
                expected: "a finite non-negative number of nanoseconds",
            })
    };
    let median_ns = number("/median/point_estimate", "median.point_estimate")?;
    let lower_ns = number(
        "/median/confidence_interval/lower_bound",
        "median.confidence_interval.lower_bound",
    )?;
    let upper_ns = number(
        "/median/confidence_interval/upper_bound",
        "median.confidence_interval.upper_bound",
    )?;

    Ok(Measurement {
        group,
        subject,
        setting,
        unit,
        median_ns,
        lower_ns,
        upper_ns,
        modified,
        dir: new_dir.to_path_buf(),
    })
}

fn read_json(path: &Path) -> Result<Value, ReportError> {
    let text = fs::read_to_string(path).map_err(|source| ReportError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| ReportError::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// A string field that may be absent or null; `Err` when it is another type.
fn optional_str(object: &Value, key: &str) -> Result<Option<String>, ()> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(()),
    }
}

/// Criterion serialises `Throughput` as `{"Elements": n}` (externally tagged);
/// `None` when the shape is unknown or the count is zero.
fn parse_unit(throughput: Option<&Value>) -> Option<Unit> {
    let object = match throughput {
        None | Some(Value::Null) => return Some(Unit::Iteration),
        Some(Value::Object(object)) if object.len() == 1 => object,
        Some(_) => return None,
    };
    let (tag, body) = object.iter().next()?;
    let unit = match tag.as_str() {
        "Elements" => Unit::Elements(body.as_u64()?),
        "Bytes" | "BytesDecimal" => Unit::Bytes(body.as_u64()?),
        "Bits" => Unit::Bits(body.as_u64()?),
        "ElementsAndBytes" => Unit::Elements(body.get("elements")?.as_u64()?),
        _ => return None,
    };
    (unit.count() > 0).then_some(unit)
}
