//! Every filter bloomlab offers, sized for a workload from
//! `bloomlab_core::theory` exactly as its constructor sizes it.
//!
//! The numbers are what `Filter::new(n, p)` (or the builder with the one
//! option named) would allocate, not an idealised formula: a classic table
//! is rounded to whole words with an integer `k`, the fewest within 1/32 of
//! the smallest table ([`classic::size_for`]), a
//! blocked one to whole 512-bit blocks checked with the exact rate of its
//! layout (one bit per 64-bit word by default),
//! a cuckoo table as `bloomlab_cuckoo::plan` sizes it (the items at the
//! design load, the narrowest fingerprint, semi-sorted where the crate
//! chooses it). The unit tests build every
//! real filter at small sizes and compare its `memory_bytes()` and shape
//! with the prediction here, so a change of policy in a filter crate fails
//! them instead of silently making `choose` wrong.

use serde::Serialize;

use bloomlab::ParamError;
use bloomlab::catalog::{self, Shape, Variant};
use bloomlab::scalable::DEFAULT_TIGHTENING_RATIO;
use bloomlab::theory::{classic, counting, cuckoo, scalable};

use super::numbers::{bytes, grouped, sci};
use super::workload::Workload;

/// Bits in one block of a `BlockedBloomFilter`: one 64-byte cache line.
pub use bloomlab::classic::BLOCK_BITS;

/// Counter widths `choose` considers (bloomlab-counting also offers 16).
pub const COUNTER_WIDTHS: [u32; 2] = [4, 8];

/// Growth factors `choose` considers (bloomlab-scalable also accepts 3).
pub const GROWTH_FACTORS: [u32; 2] = [2, 4];

/// Slots per bucket bloomlab-cuckoo accepts.
pub const BUCKET_SIZES: [u32; 3] = bloomlab::cuckoo::BUCKET_SIZES;

/// The widest fingerprint bloomlab-cuckoo stores.
pub const MAX_FINGERPRINT_BITS: u32 = *bloomlab::cuckoo::FINGERPRINT_BITS.end();

/// One filter configuration `choose` evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `BloomFilter`.
    Classic,
    /// `BlockedBloomFilter`, 512-bit blocks.
    Blocked,
    /// `AtomicBloomFilter`.
    Atomic,
    /// `CountingBloomFilter` with counters of this many bits.
    Counting(u32),
    /// `ScalableBloomFilter` with this growth factor.
    Scalable(u32),
    /// `CuckooFilter` with buckets of this many slots.
    Cuckoo(u32),
    /// A catalog entry `choose` has no model of its own for, sized by the
    /// entry's plan (`bloomlab::catalog::Variant::plan`).
    Entry(&'static str),
}

impl Kind {
    /// Every configuration, in the order ties are broken: the catalog's
    /// entries in its order, each type with the options `choose` weighs
    /// for it. An entry `choose` has no model for is taken as it is.
    pub fn all() -> Vec<Kind> {
        let mut all = Vec::new();
        for v in catalog::variants::<u64>() {
            match v.id {
                "classic" => all.push(Kind::Classic),
                "blocked" => all.push(Kind::Blocked),
                "atomic" => all.push(Kind::Atomic),
                "counting" => all.extend(COUNTER_WIDTHS.map(Kind::Counting)),
                "scalable" => all.extend(GROWTH_FACTORS.map(Kind::Scalable)),
                // The default bucket size first.
                "cuckoo" => all.extend([4, 2, 8].map(Kind::Cuckoo)),
                // A layout `new` does not choose (its lookups are slower);
                // the builder's option, not a filter of its own.
                "cuckoo-ss" => {}
                id => all.push(Kind::Entry(id)),
            }
        }
        all
    }

    /// A short stable name: `classic`, `counting-4`, `cuckoo-2`, …: the
    /// catalog id of its type, with the option that distinguishes it.
    pub fn id(self) -> String {
        match self {
            Kind::Counting(n) | Kind::Scalable(n) | Kind::Cuckoo(n) => {
                format!("{}-{n}", self.entry_id())
            }
            _ => self.entry_id().to_owned(),
        }
    }

