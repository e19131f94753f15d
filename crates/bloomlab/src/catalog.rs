//! Every filter bloomlab offers, in one list.
//!
//! [`variants`] returns one [`Variant`] per configuration: its type, crate,
//! envelope tag, what it can do, how its constructor sizes a table for
//! `n` items at rate `ε` ([`Variant::plan`], without allocating), and a
//! constructor and a decoder behind `Box<dyn AnyFilter<T>>`. The `bloomlab`
//! binary's experiments, its chooser and `bloomlab inspect`, and the
//! benchmarks, iterate this list rather than naming variants themselves.
//!
//! ```
//! use bloomlab::catalog;
//!
//! for v in catalog::variants::<str>() {
//!     let plan = (v.plan)(10_000, 0.01)?;
//!     let mut filter = (v.build)(10_000, 0.01, 7)?;
//!     filter.insert("paris")?;
//!     assert!(filter.contains("paris"), "{}", v.id);
//!     // The plan is what the constructor allocates.
//!     assert_eq!(plan.memory_bytes, filter.memory_bytes() as u128, "{}", v.id);
//!     assert_eq!(filter.as_deletable().is_some(), v.can.delete, "{}", v.id);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Adding a variant
//!
//! A new filter is a crate of its own plus one entry here. The crate
//! defines the filter and its hash-level operations
//! ([`HashMembership`](bloomlab_core::HashMembership), and
//! [`HashDeletable`](bloomlab_core::HashDeletable) if it deletes), gets
//! `Filter`, `Membership`, `Persist` and serde from one
//! `bloomlab_core::impl_filter!` line, and owns its envelope
//! [`Tag`](bloomlab_core::Tag); the entry in [`variants`] gives the rest.
//! The files touched are:
//!
//! 1. `crates/<name>/` — the new crate, added to the workspace's `members`
//!    and `[workspace.dependencies]` in the root `Cargo.toml`;
//! 2. `crates/bloomlab/Cargo.toml` — the facade depends on it;
//! 3. `crates/bloomlab/src/catalog.rs` — one [`Variant`] in [`variants`] (and
//!    a [`Shape`] if its table has a shape no other variant has);
//! 4. optionally `benches/benches/<name>.rs` — its criterion benchmarks.
//!
//! The experiments and `bloomlab inspect` iterate [`variants`], and
//! `bloomlab-choose` weighs every entry: the types it has a model of its own
//! for with their options, any other as the entry's plan sizes it. A new
//! *shape* of table needs more: its theory in [`Shape::fpr`], and an arm in
//! each `match` over [`Shape`] (the experiments' per-shape columns in
//! `exp/subject.rs`, `exp/tradeoff.rs` and `exp/space.rs`, `choose`'s
//! cache-line count); the matches are exhaustive, so the compiler lists
//! them. The test `catalog_is_the_only_list` in
//! `crates/bloomlab/tests/catalog.rs` checks that every entry's plan,
//! shape, tag and capabilities agree with the filter it builds.

use std::error::Error;
use std::fmt;
use std::hash::Hash;

use bloomlab_classic::{
    AtomicBloomFilter, BLOCK_BITS, BlockLayout, BlockedBloomFilter, BloomFilter,
};
use bloomlab_core::hash::SECTORS;
use bloomlab_core::theory::{classic, cuckoo, scalable, sectored};
use bloomlab_core::{DecodeError, Deletable, Membership, ParamError, Persist};
use bloomlab_counting::{BLOCK_COUNTERS, BlockedCountingBloomFilter, CountingBloomFilter};
use bloomlab_cuckoo::CuckooFilter;
use bloomlab_scalable::ScalableBloomFilter;

/// What a filter can do besides insert and look up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
}

