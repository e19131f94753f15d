//! The descriptors of [`CuckooFilter`] (plain and semi-sorted), and the
//! theory of a cuckoo table ([`Buckets`]), for the catalog.

use std::hash::Hash;
use std::sync::Arc;

use bloomlab_core::descriptor::{
    Build, BuildError, Capabilities, Choice, Describe, Descriptor, Lines, Plan, State, Table,
    Value, decode, grouped,
};
use bloomlab_core::theory::cuckoo;
use bloomlab_core::{Deletable, ParamError};

use crate::{CuckooFilter, FINGERPRINT_BITS, MAX_BUCKETS, plan};

/// A cuckoo table.
#[derive(Debug, Clone, PartialEq)]
pub struct Buckets {
    /// Number of buckets.
    pub buckets: u64,
    /// Slots per bucket.
    pub bucket_size: u32,
    /// Bits per fingerprint.
    pub fingerprint_bits: u32,
    /// Semi-sorted buckets (one bit less a slot) or plain ones.
    pub semi_sorted: bool,
    /// The fingerprint the rate needs, which may be wider than the crate
    /// stores ([`FINGERPRINT_BITS`]); `fingerprint_bits` for a built table.
    pub needed_bits: u32,
}

impl Buckets {
    /// The table [`CuckooFilter::builder`] sizes for `n` items at rate `p`
    /// with buckets of `bucket_size` slots, semi-sorted if asked or if the
    /// crate's [`plan`] chooses it.
    ///
    /// # Errors
    ///
    /// As [`plan`].
    pub fn plan(n: u64, p: f64, bucket_size: u32, semi_sorted: bool) -> Result<Plan, ParamError> {
        let plan = plan(n, p, bucket_size)?;
        let semi_sorted = semi_sorted || plan.semi_sorted;
        let f = u128::from(plan.fingerprint_bits);
        let bits_per_bucket = if semi_sorted {
            4 * f - 4
        } else {
            u128::from(bucket_size) * f
        };
        let table = Buckets {
            buckets: plan.buckets,
            bucket_size,
            fingerprint_bits: plan.fingerprint_bits,
            semi_sorted,
            needed_bits: plan.needed_bits,
        };
        let bytes = (u128::from(plan.buckets) * bits_per_bucket).div_ceil(64) * 8;
        Ok(Plan::new(table, bytes))
    }

    fn load(&self, items: u64) -> f64 {
        items as f64 / (self.buckets as f64 * f64::from(self.bucket_size))
    }
}

impl Table for Buckets {
    fn parameters(&self) -> Vec<(&'static str, Value)> {
        vec![
            ("buckets", Value::Count(self.buckets)),
            ("bucket_size", Value::Count(self.bucket_size.into())),
            (
                "fingerprint_bits",
                Value::Count(self.fingerprint_bits.into()),
            ),
            ("semi_sorted", Value::Count(self.semi_sorted.into())),
        ]
    }

    fn fpr(&self, items: u64) -> f64 {
        cuckoo::fpr(self.fingerprint_bits, self.bucket_size, self.load(items))
    }

    /// The fingerprint and load the crate plans for the rate: `f/α` bits per
    /// item, or `(f − 1)/α` semi-sorted.
    fn theory_bits_per_item(&self, eps: f64, items: u64) -> f64 {
        plan(items, eps, self.bucket_size).map_or(f64::NAN, |plan| {
            if self.semi_sorted {
                cuckoo::bits_per_item_semi_sorted(plan.fingerprint_bits, plan.load)
            } else {
                cuckoo::bits_per_item(plan.fingerprint_bits, plan.load)
            }
        })
    }

    /// Two buckets; a bucket that straddles a cache-line boundary costs one
    /// more, which the estimate leaves out.
    fn lookup_lines(&self, _items: u64) -> Lines {
        Lines {
            hit: 2.0,
            miss: 2.0,
        }
    }

    fn label(&self) -> String {
        let (b, f) = (self.bucket_size, self.fingerprint_bits);
        format!("buckets={} b={b} f={f} {}", self.buckets, self.layout())
    }

    fn key_parameter(&self) -> String {
        let (b, f) = (self.bucket_size, self.fingerprint_bits);
        format!("f={f} b={b} {}", self.layout())
    }

    fn summary(&self, _items: u64) -> String {
        format!(
            "{}×{} f={}{}",
            grouped(self.buckets),
            self.bucket_size,
            self.fingerprint_bits,
            if self.semi_sorted { " semi" } else { "" }
        )
    }

    fn notes(&self, items: u64) -> Vec<String> {
        vec![format!(
            "table {:.0}% full at {} items{}",
            100.0 * self.load(items),
            grouped(items),
            if self.semi_sorted {
                "; semi-sorted buckets, one bit less per slot"
            } else {
                ""
            }
        )]
    }

    fn remove_caveat(&self) -> String {
        "remove only items that were inserted, once per insert; do not pair `insert_unique` \
         with `remove`: `insert_unique` skips an item that shares a stored fingerprint (a false \
         positive), and removing either item then takes the one fingerprint away, so the other, \
         still live, answers absent"
            .to_owned()
    }