    /// The id of its type's catalog entry.
    fn entry_id(self) -> &'static str {
        match self {
            Kind::Classic => "classic",
            Kind::Blocked => "blocked",
            Kind::Atomic => "atomic",
            Kind::Counting(_) => "counting",
            Kind::Scalable(_) => "scalable",
            Kind::Cuckoo(_) => "cuckoo",
            Kind::Entry(id) => id,
        }
    }

    /// The catalog entry of its type (`bloomlab::catalog`), where its
    /// name, crate and capabilities are kept.
    pub fn variant(self) -> Variant<u64> {
        let id = self.entry_id();
        // Every id of `entry_id` is in the catalog; its test says so.
        catalog::find(id).unwrap_or_else(|| unreachable!("{id} is not in the catalog"))
    }

    /// The Rust type.
    pub fn type_name(self) -> &'static str {
        self.variant().type_name
    }

    /// The type with the option that distinguishes it: `CuckooFilter (b=2)`.
    pub fn label(self) -> String {
        match self {
            Kind::Counting(w) => format!("{} ({w}-bit)", self.type_name()),
            Kind::Scalable(s) => format!("{} (s={s})", self.type_name()),
            Kind::Cuckoo(b) => format!("{} (b={b})", self.type_name()),
            Kind::Entry(_) => self.variant().label(),
            other => other.type_name().to_owned(),
        }
    }

    /// The crate that holds it.
    pub fn crate_name(self) -> &'static str {
        self.variant().crate_name
    }

    /// The Rust expression that builds it for `items` at `fpr`.
    pub fn construct(self, items: u64, fpr: f64) -> String {
        // Debug prints the shortest form that reads back the same: 1e-30, 0.001.
        let fpr = format!("{fpr:?}");
        let n = grouped(items).replace(',', "_");
        let head = format!("{}::", self.type_name());
        match self {
            Kind::Counting(w) => format!("{head}builder({n}, {fpr}).counter_width({w}).build()"),
            Kind::Scalable(s) => format!("{head}builder({n}, {fpr}).growth_factor({s}).build()"),
            Kind::Cuckoo(4) => format!("{head}new({n}, {fpr})"),
            Kind::Cuckoo(b) => format!("{head}builder({n}, {fpr}).bucket_size({b}).build()"),
            _ => format!("{head}new({n}, {fpr})"),
        }
    }

    /// What it can do besides insert and look up.
    pub fn supports(self) -> Supports {
        let can = self.variant().can;
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

/// The shape of a table.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub enum Params {
    /// A classic bit array.
    Bits {
        /// `m`.
        bits: u64,
        /// `k`.
        hashes: u32,
    },
    /// Blocks of one cache line each.
    Blocks {
        /// Number of blocks.
        blocks: u64,
        /// Bits per block.
        block_bits: u32,
        /// Words of a block that each receive `k / sectors` of an item's
        /// bits (1: anywhere in the block).
        sectors: u32,
        /// `k`, all in one block.
        hashes: u32,
    },
    /// Counters instead of bits.
    Counters {
        /// `m`.
        counters: u64,
        /// Bits per counter.
        width: u32,
        /// `k`.
        hashes: u32,
    },
    /// A chain of classic layers.
    Layers {
        /// Items the first layer holds.
        initial_capacity: u64,
        /// `s`: each layer holds `s` times the items of the one before.
        growth: u32,
        /// `r`: each layer's rate is `r` times the one before.
        tightening: f64,
        /// The layers the workload fills.
        layers: Vec<Layer>,
    },
    /// A table `choose` has no model of its own for, as its catalog entry
    /// plans it (the shape, printed).
    Planned {
        /// `bloomlab::catalog::Shape`, printed.
        table: String,
    },
    /// A cuckoo table.
    Buckets {
        /// Number of buckets.
        buckets: u64,
        /// Slots per bucket.
        bucket_size: u32,
        /// Bits per fingerprint.
        fingerprint_bits: u32,
        /// Semi-sorted buckets (one bit less a slot) or plain ones.
        semi_sorted: bool,
    },
}

