//! What generic code knows of a filter variant: its [`Descriptor`].
//!
//! Each variant crate exports the descriptors of its filters (a function
//! `descriptors::<T>()`), and the `bloomlab` facade's catalog is the list of
//! them. A descriptor names the variant, says what it can do
//! ([`Capabilities`]), sizes a table for `n` items at rate `ε` without
//! allocating ([`Plan`], whose [`Table`] carries the theory of that table),
//! and builds and decodes the filter behind `Box<dyn AnyFilter<T>>`. The
//! chooser, `bloomlab inspect`, the experiments and the benchmarks iterate
//! descriptors and select them by capability, never by name, so a new
//! variant joins all of them through its descriptor alone.
//!
//! ```
//! use std::sync::Arc;
//! use bloomlab_core::descriptor::{Lines, Table, Value};
//!
//! /// A table of `m` bits and one hash.
//! #[derive(Debug)]
//! struct OneHash { bits: u64 }
//!
//! impl Table for OneHash {
//!     fn parameters(&self) -> Vec<(&'static str, Value)> {
//!         vec![("bits", Value::Count(self.bits))]
//!     }
//!     fn fpr(&self, items: u64) -> f64 {
//!         1.0 - (-(items as f64) / self.bits as f64).exp()
//!     }
//!     fn theory_bits_per_item(&self, eps: f64, _items: u64) -> f64 {
//!         // 1 − e^(−n/m) = ε  ⇒  m/n = 1/ln(1/(1 − ε)).
//!         1.0 / (1.0 / (1.0 - eps)).ln()
//!     }
//!     fn lookup_lines(&self, _items: u64) -> Lines {
//!         Lines { hit: 1.0, miss: 1.0 }
//!     }
//! }
//!
//! let t: Arc<dyn Table> = Arc::new(OneHash { bits: 1 << 20 });
//! assert!(t.fpr(1 << 14) < 0.02);
//! assert_eq!(t.label(), "bits=1048576");
//! ```

use std::error::Error;
use std::fmt;
use std::sync::Arc;

use crate::{
    DecodeError, Deletable, HashMembership, InsertError, Lookup, Membership, ParamError, Persist,
};

/// What a filter can do besides insert and look up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capabilities {
    /// [`Deletable::remove`].
    pub delete: bool,
    /// Holds more items than it was built for, at the rate it was built for.
    pub grow: bool,
    /// Inserts through `&self` from many threads, without a lock.
    pub concurrent_insert: bool,
    /// Two filters built alike merge into one (`|`).
    pub merge: bool,
    /// An insert can be refused once the table is full (`InsertError::Full`).
    pub can_fill: bool,
    /// Built at once from its set of keys ([`Build::FromKeys`]): no insert
    /// after construction; a changed set is built anew.
    pub from_keys: bool,
}

/// A parameter's value: a count or a rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A count: bits, hashes, buckets, layers.
    Count(u64),
    /// A real number: a rate or a ratio.
    Real(f64),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Count(n) => write!(f, "{n}"),
            Value::Real(x) => write!(f, "{x}"),
        }
    }
}

/// Cache lines a look-up reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lines {
    /// For an item the filter holds, at most.
    pub hit: f64,
    /// For an absent item, on average.
    pub miss: f64,
}

