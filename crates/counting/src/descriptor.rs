//! The descriptors of this crate's filters, and the theory of a table of
//! counters ([`Counters`]), for the catalog.

use std::hash::Hash;
use std::sync::Arc;

use bloomlab_classic::BlockLayout;
use bloomlab_classic::descriptor::{Bits, Blocks, bits_state};
use bloomlab_core::descriptor::{
    Build, BuildError, Capabilities, Choice, Describe, Descriptor, Lines, Plan, State, Table,
    Value, decode, grouped, sci,
};
use bloomlab_core::theory::{classic, counting};
use bloomlab_core::{Deletable, ParamError};

use crate::{BLOCK_COUNTERS, BlockedCountingBloomFilter, CountingBloomFilter, DEFAULT_WIDTH};

/// `m` counters of `width` bits and `k` hashes.
#[derive(Debug, Clone, PartialEq)]
pub struct Counters {
    /// `m`.
    pub counters: u64,
    /// Bits per counter.
    pub width: u32,
    /// `k`.
    pub hashes: u32,
}

impl Counters {
    /// The counters' positions as a classic table of as many bits.
    fn positions(&self) -> Bits {
        Bits {
            bits: self.counters,
            hashes: self.hashes,
        }
    }

    /// The table [`CountingBloomFilter::builder`] sizes for `n` items at
    /// rate `p` with counters of `width` bits.
    ///
    /// # Errors
    ///
    /// The theory's refusal of `(n, p)`, or a table past 2^128 bytes.
    pub fn plan(n: u64, p: f64, width: u32) -> Result<Plan, ParamError> {
        let (counters, hashes) = classic::size_for(n, p)?;
        let bits = u128::from(counters) * u128::from(width);
        let table = Counters {
            counters,
            width,
            hashes,
        };
        Ok(Plan::new(table, bits.div_ceil(64) * 8))
    }
}

impl Table for Counters {
    fn parameters(&self) -> Vec<(&'static str, Value)> {
        vec![
            ("counters", Value::Count(self.counters)),
            ("counter_bits", Value::Count(self.width.into())),
            ("hashes", Value::Count(self.hashes.into())),
        ]
    }

    // A counter is zero where a bit would be unset: the classic table's
    // theory, over counters.
    fn fpr(&self, items: u64) -> f64 {
        self.positions().fpr(items)
    }

    fn rate_sd(&self, items: u64) -> Option<f64> {
        self.positions().rate_sd(items)
    }

    fn theory_bits_per_item(&self, eps: f64, _items: u64) -> f64 {
        counting::bits_per_item(eps, self.width)
    }

    /// A look-up stops at the first zero counter: probe `j` is made when the
    /// `j` before it were non-zero.
    fn lookup_lines(&self, items: u64) -> Lines {
        let k = self.hashes;
        let fill = 1.0 - (-f64::from(k) * items as f64 / self.counters as f64).exp();
        let miss = (0..k).map(|j| fill.powi(j as i32)).sum();
        Lines {
            hit: f64::from(k),
            miss,
        }
    }

    fn label(&self) -> String {
        format!(
            "counters={} k={} width={}",
            self.counters, self.hashes, self.width
        )
    }

    fn key_parameter(&self) -> String {
        self.positions().key_parameter()
    }

    fn summary(&self, _items: u64) -> String {
        format!(
            "m={}×{}b k={}",
            grouped(self.counters),
            self.width,
            self.hashes
        )
    }

    fn notes(&self, items: u64) -> Vec<String> {
        let saturation =
            counting::saturation_probability(self.counters, items, self.hashes, self.width);
        let chance = if saturation == 0.0 {
            "below 1e-300".to_owned()
        } else {
            sci(saturation)
        };
        vec![format!(
            "chance that any {}-bit counter saturates at {} items: {chance}",
            self.width,
            grouped(items),
        )]
    }

    fn counters(&self) -> bool {
        true
    }
}

fn plan_counters(n: u64, p: f64) -> Result<Plan, ParamError> {
    Counters::plan(n, p, DEFAULT_WIDTH)
}

fn plan_counter_blocks(n: u64, p: f64) -> Result<Plan, ParamError> {
    Blocks::plan(n, p, BLOCK_COUNTERS, 4)
}

