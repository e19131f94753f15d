//! The filters that delete, behind one interface so that every part of the
//! experiment feeds them the same `u64` keys in the same order: the catalog's
//! entries, built by their descriptors, and the peers (`fastbloom-rs`'s
//! `CountingBloomFilter`, the `cuckoofilter` crate), each through its adapter
//! in `bloomlab_lab::peers`. Every table, a peer's too, is read through the
//! catalog's [`Table`] (bloomlab's `Counters` and `Buckets` describe the
//! peers' tables), which gives the models their inputs and the theory.

use std::sync::Arc;

use bloomlab::Lookup;
use bloomlab::catalog::{AnyFilter, Catalog, Descriptor, Table, Value};
use bloomlab::counting::descriptor::Counters;
use bloomlab::cuckoo::descriptor::Buckets;
use bloomlab::prelude::*;
use bloomlab_lab::peers::cuckoofilter::{KeyedSip13, buckets_for};
use bloomlab_lab::peers::{Cuckoofilter, FastbloomRsCounting};

use crate::exp::Error;

/// A filter of the comparison.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A catalog entry, built by its descriptor: `bloomlab <id>`.
    Entry(&'static Descriptor<u64>),
    /// bloomlab's `CountingBloomFilter` by its type, 4-bit sticky counters:
    /// the saturation part sizes its counters exactly (the case)
    /// and reads how many saturated, which no descriptor offers.
    Counting,
    /// bloomlab's `CuckooFilter` by its type, 4-slot buckets: the
    /// duplicates and overfill parts size it by slots and use its unique
    /// insert and copy count.
    Cuckoo,
    /// `fastbloom_rs::CountingBloomFilter` 0.5: 4-bit counters that stop at
    /// 15 on the way up but are still decremented on the way down.
    FastbloomCounting,
    /// `cuckoofilter::CuckooFilter` 0.5: 4-slot buckets, 8-bit fingerprints;
    /// a failed insert drops the fingerprint it was carrying.
    CuckooCrate,
}

impl PartialEq for Kind {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Kind {}

impl Kind {
    /// The name in the CSV and the plots.
    pub fn name(self) -> String {
        match self {
            Kind::Entry(v) => format!("bloomlab {}", v.id),
            Kind::Counting => "bloomlab counting".into(),
            Kind::Cuckoo => "bloomlab cuckoo".into(),
            Kind::FastbloomCounting => "fastbloom-rs counting".into(),
            Kind::CuckooCrate => "cuckoofilter crate".into(),
        }
    }

    /// The entries of `catalog` compared head to head with a peer crate,
    /// each followed by its peer: the subjects of the wrongful removals and
    /// of the summary. These are named: the comparisons are about two
    /// crates' filters (fastbloom-rs's counting filter, the cuckoofilter
    /// crate) against bloomlab's filters of the same design.
    pub fn paired(catalog: &'static Catalog<u64>) -> Result<[Kind; 4], Error> {
        let entry = |id| {
            (catalog.find(id).map(Kind::Entry))
                .ok_or_else(|| Error::Invariant(format!("the catalog has no `{id}`")))
        };
        let (counting, cuckoo) = (entry("counting")?, entry("cuckoo")?);
        Ok([counting, Kind::FastbloomCounting, cuckoo, Kind::CuckooCrate])
    }

    /// Every subject of the churn: [`paired`](Self::paired), then every
    /// other entry of `catalog` that deletes, so that a new filter that
    /// deletes is never skipped.
    pub fn churned(catalog: &'static Catalog<u64>) -> Result<Vec<Kind>, Error> {
        let mut out = Kind::paired(catalog)?.to_vec();
        let others: Vec<Kind> = (catalog.iter())
            .filter(|v| v.can.delete && v.empty().is_some())
            .map(Kind::Entry)
            .filter(|k| !out.contains(k))
            .collect();
        out.extend(others);
        Ok(out)
    }

    /// Whether the same seed gives the same outcome. The `cuckoofilter`
    /// crate draws each relocation walk from `rand::thread_rng()`, seeded by
    /// the operating system, so wherever it relocates, its outcome (which
    /// item is dropped, where a fingerprint sits) changes from run to run.
    pub fn seeded(self) -> bool {
        !matches!(self, Kind::CuckooCrate)
    }