/// The theory of one table, planned or built: what its parameters alone
/// predict, from [`theory`](crate::theory). Each variant crate implements it
/// for the shape of its tables; generic code reads every table through it.
pub trait Table: fmt::Debug + Send + Sync {
    /// The parameters, by name, in the order a reader wants them.
    fn parameters(&self) -> Vec<(&'static str, Value)>;

    /// The false-positive rate theory predicts after `items` distinct
    /// inserts. `NaN` where the parameters admit no answer.
    fn fpr(&self, items: u64) -> f64;

    /// Theory's standard deviation of that rate between instances built
    /// alike with other hash keys, where a model exists.
    fn rate_sd(&self, items: u64) -> Option<f64> {
        let _ = items;
        None
    }

    /// Bits per item that theory gives a table of this kind built for rate
    /// `eps` and holding `items`: the ideal size, before the constructor
    /// rounds it.
    fn theory_bits_per_item(&self, eps: f64, items: u64) -> f64;

    /// Bytes of the tables once they hold `items`, for a table that grows as
    /// it fills; `None` for a table whose size is fixed at construction
    /// (its plan's [`Plan::memory_bytes`]).
    ///
    /// # Errors
    ///
    /// The theory's refusal: a growth past what it can size.
    fn grown_bytes(&self, items: u64) -> Result<Option<u128>, ParamError> {
        let _ = items;
        Ok(None)
    }

    /// Cache lines a look-up reads holding `items`.
    fn lookup_lines(&self, items: u64) -> Lines;

    /// The parameters as `name=value` pairs separated by spaces: the
    /// experiments' `params` column.
    fn label(&self) -> String {
        self.parameters()
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The parameter that sets the rate (`k=7`, `f=12 b=4 plain`): the
    /// experiments' `k_or_f` column.
    fn key_parameter(&self) -> String {
        self.label()
    }

    /// One short line for a table of candidates holding `items`
    /// (`m=14,400 k=10`).
    fn summary(&self, items: u64) -> String {
        let _ = items;
        self.label()
    }

    /// What a user should know of this table holding `items`, in
    /// sentences (the chooser prints them).
    fn notes(&self, items: u64) -> Vec<String> {
        let _ = items;
        Vec::new()
    }

    /// Bytes that building this table from `items` keys holds beyond the
    /// table itself, at the peak of the construction: the hashes and
    /// working arrays of a filter built from its keys ([`Build::FromKeys`]),
    /// `0` for one that takes inserts.
    fn build_scratch_bytes(&self, items: u64) -> u64 {
        let _ = items;
        0
    }

    /// Why the variant's crate would refuse to build this table (empty when
    /// it builds).
    fn unbuildable(&self) -> Vec<String> {
        Vec::new()
    }

    /// What removing items asks of the caller (the chooser prints it for a
    /// workload that removes).
    ///
    /// By default, in a table of [`counters`](Self::counters) such a
    /// removal zeroes counters; elsewhere it takes an entry away.
    fn remove_caveat(&self) -> String {
        let lost = if self.counters() {
            "decrements counters that items still held need: those items can then answer absent"
        } else {
            "takes away the entry of an item still held: that item then answers absent"
        };
        format!(
            "remove only items that were inserted: `remove` of one that never was answers Ok \
             whenever the filter reports it present (a false positive) and {lost}"
        )
    }

    /// What a caller of `insert` must know about this table planned for
    /// `items` items, if anything: where inserts start to fail in a table
    /// that can fill ([`Capabilities::can_fill`]), what repeated inserts of
    /// one item do. `None` by default: inserts always succeed.
    fn insert_caveat(&self, items: u64) -> Option<String> {
        let _ = items;
        None
    }

    /// What happens to a table of fixed size filled past the `items` it was
    /// planned for: by default, its rate climbs.
    fn beyond_capacity(&self, items: u64) -> String {
        let at = |times: u64| sci(self.fpr(items.saturating_mul(times)));
        format!(
            "fixed capacity, no upper bound known: past {} items its rate climbs, to {} at \
             twice as many and {} at ten times",
            grouped(items),
            at(2),
            at(10)
        )
    }

    /// What growing costs a table that grows, planned for the workload's
    /// starting size, for a set of unknown size; `max_bytes` is the
    /// caller's memory limit. Empty for a table of fixed size.
    fn outlook(&self, max_bytes: Option<u64>) -> Vec<String> {
        let _ = max_bytes;
        Vec::new()
    }

    /// Whether a position holds a counter rather than a bit or a
    /// fingerprint: tables of counters are charted apart.
    fn counters(&self) -> bool {
        false
    }
}

/// What a constructor allocates for `n` items at rate `ε`, worked out
/// without allocating.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The table and its theory.
    pub table: Arc<dyn Table>,
    /// Bytes of its tables right after construction (its `memory_bytes()`).
    pub memory_bytes: u128,
}

impl Plan {
    /// A plan of `table` taking `memory_bytes`.
    pub fn new(table: impl Table + 'static, memory_bytes: u128) -> Self {
        Plan {
            table: Arc::new(table),
            memory_bytes,
        }
    }

