//! Every filter bloomlab offers, sized for a workload from
//! `bloomlab_core::theory` exactly as its constructor sizes it: each
//! [`Choice`] of each catalog entry, as its plan sizes it.
//!
//! The numbers are what `Filter::new(n, p)` (or the builder with the one
//! option named) would allocate, not an idealised formula: a classic table
//! is rounded to whole words with an integer `k`, the fewest within 1/32 of
//! the smallest table (`bloomlab_core::theory::classic::size_for`), a
//! blocked one to whole 512-bit blocks checked with the exact rate of its
//! layout (one bit per 64-bit word by default),
//! a cuckoo table as `bloomlab_cuckoo::plan` sizes it (the items at the
//! design load, the narrowest fingerprint, semi-sorted where the crate
//! chooses it). The unit tests build every
//! real filter at small sizes and compare its `memory_bytes()` and shape
//! with the prediction here, so a change of policy in a filter crate fails
//! them instead of silently making `choose` wrong.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use bloomlab::ParamError;
use bloomlab::catalog::{Build, Catalog, Choice, Descriptor, Table, Value};

use super::numbers::{bytes, grouped};
use super::workload::Workload;

/// One filter configuration `choose` evaluates: a catalog entry with one of
/// its [`Choice`]s.
#[derive(Debug, Clone)]
pub struct Kind {
    /// The catalog entry.
    pub variant: Descriptor<u64>,
    /// The configuration of it.
    pub choice: Choice,
}

impl PartialEq for Kind {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}

impl Kind {
    /// Every configuration of `catalog`, in the order ties are broken: the
    /// entries in its order, each with the choices it lists.
    pub fn all(catalog: &Catalog<u64>) -> Vec<Kind> {
        catalog
            .iter()
            .flat_map(|v| {
                v.choices.iter().map(|&choice| Kind {
                    variant: v.clone(),
                    choice,
                })
            })
            .collect()
    }

    /// The configuration of the entry `id` whose choice is `suffix`, in the
    /// standard catalog.
    pub fn find(id: &str, suffix: &str) -> Option<Kind> {
        Kind::all(&Catalog::standard())
            .into_iter()
            .find(|k| k.variant.id == id && k.choice.suffix == suffix)
    }

    /// A short stable name: `classic`, `counting-4`, `cuckoo-2`, …: the
    /// catalog id of its type, with the option that distinguishes it.
    pub fn id(&self) -> String {
        match self.choice.suffix {
            "" => self.variant.id.to_owned(),
            suffix => format!("{}-{suffix}", self.variant.id),
        }
    }

    /// The Rust type.
    pub fn type_name(&self) -> &'static str {
        self.variant.type_name
    }

    /// The type with the option that distinguishes it: `CuckooFilter (b=2)`.
    pub fn label(&self) -> String {
        match self.choice.option {
            "" => self.variant.label(),
            option => format!("{} ({option})", self.type_name()),
        }
    }

    /// The crate that holds it.
    pub fn crate_name(&self) -> &'static str {
        self.variant.crate_name
    }

    /// The Rust expression that builds it for `items` at `fpr`.
    pub fn construct(&self, items: u64, fpr: f64) -> String {
        // Debug prints the shortest form that reads back the same: 1e-30, 0.001.
        let fpr = format!("{fpr:?}");
        let n = grouped(items).replace(',', "_");
        let head = format!("{}::", self.type_name());
        if self.variant.can.from_keys {
            // Built from the keys themselves: `n` is their number.
            return format!("{head}from_keys(&keys, {fpr})");
        }
        match self.choice.call {
            "" => format!("{head}new({n}, {fpr})"),
            call => format!("{head}builder({n}, {fpr}){call}.build()"),
        }
    }

    /// What it can do besides insert and look up.
    pub fn supports(&self) -> Supports {
        let can = self.variant.can;
        Supports {
            remove: can.delete,
            grow: can.grow,
            concurrent_insert: can.concurrent_insert,
        }
    }
}

/// The operations a filter offers beyond insert and contains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Supports {
    /// `Deletable::remove`.
    pub remove: bool,
    /// Holds more items than it was built for, at the rate it was built for.
    pub grow: bool,
    /// Inserts through `&self` from many threads, without a lock.
    pub concurrent_insert: bool,
}

/// What rebuilding a filter built from its keys costs: the memory it holds
/// besides the filter while it is built, and the time of one build timed
/// on this machine.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rebuild {
    /// Bytes held besides the filter at the peak of a build from the
    /// workload's items: the keys' hashes and the working arrays
    /// ([`Table::build_scratch_bytes`]).
    pub scratch_bytes: u64,
    /// Keys of the timed build: the workload's items, at most [`TIMED_KEYS`].
    pub timed_keys: u64,
    /// Nanoseconds per key of the fastest of three builds of `timed_keys`
    /// keys, on the machine `choose` runs on.
    pub ns_per_key: f64,
}

/// The most keys [`rebuild`] times a build of.
pub const TIMED_KEYS: u64 = 1 << 20;

/// What rebuilding `kind` for `items` keys at rate `fpr` costs, from its
/// table's scratch space and the fastest of three builds of
/// `min(items, TIMED_KEYS)` distinct keys timed here; `None` for a filter
/// that takes inserts.
///
/// # Errors
///
/// The filter crate's refusal to build the timed filter.
pub fn rebuild(
    kind: &Kind,
    table: &dyn Table,
    items: u64,
    fpr: f64,
) -> Result<Option<Rebuild>, String> {
    let Build::FromKeys(build) = kind.variant.build else {
        return Ok(None);
    };
    let timed_keys = items.min(TIMED_KEYS);
    let keys: Vec<u64> = (0..timed_keys).collect();
    let keys: Vec<&u64> = keys.iter().collect();
    let mut best = Duration::MAX;
    for _ in 0..3 {
        let start = Instant::now();
        let built = build(&keys, fpr, 1).map_err(|e| format!("cannot be built: {e}"))?;
        best = best.min(start.elapsed());
        drop(black_box(built));
    }
    Ok(Some(Rebuild {
        scratch_bytes: table.build_scratch_bytes(items),
        timed_keys,
        ns_per_key: best.as_nanos() as f64 / timed_keys as f64,
    }))
}

