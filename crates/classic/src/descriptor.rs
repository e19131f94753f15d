//! The descriptors of this crate's filters, and the theory of their tables
//! ([`Bits`], [`Blocks`]), for the catalog.

use std::hash::Hash;
use std::sync::Arc;

use bloomlab_core::ParamError;
use bloomlab_core::descriptor::{
    Build, BuildError, Capabilities, Describe, Descriptor, Lines, Plan, State, Table, Value,
    decode, grouped,
};
use bloomlab_core::hash::SECTORS;
use bloomlab_core::theory::{blocked, classic, sectored};

use crate::table::Word;
use crate::{AtomicBloomFilter, BLOCK_BITS, BlockedBloomFilter, BloomFilter, codec};

/// A classic table: `m` bits (or counters) and `k` hashes.
#[derive(Debug, Clone, PartialEq)]
pub struct Bits {
    /// `m`.
    pub bits: u64,
    /// `k`.
    pub hashes: u32,
}

impl Table for Bits {
    fn parameters(&self) -> Vec<(&'static str, Value)> {
        vec![
            ("bits", Value::Count(self.bits)),
            ("hashes", Value::Count(self.hashes.into())),
        ]
    }

    fn fpr(&self, items: u64) -> f64 {
        classic::fpr(self.bits as f64, items as f64, f64::from(self.hashes))
    }

    fn rate_sd(&self, items: u64) -> Option<f64> {
        let k = f64::from(self.hashes);
        Some(classic::rate_sd(self.bits as f64, k * items as f64, k))
    }

    fn theory_bits_per_item(&self, eps: f64, _items: u64) -> f64 {
        classic::bits_per_item(eps)
    }

    fn lookup_lines(&self, _items: u64) -> Lines {
        let k = f64::from(self.hashes);
        Lines { hit: k, miss: k }
    }

    fn label(&self) -> String {
        format!("m={} k={}", self.bits, self.hashes)
    }

    fn key_parameter(&self) -> String {
        format!("k={}", self.hashes)
    }

    fn summary(&self, _items: u64) -> String {
        format!("m={} k={}", grouped(self.bits), self.hashes)
    }
}

/// Blocks of one cache line, `k` positions in one block per item: bits of a
/// blocked Bloom filter, or counters.
#[derive(Debug, Clone, PartialEq)]
pub struct Blocks {
    /// Number of blocks.
    pub blocks: u64,
    /// Positions per block (bits, or counters).
    pub block_bits: u32,
    /// Equal sectors the block is cut into, each receiving `k / sectors` of
    /// an item's positions: 8 for the sectors layout's 64-bit words, 1 where
    /// the positions fall anywhere in the block.
    pub sectors: u32,
    /// `k`.
    pub hashes: u32,
    /// Bits per position: 1 for a bit, the counter width for counters.
    pub width: u32,
}

impl Blocks {
    /// The table [`BlockedBloomFilter::builder`] (`width` 1) or a blocked
    /// counting filter's (`positions` counters of `width` bits a block)
    /// sizes for `n` items at rate `p`, in the sectors layout.
    ///
    /// # Errors
    ///
    /// The theory's refusal of `(n, p)`.
    pub fn plan(n: u64, p: f64, positions: u32, width: u32) -> Result<Plan, ParamError> {
        let sectors = SECTORS as u32;
        let (blocks, hashes) = sectored::size_for(positions / sectors, sectors, n, p)?;
        let table = Blocks {
            blocks,
            block_bits: positions,
            sectors,
            hashes,
            width,
        };
        let bytes = u128::from(blocks) * u128::from(positions * width / 8);
        Ok(Plan::new(table, bytes))
    }
}

impl Table for Blocks {
    fn parameters(&self) -> Vec<(&'static str, Value)> {
        vec![
            ("blocks", Value::Count(self.blocks)),
            ("block_positions", Value::Count(self.block_bits.into())),
            ("sectors", Value::Count(self.sectors.into())),
            ("hashes", Value::Count(self.hashes.into())),
            ("width", Value::Count(self.width.into())),
        ]
    }

    // One sector is a plain block: `sectored` then computes exactly
    // `blocked::fpr_exact` and `blocked::rate_sd`.
    fn fpr(&self, items: u64) -> f64 {
        let sector = self.block_bits / self.sectors;
        sectored::fpr_exact(sector, self.sectors, self.blocks, items, self.hashes)
    }

    fn rate_sd(&self, items: u64) -> Option<f64> {
        let sector = self.block_bits / self.sectors;
        Some(sectored::rate_sd(
            sector,
            self.sectors,
            self.blocks,
            items,
            self.hashes,
        ))
    }

    fn theory_bits_per_item(&self, eps: f64, _items: u64) -> f64 {
        let per_position = if self.sectors == 1 {
            blocked::bits_per_item(self.block_bits, eps)
        } else {
            sectored::bits_per_item(self.block_bits / self.sectors, self.sectors, eps)
        };
        per_position.map_or(f64::NAN, |(c, _)| c * f64::from(self.width))
    }

    fn lookup_lines(&self, _items: u64) -> Lines {
        Lines {
            hit: 1.0,
            miss: 1.0,
        }
    }

    fn label(&self) -> String {
        match self.width {
            1 => format!("blocks={} k={}", self.blocks, self.hashes),
            w => format!("blocks={} k={} width={w}", self.blocks, self.hashes),
        }
    }

    fn key_parameter(&self) -> String {
        format!("k={}", self.hashes)
    }