/// The descriptors of [`CountingBloomFilter`] and
/// [`BlockedCountingBloomFilter`], in that order.
pub fn descriptors<T: Hash + ?Sized + 'static>() -> Vec<Descriptor<T>> {
    let delete = Capabilities {
        delete: true,
        ..Capabilities::default()
    };
    vec![
        Descriptor {
            id: "counting",
            type_name: "CountingBloomFilter",
            option: "",
            crate_name: "bloomlab-counting",
            tag: crate::TAG.id(),
            caveat: "4× the bits of classic; a remove of an item never inserted can evict members; counters can saturate",
            can: Capabilities {
                merge: true,
                ..delete
            },
            plan: plan_counters,
            // The widths `choose` weighs (16 bits is offered too).
            choices: vec![
                Choice {
                    suffix: "4",
                    option: "4-bit",
                    call: ".counter_width(4)",
                    plan: |n, p| Counters::plan(n, p, 4),
                },
                Choice {
                    suffix: "8",
                    option: "8-bit",
                    call: ".counter_width(8)",
                    plan: |n, p| Counters::plan(n, p, 8),
                },
            ],
            build: Build::Empty(|n, p, seed| {
                let built = CountingBloomFilter::builder(n, p).seed(seed).build();
                BuildError::boxed("counting", built)
            }),
            decode: decode::<T, CountingBloomFilter<T>>,
        },
        Descriptor {
            id: "counting-blocked",
            type_name: "BlockedCountingBloomFilter",
            option: "",
            crate_name: "bloomlab-counting",
            tag: crate::BLOCKED_TAG.id(),
            caveat: "one cache line a look-up for more memory than counting (1.19× at 1% and 1.69× at 1e-4); a remove of an item never inserted can evict members; counters can saturate",
            can: delete,
            plan: plan_counter_blocks,
            choices: Descriptor::<T>::as_built(plan_counter_blocks),
            build: Build::Empty(|n, p, seed| {
                let built = BlockedCountingBloomFilter::builder(n, p).seed(seed).build();
                BuildError::boxed("counting-blocked", built)
            }),
            decode: decode::<T, BlockedCountingBloomFilter<T>>,
        },
    ]
}

impl<T: Hash + ?Sized> Describe<T> for CountingBloomFilter<T> {
    fn table(&self) -> Arc<dyn Table> {
        Arc::new(Counters {
            counters: self.num_counters(),
            width: self.counter_width(),
            hashes: self.num_hashes(),
        })
    }
    fn as_deletable(&mut self) -> Option<&mut dyn Deletable<T>> {
        Some(self)
    }
    fn state(&self) -> State {
        let p = vec![
            ("counters", Value::Count(self.num_counters())),
            ("counter_bits", Value::Count(self.counter_width().into())),
            ("hashes", Value::Count(self.num_hashes().into())),
            (
                "saturated_counters",
                Value::Count(self.saturated_counters()),
            ),
        ];
        // A counter is non-zero exactly where the Bloom filter it stands
        // for has its bit set.
        let bits = self.to_bloom();
        State {
            estimated_from: "the non-zero counters: (fill)^k",
            ..bits_state(
                p,
                bits.fill_ratio(),
                self.len(),
                bits.estimate_count(),
                bits.estimated_fpr(),
            )
        }
    }
}

impl<T: Hash + ?Sized> Describe<T> for BlockedCountingBloomFilter<T> {
    fn table(&self) -> Arc<dyn Table> {
        Arc::new(Blocks {
            blocks: self.num_blocks(),
            block_bits: BLOCK_COUNTERS,
            sectors: self.layout().sectors(),
            hashes: self.num_hashes(),
            width: 4,
        })
    }
    fn as_deletable(&mut self) -> Option<&mut dyn Deletable<T>> {
        Some(self)
    }
    fn state(&self) -> State {
        let p = vec![
            ("counters", Value::Count(self.num_counters())),
            ("blocks", Value::Count(self.num_blocks())),
            ("counter_bits", Value::Count(4)),
            ("hashes", Value::Count(self.num_hashes().into())),
            ("sectors", Value::Count(self.layout().sectors().into())),
            (
                "saturated_counters",
                Value::Count(self.saturated_counters()),
            ),
        ];
        State {
            estimated_from: match self.layout() {
                BlockLayout::Sectors => {
                    "the non-zero counters of each word: mean over blocks of the product over \
                     words of (fill_w)^(k/8)"
                }
                BlockLayout::Positions => "the non-zero counters of each block: mean of (fill_b)^k",
            },
            ..bits_state(
                p,
                self.fill_ratio(),
                self.len(),
                self.estimate_count(),
                self.estimated_fpr(),
            )
        }
    }
}