/// One layer of a scalable filter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Layer {
    /// Items it holds when full.
    pub capacity: u64,
    /// Items the workload puts in it.
    pub items: u64,
    /// The rate it is built for.
    pub fpr: f64,
    /// `m`.
    pub bits: u64,
    /// `k`.
    pub hashes: u32,
}

impl Params {
    /// One line for the table: `m=14,400 k=10`.
    pub fn short(&self) -> String {
        match self {
            Params::Bits { bits, hashes } => format!("m={} k={hashes}", grouped(*bits)),
            Params::Blocks {
                blocks,
                block_bits,
                sectors: 1,
                hashes,
            } => format!("{}×{block_bits}b k={hashes}", grouped(*blocks)),
            Params::Blocks {
                blocks,
                block_bits,
                sectors,
                hashes,
            } => format!(
                "{}×{block_bits}b k={hashes} ({} per {}-bit word)",
                grouped(*blocks),
                hashes / sectors,
                block_bits / sectors
            ),
            Params::Counters {
                counters,
                width,
                hashes,
            } => format!("m={}×{width}b k={hashes}", grouped(*counters)),
            Params::Layers { layers, .. } => {
                let lo = layers.iter().map(|l| l.hashes).min().unwrap_or(0);
                let hi = layers.iter().map(|l| l.hashes).max().unwrap_or(0);
                match layers.len() {
                    1 => format!("1 layer k={lo}"),
                    n if lo == hi => format!("{n} layers k={lo}"),
                    n => format!("{n} layers k={lo}..{hi}"),
                }
            }
            Params::Planned { table } => table.clone(),
            Params::Buckets {
                buckets,
                bucket_size,
                fingerprint_bits,
                semi_sorted,
            } => format!(
                "{}×{bucket_size} f={fingerprint_bits}{}",
                grouped(*buckets),
                if *semi_sorted { " semi" } else { "" }
            ),
        }
    }
}

/// What theory says a filter costs and delivers for a workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figures {
    /// The table's shape.
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