/// The shape of a filter's table: the parameters its theory needs.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A classic bit array: `m` bits, `k` hashes.
    Bits {
        /// `m`.
        bits: u64,
        /// `k`.
        hashes: u32,
    },
    /// Blocks of one cache line, `k` positions in one block per item: bits
    /// of a blocked Bloom filter, or counters.
    Blocks {
        /// Number of blocks.
        blocks: u64,
        /// Positions per block (bits, or counters).
        block_bits: u32,
        /// Equal sectors the block is cut into, each receiving `k / sectors`
        /// of an item's positions: 8 for a blocked Bloom filter's 64-bit
        /// words in the sectors layout, 1 where the positions fall anywhere
        /// in the block.
        sectors: u32,
        /// `k`.
        hashes: u32,
        /// Bits per position: 1 for a bit, the counter width for counters.
        width: u32,
    },
    /// `m` counters of `width` bits, `k` hashes.
    Counters {
        /// `m`.
        counters: u64,
        /// Bits per counter.
        width: u32,
        /// `k`.
        hashes: u32,
    },
    /// A chain of classic layers that grows.
    Layers {
        /// Items the first layer holds.
        initial_capacity: u64,
        /// `s`: each layer holds `s` times the items of the one before.
        growth: u32,
        /// `r`: each layer's rate is `r` times the one before.
        tightening: f64,
        /// The rate the whole chain is built for.
        fpr: f64,
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

impl Shape {
    /// The false-positive rate theory predicts after `items` distinct
    /// inserts, from the parameters alone (`bloomlab_core::theory`). For a
    /// scalable filter: full layers at their capacity, the newest at what is
    /// left. `NaN` where the parameters admit no answer (a scalable chain
    /// past 64-bit sizes).
    pub fn fpr(&self, items: u64) -> f64 {
        let n = items as f64;
        match *self {
            Shape::Bits { bits, hashes }
            | Shape::Counters {
                counters: bits,
                hashes,
                ..
            } => classic::fpr(bits as f64, n, f64::from(hashes)),
            // One sector is a plain block: `sectored` then computes exactly
            // `blocked::fpr_exact`.
            Shape::Blocks {
                blocks,
                block_bits,
                sectors,
                hashes,
                ..
            } => sectored::fpr_exact(block_bits / sectors, sectors, blocks, items, hashes),
            Shape::Layers {
                initial_capacity,
                growth,
                tightening,
                fpr,
            } => layers_fpr(initial_capacity, growth, fpr, tightening, items),
            Shape::Buckets {
                buckets,
                bucket_size,
                fingerprint_bits,
                ..
            } => {
                let slots = buckets as f64 * f64::from(bucket_size);
                cuckoo::fpr(fingerprint_bits, bucket_size, n / slots)
            }
        }
    }
}

/// The compound rate of a scalable chain after `n` distinct items: full
/// layers at their capacity, the newest at what is left, each sized as the
/// filter sizes it ([`scalable::layer_size`]).
fn layers_fpr(n0: u64, s: u32, total: f64, r: f64, n: u64) -> f64 {
    let mut left = n;
    let mut rates = Vec::new();
    for i in 0.. {
        let (Some(cap), Ok((m, k))) = (
            scalable::layer_capacity(n0, s, i),
            scalable::layer_size(n0, s, total, r, i),
        ) else {
            return f64::NAN;
        };
        let here = left.min(cap);
        rates.push(classic::fpr(m as f64, here as f64, f64::from(k)));
        left -= here;
        if left == 0 {
            break;
        }
    }
    scalable::compound_fpr(rates)
}

/// What a constructor allocates for `n` items at rate `ε`, worked out
/// without allocating.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The table's shape.
    pub shape: Shape,
    /// Bytes of its tables right after construction (its `memory_bytes()`).
    pub memory_bytes: u128,
}

/// A filter built from the catalog: every [`Membership`] operation, plus
/// what generic code needs to know of it.
pub trait AnyFilter<T: ?Sized>: Membership<T> {
    /// The table's shape, from the built filter.
    fn shape(&self) -> Shape;
    /// The filter as a [`Deletable`], when it can delete.
    fn as_deletable(&mut self) -> Option<&mut dyn Deletable<T>>;
    /// The encoded filter ([`Persist::to_bytes`]).
    fn to_bytes(&self) -> Vec<u8>;
    /// What the table holds now, read from the table itself.
    fn state(&self) -> State;
    /// Cache lines a look-up reads, at most
    /// ([`HashMembership::lookup_lines`](bloomlab_core::by_hash::HashMembership::lookup_lines)).
    fn lookup_lines(&self) -> usize;
}

/// A parameter's value: a count or a rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A count: bits, hashes, buckets, layers.
    Count(u64),
    /// A real number: a rate or a ratio.
    Real(f64),
}

/// What a filter's table holds now ([`AnyFilter::state`]), as `bloomlab
/// inspect` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// The parameters, by name, in the order a reader wants them.
    pub parameters: Vec<(&'static str, Value)>,
    /// Fraction of the table in use: bits set, non-zero counters, or
    /// occupied cuckoo slots.
    pub fill: f64,
    /// Items recorded (inserts, net of removes where it can remove).
    pub items: u64,
    /// Distinct items estimated from the table alone.
    pub estimated_items: f64,
    /// The rate a probe of an absent item sees, from the table as it stands.
    pub estimated_fpr: f64,
    /// How that rate is computed.
    pub estimated_from: &'static str,
}

