//! The four filters that delete, behind one interface so that every part of
//! the experiment feeds them the same `u64` keys in the same order: ours
//! (`CountingBloomFilter`, `CuckooFilter`) and the peers (`fastbloom-rs`'s
//! `CountingBloomFilter`, the `cuckoofilter` crate), each peer through its
//! adapter in `bloomlab_lab::peers`, all four as `dyn Deletable<u64>`.

use std::fmt;
use std::sync::Arc;

use bloomlab::Lookup;
use bloomlab::catalog::{AnyFilter, BuildFn, Catalog, Table};
use bloomlab::prelude::*;
use bloomlab::theory;
use bloomlab_lab::peers::cuckoofilter::{KeyedSip13, buckets_for};
use bloomlab_lab::peers::{Cuckoofilter, FastbloomRsCounting};

use crate::exp::Error;

/// A filter of the comparison.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// bloomlab's `CountingBloomFilter`, 4-bit sticky counters.
    OursCounting,
    /// `fastbloom_rs::CountingBloomFilter` 0.5: 4-bit counters that stop at
    /// 15 on the way up but are still decremented on the way down.
    FastbloomCounting,
    /// bloomlab's `CuckooFilter`, 4-slot buckets; a failed insert is undone.
    OursCuckoo,
    /// `cuckoofilter::CuckooFilter` 0.5: 4-slot buckets, 8-bit fingerprints;
    /// a failed insert drops the fingerprint it was carrying.
    CuckooCrate,
    /// Another catalog entry that deletes, built by its descriptor: every
    /// filter that deletes goes through the churn, whether or not a part
    /// of its own is written for its family.
    Entry {
        /// `bloomlab <id>`.
        name: &'static str,
        /// Its constructor.
        build: BuildFn<u64>,
    },
}

impl PartialEq for Kind {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Kind {}

impl Kind {
    /// Every subject, in table order.
    pub const ALL: [Kind; 4] = [
        Kind::OursCounting,
        Kind::FastbloomCounting,
        Kind::OursCuckoo,
        Kind::CuckooCrate,
    ];

    /// The name in the CSV and the plots.
    pub fn name(self) -> &'static str {
        match self {
            Kind::OursCounting => "bloomlab counting",
            Kind::FastbloomCounting => "fastbloom-rs counting",
            Kind::OursCuckoo => "bloomlab cuckoo",
            Kind::CuckooCrate => "cuckoofilter crate",
            Kind::Entry { name, .. } => name,
        }
    }