    /// Whether the outcome is reproducible after `failed_inserts`: the
    /// crate's is as long as no insert failed, for its walks then only move
    /// fingerprints between their two buckets.
    pub fn seeded_after(self, failed_inserts: u64) -> bool {
        self.seeded() || failed_inserts == 0
    }
}

/// How a subject is sized.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Size {
    /// For `items` at rate `fpr`, by the filter's own constructor (the
    /// `cuckoofilter` crate takes no rate: `with_capacity(items)`, 8-bit
    /// fingerprints).
    Items(usize, f64),
    /// A counting filter of exactly this many 4-bit counters and hashes.
    Counters(u64, u32),
    /// A cuckoo filter of exactly this many slots (a power of two, 4 a
    /// bucket) with 8-bit fingerprints, the `cuckoofilter` crate's width.
    Slots(usize),
}

/// A count parameter of `t` (`counters`, `hashes`, `buckets` …).
pub fn param(t: &dyn Table, name: &str) -> Option<u64> {
    t.parameters().into_iter().find_map(|(n, v)| match v {
        Value::Count(c) if n == name => Some(c),
        _ => None,
    })
}

/// The `params` column: a table of counters, or a plain cuckoo table, in
/// the short form this CSV has always used (`m=… k=… width=…`,
/// `buckets=… b=… f=…`), which the peers share; any other table by its
/// label.
pub fn params(t: &dyn Table) -> String {
    let c = |name| param(t, name);
    match (
        c("counters"),
        c("counter_bits"),
        c("buckets"),
        c("semi_sorted"),
    ) {
        (Some(m), Some(width), ..) => format!("m={m} k={} width={width}", c("hashes").unwrap_or(0)),
        (_, _, Some(buckets), Some(0)) => format!(
            "buckets={buckets} b={} f={}",
            c("bucket_size").unwrap_or(0),
            c("fingerprint_bits").unwrap_or(0)
        ),
        _ => t.label(),
    }
}

/// What an insert did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Insert {
    /// Stored; reported success.
    Stored,
    /// Reported failure and changed nothing (ours: `InsertError::Full`).
    Refused,
    /// Reported failure after changing the table: the `cuckoofilter` crate's
    /// `NotEnoughSpace`, by which time it has stored the new fingerprint and
    /// dropped another.
    Failed,
}

// A handful of values a run: their size does not matter.
#[allow(clippy::large_enum_variant)]
enum Inner {
    Entry(Box<dyn AnyFilter<u64>>),
    Counting(CountingBloomFilter<u64>),
    Cuckoo(CuckooFilter<u64>),
    Fastbloom(FastbloomRsCounting),
    /// Hashing with keyed SipHash-1-3 under a fixed key: the
    /// crate's hasher is a type, so the key cannot follow the run's seed.
    Crate(Cuckoofilter<KeyedSip13>),
}

impl Inner {
    fn filter(&self) -> &dyn Lookup<u64> {
        match self {
            Inner::Entry(f) => &**f,
            Inner::Counting(f) => f,
            Inner::Cuckoo(f) => f,
            Inner::Fastbloom(f) => f,
            Inner::Crate(f) => f,
        }
    }

    /// The filter as a [`Deletable`]; `None` only for an entry that does
    /// not delete, which no part picks.
    fn filter_mut(&mut self) -> Option<&mut dyn Deletable<u64>> {
        match self {
            Inner::Entry(f) => f.as_deletable(),
            Inner::Counting(f) => Some(f),
            Inner::Cuckoo(f) => Some(f),
            Inner::Fastbloom(f) => Some(f),
            Inner::Crate(f) => Some(f),
        }
    }

    fn table(&self) -> Arc<dyn Table> {
        match self {
            Inner::Entry(f) => f.table(),
            Inner::Counting(f) => f.table(),
            Inner::Cuckoo(f) => f.table(),
            Inner::Fastbloom(f) => Arc::new(Counters {
                counters: f.num_counters(),
                width: 4,
                hashes: f.num_hashes(),
            }),
            Inner::Crate(f) => Arc::new(Buckets {
                buckets: f.num_buckets() as u64,
                bucket_size: f.bucket_size(),
                fingerprint_bits: f.fingerprint_bits(),
                semi_sorted: false,
                needed_bits: f.fingerprint_bits(),
            }),
        }
    }
}

