//! The descriptors of [`QuotientFilter`] (of fixed size, and growing), and
//! the theory of its table ([`Slots`]), for the catalog.

use std::hash::Hash;
use std::sync::Arc;

use bloomlab_core::descriptor::{
    Build, BuildError, Capabilities, Choice, Describe, Descriptor, Lines, Plan, State, Table,
    Value, decimal_bytes, decode, grouped,
};
use bloomlab_core::theory::quotient as theory;
use bloomlab_core::{Deletable, ParamError};

use crate::filter::max_used;
use crate::table::{block_lines, table_bytes};
use crate::{MAX_LOAD, MAX_QUOTIENT_BITS, QuotientFilter, plan};

/// A quotient filter's table: `2^q` canonical slots of `r`-bit remainders,
/// and, for a filter that grows, the rate it promises at every size.
#[derive(Debug, Clone, PartialEq)]
pub struct Slots {
    /// `q`: `2^q` canonical slots (of the table as built).
    pub quotient_bits: u32,
    /// `r`: remainder bits of the entries stored first.
    pub remainder_bits: u32,
    /// The rate a growing filter promises at every size; `None` for a
    /// filter of fixed size.
    pub growth_fpr: Option<f64>,
}

impl Slots {
    /// The table [`QuotientFilter::builder`] lays out for `n` items at rate
    /// `p`, growing or not ([`plan`]).
    ///
    /// # Errors
    ///
    /// [`ParamError::InvalidFpr`] for a rate outside (0, 1),
    /// [`ParamError::ZeroItems`] for no items, [`ParamError::TooLarge`] past
    /// what `2^40` slots hold or a rate that quotient and remainder cannot
    /// reach in 64 bits.
    pub fn plan(n: u64, p: f64, grows: bool) -> Result<Plan, ParamError> {
        let plan = plan(n, p, grows).map_err(|e| match e {
            bloomlab_core::BuildError::Param(e) => e,
            _ => ParamError::TooLarge {
                needed: u128::from(n),
                limit: u128::from(max_used(MAX_QUOTIENT_BITS)),
            },
        })?;
        let table = Slots {
            quotient_bits: plan.quotient_bits,
            remainder_bits: plan.remainder_bits,
            growth_fpr: plan.growth_fpr,
        };
        Ok(Plan::new(table, plan.memory_bytes()))
    }

    /// Doublings a growing table makes to hold `items`.
    fn expansions(&self, items: u64) -> u32 {
        (0..=MAX_QUOTIENT_BITS.saturating_sub(self.quotient_bits))
            .find(|&e| max_used(self.quotient_bits + e) >= items)
            .unwrap_or(MAX_QUOTIENT_BITS - self.quotient_bits)
    }

    /// The mean number of entries a probe matches once the table holds
    /// `items`: each generation's entries, at the load they added to the
    /// table of their generation, times `2^−F` of their remainder's width
    /// (see the crate's docs on growth).
    fn lambda(&self, items: u64) -> f64 {
        let q = self.quotient_bits;
        let Some(eps) = self.growth_fpr else {
            let load = items as f64 / (1u64 << q) as f64;
            return load * (-f64::from(self.remainder_bits)).exp2();
        };
        let mut before = 0;
        let mut lambda = 0.0;
        for generation in 0..=self.expansions(items) {
            let held = items.min(max_used(q + generation));
            let bits = theory::growth_fingerprint_bits(eps, MAX_LOAD, generation);
            let Ok(bits) = bits else { return f64::NAN };
            let load = (held - before) as f64 / (1u64 << (q + generation)) as f64;
            lambda += load * (-f64::from(bits)).exp2();
            before = held;
        }
        lambda
    }

    /// Bytes of the table once it holds `items`: after its doublings, with
    /// the slots of the newest generation.
    fn bytes_holding(&self, items: u64) -> Result<u128, ParamError> {
        let Some(eps) = self.growth_fpr else {
            return Ok(table_bytes(self.quotient_bits, self.remainder_bits));
        };
        let e = self.expansions(items);
        let slot_bits = theory::growth_slot_bits(eps, MAX_LOAD, e)?;
        Ok(table_bytes(self.quotient_bits + e, slot_bits))
    }
}

impl Table for Slots {
    fn parameters(&self) -> Vec<(&'static str, Value)> {
        let mut parameters = vec![
            ("quotient_bits", Value::Count(self.quotient_bits.into())),
            ("remainder_bits", Value::Count(self.remainder_bits.into())),
        ];
        if let Some(p) = self.growth_fpr {
            parameters.push(("target_fpr", Value::Real(p)));
        }
        parameters
    }