    fn insert_caveat(&self, items: u64) -> Option<String> {
        let slots = self.buckets.saturating_mul(u64::from(self.bucket_size));
        let max = cuckoo::max_load(self.bucket_size)?;
        let fails_near = (slots as f64 * max) as u64;
        Some(format!(
            "inserts start failing (InsertError::Full) near {:.0}% of its {} slots, about {} \
             items: {:.1}% above the {} planned, so size it for the most items it will ever \
             hold; `insert` stores a copy each time, so one key inserted {} times (2b) fills \
             both its buckets and its next insert fails (for keys that repeat: `insert_unique` where \
             nothing is removed; where items are removed, one insert per later remove)",
            100.0 * max,
            grouped(slots),
            grouped(fails_near),
            100.0 * (fails_near as f64 / items as f64 - 1.0),
            grouped(items),
            2 * self.bucket_size
        ))
    }

    fn beyond_capacity(&self, _items: u64) -> String {
        let slots = self.buckets.saturating_mul(u64::from(self.bucket_size));
        let load = cuckoo::max_load(self.bucket_size).unwrap_or(1.0);
        format!(
            "fixed capacity, no upper bound known: inserts fail (InsertError::Full) near {:.0}% \
             of its {} slots, about {} items",
            100.0 * load,
            grouped(slots),
            grouped((slots as f64 * load) as u64)
        )
    }

    fn unbuildable(&self) -> Vec<String> {
        let widest = *FINGERPRINT_BITS.end();
        let mut why = Vec::new();
        if self.needed_bits > widest {
            why.push(format!(
                "this rate needs {}-bit fingerprints; bloomlab-cuckoo stores at most {widest}",
                self.needed_bits
            ));
        }
        if self.buckets > MAX_BUCKETS {
            why.push(format!(
                "{} buckets; bloomlab-cuckoo addresses at most 2^32",
                grouped(self.buckets)
            ));
        }
        why
    }
}

impl Buckets {
    fn layout(&self) -> &'static str {
        if self.semi_sorted {
            "semi-sorted"
        } else {
            "plain"
        }
    }
}

/// The descriptors of [`CuckooFilter`]: plain buckets, then semi-sorted.
pub fn descriptors<T: Hash + ?Sized + 'static>() -> Vec<Descriptor<T>> {
    let can = Capabilities {
        delete: true,
        can_fill: true,
        ..Capabilities::default()
    };
    // The bucket sizes `choose` weighs, the default first.
    let choice = |suffix, option, call, plan| Choice {
        suffix,
        option,
        call,
        plan,
    };
    vec![
        Descriptor {
            id: "cuckoo",
            type_name: "CuckooFilter",
            option: "plain",
            crate_name: "bloomlab-cuckoo",
            tag: crate::TAG.id(),
            caveat: "an insert can fail (Full) near the design load; a remove of an item never inserted can evict a member; at most 2b copies of one item",
            can,
            plan: |n, p| Buckets::plan(n, p, 4, false),
            choices: vec![
                choice("4", "b=4", "", |n, p| Buckets::plan(n, p, 4, false)),
                choice("2", "b=2", ".bucket_size(2)", |n, p| {
                    Buckets::plan(n, p, 2, false)
                }),
                choice("8", "b=8", ".bucket_size(8)", |n, p| {
                    Buckets::plan(n, p, 8, false)
                }),
            ],
            build: Build::Empty(|n, p, seed| {
                BuildError::boxed("cuckoo", CuckooFilter::builder(n, p).seed(seed).build())
            }),
            decode: decode::<T, CuckooFilter<T>>,
        },
        Descriptor {
            id: "cuckoo-ss",
            type_name: "CuckooFilter",
            option: "semi-sorted",
            crate_name: "bloomlab-cuckoo",
            tag: crate::TAG.id(),
            caveat: "as plain cuckoo; semi-sorting saves a bit per slot but costs time per look-up",
            can,
            plan: |n, p| Buckets::plan(n, p, 4, true),
            // A layout `new` does not choose (its lookups are slower): the
            // builder's option, which the chooser does not weigh apart.
            choices: Vec::new(),
            build: Build::Empty(|n, p, seed| {
                let b = CuckooFilter::builder(n, p).semi_sorted(true).seed(seed);
                BuildError::boxed("cuckoo-ss", b.build())
            }),
            decode: decode::<T, CuckooFilter<T>>,
        },
    ]
}

impl<T: Hash + ?Sized> Describe<T> for CuckooFilter<T> {
    fn table(&self) -> Arc<dyn Table> {
        Arc::new(Buckets {
            buckets: self.num_buckets(),
            bucket_size: self.bucket_size(),
            fingerprint_bits: self.fingerprint_bits(),
            semi_sorted: self.is_semi_sorted(),
            needed_bits: self.fingerprint_bits(),
        })
    }
    fn as_deletable(&mut self) -> Option<&mut dyn Deletable<T>> {
        Some(self)
    }
    fn state(&self) -> State {
        State {
            parameters: vec![
                ("buckets", Value::Count(self.num_buckets())),
                ("bucket_size", Value::Count(self.bucket_size().into())),
                (
                    "fingerprint_bits",
                    Value::Count(self.fingerprint_bits().into()),
                ),
                (
                    "max_relocations",
                    Value::Count(self.max_relocations() as u64),
                ),
            ],
            fill_ratio: self.fill_ratio(),
            len: self.len() as u64,
            estimate_count: self.len() as f64,
            estimated_fpr: self.estimated_fpr(),
            estimated_from: "the occupancy of the buckets",
        }
    }
}
