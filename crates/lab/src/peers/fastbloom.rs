//! `fastbloom` 0.17's `BloomFilter`: a classic Bloom filter of 64-bit words
//! that takes any `BuildHasher` and hashes once per item, as bloomlab does;
//! and its `AtomicBloomFilter`, the same table of atomic words, shared
//! between threads ([`FastbloomAtomic`]).

use std::hash::{BuildHasher, Hash};

use bloomlab_core::{DefaultHasher, Filter, InsertError, Membership};

use super::counted::{Bits, Counted, ItemBits, classic_rate};

/// fastbloom's own default hasher (SipHash-1-3 with a random key): what
/// `BloomFilter::with_false_pos(p).expected_items(n)` hashes with when it is
/// given none.
pub use ::fastbloom::DefaultHasher as FastbloomDefaultHasher;

/// `fastbloom::BloomFilter<S>` behind bloomlab's traits.
///
/// `insert` passes on fastbloom's own answer (whether every bit was set
/// already); `len` counts insert calls, as bloomlab's classic filter does.
pub type Fastbloom<S = DefaultHasher> = Counted<::fastbloom::BloomFilter<S>>;

impl<S: BuildHasher> Fastbloom<S> {
    /// Sized by fastbloom's own rule for `items` at rate `fpr`
    /// (`with_false_pos(fpr).expected_items(items)`), hashing with `hasher`.
    pub fn new(items: usize, fpr: f64, hasher: S) -> Self {
        Self {
            inner: ::fastbloom::BloomFilter::with_false_pos(fpr)
                .hasher(hasher)
                .expected_items(items),
            len: 0,
        }
    }

    /// A filter over the table `words` (bits already set stay set) with `k`
    /// hashes, holding `len` items: how a table built outside the filter is
    /// handed to it.
    pub fn from_words(words: Vec<u64>, hasher: S, k: u32, len: usize) -> Self {
        Self {
            inner: ::fastbloom::BloomFilter::from_vec(words)
                .hasher(hasher)
                .hashes(k),
            len,
        }
    }

    /// Bits of the table.
    pub fn num_bits(&self) -> usize {
        self.inner.num_bits()
    }

    /// Hashes (bits set) per item.
    pub fn num_hashes(&self) -> u32 {
        self.inner.num_hashes()
    }

    /// The table's words.
    pub fn as_words(&self) -> &[u64] {
        self.inner.as_slice()
    }
}

impl<S: BuildHasher> Bits for ::fastbloom::BloomFilter<S> {
    fn table_bits(&self) -> u64 {
        self.num_bits() as u64
    }

    fn rate_after(&self, inserts: usize) -> f64 {
        classic_rate(self.num_bits() as u64, self.num_hashes(), inserts)
    }

    fn unset_all(&mut self) {
        self.clear();
    }
}

impl<T: Hash + ?Sized, S: BuildHasher> ItemBits<T> for ::fastbloom::BloomFilter<S> {
    /// fastbloom's own answer: whether every bit was set already.
    #[inline]
    fn set_item(&mut self, item: &T) -> bool {
        !self.insert(item)
    }

    #[inline]
    fn has_item(&self, item: &T) -> bool {
        self.contains(item)
    }
}

impl Fastbloom<FastbloomDefaultHasher> {
    /// fastbloom's default constructor:
    /// `BloomFilter::with_false_pos(fpr).expected_items(items)`, with its own
    /// randomly keyed SipHash-1-3.
    pub fn with_default_hasher(items: usize, fpr: f64) -> Self {
        Self {
            inner: ::fastbloom::BloomFilter::with_false_pos(fpr).expected_items(items),
            len: 0,
        }
    }
}

/// `fastbloom::AtomicBloomFilter<S>` behind bloomlab's traits, and its
/// shared-reference [`insert`](Self::insert) for use from several threads.
///
/// `len` is not kept (it would need an atomic counter the crate does not
/// have, and would cost every insert a contended write): it stays 0.
#[derive(Debug)]
pub struct FastbloomAtomic<S = DefaultHasher> {
    inner: ::fastbloom::AtomicBloomFilter<S>,
}

impl<S: BuildHasher> FastbloomAtomic<S> {
    /// Sized by fastbloom's own rule for `items` at rate `fpr`, hashing
    /// with `hasher`.
    pub fn new(items: usize, fpr: f64, hasher: S) -> Self {
        Self {
            inner: ::fastbloom::AtomicBloomFilter::with_false_pos(fpr)
                .hasher(hasher)
                .expected_items(items),
        }
    }

    /// Inserts `item` through a shared reference, as several threads may;
    /// whether every bit was set already (fastbloom's answer).
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.inner.insert(item)
    }

    /// Whether `item` is reported present.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.inner.contains(item)
    }

    /// Bits of the table.
    pub fn num_bits(&self) -> usize {
        self.inner.num_bits()
    }

    /// Hashes (bits set) per item.
    pub fn num_hashes(&self) -> u32 {
        self.inner.num_hashes()
    }
}

impl FastbloomAtomic<FastbloomDefaultHasher> {
    /// fastbloom's default constructor:
    /// `AtomicBloomFilter::with_false_pos(fpr).expected_items(items)`.
    pub fn with_default_hasher(items: usize, fpr: f64) -> Self {
        Self {
            inner: ::fastbloom::AtomicBloomFilter::with_false_pos(fpr).expected_items(items),
        }
    }
}

impl<S: BuildHasher> Filter for FastbloomAtomic<S> {
    fn len(&self) -> usize {
        0
    }

    fn memory_bytes(&self) -> usize {
        self.inner.num_bits() / 8
    }

    fn expected_fpr(&self) -> f64 {
        f64::NAN
    }

    fn clear(&mut self) {
        self.inner.clear();
    }
}

/// The inherent methods: `insert` is new where fastbloom says every bit
/// was not set already.
impl<T: Hash + ?Sized, S: BuildHasher> Membership<T> for FastbloomAtomic<S> {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool, InsertError> {
        Ok(!FastbloomAtomic::insert(self, item))
    }

    #[inline]
    fn contains(&self, item: &T) -> bool {
        FastbloomAtomic::contains(self, item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_as_fastbloom_does() {
        let f = Fastbloom::new(1000, 0.01, DefaultHasher::from_seed(7));
        assert_eq!(f.memory_bytes() * 8, f.num_bits());
        crate::peers::tests::one_item_twice(f, false, 2);
    }

    #[test]
    fn the_atomic_filter_inserts_through_a_shared_reference() {
        let f = FastbloomAtomic::with_default_hasher(1000, 0.01);
        assert!(!f.insert(&42u64));
        assert!(f.insert(&42u64));
        assert!(f.contains(&42u64));
        let plain = Fastbloom::with_default_hasher(1000, 0.01);
        assert_eq!(f.num_bits(), plain.num_bits());
        assert_eq!(f.num_hashes(), plain.num_hashes());
    }
}
