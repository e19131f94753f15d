//! The descriptor of [`ScalableBloomFilter`], and the theory of its chain of
//! layers ([`Layers`]), for the catalog.

use std::hash::Hash;
use std::sync::Arc;

use bloomlab_core::ParamError;
use bloomlab_core::descriptor::{
    Build, BuildError, Capabilities, Choice, Describe, Descriptor, Lines, Plan, State, Table,
    Value, decimal_bytes, decode, grouped,
};
use bloomlab_core::theory::{classic, scalable};

use crate::{DEFAULT_GROWTH_FACTOR, DEFAULT_TIGHTENING_RATIO, ScalableBloomFilter};

/// A chain of classic layers that grows.
#[derive(Debug, Clone, PartialEq)]
pub struct Layers {
    /// Items the first layer holds.
    pub initial_capacity: u64,
    /// `s`: each layer holds `s` times the items of the one before.
    pub growth: u32,
    /// `r`: each layer's rate is `r` times the one before.
    pub tightening: f64,
    /// The rate the whole chain is built for.
    pub fpr: f64,
}

impl Layers {
    /// The chain [`ScalableBloomFilter::builder`] starts for `n` items at
    /// rate `p` growing by `growth`: its first layer, allocated.
    ///
    /// # Errors
    ///
    /// The theory's refusal of `(n, p)`.
    pub fn plan(n: u64, p: f64, growth: u32) -> Result<Plan, ParamError> {
        let tightening = DEFAULT_TIGHTENING_RATIO;
        let (bits, _) = scalable::layer_size(n, growth, p, tightening, 0)?;
        let table = Layers {
            initial_capacity: n,
            growth,
            tightening,
            fpr: p,
        };
        Ok(Plan::new(table, u128::from(bits).div_ceil(64) * 8))
    }

    /// Each layer the chain has allocated once it holds `items`: its
    /// `(m, k)` and the items it holds (full layers at their capacity, the
    /// newest at what is left). `None` past what theory sizes.
    pub fn holding(&self, items: u64) -> Option<Vec<(u64, u32, u64)>> {
        let (n0, s, r) = (self.initial_capacity, self.growth, self.tightening);
        let mut left = items;
        let mut layers = Vec::new();
        for i in 0.. {
            let cap = scalable::layer_capacity(n0, s, i)?;
            let (m, k) = scalable::layer_size(n0, s, self.fpr, r, i).ok()?;
            let here = left.min(cap);
            layers.push((m, k, here));
            left -= here;
            if left == 0 {
                break;
            }
        }
        Some(layers)
    }
}

impl Layers {
    /// How many layers, holding how many items, the chain allocates within
    /// `limit` bytes: each new layer must fit beside the ones before, as the
    /// filter's `max_bytes` checks.
    pub fn within(&self, limit: u64) -> (u32, u64) {
        let (n0, s, r) = (self.initial_capacity, self.growth, self.tightening);
        let (mut used, mut items) = (0u64, 0u64);
        for i in 0..64 {
            let (Some(capacity), Ok((bits, _))) = (
                scalable::layer_capacity(n0, s, i),
                scalable::layer_size(n0, s, self.fpr, r, i),
            ) else {
                return (i, items);
            };
            match used.checked_add(bits.div_ceil(64) * 8) {
                Some(total) if total <= limit => {
                    used = total;
                    items = items.saturating_add(capacity);
                }
                _ => return (i, items),
            }
        }
        (64, items)
    }
}

impl Table for Layers {
    fn parameters(&self) -> Vec<(&'static str, Value)> {
        vec![
            ("initial_capacity", Value::Count(self.initial_capacity)),
            ("growth_factor", Value::Count(self.growth.into())),
            ("tightening_ratio", Value::Real(self.tightening)),
            ("target_fpr", Value::Real(self.fpr)),
        ]
    }

    /// The compound rate: full layers at their capacity, the newest at what
    /// is left, each sized as the filter sizes it.
    fn fpr(&self, items: u64) -> f64 {
        self.holding(items).map_or(f64::NAN, |layers| {
            scalable::compound_fpr(
                layers
                    .iter()
                    .map(|&(m, k, n)| classic::fpr(m as f64, n as f64, f64::from(k))),
            )
        })
    }

    /// The layers that hold `items`, each ideally sized.
    fn theory_bits_per_item(&self, eps: f64, items: u64) -> f64 {
        let (n0, s, r) = (self.initial_capacity, self.growth, self.tightening);
        scalable::ideal_bits_per_item(n0, s, eps, r, items).unwrap_or(f64::NAN)
    }

    fn grown_bytes(&self, items: u64) -> Result<Option<u128>, ParamError> {
        let (n0, s, r) = (self.initial_capacity, self.growth, self.tightening);
        let bits = scalable::bits_after(n0, s, self.fpr, r, items)?;
        Ok(Some(u128::from(bits.div_ceil(8))))
    }