    fn summary(&self, _items: u64) -> String {
        let (blocks, b, k) = (grouped(self.blocks), self.block_bits, self.hashes);
        let per_word = b / self.sectors;
        match self.width {
            1 if self.sectors == 1 => format!("{blocks}×{b}b k={k}"),
            1 => format!(
                "{blocks}×{b}b k={k} ({} per {per_word}-bit word)",
                k / self.sectors
            ),
            w if self.sectors == 1 => format!("{blocks}×{b}×{w}b k={k}"),
            w => format!(
                "{blocks}×{b}×{w}b k={k} ({} per {per_word}-counter word)",
                k / self.sectors
            ),
        }
    }

    fn counters(&self) -> bool {
        self.width > 1
    }
}

/// The table [`BloomFilter::builder`] sizes for `n` items at rate `p`.
///
/// # Errors
///
/// The theory's refusal of `(n, p)`.
pub fn plan_bits(n: u64, p: f64) -> Result<Plan, ParamError> {
    let (bits, hashes) = classic::size_for(n, p)?;
    let bytes = u128::from(bits).div_ceil(64) * 8;
    Ok(Plan::new(Bits { bits, hashes }, bytes))
}

fn plan_blocks(n: u64, p: f64) -> Result<Plan, ParamError> {
    Blocks::plan(n, p, BLOCK_BITS, 1)
}

/// The descriptors of [`BloomFilter`], [`BlockedBloomFilter`] and
/// [`AtomicBloomFilter`], in that order.
pub fn descriptors<T: Hash + ?Sized + 'static>() -> Vec<Descriptor<T>> {
    let merge = Capabilities {
        merge: true,
        ..Capabilities::default()
    };
    vec![
        Descriptor {
            id: "classic",
            type_name: "BloomFilter",
            option: "",
            crate_name: "bloomlab-classic",
            tag: codec::CLASSIC_TAG.id(),
            caveat: "no delete; a look-up reads k cache lines",
            can: merge,
            plan: plan_bits,
            choices: Descriptor::<T>::as_built(plan_bits),
            build: Build::Empty(|n, p, seed| {
                BuildError::boxed("classic", BloomFilter::builder(n, p).seed(seed).build())
            }),
            decode: decode::<T, BloomFilter<T>>,
        },
        Descriptor {
            id: "blocked",
            type_name: "BlockedBloomFilter",
            option: "",
            crate_name: "bloomlab-classic",
            tag: codec::BLOCKED_TAG.id(),
            caveat: "no delete; more bits than classic for the same rate; the gap widens as the rate falls",
            can: merge,
            plan: plan_blocks,
            choices: Descriptor::<T>::as_built(plan_blocks),
            build: Build::Empty(|n, p, seed| {
                let built = BlockedBloomFilter::builder(n, p).seed(seed).build();
                BuildError::boxed("blocked", built)
            }),
            decode: decode::<T, BlockedBloomFilter<T>>,
        },
        Descriptor {
            id: "atomic",
            type_name: "AtomicBloomFilter",
            option: "",
            crate_name: "bloomlab-classic",
            tag: codec::ATOMIC_TAG.id(),
            caveat: "no delete; no merge; a look-up reads k cache lines",
            can: Capabilities {
                concurrent_insert: true,
                ..Capabilities::default()
            },
            plan: plan_bits,
            choices: Descriptor::<T>::as_built(plan_bits),
            build: Build::Empty(|n, p, seed| {
                let built = AtomicBloomFilter::builder(n, p).seed(seed).build();
                BuildError::boxed("atomic", built)
            }),
            decode: decode::<T, AtomicBloomFilter<T>>,
        },
    ]
}

/// The state of a bit array, estimated from its bits set.
pub fn bits_state(
    parameters: Vec<(&'static str, Value)>,
    fill: f64,
    items: usize,
    estimated_items: f64,
    estimated_fpr: f64,
) -> State {
    State {
        parameters,
        fill_ratio: fill,
        len: items as u64,
        estimate_count: estimated_items,
        estimated_fpr,
        estimated_from: "the bits set: (fill)^k",
    }
}

// The classic and the atomic filter have one layout, a bit table: one
// table and one state for both.
impl<W: Word> crate::table::Table<W> {
    fn describe(&self) -> Arc<dyn Table> {
        Arc::new(Bits {
            bits: self.num_bits,
            hashes: self.num_hashes,
        })
    }

    fn state(&self, len: usize) -> State {
        let p = vec![
            ("bits", Value::Count(self.num_bits)),
            ("hashes", Value::Count(self.num_hashes.into())),
        ];
        let (fill, estimated_fpr) = (self.fill_ratio(), self.estimated_fpr());
        bits_state(p, fill, len, self.estimate_count(), estimated_fpr)
    }
}

impl<T: Hash + ?Sized> Describe<T> for BloomFilter<T> {
    fn table(&self) -> Arc<dyn Table> {
        self.table.describe()
    }
    fn state(&self) -> State {
        self.table.state(self.len())
    }
}

impl<T: Hash + ?Sized> Describe<T> for AtomicBloomFilter<T> {
    fn table(&self) -> Arc<dyn Table> {
        self.table.describe()
    }
    fn state(&self) -> State {
        self.table.state(self.len())
    }
}

impl<T: Hash + ?Sized> Describe<T> for BlockedBloomFilter<T> {
    fn table(&self) -> Arc<dyn Table> {
        Arc::new(Blocks {
            blocks: self.num_blocks(),
            block_bits: BLOCK_BITS,
            sectors: self.layout().sectors(),
            hashes: self.num_hashes(),
            width: 1,
        })
    }
    fn state(&self) -> State {
        let p = vec![
            ("bits", Value::Count(self.num_bits())),
            ("blocks", Value::Count(self.num_blocks())),
            ("hashes", Value::Count(self.num_hashes().into())),
            ("sectors", Value::Count(self.layout().sectors().into())),
        ];
        let (fill, len) = (self.fill_ratio(), self.len());
        bits_state(p, fill, len, self.estimate_count(), self.estimated_fpr())
    }
}