    /// `1 − e^{−λ}`, with `λ` the entries' matches a probe expects: `α·2^−r`
    /// for a table of fixed size at load `α`; for a growing one, the sum
    /// over the generations its doublings made.
    fn fpr(&self, items: u64) -> f64 {
        -(-self.lambda(items)).exp_m1()
    }

    /// `(r + 2.125)/α` with the fewest remainder bits that reach `eps` at
    /// the table's load; for a growing table, at the load and slot width of
    /// its newest generation once it holds `items`.
    fn theory_bits_per_item(&self, eps: f64, items: u64) -> f64 {
        let q = self.quotient_bits;
        match self.growth_fpr {
            None => {
                let load = items as f64 / (1u64 << q) as f64;
                theory::remainder_bits(load, eps)
                    .map_or(f64::NAN, |r| theory::bits_per_item(r, load))
            }
            Some(_) => {
                let e = self.expansions(items);
                let load = items as f64 / (1u64 << (q + e)) as f64;
                theory::growth_bits_per_item(eps, MAX_LOAD, e, load)
            }
        }
    }

    fn grown_bytes(&self, items: u64) -> Result<Option<u128>, ParamError> {
        match self.growth_fpr {
            None => Ok(None),
            Some(_) => self.bytes_holding(items).map(Some),
        }
    }

    /// The item's run, in its block of 64 slots: the block's two metadata
    /// words and its slots are one line while they fit in 64 bytes, two
    /// once the slots are wider than 6 bits (the blocks' offset bytes are
    /// kept apart, a byte per 64 slots, and mostly cached). Doublings do
    /// not add to it: a lookup reads one run of one table.
    fn lookup_lines(&self, items: u64) -> Lines {
        let width = match self.growth_fpr {
            Some(eps) => theory::growth_slot_bits(eps, MAX_LOAD, self.expansions(items))
                .unwrap_or(self.remainder_bits),
            None => self.remainder_bits,
        };
        let lines = block_lines(width) as f64;
        Lines {
            hit: lines,
            miss: lines,
        }
    }

    fn key_parameter(&self) -> String {
        format!("r={}", self.remainder_bits)
    }

    fn summary(&self, items: u64) -> String {
        let q = self.quotient_bits;
        match self.growth_fpr {
            None => format!("2^{q} slots r={}", self.remainder_bits),
            Some(_) => {
                let e = self.expansions(items);
                format!(
                    "2^{} slots r={} ({e} doublings)",
                    q + e,
                    self.remainder_bits
                )
            }
        }
    }

    fn notes(&self, items: u64) -> Vec<String> {
        let q = self.quotient_bits;
        vec![format!(
            "load {:.2} of 2^{q} slots; counts copies (one slot each) and merges with a filter \
             built alike",
            items.min(max_used(q)) as f64 / (1u64 << q) as f64
        )]
    }

    /// Full at 95% of its canonical slots: inserts are refused after.
    fn beyond_capacity(&self, _items: u64) -> String {
        format!(
            "fixed capacity: past {} items an insert is refused (InsertError::Full) and \
             nothing stored is lost",
            grouped(max_used(self.quotient_bits))
        )
    }

    /// Its memory if the set turns out 10 and 100 times larger.
    fn outlook(&self, max_bytes: Option<u64>) -> Vec<String> {
        if self.growth_fpr.is_none() {
            return Vec::new();
        }
        let n0 = max_used(self.quotient_bits);
        let parts: Vec<String> = [10u64, 100]
            .iter()
            .filter_map(|&times| {
                let n = n0.checked_mul(times)?;
                let bytes = u64::try_from(self.bytes_holding(n).ok()?).ok()?;
                Some(format!(
                    "{} at {times}× ({:.1} bits per item)",
                    decimal_bytes(bytes),
                    bytes as f64 * 8.0 / n as f64
                ))
            })
            .collect();
        let mut notes = vec![format!(
            "doubles when full, without its keys, at the rate promised: {}",
            parts.join(", ")
        )];
        if let Some(limit) = max_bytes {
            notes.push(format!(
                "built with .max_bytes({limit}) it refuses inserts (InsertError::Full) once a \
                 doubling would pass the limit"
            ));
        }
        notes
    }
}