/// Sizes `kind` for `w`, as its constructor would.
///
/// # Errors
///
/// The theory's refusal (a table beyond 64-bit sizes, typically).
pub fn size(kind: Kind, w: &Workload) -> Result<Sized, String> {
    let items = w.peak_items();
    let p = w.fpr;
    let why = |e: ParamError| format!("cannot be sized: {}", param_error(&e));
    match kind {
        Kind::Counting(width) => {
            let (m, k) = classic::size_for(items, p).map_err(why)?;
            let bytes = words_bytes(u128::from(m) * u128::from(width)).map_err(why)?;
            let fpr = classic::fpr(m as f64, items as f64, f64::from(k));
            let fill = 1.0 - (-f64::from(k) * items as f64 / m as f64).exp();
            // A look-up stops at the first zero counter: probe j is made when
            // the j before it were non-zero.
            let miss: f64 = (0..k).map(|j| fill.powi(j as i32)).sum();
            let saturation = counting::saturation_probability(m, items, k, width);
            let params = Params::Counters {
                counters: m,
                width,
                hashes: k,
            };
            let mut sized = plain(params, items, bytes, fpr, f64::from(k), miss);
            let chance = if saturation == 0.0 {
                "below 1e-300".to_owned()
            } else {
                sci(saturation)
            };
            sized.notes.push(format!(
                "chance that any {width}-bit counter saturates at {} items: {chance}",
                grouped(items),
            ));
            Ok(sized)
        }
        Kind::Scalable(s) => scalable_size(w.items, s, p, items).map_err(why),
        // A table of one fixed shape: as its catalog entry plans it.
        Kind::Classic | Kind::Atomic | Kind::Blocked | Kind::Entry(_) => {
            let plan = (kind.variant().plan)(items, p).map_err(why)?;
            let bytes =
                u64::try_from(plan.memory_bytes).map_err(|_| why(too_large(plan.memory_bytes)))?;
            let lines = planned_lines(&plan.shape);
            let fpr = plan.shape.fpr(items);
            let modelled = !matches!(kind, Kind::Entry(_));
            let params = match plan.shape {
                Shape::Bits { bits, hashes } if modelled => Params::Bits { bits, hashes },
                Shape::Blocks {
                    blocks,
                    block_bits,
                    sectors,
                    hashes,
                    width: 1,
                } if modelled => Params::Blocks {
                    blocks,
                    block_bits,
                    sectors,
                    hashes,
                },
                ref shape => Params::Planned {
                    table: planned(shape),
                },
            };
            Ok(plain(params, items, bytes, fpr, lines, lines))
        }
        Kind::Cuckoo(b) => {
            let plan = cuckoo_plan(items, p, b).map_err(why)?;
            let bytes =
                u64::try_from(plan.table_bytes).map_err(|_| why(too_large(plan.table_bytes)))?;
            let slots = u128::from(plan.buckets) * u128::from(b);
            let load = items as f64 / slots as f64;
            let fpr = cuckoo::fpr(plan.fingerprint_bits, b, load);
            let params = Params::Buckets {
                buckets: plan.buckets,
                bucket_size: b,
                fingerprint_bits: plan.fingerprint_bits,
                semi_sorted: plan.semi_sorted,
            };
            // Two buckets per look-up; a bucket that straddles a cache-line
            // boundary costs one more, which the estimate leaves out.
            let mut sized = plain(params, items, bytes, fpr, 2.0, 2.0);
            sized.unbuildable = plan.unbuildable;
            sized.notes.push(format!(
                "table {:.0}% full at {} items{}",
                100.0 * load,
                grouped(items),
                if plan.semi_sorted {
                    "; semi-sorted buckets, one bit less per slot"
                } else {
                    ""
                }
            ));
            Ok(sized)
        }
    }
}

/// A catalog entry's table in the words of the other rows: blocks ×
/// positions × bits a position, and k (and how many of an item's counters
/// each word receives, for a sectored block), for a table of counter blocks.
fn planned(shape: &Shape) -> String {
    match *shape {
        Shape::Blocks {
            blocks,
            block_bits,
            sectors,
            hashes,
            width,
        } => {
            let table = format!("{}×{block_bits}×{width}b k={hashes}", grouped(blocks));
            if sectors > 1 {
                let per_word = block_bits / sectors;
                format!("{table} ({} per {per_word}-counter word)", hashes / sectors)
            } else {
                table
            }
        }
        ref other => format!("{other:?}"),
    }
}

/// Cache lines a look-up of a table of `shape` reads, at most: one a hash
/// in a bit or counter array, one block, two buckets; a growing chain's
/// depends on how far it grew, which a plan does not say.
fn planned_lines(shape: &Shape) -> f64 {
    match *shape {
        Shape::Bits { hashes, .. } | Shape::Counters { hashes, .. } => f64::from(hashes),
        Shape::Blocks { .. } => 1.0,
        Shape::Buckets { .. } => 2.0,
        Shape::Layers { .. } => f64::NAN,
    }
}