impl State {
    /// The state of a bit array of `bits` bits and `hashes` hashes.
    fn bits(
        parameters: Vec<(&'static str, Value)>,
        fill: f64,
        items: usize,
        estimate: f64,
        fpr: f64,
    ) -> Self {
        State {
            parameters,
            fill,
            items: items as u64,
            estimated_items: estimate,
            estimated_fpr: fpr,
            estimated_from: "the bits set: (fill)^k",
        }
    }
}

/// A constructor refused its arguments.
#[derive(Debug)]
pub struct BuildError {
    /// The catalog entry ([`Variant::id`]).
    pub variant: &'static str,
    /// The crate's own error.
    pub source: Box<dyn Error + Send + Sync + 'static>,
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

/// Builds a catalog entry's filter for `items` at `fpr`, its hash key from `seed`.
pub type BuildFn<T> = fn(usize, f64, u64) -> Result<Box<dyn AnyFilter<T>>, BuildError>;

/// Reads a catalog entry's filter back from its envelope.
pub type DecodeFn<T> = fn(&[u8]) -> Result<Box<dyn AnyFilter<T>>, DecodeError>;

/// One configuration of one filter type.
pub struct Variant<T: ?Sized + 'static> {
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
    pub plan: fn(u64, f64) -> Result<Plan, ParamError>,
    /// The constructor, seeded.
    pub build: BuildFn<T>,
    /// The decoder.
    pub decode: DecodeFn<T>,
}

impl<T: ?Sized> Variant<T> {
    /// The type with the option that sets it apart: `CuckooFilter (semi-sorted)`.
    pub fn label(&self) -> String {
        match self.option {
            "" => self.type_name.to_owned(),
            option => format!("{} ({option})", self.type_name),
        }
    }
}

impl<T: ?Sized> fmt::Debug for Variant<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Variant")
            .field("id", &self.id)
            .field("crate_name", &self.crate_name)
            .field("tag", &self.tag)
            .field("can", &self.can)
            .finish_non_exhaustive()
    }
}