/// The descriptors of [`QuotientFilter`]: of fixed size, and growing.
pub fn descriptors<T: Hash + ?Sized + 'static>() -> Vec<Descriptor<T>> {
    let fixed = |n, p| Slots::plan(n, p, false);
    let growing = |n, p| Slots::plan(n, p, true);
    vec![
        Descriptor {
            id: "quotient",
            type_name: "QuotientFilter",
            option: "",
            crate_name: "bloomlab-quotient",
            tag: crate::TAG.id(),
            caveat: "an insert is refused (Full) at 95% load; a remove of an item never inserted can take another's entry; each copy takes a slot",
            can: Capabilities {
                delete: true,
                merge: true,
                can_fill: true,
                ..Capabilities::default()
            },
            plan: fixed,
            choices: vec![Choice {
                suffix: "",
                option: "",
                call: "",
                plan: fixed,
            }],
            build: Build::Empty(|n, p, seed| {
                let built = QuotientFilter::builder(n, p).seed(seed).build();
                BuildError::boxed("quotient", built)
            }),
            decode: decode::<T, QuotientFilter<T>>,
        },
        Descriptor {
            id: "quotient-grow",
            type_name: "QuotientFilter",
            option: "growing",
            crate_name: "bloomlab-quotient",
            tag: crate::TAG.id(),
            caveat: "as the fixed quotient filter but doubles when full; its slots widen by about 2 bits each time the set grows 4-fold",
            can: Capabilities {
                delete: true,
                merge: true,
                grow: true,
                ..Capabilities::default()
            },
            plan: growing,
            choices: vec![Choice {
                suffix: "",
                option: "",
                call: ".growth(true)",
                plan: growing,
            }],
            build: Build::Empty(|n, p, seed| {
                let built = QuotientFilter::builder(n, p)
                    .growth(true)
                    .seed(seed)
                    .build();
                BuildError::boxed("quotient-grow", built)
            }),
            decode: decode::<T, QuotientFilter<T>>,
        },
    ]
}

impl<T: Hash + ?Sized> Describe<T> for QuotientFilter<T> {
    fn table(&self) -> Arc<dyn Table> {
        // The table as built: its doublings are counted from it.
        let e = self.expansions();
        Arc::new(Slots {
            quotient_bits: self.quotient_bits() - e,
            remainder_bits: match self.target_fpr() {
                Some(p) => {
                    theory::growth_fingerprint_bits(p, MAX_LOAD, 0).unwrap_or(self.remainder_bits())
                }
                None => self.remainder_bits(),
            },
            growth_fpr: self.target_fpr(),
        })
    }
    fn as_deletable(&mut self) -> Option<&mut dyn Deletable<T>> {
        Some(self)
    }
    fn state(&self) -> State {
        State {
            parameters: vec![
                ("quotient_bits", Value::Count(self.quotient_bits().into())),
                ("remainder_bits", Value::Count(self.remainder_bits().into())),
                ("slot_bits", Value::Count(self.slot_bits().into())),
                ("expansions", Value::Count(self.expansions().into())),
            ],
            fill_ratio: self.fill_ratio(),
            len: self.len() as u64,
            estimate_count: self.used_slots() as f64,
            estimated_fpr: self.expected_fpr(),
            estimated_from: "the entries' remainder lengths (exact)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_is_what_the_builder_allocates() {
        for grows in [false, true] {
            for (n, p) in [(1_000u64, 0.01), (100_000, 0.001), (3, 0.5)] {
                let planned = Slots::plan(n, p, grows).unwrap();
                let built = QuotientFilter::<u64>::builder(n as usize, p)
                    .growth(grows)
                    .seed(1)
                    .build()
                    .unwrap();
                assert_eq!(planned.memory_bytes, built.memory_bytes() as u128);
            }
        }
        assert_eq!(
            Slots::plan(0, 0.01, false).unwrap_err(),
            ParamError::ZeroItems
        );
        assert!(matches!(
            Slots::plan(10, 1.5, true),
            Err(ParamError::InvalidFpr(_))
        ));
    }

    #[test]
    fn a_grown_table_is_sized_as_the_filter_grows() {
        let slots = Slots {
            quotient_bits: 10,
            remainder_bits: 8,
            growth_fpr: Some(0.01),
        };
        let mut f = QuotientFilter::<u64>::builder(900, 0.01)
            .growth(true)
            .seed(2)
            .build()
            .unwrap();
        for i in 0..100_000u64 {
            f.insert(&i).unwrap();
            if i % 9_999 == 0 {
                let held = i + 1;
                let bytes = slots.grown_bytes(held).unwrap().unwrap();
                assert_eq!(bytes, f.memory_bytes() as u128, "{held} items");
            }
        }
        // The rate theory gives is at most the promise at every size.
        assert!((1..=100u64).all(|k| slots.fpr(k * 1_000) <= 0.01));
    }
}