    /// Bytes once the table holds `items`: [`Table::grown_bytes`] for a
    /// table that grows, else what construction allocates.
    ///
    /// # Errors
    ///
    /// As [`Table::grown_bytes`].
    pub fn bytes_holding(&self, items: u64) -> Result<u128, ParamError> {
        Ok(self.table.grown_bytes(items)?.unwrap_or(self.memory_bytes))
    }
}

/// What a filter's table holds now ([`AnyFilter::state`]), as `bloomlab
/// inspect` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// The parameters, by name, in the order a reader wants them.
    pub parameters: Vec<(&'static str, Value)>,
    /// Fraction of the table in use: bits set, non-zero counters, or
    /// occupied slots.
    pub fill_ratio: f64,
    /// Items recorded (inserts, net of removes where it can remove).
    pub len: u64,
    /// Distinct items estimated from the table alone.
    pub estimate_count: f64,
    /// The rate a probe of an absent item sees, from the table as it stands.
    pub estimated_fpr: f64,
    /// How that rate is computed.
    pub estimated_from: &'static str,
}

/// A filter built from a descriptor: its [`Lookup`]s, what generic code
/// needs to know of it, and its inserts and removes where it has them.
pub trait AnyFilter<T: ?Sized>: Lookup<T> {
    /// The table and its theory, from the built filter's parameters.
    fn table(&self) -> Arc<dyn Table>;
    /// The filter as a [`Membership`], when it takes inserts (`None` for a
    /// filter built from its keys).
    fn as_membership(&mut self) -> Option<&mut dyn Membership<T>>;
    /// The boxed filter as a boxed [`Membership`], when it takes inserts.
    fn into_membership(self: Box<Self>) -> Option<Box<dyn Membership<T>>>
    where
        Self: 'static;
    /// The filter as a [`Deletable`], when it can delete.
    fn as_deletable(&mut self) -> Option<&mut dyn Deletable<T>>;
    /// The encoded filter ([`Persist::to_bytes`]).
    fn to_bytes(&self) -> Vec<u8>;
    /// What the table holds now, read from the table itself.
    fn state(&self) -> State;
    /// Cache lines a look-up reads, at most
    /// ([`HashMembership::lookup_lines`]).
    fn lookup_lines(&self) -> usize;
}

/// What a filter that takes inserts tells generic code of itself: its
/// table and what the table holds. Every such filter is an [`AnyFilter`]
/// through it (a blanket impl), so a variant writes only what is its own.
pub trait Describe<T: ?Sized>: Membership<T> + HashMembership + Persist {
    /// [`AnyFilter::table`].
    fn table(&self) -> Arc<dyn Table>;

    /// [`AnyFilter::state`].
    fn state(&self) -> State;

    /// [`AnyFilter::as_deletable`]: `None` unless the filter can delete.
    fn as_deletable(&mut self) -> Option<&mut dyn Deletable<T>> {
        None
    }
}

impl<T: ?Sized, F: Describe<T>> AnyFilter<T> for F {
    fn table(&self) -> Arc<dyn Table> {
        Describe::table(self)
    }

    fn as_membership(&mut self) -> Option<&mut dyn Membership<T>> {
        Some(self)
    }

    fn into_membership(self: Box<Self>) -> Option<Box<dyn Membership<T>>>
    where
        Self: 'static,
    {
        Some(self)
    }

    fn as_deletable(&mut self) -> Option<&mut dyn Deletable<T>> {
        Describe::as_deletable(self)
    }

    fn to_bytes(&self) -> Vec<u8> {
        Persist::to_bytes(self)
    }

    fn state(&self) -> State {
        Describe::state(self)
    }

