//! The array of fingerprints, of 8, 16 or 32 bits, and the one place that
//! turns its width and the layout's arity into types and constants.

use std::fmt;
use std::ops::BitXor;

use bloomlab_core::alloc::{self, Buffer, OutOfMemory, Zeroable};

use crate::Width;
use crate::layout::{Layout, mixed};

/// The fingerprint widths a filter stores, in bits.
pub const FINGERPRINT_BITS: [u32; 3] = [8, 16, 32];

/// The odd multiplier of a first attempt's fingerprints
/// ([`Fingerprint::of`]): the 64-bit golden ratio.
const FINGERPRINT_MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

/// An unsigned integer a fingerprint is stored in. Public, in a private
/// module, only as the supertrait of the sealed [`Width`](crate::Width).
pub trait Fingerprint:
    Copy + Eq + BitXor<Output = Self> + Zeroable + fmt::Debug + Send + Sync + 'static
{
    /// Its width in bits.
    const BITS: u32;

    /// The fingerprint of the key whose hash is `hash`, for the attempt
    /// whose seed is `seed`: what [`mixed`](crate::layout::mixed) does not
    /// take from the hash. Under seed 0, where the slots come from the bits
    /// of the hash itself, the top bits of the hash times an odd constant,
    /// which depend on all of its bits; under any other seed, where the
    /// slots come from a mixed copy of the hash, the low bits of the hash
    /// folded onto its high half.
    #[inline]
    fn of(hash: u64, seed: u64) -> Self {
        if seed == 0 {
            Self::truncate(hash.wrapping_mul(FINGERPRINT_MULTIPLIER) >> (64 - Self::BITS))
        } else {
            Self::truncate(hash ^ (hash >> 32))
        }
    }

    /// The value of the low `BITS` bits of `x`.
    fn truncate(x: u64) -> Self;

    /// Appends the value, little-endian, to `out`.
    fn write_le(self, out: &mut Vec<u8>);

    /// The array, under its width.
    fn wrap(slots: Buffer<Self>) -> Table;

    /// The array if its fingerprints are of this type.
    fn of_table(table: &Table) -> Option<&[Self]>;
}

macro_rules! fingerprint {
    ($($t:ty => $variant:ident),*) => {$(
        impl Fingerprint for $t {
            const BITS: u32 = <$t>::BITS;

            #[inline]
            fn truncate(x: u64) -> Self {
                x as $t
            }

            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }

            fn wrap(slots: Buffer<Self>) -> Table {
                Table::$variant(slots)
            }

            #[inline]
            fn of_table(table: &Table) -> Option<&[Self]> {
                match table {
                    Table::$variant(t) => Some(t),
                    _ => None,
                }
            }
        }
    )*};
}

fingerprint!(u8 => W8, u16 => W16, u32 => W32);

/// The array of fingerprints, of one of the [`FINGERPRINT_BITS`] widths.
/// Public, in a private module, only as what [`Fingerprint`] reads.
#[derive(Clone, PartialEq, Eq)]
pub enum Table {
    /// 8-bit fingerprints.
    W8(Buffer<u8>),
    /// 16-bit fingerprints.
    W16(Buffer<u16>),
    /// 32-bit fingerprints.
    W32(Buffer<u32>),
}

/// What is done with an array, whatever its width, for a layout of `A`
/// slots per key: how lookups reach the array through one `match`.
pub(crate) trait Visit {
    /// What it returns.
    type Out;
    /// Does it, on `slots`.
    fn visit<F: Width, const A: usize>(self, layout: &Layout, slots: &[F]) -> Self::Out;
}

impl Table {
    /// `slots` zeroed fingerprints of `bits` bits.
    pub(crate) fn zeroed(bits: u32, slots: usize) -> Result<Option<Self>, OutOfMemory> {
        Ok(Some(match bits {
            8 => Table::W8(alloc::buffer(slots)?),
            16 => Table::W16(alloc::buffer(slots)?),
            32 => Table::W32(alloc::buffer(slots)?),
            _ => return Ok(None),
        }))
    }

    /// Fingerprints in the array, and their width in bits.
    pub(crate) fn shape(&self) -> (usize, u32) {
        match self {
            Table::W8(t) => (t.len(), 8),
            Table::W16(t) => (t.len(), 16),
            Table::W32(t) => (t.len(), 32),
        }
    }

    /// Bytes of the array.
    pub(crate) fn bytes(&self) -> usize {
        let (len, bits) = self.shape();
        len * bits as usize / 8
    }

    /// Sets every fingerprint to zero.
    pub(crate) fn clear(&mut self) {
        match self {
            Table::W8(t) => t.fill(0),
            Table::W16(t) => t.fill(0),
            Table::W32(t) => t.fill(0),
        }
    }

    /// `v` on the array under its width and the layout's arity.
    #[inline]
    pub(crate) fn visit<V: Visit>(&self, layout: &Layout, v: V) -> V::Out {
        match (self, layout.arity == 3) {
            (Table::W8(t), true) => v.visit::<u8, 3>(layout, t),
            (Table::W8(t), false) => v.visit::<u8, 4>(layout, t),
            (Table::W16(t), true) => v.visit::<u16, 3>(layout, t),
            (Table::W16(t), false) => v.visit::<u16, 4>(layout, t),
            (Table::W32(t), true) => v.visit::<u32, 3>(layout, t),
            (Table::W32(t), false) => v.visit::<u32, 4>(layout, t),
        }
    }
}

/// Whether the key of hash `hash` passes in an array built with `seed`: its
/// fingerprint equals the XOR of its slots.
#[inline]
pub(crate) fn passes<F: Fingerprint, const A: usize>(
    layout: &Layout,
    slots: &[F],
    hash: u64,
    seed: u64,
) -> bool {
    let mut acc = F::of(hash, seed);
    for slot in layout.slots_of::<A>(mixed(hash, seed)) {
        acc = acc ^ slots[slot];
    }
    acc == F::zeroed()
}