    /// The catalog entry this subject is, for ours.
    fn catalog_id(self) -> Option<&'static str> {
        match self {
            Kind::OursCounting => Some("counting"),
            Kind::OursCuckoo => Some("cuckoo"),
            _ => None,
        }
    }

    /// Every subject of the churn: [`Kind::ALL`], then every other entry
    /// of `catalog` that deletes.
    pub fn churned(catalog: &Catalog<u64>) -> Vec<Kind> {
        let covered: Vec<&str> = Kind::ALL.iter().filter_map(|k| k.catalog_id()).collect();
        let others = catalog
            .iter()
            .filter(|v| v.can.delete && !covered.contains(&v.id))
            .filter_map(|v| {
                Some(Kind::Entry {
                    // Once a run for each such entry: the name lives as
                    // long as the rows that carry it.
                    name: Box::leak(format!("bloomlab {}", v.id).into_boxed_str()),
                    build: v.empty()?,
                })
            });
        Kind::ALL.into_iter().chain(others).collect()
    }

    /// Whether the same seed gives the same outcome. The `cuckoofilter`
    /// crate draws each relocation walk from `rand::thread_rng()`, seeded by
    /// the operating system, so wherever it relocates, its outcome (which
    /// item is dropped, where a fingerprint sits) changes from run to run.
    pub fn seeded(self) -> bool {
        self != Kind::CuckooCrate
    }

    /// Whether this is a counting Bloom filter (else a cuckoo filter).
    pub fn counting(self) -> bool {
        matches!(self, Kind::OursCounting | Kind::FastbloomCounting)
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

/// The table of a subject, as built: its parameters in the CSV (no commas)
/// and the models' inputs.
#[derive(Debug, Clone)]
pub enum Shape {
    /// `counters` counters of `width` bits, `hashes` incremented per item.
    Counting {
        counters: u64,
        hashes: u32,
        width: u32,
    },
    /// `buckets` buckets of `bucket_size` slots of `fingerprint_bits` bits.
    Cuckoo {
        buckets: u64,
        bucket_size: u32,
        fingerprint_bits: u32,
    },
    /// Another catalog entry's table, with its theory.
    Table(Arc<dyn Table>),
}

impl PartialEq for Shape {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Shape {
    /// The classic or cuckoo rate theory gives the table holding `items`.
    pub fn fpr(&self, items: f64) -> f64 {
        match *self {
            Shape::Counting {
                counters, hashes, ..
            } => theory::classic::fpr(counters as f64, items, f64::from(hashes)),
            Shape::Cuckoo {
                buckets,
                bucket_size,
                fingerprint_bits,
            } => theory::cuckoo::fpr(
                fingerprint_bits,
                bucket_size,
                items / (buckets * u64::from(bucket_size)) as f64,
            ),
            Shape::Table(ref table) => table.fpr(items.round() as u64),
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Counting {
                counters,
                hashes,
                width,
            } => write!(f, "m={counters} k={hashes} width={width}"),
            Shape::Cuckoo {
                buckets,
                bucket_size,
                fingerprint_bits,
            } => write!(f, "buckets={buckets} b={bucket_size} f={fingerprint_bits}"),
            Shape::Table(table) => f.write_str(&table.label()),
        }
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
    Counting(CountingBloomFilter<u64>),
    Cuckoo(CuckooFilter<u64>),
    Fastbloom(FastbloomRsCounting),
    /// Hashing with keyed SipHash-1-3 under a fixed key: the
    /// crate's hasher is a type, so the key cannot follow the run's seed.
    Crate(Cuckoofilter<KeyedSip13>),
    Entry(Box<dyn AnyFilter<u64>>),
}

impl Inner {
    fn filter(&self) -> &dyn Lookup<u64> {
        match self {
            Inner::Counting(f) => f,
            Inner::Cuckoo(f) => f,
            Inner::Fastbloom(f) => f,
            Inner::Crate(f) => f,
            Inner::Entry(f) => &**f,
        }
    }

    /// The filter as a [`Deletable`]; `None` only for an entry that does
    /// not delete, which the churn never picks.
    fn filter_mut(&mut self) -> Option<&mut dyn Deletable<u64>> {
        match self {
            Inner::Counting(f) => Some(f),
            Inner::Cuckoo(f) => Some(f),
            Inner::Fastbloom(f) => Some(f),
            Inner::Crate(f) => Some(f),
            Inner::Entry(f) => f.as_deletable(),
        }
    }
}

/// A filter under test.
pub struct Subject {
    kind: Kind,
    inner: Inner,
}

impl Subject {
    /// `kind` sized by `size`; an error for a size it does not take.
    pub fn new(kind: Kind, size: Size, seed: u64) -> Result<Self, Error> {
        let inner = match (kind, size) {
            (Kind::OursCounting, Size::Items(items, fpr)) => Inner::Counting(
                CountingBloomFilter::builder(items, fpr)
                    .seed(seed)
                    .build()
                    .map_err(Error::filter(kind.name()))?,
            ),
            (Kind::OursCounting, Size::Counters(counters, hashes)) => Inner::Counting(
                CountingBloomFilter::builder_with_counters(counters, hashes)
                    .counter_width(4)
                    .seed(seed)
                    .build()
                    .map_err(Error::filter(kind.name()))?,
            ),
            // The peer hashes the key's bytes with xxh3 and takes no hasher.
            (Kind::FastbloomCounting, Size::Items(items, fpr)) => {
                Inner::Fastbloom(FastbloomRsCounting::new(items as u64, fpr))
            }
            (Kind::FastbloomCounting, Size::Counters(counters, hashes)) => {
                Inner::Fastbloom(FastbloomRsCounting::with_counters(counters, hashes))
            }
            (Kind::OursCuckoo, Size::Items(items, fpr)) => Inner::Cuckoo(
                CuckooFilter::builder(items, fpr)
                    .seed(seed)
                    .build()
                    .map_err(Error::filter(kind.name()))?,
            ),
            (Kind::OursCuckoo, Size::Slots(slots)) => Inner::Cuckoo(
                CuckooFilter::builder_with_buckets(buckets_for(slots) as u64, 8)
                    .seed(seed)
                    .build()
                    .map_err(Error::filter(kind.name()))?,
            ),
            (Kind::CuckooCrate, Size::Items(capacity, _) | Size::Slots(capacity)) => {
                Inner::Crate(Cuckoofilter::with_capacity(capacity))
            }
            (Kind::Entry { name, build }, Size::Items(items, fpr)) => {
                let mut f = build(items, fpr, seed).map_err(Error::filter(name))?;
                if f.as_deletable().is_none() {
                    return Err(Error::Invariant(format!("{name} does not delete")));
                }
                Inner::Entry(f)
            }
            _ => {
                return Err(Error::Invariant(format!(
                    "{} cannot be sized as {size:?}",
                    kind.name()
                )));
            }
        };
        Ok(Self { kind, inner })
    }

    /// Which filter this is.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Its table.
    pub fn shape(&self) -> Shape {
        match &self.inner {
            Inner::Counting(f) => Shape::Counting {
                counters: f.num_counters(),
                hashes: f.num_hashes(),
                width: f.counter_width(),
            },
            Inner::Fastbloom(f) => Shape::Counting {
                counters: f.num_counters(),
                hashes: f.num_hashes(),
                width: 4,
            },
            Inner::Cuckoo(f) => Shape::Cuckoo {
                buckets: f.num_buckets(),
                bucket_size: f.bucket_size(),
                fingerprint_bits: f.fingerprint_bits(),
            },
            Inner::Crate(f) => Shape::Cuckoo {
                buckets: f.num_buckets() as u64,
                bucket_size: f.bucket_size(),
                fingerprint_bits: f.fingerprint_bits(),
            },
            Inner::Entry(f) => Shape::Table(f.table()),
        }
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

    /// How many stored copies match `key` (ours only).
    pub fn count(&self, key: u64) -> Option<u64> {
        match &self.inner {
            Inner::Cuckoo(f) => Some(f.count(&key) as u64),
            Inner::Counting(f) => Some(u64::from(f.count(&key))),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_follow_the_constructors() {
        let cuckoo = Shape::Cuckoo {
            buckets: 1024,
            bucket_size: 4,
            fingerprint_bits: 8,
        };
        for kind in [Kind::CuckooCrate, Kind::OursCuckoo] {
            let s = Subject::new(kind, Size::Slots(1 << 12), 0).unwrap();
            assert_eq!(s.shape(), cuckoo);
            assert_eq!(s.shape().to_string(), "buckets=1024 b=4 f=8");
        }
        let fb = Subject::new(Kind::FastbloomCounting, Size::Counters(8192, 4), 0).unwrap();
        assert_eq!(fb.shape().to_string(), "m=8192 k=4 width=4");
        // fastbloom-rs sizes 100,000 items at 1% near −n·ln p/ln²2 = 958,506
        // counters with k = 7; bloomlab takes k = 5 in 2.7% more counters
        // (`theory::classic::size_for`).
        for (kind, k, near) in [
            (Kind::OursCounting, 5, 984_896..984_897),
            (Kind::FastbloomCounting, 7, 958_506..960_000),
        ] {
            let s = Subject::new(kind, Size::Items(100_000, 0.01), 0).unwrap();
            let Shape::Counting {
                counters, hashes, ..
            } = s.shape()
            else {
                panic!("{} has no counters", kind.name());
            };
            assert_eq!(hashes, k);
            assert!(near.contains(&counters), "{counters}");
        }
        assert!(Subject::new(Kind::OursCuckoo, Size::Counters(8192, 4), 0).is_err());
    }

    #[test]
    fn every_catalog_entry_that_deletes_is_churned() {
        let catalog = Catalog::standard();
        let names: Vec<&str> = Kind::churned(&catalog).iter().map(|k| k.name()).collect();
        for v in catalog.iter().filter(|v| v.can.delete) {
            let name = format!("bloomlab {}", v.id);
            assert!(names.contains(&name.as_str()), "{name} is not churned");
        }
        assert_eq!(names.len(), Kind::ALL.len() + 2, "{names:?}");
    }

    #[test]
    fn every_subject_inserts_finds_and_removes() {
        for kind in Kind::churned(&Catalog::standard()) {
            let mut s = Subject::new(kind, Size::Items(1_000, 0.01), 1).unwrap();
            assert_eq!(s.insert(42), Insert::Stored, "{}", kind.name());
            assert!(s.contains(42));
            assert!(s.remove(42), "{}", kind.name());
            assert!(!s.contains(42), "{}", kind.name());
            assert!(!s.remove(42), "{}", kind.name());
        }
    }
}