    /// Every layer probes all `k` of its positions, and a miss visits every
    /// layer.
    fn lookup_lines(&self, items: u64) -> Lines {
        let lines = self.holding(items).map_or(f64::NAN, |layers| {
            layers.iter().map(|&(_, k, _)| f64::from(k)).sum()
        });
        Lines {
            hit: lines,
            miss: lines,
        }
    }

    /// Its memory if the set turns out 10 and 100 times larger, and the
    /// items it holds within `max_bytes`.
    fn outlook(&self, max_bytes: Option<u64>) -> Vec<String> {
        let n0 = self.initial_capacity;
        let parts: Vec<String> = [10u64, 100]
            .iter()
            .filter_map(|&times| {
                let n = n0.checked_mul(times)?;
                let bytes = u64::try_from(self.grown_bytes(n).ok()??).ok()?;
                Some(format!(
                    "{} at {times}× ({:.1} bits per item)",
                    decimal_bytes(bytes),
                    bytes as f64 * 8.0 / n as f64
                ))
            })
            .collect();
        let mut notes = vec![if parts.is_empty() {
            "grows by adding layers, each a tighter classic filter".to_owned()
        } else {
            format!("grows by adding layers: {}", parts.join(", "))
        }];
        if let Some((limit, (layers, items))) = max_bytes.map(|l| (l, self.within(l)))
            && layers > 0
        {
            notes.push(format!(
                "built with .max_bytes({limit}) it holds {} items in {layers} layer{}, then \
                 refuses inserts with InsertError::Full",
                grouped(items),
                if layers == 1 { "" } else { "s" }
            ));
        }
        notes
    }

    fn label(&self) -> String {
        format!(
            "n0={} s={} r={}",
            self.initial_capacity, self.growth, self.tightening
        )
    }

    fn key_parameter(&self) -> String {
        "k=varies".into()
    }

    fn summary(&self, items: u64) -> String {
        let Some(layers) = self.holding(items) else {
            return self.label();
        };
        let lo = layers.iter().map(|l| l.1).min().unwrap_or(0);
        let hi = layers.iter().map(|l| l.1).max().unwrap_or(0);
        match layers.len() {
            1 => format!("1 layer k={lo}"),
            n if lo == hi => format!("{n} layers k={lo}"),
            n => format!("{n} layers k={lo}..{hi}"),
        }
    }
}

/// The descriptor of [`ScalableBloomFilter`].
pub fn descriptors<T: Hash + ?Sized + 'static>() -> Vec<Descriptor<T>> {
    vec![Descriptor {
        id: "scalable",
        type_name: "ScalableBloomFilter",
        option: "",
        crate_name: "bloomlab-scalable",
        tag: crate::TAG.id(),
        caveat: "no delete; the rate tightens layer by layer and its bits per item exceed a classic filter sized for the final count",
        can: Capabilities {
            grow: true,
            ..Capabilities::default()
        },
        plan: |n, p| Layers::plan(n, p, DEFAULT_GROWTH_FACTOR),
        // The growth factors `choose` weighs (3 is accepted too).
        choices: vec![
            Choice {
                suffix: "2",
                option: "s=2",
                call: ".growth_factor(2)",
                plan: |n, p| Layers::plan(n, p, 2),
            },
            Choice {
                suffix: "4",
                option: "s=4",
                call: ".growth_factor(4)",
                plan: |n, p| Layers::plan(n, p, 4),
            },
        ],
        build: Build::Empty(|n, p, seed| {
            let built = ScalableBloomFilter::builder(n, p).seed(seed).build();
            BuildError::boxed("scalable", built)
        }),
        decode: decode::<T, ScalableBloomFilter<T>>,
    }]
}

impl<T: Hash + ?Sized> Describe<T> for ScalableBloomFilter<T> {
    fn table(&self) -> Arc<dyn Table> {
        Arc::new(Layers {
            initial_capacity: self.initial_capacity(),
            growth: self.growth_factor(),
            tightening: self.tightening_ratio(),
            fpr: self.target_fpr(),
        })
    }
    fn state(&self) -> State {
        let layers = self.layers();
        let bits: u64 = layers.iter().map(|l| l.num_bits()).sum();
        let ones: u64 = layers.iter().map(|l| l.count_ones()).sum();
        // A probe is a false positive if any layer passes it.
        let pass_none: f64 = layers.iter().map(|l| 1.0 - l.estimated_fpr()).product();
        State {
            parameters: vec![
                ("target_fpr", Value::Real(self.target_fpr())),
                ("initial_capacity", Value::Count(self.initial_capacity())),
                ("growth_factor", Value::Count(self.growth_factor().into())),
                ("tightening_ratio", Value::Real(self.tightening_ratio())),
                ("layers", Value::Count(layers.len() as u64)),
                ("capacity", Value::Count(self.capacity())),
            ],
            fill_ratio: if bits == 0 {
                0.0
            } else {
                ones as f64 / bits as f64
            },
            len: self.len() as u64,
            estimate_count: layers.iter().map(|l| l.estimate_count()).sum(),
            estimated_fpr: 1.0 - pass_none,
            estimated_from: "the bits set in each layer: 1 − Π(1 − fill_i^k_i)",
        }
    }
}