fn plain(params: Params, items: u64, bytes: u64, fpr: f64, hit: f64, miss: f64) -> Sized {
    Sized {
        figures: Figures {
            params,
            items,
            memory_bytes: bytes,
            initial_memory_bytes: bytes,
            bits_per_item: bytes as f64 * 8.0 / items as f64,
            expected_fpr: fpr,
            lines_hit: hit,
            lines_miss: miss,
        },
        unbuildable: Vec::new(),
        notes: Vec::new(),
    }
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

/// Bytes of `bits` rounded up to whole 64-bit words, as every table here is stored.
fn words_bytes(bits: u128) -> Result<u64, ParamError> {
    let needed = bits.div_ceil(64) * 8;
    u64::try_from(needed).map_err(|_| too_large(needed))
}

/// A scalable filter that starts at `n0` and holds `items`: the layers it
/// has allocated by then, each a classic table from [`scalable::layer_size`].
pub fn scalable_size(n0: u64, s: u32, total: f64, items: u64) -> Result<Sized, ParamError> {
    let r = DEFAULT_TIGHTENING_RATIO;
    let count = scalable::layers_for(n0, s, items)?;
    let mut layers = Vec::new();
    let mut left = items;
    for i in 0..count {
        let i = u32::try_from(i).map_err(|_| too_large(OVERFLOW))?;
        let capacity = scalable::layer_capacity(n0, s, i).ok_or(too_large(OVERFLOW))?;
        // scalable::layer_size, with the classic sizing that ends quickly.
        let rate = scalable::layer_fpr(total, r, i);
        let (bits, hashes) = classic::size_for(capacity, rate)?;
        let held = left.min(capacity);
        left -= held;
        layers.push(Layer {
            capacity,
            items: held,
            fpr: rate,
            bits,
            hashes,
        });
    }
    let bits: u128 = layers.iter().map(|l| u128::from(l.bits)).sum();
    let bytes = words_bytes(bits)?;
    let initial = words_bytes(u128::from(layers[0].bits))?;
    let fpr = scalable::compound_fpr(
        layers
            .iter()
            .map(|l| classic::fpr(l.bits as f64, l.items as f64, f64::from(l.hashes))),
    );
    // Every layer probes all k of its positions, and a miss visits every layer.
    let lines: f64 = layers.iter().map(|l| f64::from(l.hashes)).sum();
    let params = Params::Layers {
        initial_capacity: n0,
        growth: s,
        tightening: r,
        layers,
    };
    let mut sized = plain(params, items, bytes, fpr, lines, lines);
    sized.figures.initial_memory_bytes = initial;
    Ok(sized)
}

/// What bloomlab-cuckoo builds for `items` at `eps` with buckets of `b` slots.
#[derive(Debug, Clone, PartialEq)]
pub struct CuckooPlan {
    /// Buckets: the items at the design load, rounded up to an even count.
    pub buckets: u64,
    /// The fingerprint width: the rate's, at least the crate's floor.
    pub fingerprint_bits: u32,
    /// Whether the crate semi-sorts the buckets.
    pub semi_sorted: bool,
    /// Bytes of the table.
    pub table_bytes: u128,
    /// Why the crate would refuse it (empty if it builds).
    pub unbuildable: Vec<String>,
}

/// The cuckoo builder's sizing, from the crate itself ([`bloomlab::cuckoo::plan`]),
/// with the reasons the builder would refuse it.
pub fn cuckoo_plan(items: u64, eps: f64, b: u32) -> Result<CuckooPlan, ParamError> {
    let plan = bloomlab::cuckoo::plan(items, eps, b)?;
    let mut unbuildable = Vec::new();
    if plan.needed_bits > MAX_FINGERPRINT_BITS {
        unbuildable.push(format!(
            "this rate needs {}-bit fingerprints; bloomlab-cuckoo stores at most {MAX_FINGERPRINT_BITS}",
            plan.needed_bits
        ));
    }
    if plan.buckets > bloomlab::cuckoo::MAX_BUCKETS {
        unbuildable.push(format!(
            "{} buckets; bloomlab-cuckoo addresses at most 2^32",
            grouped(plan.buckets)
        ));
    }
    Ok(CuckooPlan {
        buckets: plan.buckets,
        fingerprint_bits: plan.fingerprint_bits,
        semi_sorted: plan.semi_sorted,
        table_bytes: plan.table_bytes,
        unbuildable,
    })
}

#[cfg(test)]
mod tests;