    fn lookup_lines(&self) -> usize {
        HashMembership::lookup_lines(self)
    }
}

/// Reads a filter of type `F` back from `bytes`, boxed: a [`DecodeFn`]
/// (`decode: decode::<T, BloomFilter<T>>`).
///
/// # Errors
///
/// `F`'s [`Persist::from_bytes`] refusal.
pub fn decode<T, F>(bytes: &[u8]) -> Result<Box<dyn AnyFilter<T>>, DecodeError>
where
    T: ?Sized,
    F: AnyFilter<T> + Persist + 'static,
{
    Ok(Box::new(F::from_bytes(bytes)?))
}

/// A constructor refused its arguments.
#[derive(Debug)]
pub struct BuildError {
    /// The descriptor's [`Descriptor::id`].
    pub variant: &'static str,
    /// The crate's own error.
    pub source: Box<dyn Error + Send + Sync + 'static>,
}

impl BuildError {
    /// The boxed filter, or its crate's error tagged with `variant`.
    ///
    /// # Errors
    ///
    /// `built`'s error, as a [`BuildError`].
    pub fn boxed<T, F, E>(
        variant: &'static str,
        built: Result<F, E>,
    ) -> Result<Box<dyn AnyFilter<T>>, BuildError>
    where
        T: ?Sized,
        F: AnyFilter<T> + 'static,
        E: Error + Send + Sync + 'static,
    {
        match built {
            Ok(filter) => Ok(Box::new(filter)),
            Err(e) => Err(BuildError {
                variant,
                source: Box::new(e),
            }),
        }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.variant, self.source)
    }
}

impl Error for BuildError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&*self.source)
    }
}

/// Sizes a table for `(items, fpr)`, without allocating.
pub type PlanFn = fn(u64, f64) -> Result<Plan, ParamError>;

/// Builds a filter for `items` at `fpr`, its hash key from `seed`.
pub type BuildFn<T> = fn(usize, f64, u64) -> Result<Box<dyn AnyFilter<T>>, BuildError>;

/// Builds a filter at once from its keys (duplicates allowed) at `fpr`, its
/// hash key from `seed`.
pub type FromKeysFn<T> = fn(&[&T], f64, u64) -> Result<Box<dyn AnyFilter<T>>, BuildError>;

/// Reads a filter back from its envelope.
pub type DecodeFn<T> = fn(&[u8]) -> Result<Box<dyn AnyFilter<T>>, DecodeError>;

/// How a variant's filters are made.
pub enum Build<T: ?Sized + 'static> {
    /// Empty, for a number of items at a rate, then filled by inserts.
    Empty(BuildFn<T>),
    /// At once, from the whole set of keys.
    FromKeys(FromKeysFn<T>),
}

impl<T: ?Sized> Clone for Build<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Build<T> {}

impl<T: ?Sized> fmt::Debug for Build<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Build::Empty(_) => "Empty",
            Build::FromKeys(_) => "FromKeys",
        })
    }
}

/// An insert refused while a filter was filled with its keys: which key
/// (its index) and the error.
#[derive(Debug)]
struct Refused {
    key: usize,
    error: InsertError,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "insert of key {} refused: {}", self.key, self.error)
    }
}

impl Error for Refused {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.error)
    }
}

/// One configuration of a variant that the chooser weighs: an option of the
/// builder (`counter_width(8)`), sized by its own plan.
#[derive(Debug, Clone, Copy)]
pub struct Choice {
    /// Appended to the descriptor's id: `counting-8`.
    pub suffix: &'static str,
    /// The option in words, for the label: `8-bit`.
    pub option: &'static str,
    /// The builder calls that select it (`.counter_width(8)`), or `""` when
    /// `new` builds it.
    pub call: &'static str,
    /// How the builder sizes it.
    pub plan: PlanFn,
}

