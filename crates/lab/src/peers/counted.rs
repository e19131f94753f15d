//! [`Counted`]: the one [`Filter`] and [`Membership`] of the peers whose
//! Bloom table keeps no count of its items.

use bloomlab_core::theory::classic;
use bloomlab_core::{Filter, InsertError, Membership};

/// bloomlab's theory for a classic table of `bits` bits and `hashes`
/// hashes after `inserts` inserts: the rate of every peer's one-layer
/// table that says its shape.
pub(super) fn classic_rate(bits: u64, hashes: u32, inserts: usize) -> f64 {
    classic::fpr(bits as f64, inserts as f64, f64::from(hashes))
}

/// A peer crate's Bloom table (one layer or several), as [`Counted`] reads
/// it.
pub trait Bits {
    /// Bits of the table.
    fn table_bits(&self) -> u64;

    /// The rate after `inserts` insert calls: bloomlab's theory for the
    /// table's shape, or the crate's own estimate.
    fn rate_after(&self, inserts: usize) -> f64;

    /// Unsets every bit.
    fn unset_all(&mut self);
}

/// How the table sets and tests the bits of a `T`.
pub trait ItemBits<T: ?Sized>: Bits {
    /// Sets the bits of `item`; whether it was new: the crate's answer
    /// where it gives one, `true` where it does not.
    fn set_item(&mut self, item: &T) -> bool;

    /// Whether every bit of `item` is set.
    fn has_item(&self, item: &T) -> bool;
}

/// A peer crate's Bloom table behind bloomlab's traits, with the count of
/// insert calls the crate does not keep: [`Bloomfilter`](super::Bloomfilter),
/// [`Fastbloom`](super::Fastbloom),
/// [`ProbabilisticBloom`](super::ProbabilisticBloom) and
/// [`ProbabilisticScalable`](super::ProbabilisticScalable).
///
/// `len` counts insert calls, as bloomlab's Bloom filters count their
/// inserts; `memory_bytes` is the table's bits over 8; `clear` empties the
/// table and the count.
#[derive(Debug, Clone)]
pub struct Counted<B> {
    pub(super) inner: B,
    pub(super) len: usize,
}

impl<B: Bits> Filter for Counted<B> {
    fn len(&self) -> usize {
        self.len
    }

    fn memory_bytes(&self) -> usize {
        (self.inner.table_bits() / 8) as usize
    }

    fn expected_fpr(&self) -> f64 {
        self.inner.rate_after(self.len)
    }

    fn clear(&mut self) {
        self.inner.unset_all();
        self.len = 0;
    }
}

impl<T: ?Sized, B: ItemBits<T>> Membership<T> for Counted<B> {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool, InsertError> {
        self.len = self.len.saturating_add(1);
        Ok(self.inner.set_item(item))
    }

    #[inline]
    fn contains(&self, item: &T) -> bool {
        self.inner.has_item(item)
    }
}