/// A filter under test.
pub struct Subject {
    kind: Kind,
    inner: Inner,
    table: Arc<dyn Table>,
}

impl Subject {
    /// `kind` sized by `size`; an error for a size it does not take.
    pub fn new(kind: Kind, size: Size, seed: u64) -> Result<Self, Error> {
        let name = kind.name();
        let inner = match (kind, size) {
            (Kind::Entry(v), Size::Items(items, fpr)) => {
                let build = v
                    .empty()
                    .ok_or_else(|| Error::Invariant(format!("{name} takes no inserts")))?;
                let mut f = build(items, fpr, seed).map_err(Error::filter(&name))?;
                if f.as_deletable().is_none() {
                    return Err(Error::Invariant(format!("{name} does not delete")));
                }
                Inner::Entry(f)
            }
            (Kind::Counting, Size::Items(items, fpr)) => Inner::Counting(
                CountingBloomFilter::builder(items, fpr)
                    .seed(seed)
                    .build()
                    .map_err(Error::filter(&name))?,
            ),
            (Kind::Counting, Size::Counters(counters, hashes)) => Inner::Counting(
                CountingBloomFilter::builder_with_counters(counters, hashes)
                    .counter_width(4)
                    .seed(seed)
                    .build()
                    .map_err(Error::filter(&name))?,
            ),
            // The peer hashes the key's bytes with xxh3 and takes no hasher.
            (Kind::FastbloomCounting, Size::Items(items, fpr)) => {
                Inner::Fastbloom(FastbloomRsCounting::new(items as u64, fpr))
            }
            (Kind::FastbloomCounting, Size::Counters(counters, hashes)) => {
                Inner::Fastbloom(FastbloomRsCounting::with_counters(counters, hashes))
            }
            (Kind::Cuckoo, Size::Slots(slots)) => Inner::Cuckoo(
                CuckooFilter::builder_with_buckets(buckets_for(slots) as u64, 8)
                    .seed(seed)
                    .build()
                    .map_err(Error::filter(&name))?,
            ),
            (Kind::CuckooCrate, Size::Items(capacity, _) | Size::Slots(capacity)) => {
                Inner::Crate(Cuckoofilter::with_capacity(capacity))
            }
            _ => {
                return Err(Error::Invariant(format!(
                    "{name} cannot be sized as {size:?}"
                )));
            }
        };
        let table = inner.table();
        Ok(Self { kind, inner, table })
    }

    /// Which filter this is.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Its table, with its theory.
    pub fn table(&self) -> &dyn Table {
        &*self.table
    }

    /// Inserts `key` (a second insert of the same key stores it again).
    /// Only the `cuckoofilter` crate's refusal changes the table.
    pub fn insert(&mut self, key: u64) -> Insert {
        let Some(f) = self.inner.filter_mut() else {
            return Insert::Refused;
        };
        match f.insert(&key) {
            Ok(_) => Insert::Stored,
            Err(_) if self.kind == Kind::CuckooCrate => Insert::Failed,
            Err(_) => Insert::Refused,
        }
    }

    /// Inserts `key` only if it is not reported present: ours
    /// `insert_unique`, the crate's `test_and_add`. `true` if it was stored.
    pub fn insert_unique(&mut self, key: u64) -> Result<bool, Error> {
        match &mut self.inner {
            Inner::Cuckoo(f) => f
                .insert_unique(&key)
                .map_err(Error::filter("cuckoo insert_unique")),
            Inner::Crate(f) => f
                .insert_unique(&key)
                .map_err(Error::filter("cuckoofilter test_and_add")),
            _ => Err(Error::Invariant(format!(
                "{} has no unique insert",
                self.kind.name()
            ))),
        }
    }