/// One configuration of one filter type: everything generic code needs.
pub struct Descriptor<T: ?Sized + 'static> {
    /// A short stable name: `classic`, `cuckoo-ss`.
    pub id: &'static str,
    /// The Rust type: `BloomFilter`.
    pub type_name: &'static str,
    /// What sets this entry apart from another of the same type (`plain`,
    /// `semi-sorted`), or `""` for a type with one entry.
    pub option: &'static str,
    /// The crate that defines it.
    pub crate_name: &'static str,
    /// The tag its envelope carries (shared by entries of one type).
    pub tag: u16,
    /// What it can do.
    pub can: Capabilities,
    /// What a user must know before choosing it, in a few words.
    pub caveat: &'static str,
    /// How the constructor sizes a table for `(items, fpr)`: `items` is the
    /// capacity asked for (for a growing filter, its first layer's).
    pub plan: PlanFn,
    /// The configurations the chooser weighs; empty when it weighs none
    /// (an option another entry of the type already covers).
    pub choices: Vec<Choice>,
    /// The constructor, seeded.
    pub build: Build<T>,
    /// The decoder.
    pub decode: DecodeFn<T>,
}

impl<T: ?Sized> Descriptor<T> {
    /// The type with the option that sets it apart: `CuckooFilter (semi-sorted)`.
    pub fn label(&self) -> String {
        match self.option {
            "" => self.type_name.to_owned(),
            option => format!("{} ({option})", self.type_name),
        }
    }

    /// The constructor of an empty filter, unless the variant is built from
    /// its keys.
    pub fn empty(&self) -> Option<BuildFn<T>> {
        match self.build {
            Build::Empty(build) => Some(build),
            Build::FromKeys(_) => None,
        }
    }

    /// A filter holding `keys` at rate `fpr`, seeded: built at once from
    /// them, or built empty for `capacity` items (at least as many as
    /// `keys` for a filter that cannot grow) and filled in order. What both
    /// kinds of variant offer.
    ///
    /// # Errors
    ///
    /// The constructor's refusal, or an insert refused while filling
    /// (`InsertError::Full`: a table sized too small), as a [`BuildError`].
    pub fn holding(
        &self,
        keys: &[&T],
        capacity: usize,
        fpr: f64,
        seed: u64,
    ) -> Result<Box<dyn AnyFilter<T>>, BuildError> {
        match self.build {
            Build::FromKeys(build) => build(keys, fpr, seed),
            Build::Empty(build) => {
                let mut filter = build(capacity, fpr, seed)?;
                if let Some(m) = filter.as_membership() {
                    for (i, key) in keys.iter().enumerate() {
                        if let Err(error) = m.insert(key) {
                            let source = Box::new(Refused { key: i, error });
                            return Err(BuildError {
                                variant: self.id,
                                source,
                            });
                        }
                    }
                }
                Ok(filter)
            }
        }
    }

    /// The one choice of a variant the chooser weighs as it is: `new`,
    /// sized by the descriptor's own plan.
    pub fn as_built(plan: PlanFn) -> Vec<Choice> {
        vec![Choice {
            suffix: "",
            option: "",
            call: "",
            plan,
        }]
    }
}

impl<T: ?Sized> Clone for Descriptor<T> {
    fn clone(&self) -> Self {
        Descriptor {
            choices: self.choices.clone(),
            ..*self
        }
    }
}

impl<T: ?Sized> fmt::Debug for Descriptor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Descriptor")
            .field("id", &self.id)
            .field("crate_name", &self.crate_name)
            .field("tag", &self.tag)
            .field("can", &self.can)
            .finish_non_exhaustive()
    }
}

/// `1234567` as `1,234,567`: how tables and notes write counts.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Three significant digits: `0.0123` as `1.23e-2`, `0.5` as `0.500`.
pub fn sci(p: f64) -> String {
    if p == 0.0 || !p.is_finite() {
        return format!("{p}");
    }
    if (0.01..1000.0).contains(&p.abs()) {
        let decimals = (2 - p.abs().log10().floor() as i32).max(0) as usize;
        return format!("{p:.decimals$}");
    }
    format!("{p:.2e}")
}

/// A byte count in decimal units (200 MB is 200,000,000 bytes): `1.8 kB`,
/// `239.6 MB`; exact below 1,000.
pub fn decimal_bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["kB", "MB", "GB", "TB", "PB", "EB"];
    if n < 1_000 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1_000.0;
    let mut unit = 0;
    while value >= 999.95 && unit + 1 < UNITS.len() {
        value /= 1_000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}