/// The table a candidate is sized to: its theory, its parameters by name
/// (in the JSON), and one line for the table (`m=14,400 k=10`).
#[derive(Debug, Clone, Serialize)]
pub struct Params {
    /// The line for the table.
    pub table: String,
    /// The parameters, by name.
    pub parameters: serde_json::Map<String, serde_json::Value>,
    /// The theory, for the rules that ask what happens past the plan.
    #[serde(skip)]
    pub theory: Arc<dyn Table>,
}

impl PartialEq for Params {
    fn eq(&self, other: &Self) -> bool {
        self.table == other.table && self.parameters == other.parameters
    }
}

impl Params {
    fn of(table: Arc<dyn Table>, items: u64) -> Self {
        let parameters = table
            .parameters()
            .into_iter()
            .map(|(name, value)| {
                let value = match value {
                    Value::Count(n) => serde_json::Value::from(n),
                    Value::Real(x) => serde_json::Value::from(x),
                };
                (name.to_owned(), value)
            })
            .collect();
        Params {
            table: table.summary(items),
            parameters,
            theory: table,
        }
    }

    /// One line for the table: `m=14,400 k=10`.
    pub fn short(&self) -> String {
        self.table.clone()
    }
}

/// What theory says a filter costs and delivers for a workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figures {
    /// The table.
    pub params: Params,
    /// Items the figures are for: the most the workload puts in (the
    /// growth bound, else the starting size).
    pub items: u64,
    /// Bytes of its tables holding `items` (its `memory_bytes()`).
    pub memory_bytes: u64,
    /// Bytes right after construction, before any growth.
    pub initial_memory_bytes: u64,
    /// `memory_bytes · 8 / items`.
    pub bits_per_item: f64,
    /// The false-positive rate theory predicts holding `items`.
    pub expected_fpr: f64,
    /// Cache lines a look-up of a present item touches, at most.
    pub lines_hit: f64,
    /// Cache lines a look-up of an absent item touches, on average.
    pub lines_miss: f64,
}

/// A filter sized for a workload, with what keeps it from being built.
#[derive(Debug, Clone, PartialEq)]
pub struct Sized {
    /// The numbers.
    pub figures: Figures,
    /// Reasons the filter crate would refuse this configuration.
    pub unbuildable: Vec<String>,
    /// Things worth knowing about it.
    pub notes: Vec<String>,
}

/// Sizes `kind` for `w`, as its constructor would: a filter of fixed size
/// for the workload's peak, a growing one for its start, grown to the peak.
///
/// # Errors
///
/// The theory's refusal (a table beyond 64-bit sizes, typically).
pub fn size(kind: &Kind, w: &Workload) -> Result<Sized, String> {
    let items = w.peak_items();
    let why = |e: ParamError| format!("cannot be sized: {}", param_error(&e));
    let start = if kind.variant.can.grow {
        w.items
    } else {
        items
    };
    let plan = (kind.choice.plan)(start, w.fpr).map_err(why)?;
    let fit = |b: u128| u64::try_from(b).map_err(|_| why(too_large(b)));
    let memory = fit(plan.bytes_holding(items).map_err(why)?)?;
    let initial = fit(plan.memory_bytes)?;
    let table = plan.table;
    let lines = table.lookup_lines(items);
    Ok(Sized {
        figures: Figures {
            items,
            memory_bytes: memory,
            initial_memory_bytes: initial,
            bits_per_item: memory as f64 * 8.0 / items as f64,
            expected_fpr: table.fpr(items),
            lines_hit: lines.hit,
            lines_miss: lines.miss,
            params: Params::of(table.clone(), items),
        },
        unbuildable: table.unbuildable(),
        notes: table.notes(items),
    })
}

/// A table of `needed` bytes, beyond a 64-bit size; [`OVERFLOW`] when even
/// the count of bytes overflows.
fn too_large(needed: u128) -> ParamError {
    ParamError::TooLarge {
        needed,
        limit: u128::from(u64::MAX),
    }
}

/// The `needed` of a [`ParamError::TooLarge`] whose size overflowed: not a
/// byte count, and never printed as one (see [`param_error`]).
const OVERFLOW: u128 = u128::MAX;

/// A sizing refusal in words. `TooLarge` is spelled out here rather than by
/// its `Display`, so that `choose` prints byte counts the way it prints
/// every other size and never prints the overflow marker as a number of bytes.
pub fn param_error(e: &ParamError) -> String {
    match *e {
        ParamError::TooLarge { needed, limit } => {
            let limit = u64::try_from(limit).map_or_else(|_| limit.to_string(), wide_bytes);
            if needed == OVERFLOW {
                format!("the table is too large to count in bytes: more than the limit of {limit}")
            } else {
                format!(
                    "the table would need {}, more than the limit of {limit}",
                    u64::try_from(needed).map_or_else(|_| format!("{needed} bytes"), wide_bytes)
                )
            }
        }
        other => other.to_string(),
    }
}

/// `1.8 kB (1,800 bytes)`: the rounded reading and the exact count.
fn wide_bytes(n: u64) -> String {
    if n < 1_000 {
        bytes(n)
    } else {
        format!("{} ({} bytes)", bytes(n), grouped(n))
    }
}

#[cfg(test)]
mod tests;