    /// Removes `key`; `true` if the filter accepted the remove. fastbloom-rs
    /// says nothing: it decrements only when the key is reported present, so
    /// that is when it accepted (its adapter's `remove_reported`).
    pub fn remove(&mut self, key: u64) -> bool {
        match &mut self.inner {
            Inner::Fastbloom(f) => f.remove_reported(key),
            inner => inner.filter_mut().is_some_and(|f| f.remove(&key).is_ok()),
        }
    }

    /// Inserts every key of `keys`: how many inserts failed.
    pub fn insert_all(&mut self, keys: &[u64]) -> u64 {
        keys.iter()
            .filter(|&&k| self.insert(k) != Insert::Stored)
            .count() as u64
    }

    /// Removes every key of `keys`: how many removes were not accepted.
    pub fn remove_all(&mut self, keys: &[u64]) -> u64 {
        keys.iter().filter(|&&k| !self.remove(k)).count() as u64
    }

    /// Whether `key` is reported present.
    pub fn contains(&self, key: u64) -> bool {
        self.inner.filter().contains(&key)
    }

    /// How many of `keys` are reported absent.
    pub fn absent(&self, keys: &[u64]) -> u64 {
        keys.iter().filter(|&&k| !self.contains(k)).count() as u64
    }

    /// Counters at the 4-bit maximum, 15 (fastbloom-rs: read one by one).
    pub fn saturated(&self) -> Option<u64> {
        match &self.inner {
            Inner::Counting(f) => Some(f.saturated_counters()),
            Inner::Fastbloom(f) => Some(f.saturated_counters()),
            _ => None,
        }
    }

    /// How many stored copies match `key` (our cuckoo filter only).
    pub fn count(&self, key: u64) -> Option<u64> {
        match &self.inner {
            Inner::Cuckoo(f) => Some(f.count(&key) as u64),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exp::subject::standard;

    #[test]
    fn tables_follow_the_constructors() {
        for kind in [Kind::CuckooCrate, Kind::Cuckoo] {
            let s = Subject::new(kind, Size::Slots(1 << 12), 0).unwrap();
            assert_eq!(params(s.table()), "buckets=1024 b=4 f=8");
        }
        let fb = Subject::new(Kind::FastbloomCounting, Size::Counters(8192, 4), 0).unwrap();
        assert_eq!(params(fb.table()), "m=8192 k=4 width=4");
        // fastbloom-rs sizes 100,000 items at 1% near −n·ln p/ln²2 = 958,506
        // counters with k = 7; bloomlab takes k = 5 in 2.7% more counters
        // (`theory::classic::size_for`).
        let [ours, peer, ..] = Kind::paired(standard()).unwrap();
        for (kind, k, near) in [(ours, 5, 984_896..984_897), (peer, 7, 958_506..960_000)] {
            let s = Subject::new(kind, Size::Items(100_000, 0.01), 0).unwrap();
            assert_eq!(param(s.table(), "hashes"), Some(k));
            let counters = param(s.table(), "counters").unwrap();
            assert!(near.contains(&counters), "{counters}");
        }
        assert!(Subject::new(Kind::Cuckoo, Size::Counters(8192, 4), 0).is_err());
    }

    #[test]
    fn every_catalog_entry_that_deletes_is_churned() {
        let catalog = standard();
        let churned = Kind::churned(catalog).unwrap();
        let names: Vec<String> = churned.iter().map(|k| k.name()).collect();
        for v in catalog.iter().filter(|v| v.can.delete) {
            let name = format!("bloomlab {}", v.id);
            assert!(names.contains(&name), "{name} is not churned");
        }
        // And the two peers: fastbloom-rs's counting filter and the
        // cuckoofilter crate.
        let deleting = catalog.iter().filter(|v| v.can.delete).count();
        assert_eq!(names.len(), deleting + 2, "{names:?}");
    }

    #[test]
    fn every_subject_inserts_finds_and_removes() {
        for kind in Kind::churned(standard()).unwrap() {
            let mut s = Subject::new(kind, Size::Items(1_000, 0.01), 1).unwrap();
            assert_eq!(s.insert(42), Insert::Stored, "{}", kind.name());
            assert!(s.contains(42));
            assert!(s.remove(42), "{}", kind.name());
            assert!(!s.contains(42), "{}", kind.name());
            assert!(!s.remove(42), "{}", kind.name());
        }
    }
}
