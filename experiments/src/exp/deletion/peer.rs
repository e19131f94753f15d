//! The four filters that delete, behind one interface so that every part of
//! the experiment feeds them the same `u64` keys in the same order: ours
//! (`CountingBloomFilter`, `CuckooFilter`) and the peers (`fastbloom-rs`'s
//! `CountingBloomFilter`, the `cuckoofilter` crate), each peer through its
//! adapter in `bloomlab_lab::peers`, all four as `dyn Deletable<u64>`.

use bloomlab::prelude::*;
use bloomlab_lab::peers::cuckoofilter::{KeyedSip13, buckets_for};
use bloomlab_lab::peers::{Cuckoofilter, FastbloomRsCounting};

use crate::exp::Error;

/// A filter of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
}

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
        }
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

enum Inner {
    Counting(CountingBloomFilter<u64>),
    Cuckoo(CuckooFilter<u64>),
    Fastbloom(FastbloomRsCounting),
    /// Hashing with bloomlab's keyed SipHash-1-3 under a fixed key: the
    /// crate's hasher is a type, so the key cannot follow the run's seed.
    Crate(Cuckoofilter<KeyedSip13>),
}

impl Inner {
    fn filter(&self) -> &dyn Deletable<u64> {
        match self {
            Inner::Counting(f) => f,
            Inner::Cuckoo(f) => f,
            Inner::Fastbloom(f) => f,
            Inner::Crate(f) => f,
        }
    }

    fn filter_mut(&mut self) -> &mut dyn Deletable<u64> {
        match self {
            Inner::Counting(f) => f,
            Inner::Cuckoo(f) => f,
            Inner::Fastbloom(f) => f,
            Inner::Crate(f) => f,
        }
    }
}

/// A filter under test.
pub struct Subject {
    kind: Kind,
    inner: Inner,
    params: String,
}

impl Subject {
    /// `kind` sized for `items` at rate `fpr` by its own constructor (the
    /// `cuckoofilter` crate takes no rate: `with_capacity(items)`, 8-bit
    /// fingerprints).
    pub fn for_items(kind: Kind, items: usize, fpr: f64, seed: u64) -> Result<Self, Error> {
        let err = kind.name();
        let inner = match kind {
            Kind::OursCounting => Inner::Counting(
                CountingBloomFilter::builder(items, fpr)
                    .seed(seed)
                    .build()
                    .map_err(Error::filter(&err))?,
            ),
            Kind::OursCuckoo => Inner::Cuckoo(
                CuckooFilter::builder(items, fpr)
                    .seed(seed)
                    .build()
                    .map_err(Error::filter(&err))?,
            ),
            // The peer hashes the key's bytes with xxh3 and takes no hasher.
            Kind::FastbloomCounting => {
                Inner::Fastbloom(FastbloomRsCounting::new(items as u64, fpr))
            }
            Kind::CuckooCrate => Inner::Crate(Cuckoofilter::with_capacity(items)),
        };
        Ok(Self::wrap(kind, inner))
    }

    /// A counting filter of exactly `counters` 4-bit counters and `hashes` hashes.
    pub fn with_counters(kind: Kind, counters: u64, hashes: u32, seed: u64) -> Result<Self, Error> {
        let inner = match kind {
            Kind::OursCounting => Inner::Counting(
                CountingBloomFilter::builder_with_counters(counters, hashes)
                    .counter_width(4)
                    .seed(seed)
                    .build()
                    .map_err(Error::filter(kind.name()))?,
            ),
            Kind::FastbloomCounting => {
                Inner::Fastbloom(FastbloomRsCounting::with_counters(counters, hashes))
            }
            _ => {
                return Err(Error::Invariant(format!(
                    "{} is not a counting filter",
                    kind.name()
                )));
            }
        };
        Ok(Self::wrap(kind, inner))
    }

    /// A cuckoo filter of exactly `slots` slots (a power of two, 4 a
    /// bucket) with 8-bit fingerprints, the `cuckoofilter` crate's width.
    pub fn with_slots(kind: Kind, slots: usize, seed: u64) -> Result<Self, Error> {
        let inner = match kind {
            Kind::OursCuckoo => Inner::Cuckoo(
                CuckooFilter::builder_with_buckets(buckets_for(slots) as u64, 8)
                    .seed(seed)
                    .build()
                    .map_err(Error::filter(kind.name()))?,
            ),
            Kind::CuckooCrate => Inner::Crate(Cuckoofilter::with_capacity(slots)),
            _ => {
                return Err(Error::Invariant(format!(
                    "{} is not a cuckoo filter",
                    kind.name()
                )));
            }
        };
        Ok(Self::wrap(kind, inner))
    }