/// Every configuration, in report order. The first entry of a tag is the
/// one [`by_tag`] finds.
pub fn variants<T: Hash + ?Sized + 'static>() -> Vec<Variant<T>> {
    let none = Capabilities {
        delete: false,
        grow: false,
        concurrent_insert: false,
        merge: false,
        can_fill: false,
    };
    let cuckoo = Capabilities {
        delete: true,
        can_fill: true,
        ..none
    };
    vec![
        Variant {
            id: "classic",
            type_name: "BloomFilter",
            option: "",
            crate_name: "bloomlab-classic",
            tag: bloomlab_classic::CLASSIC_TAG.id(),
            caveat: "no delete; a look-up reads k cache lines",
            can: Capabilities {
                merge: true,
                ..none
            },
            plan: plan_bits,
            build: |n, p, seed| boxed("classic", BloomFilter::builder(n, p).seed(seed).build()),
            decode: |b| Ok(Box::new(BloomFilter::<T>::from_bytes(b)?)),
        },
        Variant {
            id: "blocked",
            type_name: "BlockedBloomFilter",
            option: "",
            crate_name: "bloomlab-classic",
            tag: bloomlab_classic::BLOCKED_TAG.id(),
            caveat: "no delete; more bits than classic for the same rate; the gap widens as the rate falls",
            can: Capabilities {
                merge: true,
                ..none
            },
            plan: plan_blocks,
            build: |n, p, seed| {
                boxed(
                    "blocked",
                    BlockedBloomFilter::builder(n, p).seed(seed).build(),
                )
            },
            decode: |b| Ok(Box::new(BlockedBloomFilter::<T>::from_bytes(b)?)),
        },
        Variant {
            id: "atomic",
            type_name: "AtomicBloomFilter",
            option: "",
            crate_name: "bloomlab-classic",
            tag: bloomlab_classic::ATOMIC_TAG.id(),
            caveat: "no delete; no merge; a look-up reads k cache lines",
            can: Capabilities {
                concurrent_insert: true,
                ..none
            },
            plan: plan_bits,
            build: |n, p, seed| {
                boxed(
                    "atomic",
                    AtomicBloomFilter::builder(n, p).seed(seed).build(),
                )
            },
            decode: |b| Ok(Box::new(AtomicBloomFilter::<T>::from_bytes(b)?)),
        },
        Variant {
            id: "counting",
            type_name: "CountingBloomFilter",
            option: "",
            crate_name: "bloomlab-counting",
            tag: bloomlab_counting::TAG.id(),
            caveat: "4× the bits of classic; a remove of an item never inserted can evict members; counters can saturate",
            can: Capabilities {
                delete: true,
                merge: true,
                ..none
            },
            plan: plan_counters,
            build: |n, p, seed| {
                boxed(
                    "counting",
                    CountingBloomFilter::builder(n, p).seed(seed).build(),
                )
            },
            decode: |b| Ok(Box::new(CountingBloomFilter::<T>::from_bytes(b)?)),
        },
        Variant {
            id: "counting-blocked",
            type_name: "BlockedCountingBloomFilter",
            option: "",
            crate_name: "bloomlab-counting",
            tag: bloomlab_counting::BLOCKED_TAG.id(),
            caveat: "one cache line a look-up for more memory than counting (1.19× at 1% and 1.69× at 1e-4); a remove of an item never inserted can evict members; counters can saturate",
            can: Capabilities {
                delete: true,
                ..none
            },
            plan: plan_counter_blocks,
            build: |n, p, seed| {
                boxed(
                    "counting-blocked",
                    BlockedCountingBloomFilter::builder(n, p).seed(seed).build(),
                )
            },
            decode: |b| Ok(Box::new(BlockedCountingBloomFilter::<T>::from_bytes(b)?)),
        },
        Variant {
            id: "scalable",
            type_name: "ScalableBloomFilter",
            option: "",
            crate_name: "bloomlab-scalable",
            tag: bloomlab_scalable::TAG.id(),
            caveat: "no delete; the rate tightens layer by layer and its bits per item exceed a classic filter sized for the final count",
            can: Capabilities { grow: true, ..none },
            plan: plan_layers,
            build: |n, p, seed| {
                boxed(
                    "scalable",
                    ScalableBloomFilter::builder(n, p).seed(seed).build(),
                )
            },
            decode: |b| Ok(Box::new(ScalableBloomFilter::<T>::from_bytes(b)?)),
        },
        Variant {
            id: "cuckoo",
            type_name: "CuckooFilter",
            option: "plain",
            crate_name: "bloomlab-cuckoo",
            tag: bloomlab_cuckoo::TAG.id(),
            caveat: "an insert can fail (Full) near the design load; a remove of an item never inserted can evict a member; at most 2b copies of one item",
            can: cuckoo,
            plan: |n, p| plan_buckets(n, p, false),
            build: |n, p, seed| boxed("cuckoo", CuckooFilter::builder(n, p).seed(seed).build()),
            decode: |b| Ok(Box::new(CuckooFilter::<T>::from_bytes(b)?)),
        },
        Variant {
            id: "cuckoo-ss",
            type_name: "CuckooFilter",
            option: "semi-sorted",
            crate_name: "bloomlab-cuckoo",
            tag: bloomlab_cuckoo::TAG.id(),
            caveat: "as plain cuckoo; semi-sorting saves a bit per slot but costs time per look-up",
            can: cuckoo,
            plan: |n, p| plan_buckets(n, p, true),
            build: |n, p, seed| {
                let b = CuckooFilter::builder(n, p).semi_sorted(true).seed(seed);
                boxed("cuckoo-ss", b.build())
            },
            decode: |b| Ok(Box::new(CuckooFilter::<T>::from_bytes(b)?)),
        },
    ]
}

/// The entry `id` names.
pub fn find<T: Hash + ?Sized + 'static>(id: &str) -> Option<Variant<T>> {
    variants().into_iter().find(|v| v.id == id)
}

/// The first entry whose envelope carries `tag`.
pub fn by_tag<T: Hash + ?Sized + 'static>(tag: u16) -> Option<Variant<T>> {
    variants().into_iter().find(|v| v.tag == tag)
}

fn boxed<T, F, E>(
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

/// Bytes of `bits` rounded up to whole 64-bit words.
fn word_bytes(bits: u128) -> u128 {
    bits.div_ceil(64) * 8
}

fn plan_bits(n: u64, p: f64) -> Result<Plan, ParamError> {
    let (bits, hashes) = classic::size_for(n, p)?;
    Ok(Plan {
        memory_bytes: word_bytes(u128::from(bits)),
        shape: Shape::Bits { bits, hashes },
    })
}

fn plan_blocks(n: u64, p: f64) -> Result<Plan, ParamError> {
    let sectors = SECTORS as u32;
    let (blocks, hashes) = sectored::size_for(BLOCK_BITS / sectors, sectors, n, p)?;
    Ok(Plan {
        memory_bytes: u128::from(blocks) * u128::from(BLOCK_BITS / 8),
        shape: Shape::Blocks {
            blocks,
            block_bits: BLOCK_BITS,
            sectors,
            hashes,
            width: 1,
        },
    })
}

fn plan_counter_blocks(n: u64, p: f64) -> Result<Plan, ParamError> {
    let sectors = SECTORS as u32;
    let (blocks, hashes) = sectored::size_for(BLOCK_COUNTERS / sectors, sectors, n, p)?;
    let width = 4;
    Ok(Plan {
        memory_bytes: u128::from(blocks) * u128::from(BLOCK_COUNTERS * width / 8),
        shape: Shape::Blocks {
            blocks,
            block_bits: BLOCK_COUNTERS,
            sectors,
            hashes,
            width,
        },
    })
}

fn plan_counters(n: u64, p: f64) -> Result<Plan, ParamError> {
    let (counters, hashes) = classic::size_for(n, p)?;
    let width = bloomlab_counting::DEFAULT_WIDTH;
    Ok(Plan {
        memory_bytes: word_bytes(u128::from(counters) * u128::from(width)),
        shape: Shape::Counters {
            counters,
            width,
            hashes,
        },
    })
}

fn plan_layers(n: u64, p: f64) -> Result<Plan, ParamError> {
    let growth = bloomlab_scalable::DEFAULT_GROWTH_FACTOR;
    let tightening = bloomlab_scalable::DEFAULT_TIGHTENING_RATIO;
    let (bits, _) = scalable::layer_size(n, growth, p, tightening, 0)?;
    Ok(Plan {
        memory_bytes: word_bytes(u128::from(bits)),
        shape: Shape::Layers {
            initial_capacity: n,
            growth,
            tightening,
            fpr: p,
        },
    })
}

fn plan_buckets(n: u64, p: f64, semi_sorted: bool) -> Result<Plan, ParamError> {
    let bucket_size = 4;
    let plan = bloomlab_cuckoo::plan(n, p, bucket_size)?;
    let f = u128::from(plan.fingerprint_bits);
    let bits_per_bucket = if semi_sorted { 4 * f - 4 } else { 4 * f };
    Ok(Plan {
        memory_bytes: word_bytes(u128::from(plan.buckets) * bits_per_bucket),
        shape: Shape::Buckets {
            buckets: plan.buckets,
            bucket_size,
            fingerprint_bits: plan.fingerprint_bits,
            semi_sorted,
        },
    })
}

// One `AnyFilter` impl a type (or several types of one layout); the
// deletable ones answer `as_deletable`.
macro_rules! any_filter {
    ($($type:ident),+; $delete:expr, |$f:ident| $shape:expr, $state:expr) => {$(
        impl<T: Hash + ?Sized> AnyFilter<T> for $type<T> {
            fn shape(&self) -> Shape {
                let $f = self;
                $shape
            }
            fn as_deletable(&mut self) -> Option<&mut dyn Deletable<T>> {
                let delete: fn(&mut Self) -> Option<&mut dyn Deletable<T>> = $delete;
                delete(self)
            }
            fn to_bytes(&self) -> Vec<u8> {
                Persist::to_bytes(self)
            }
            fn state(&self) -> State {
                let state: fn(&Self) -> State = $state;
                state(self)
            }
            fn lookup_lines(&self) -> usize {
                bloomlab_core::by_hash::HashMembership::lookup_lines(self)
            }
        }
    )+};
}

use Value::{Count, Real};

any_filter!(
    BloomFilter, AtomicBloomFilter;
    |_| None,
    |f| Shape::Bits {
        bits: f.num_bits(),
        hashes: f.num_hashes(),
    },
    |f| {
        let p = vec![("bits", Count(f.num_bits())), ("hashes", Count(f.num_hashes().into()))];
        State::bits(p, f.fill_ratio(), f.len(), f.estimate_count(), f.estimated_fpr())
    }
);
any_filter!(
    BlockedBloomFilter;
    |_| None,
    |f| Shape::Blocks {
        blocks: f.num_blocks(),
        block_bits: BLOCK_BITS,
        sectors: f.layout().sectors(),
        hashes: f.num_hashes(),
        width: 1,
    },
    |f| {
        let p = vec![
            ("bits", Count(f.num_bits())),
            ("blocks", Count(f.num_blocks())),
            ("hashes", Count(f.num_hashes().into())),
            ("sectors", Count(f.layout().sectors().into())),
        ];
        State::bits(
            p,
            f.fill_ratio(),
            f.len(),
            f.estimate_count(),
            f.estimated_fpr(),
        )
    }
);
any_filter!(
    CountingBloomFilter;
    |f| Some(f),
    |f| Shape::Counters {
        counters: f.num_counters(),
        width: f.counter_width(),
        hashes: f.num_hashes(),
    },
    |f| {
        let p = vec![
            ("counters", Count(f.num_counters())),
            ("counter_bits", Count(f.counter_width().into())),
            ("hashes", Count(f.num_hashes().into())),
            ("saturated_counters", Count(f.saturated_counters())),
        ];
        // A counter is non-zero exactly where the Bloom filter it stands
        // for has its bit set.
        let bits = f.to_bloom();
        State {
            estimated_from: "the non-zero counters: (fill)^k",
            ..State::bits(
                p,
                bits.fill_ratio(),
                f.len(),
                bits.estimate_count(),
                bits.estimated_fpr(),
            )
        }
    }
);
any_filter!(
    BlockedCountingBloomFilter;
    |f| Some(f),
    |f| Shape::Blocks {
        blocks: f.num_blocks(),
        block_bits: BLOCK_COUNTERS,
        sectors: f.layout().sectors(),
        hashes: f.num_hashes(),
        width: 4,
    },
    |f| {
        let p = vec![
            ("counters", Count(f.num_counters())),
            ("blocks", Count(f.num_blocks())),
            ("counter_bits", Count(4)),
            ("hashes", Count(f.num_hashes().into())),
            ("sectors", Count(f.layout().sectors().into())),
            ("saturated_counters", Count(f.saturated_counters())),
        ];
        State {
            estimated_from: match f.layout() {
                BlockLayout::Sectors => {
                    "the non-zero counters of each word: mean over blocks of the product over \
                     words of (fill_w)^(k/8)"
                }
                BlockLayout::Positions => "the non-zero counters of each block: mean of (fill_b)^k",
            },
            ..State::bits(
                p,
                f.fill_ratio(),
                f.len(),
                f.estimate_count(),
                f.estimated_fpr(),
            )
        }
    }
);
any_filter!(
    ScalableBloomFilter;
    |_| None,
    |f| Shape::Layers {
        initial_capacity: f.initial_capacity(),
        growth: f.growth_factor(),
        tightening: f.tightening_ratio(),
        fpr: f.fpr(),
    },
    |f| {
        let layers = f.layers();
        let bits: u64 = layers.iter().map(|l| l.num_bits()).sum();
        let ones: u64 = layers.iter().map(|l| l.count_ones()).sum();
        // A probe is a false positive if any layer passes it.
        let pass_none: f64 = layers.iter().map(|l| 1.0 - l.estimated_fpr()).product();
        State {
            parameters: vec![
                ("target_fpr", Real(f.fpr())),
                ("initial_capacity", Count(f.initial_capacity())),
                ("growth_factor", Count(f.growth_factor().into())),
                ("tightening_ratio", Real(f.tightening_ratio())),
                ("layers", Count(layers.len() as u64)),
                ("capacity", Count(f.capacity())),
            ],
            fill: if bits == 0 {
                0.0
            } else {
                ones as f64 / bits as f64
            },
            items: f.len() as u64,
            estimated_items: layers.iter().map(|l| l.estimate_count()).sum(),
            estimated_fpr: 1.0 - pass_none,
            estimated_from: "the bits set in each layer: 1 − Π(1 − fill_i^k_i)",
        }
    }
);
any_filter!(
    CuckooFilter;
    |f| Some(f),
    |f| Shape::Buckets {
        buckets: f.num_buckets(),
        bucket_size: f.bucket_size(),
        fingerprint_bits: f.fingerprint_bits(),
        semi_sorted: f.is_semi_sorted(),
    },
    |f| State {
        parameters: vec![
            ("buckets", Count(f.num_buckets())),
            ("bucket_size", Count(f.bucket_size().into())),
            ("fingerprint_bits", Count(f.fingerprint_bits().into())),
            ("max_relocations", Count(f.max_relocations() as u64)),
        ],
        fill: f.load_factor(),
        items: f.len() as u64,
        estimated_items: f.len() as f64,
        estimated_fpr: f.fpr_from_occupancy(),
        estimated_from: "the occupancy of the buckets",
    }
);