    fn wrap(kind: Kind, inner: Inner) -> Self {
        let params = match &inner {
            Inner::Counting(f) => format!(
                "m={} k={} width={}",
                f.num_counters(),
                f.num_hashes(),
                f.counter_width()
            ),
            Inner::Fastbloom(f) => format!("m={} k={} width=4", f.num_counters(), f.num_hashes()),
            Inner::Cuckoo(f) => format!(
                "buckets={} b={} f={}",
                f.num_buckets(),
                f.bucket_size(),
                f.fingerprint_bits()
            ),
            Inner::Crate(f) => format!(
                "buckets={} b={} f={}",
                f.num_buckets(),
                f.bucket_size(),
                f.fingerprint_bits()
            ),
        };
        Self {
            kind,
            inner,
            params,
        }
    }

    /// Which filter this is.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Its parameters, for the CSV (no commas).
    pub fn params(&self) -> &str {
        &self.params
    }

    /// Inserts `key` (a second insert of the same key stores it again).
    /// Only the `cuckoofilter` crate's refusal changes the table.
    pub fn insert(&mut self, key: u64) -> Insert {
        match self.inner.filter_mut().insert(&key) {
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
            inner => inner.filter_mut().remove(&key).is_ok(),
        }
    }

    /// Whether `key` is reported present.
    pub fn contains(&self, key: u64) -> bool {
        self.inner.filter().contains(&key)
    }

    /// Counters and hashes of a counting filter.
    pub fn counting_shape(&self) -> Option<(u64, u32)> {
        match &self.inner {
            Inner::Counting(f) => Some((f.num_counters(), f.num_hashes())),
            Inner::Fastbloom(f) => Some((f.num_counters(), f.num_hashes())),
            _ => None,
        }
    }

    /// Slots, bucket size and fingerprint values (`2^f − 1`: both filters
    /// keep one value for "empty") of a cuckoo filter.
    pub fn cuckoo_shape(&self) -> Option<(u64, u32, u64)> {
        let (slots, b, f) = match &self.inner {
            Inner::Cuckoo(f) => (f.capacity(), f.bucket_size(), f.fingerprint_bits()),
            Inner::Crate(f) => (f.slots(), f.bucket_size(), f.fingerprint_bits()),
            _ => return None,
        };
        Some((slots, b, (1u64 << f) - 1))
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
        let crate_filter = Subject::with_slots(Kind::CuckooCrate, 1 << 12, 0).unwrap();
        assert_eq!(crate_filter.cuckoo_shape(), Some((1 << 12, 4, 255)));
        assert_eq!(crate_filter.params(), "buckets=1024 b=4 f=8");
        let ours = Subject::with_slots(Kind::OursCuckoo, 1 << 12, 0).unwrap();
        assert_eq!(ours.cuckoo_shape(), Some((1 << 12, 4, 255)));
        assert_eq!(ours.params(), "buckets=1024 b=4 f=8");
        let fb = Subject::with_counters(Kind::FastbloomCounting, 8192, 4, 0).unwrap();
        assert_eq!(fb.counting_shape(), Some((8192, 4)));
        assert_eq!(fb.params(), "m=8192 k=4 width=4");
        // Both size 100,000 items at 1% near −n·ln p/ln²2 = 958,506 counters, k = 7.
        let ours = Subject::for_items(Kind::OursCounting, 100_000, 0.01, 0).unwrap();
        let theirs = Subject::for_items(Kind::FastbloomCounting, 100_000, 0.01, 0).unwrap();
        for s in [ours, theirs] {
            let (m, k) = s.counting_shape().unwrap();
            assert_eq!(k, 7);
            assert!((958_506..960_000).contains(&m), "{m}");
        }
    }

    #[test]
    fn every_subject_inserts_finds_and_removes() {
        for kind in Kind::ALL {
            let mut s = Subject::for_items(kind, 1_000, 0.01, 1).unwrap();
            assert_eq!(s.insert(42), Insert::Stored, "{}", kind.name());
            assert!(s.contains(42));
            assert!(s.remove(42), "{}", kind.name());
            assert!(!s.contains(42), "{}", kind.name());
            assert!(!s.remove(42), "{}", kind.name());
        }
    }
}
