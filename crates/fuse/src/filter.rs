//! The filter: its array, layout and hasher, and its lookups.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;

use bloomlab_core::theory::fuse as theory;
use bloomlab_core::{DefaultHasher, Lookup};

use crate::layout::{Layout, mixed};
use crate::shaped::{Shaped, Width};
use crate::table::{Table, Visit};

/// A binary fuse filter of items of type `T`, built at once from its set of
/// keys: it answers "absent" for no key of the set, and "present" for an
/// absent item with probability `2^−f` for `f`-bit fingerprints. It takes
/// no inserts; a changed set is built anew.
///
/// Built by [`BinaryFuseFilter::builder`] (or [`from_keys`](Self::from_keys))
/// from a slice or an iterator of items. Duplicate keys are allowed and
/// stored once; [`len`](Self::len) counts distinct keys (distinct 64-bit
/// hashes: two items of equal hash are one key). The array is sized for
/// the number of keys given, duplicates included.
pub struct BinaryFuseFilter<T: ?Sized, S = DefaultHasher> {
    pub(crate) table: Table,
    pub(crate) layout: Layout,
    /// The seed of the attempt that built the array: what a key's hash is
    /// mixed with to draw its slots.
    pub(crate) seed: u64,
    pub(crate) len: usize,
    pub(crate) hasher: S,
    pub(crate) item: PhantomData<fn(&T)>,
}

impl<T: ?Sized, S: Clone> Clone for BinaryFuseFilter<T, S> {
    fn clone(&self) -> Self {
        BinaryFuseFilter {
            table: self.table.clone(),
            hasher: self.hasher.clone(),
            ..*self
        }
    }
}

/// The shape and length, never the hash key or the array.
impl<T: ?Sized, S> fmt::Debug for BinaryFuseFilter<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BinaryFuseFilter")
            .field("fingerprint_bits", &self.fingerprint_bits())
            .field("arity", &self.arity())
            .field("segment_length", &self.segment_length())
            .field("segment_count", &self.segment_count())
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl<T: ?Sized, S> BinaryFuseFilter<T, S> {
    /// Distinct keys the filter was built from (0 after [`clear`](Self::clear)).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no key.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of the array of fingerprints.
    pub fn memory_bytes(&self) -> usize {
        self.table.bytes()
    }

    /// The rate theory gives an absent item, `2^−f`
    /// ([`theory::fpr`](bloomlab_core::theory::fuse::fpr)).
    pub fn expected_fpr(&self) -> f64 {
        theory::fpr(self.fingerprint_bits())
    }

    /// Forgets every key: the array is zeroed, so that only items whose
    /// fingerprint is zero pass (at rate `2^−f`). It keeps its size and
    /// hash key; a set is put back by building a new filter.
    pub fn clear(&mut self) {
        self.table.clear();
        self.len = 0;
    }

    /// Bits per fingerprint: 8, 16 or 32.
    pub fn fingerprint_bits(&self) -> u32 {
        self.table.shape().1
    }

    /// Slots per key: 3 or 4.
    pub fn arity(&self) -> u32 {
        self.layout.arity
    }

    /// Slots per segment, a power of two.
    pub fn segment_length(&self) -> u32 {
        1 << self.layout.segment_length_log2
    }

    /// Segments a key's first slot may fall in; the array has `arity − 1`
    /// more.
    pub fn segment_count(&self) -> u32 {
        self.layout.segment_count
    }

    /// Fingerprints in the array.
    pub fn slots(&self) -> usize {
        self.table.shape().0
    }

    /// The hasher items go through.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Whether the item whose hash (by [`hasher`](Self::hasher)) is `hash`
    /// passes: what [`contains`](Self::contains) asks once it has hashed.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.table.visit(&self.layout, Probe { filter: self, hash })
    }

    /// Starts loading the slots of the item of `hash`.
    #[inline]
    pub(crate) fn prefetch(&self, hash: u64) {
        self.table
            .visit(&self.layout, Prefetch { filter: self, hash });
    }

    /// The `A` slots of the array a lookup of the item whose hash (by
    /// [`hasher`](Self::hasher)) is `hash` reads, one in each of `A`
    /// consecutive segments: the item passes when the XOR of their
    /// [fingerprints](Self::fingerprints) is its own. `None` unless `A` is
    /// the filter's [arity](Self::arity).
    ///
    /// For tools that look inside the filter: a benchmark's bound on what a
    /// lookup must read, a picture of where keys fall.
    ///
    /// ```
    /// use std::hash::BuildHasher;
    /// use bloomlab_fuse::BinaryFuseFilter;
    ///
    /// let keys: Vec<u64> = (0..10_000).collect();
    /// let filter = BinaryFuseFilter::<u64>::builder_with_bits(8)
    ///     .arity(3)
    ///     .build(&keys)?;
    /// let hash = filter.hasher().hash_one(42u64);
    /// let [a, b, c] = filter.slots_of_hash::<3>(hash).expect("3-wise");
    /// let length = filter.segment_length() as usize;
    /// assert_eq!((b / length, c / length), (a / length + 1, a / length + 2));
    /// assert!(c < filter.slots());
    /// assert_eq!(filter.slots_of_hash::<4>(hash), None);
    /// # Ok::<(), bloomlab_fuse::BuildError>(())
    /// ```
    #[inline]
    pub fn slots_of_hash<const A: usize>(&self, hash: u64) -> Option<[usize; A]> {
        (A == self.layout.arity as usize).then(|| self.slots_of::<A>(hash))
    }

    /// The slots of [`slots_of_hash`](Self::slots_of_hash), for an `A` known
    /// to be the arity.
    #[inline]
    pub(crate) fn slots_of<const A: usize>(&self, hash: u64) -> [usize; A] {
        self.with_seed(|seed| self.layout.slots_of::<A>(mixed(hash, seed)))
    }

    /// `f` of the seed the array was built under. The first attempt's
    /// seed, 0, is passed as a constant, so that the copy of `f` under it
    /// does no mixing: a branch the same for every lookup.
    #[inline(always)]
    pub(crate) fn with_seed<R>(&self, f: impl FnOnce(u64) -> R) -> R {
        if self.seed == 0 { f(0) } else { f(self.seed) }
    }

    /// The array of fingerprints, under its width: what lookups read at
    /// the [slots](Self::slots_of_hash) of an item.
    pub fn fingerprints(&self) -> Fingerprints<'_> {
        match &self.table {
            Table::W8(t) => Fingerprints::U8(t),
            Table::W16(t) => Fingerprints::U16(t),
            Table::W32(t) => Fingerprints::U32(t),
        }
    }
}

/// A filter's array of fingerprints
/// ([`BinaryFuseFilter::fingerprints`]), one of the
/// [`FINGERPRINT_BITS`](crate::FINGERPRINT_BITS) widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fingerprints<'a> {
    /// 8-bit fingerprints.
    U8(&'a [u8]),
    /// 16-bit fingerprints.
    U16(&'a [u16]),
    /// 32-bit fingerprints.
    U32(&'a [u32]),
}

impl<T: ?Sized, S: BuildHasher> BinaryFuseFilter<T, S> {
    /// `false`: `item` is not a key of the set; `true`: it probably is.
    /// Any borrowed form of the item type hashes as the item does.
    #[inline]
    pub fn contains<Q>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
        Q: Hash + ?Sized,
    {
        self.contains_hash(self.hasher.hash_one(item))
    }

    /// The answers of [`contains`](Self::contains) for every item of
    /// `items`, in order: a chunk of items hashed first, then each one's
    /// slots prefetched a few items ahead of its probe (in an array too
    /// large for the cache).
    pub fn contains_batch<Q>(&self, items: &[Q]) -> Vec<bool>
    where
        T: Borrow<Q>,
        Q: Hash,
    {
        self.table.visit(
            &self.layout,
            Batch {
                filter: self,
                items,
            },
        )
    }
}

/// Tests one hash, under the filter's shape.
struct Probe<'a, T: ?Sized, S> {
    filter: &'a BinaryFuseFilter<T, S>,
    hash: u64,
}

impl<T: ?Sized, S> Visit for Probe<'_, T, S> {
    type Out = bool;

    #[inline]
    fn visit<F: Width, const A: usize>(self, _: &Layout, slots: &[F]) -> bool {
        Shaped::<T, S, F, A>::new(self.filter, slots).contains_hash(self.hash)
    }
}

/// Prefetches the slots of one hash, under the filter's shape.
struct Prefetch<'a, T: ?Sized, S> {
    filter: &'a BinaryFuseFilter<T, S>,
    hash: u64,
}

impl<T: ?Sized, S> Visit for Prefetch<'_, T, S> {
    type Out = ();

    #[inline]
    fn visit<F: Width, const A: usize>(self, _: &Layout, slots: &[F]) {
        Shaped::<T, S, F, A>::new(self.filter, slots).prefetch(self.hash);
    }
}

/// Looks up a batch, its shape chosen once for all of it.
struct Batch<'a, 'q, T: ?Sized, S, Q> {
    filter: &'a BinaryFuseFilter<T, S>,
    items: &'q [Q],
}

impl<T, S, Q> Visit for Batch<'_, '_, T, S, Q>
where
    T: ?Sized + Borrow<Q>,
    S: BuildHasher,
    Q: Hash,
{
    type Out = Vec<bool>;

    fn visit<F: Width, const A: usize>(self, _: &Layout, slots: &[F]) -> Vec<bool> {
        Shaped::<T, S, F, A>::new(self.filter, slots).contains_batch(self.items)
    }
}

bloomlab_core::impl_filter!(Filter, Persist for BinaryFuseFilter<T, S>);

// `Lookup<T>` for the item types programs use. One impl for every `T`
// would overlap with core's `impl<T, F: Membership<T>> Lookup<T> for F`
// (E0119: another crate may implement `Membership<Local>` for
// `BinaryFuseFilter<Local>`); the catalog reaches every item type through
// the descriptor's adapter instead (`descriptor.rs`).
macro_rules! lookup {
    ($($item:ty),*) => {$(
        impl<S: BuildHasher> Lookup<$item> for BinaryFuseFilter<$item, S> {
            // As the inherent method: a caller's loop of lookups through
            // the trait is compiled as one through the filter's own method.
            #[inline]
            fn contains(&self, item: &$item) -> bool {
                BinaryFuseFilter::contains(self, item)
            }

            fn contains_batch(&self, items: &[$item]) -> Vec<bool>
            where
                $item: Sized,
            {
                BinaryFuseFilter::contains_batch(self, items)
            }
        }
    )*};
}

lookup!(u32, u64, u128, usize, i32, i64, String, Vec<u8>);

/// Unsized item types: `contains_batch` keeps the trait's default, which
/// needs sized items.
macro_rules! lookup_unsized {
    ($($item:ty),*) => {$(
        impl<S: BuildHasher> Lookup<$item> for BinaryFuseFilter<$item, S> {
            // As the inherent method: a caller's loop of lookups through
            // the trait is compiled as one through the filter's own method.
            #[inline]
            fn contains(&self, item: &$item) -> bool {
                BinaryFuseFilter::contains(self, item)
            }
        }
    )*};
}

lookup_unsized!(str, [u8]);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Fingerprint;

    /// Whether the fingerprints at `slots` XOR to the fingerprint of `hash`
    /// under `seed`: a lookup, from the two accessors.
    fn passes_at<F: Fingerprint + Into<u64>>(
        fingerprints: &[F],
        slots: &[usize],
        hash: u64,
        seed: u64,
    ) -> bool {
        let xor = slots.iter().fold(0u64, |x, &s| x ^ fingerprints[s].into());
        xor == F::of(hash, seed).into()
    }

    /// The six shapes, in the order of the views below.
    const FINGERPRINT_BITS_AND_ARITIES: [(u32, u32); 6] =
        [(8, 3), (8, 4), (16, 3), (16, 4), (32, 3), (32, 4)];

    /// The answers for `probes` of `f`'s view under `W` and `A`, one at a
    /// time and in a batch, if that is `f`'s shape; each item's slots by
    /// the view are those by the filter.
    fn view<W: Width, const A: usize>(
        f: &BinaryFuseFilter<u64>,
        probes: &[u64],
    ) -> Option<(Vec<bool>, Vec<bool>)> {
        let v = f.shaped::<W, A>()?;
        for p in probes {
            let hash = f.hasher().hash_one(p);
            assert_eq!(Some(v.slots_of_hash(hash)), f.slots_of_hash::<A>(hash));
        }
        let one = probes.iter().map(|p| v.contains(p)).collect();
        Some((one, v.contains_batch(probes)))
    }

    #[test]
    fn the_slots_and_fingerprints_a_lookup_reads_are_the_accessors() {
        let distinct: Vec<u64> = (0..5_000).collect();
        // A repeated key fails the first attempt, so this array is built
        // with a seed other than 0, whose slots come from a mixed hash.
        let repeated: Vec<u64> = (0..5_000).chain([7, 7]).collect();
        for (keys, first_attempt) in [(&distinct, true), (&repeated, false)] {
            for bits in crate::FINGERPRINT_BITS {
                for arity in [3, 4] {
                    let f = BinaryFuseFilter::<u64>::builder_with_bits(bits)
                        .arity(arity)
                        .seed(5)
                        .build(keys)
                        .expect("builds");
                    assert_eq!(f.seed == 0, first_attempt, "{bits}-bit {arity}-wise");
                    let probes: Vec<u64> =
                        (0..2_000u64).chain(1 << 40..(1 << 40) + 20_000).collect();
                    let mut answers = Vec::new();
                    for &item in &probes {
                        let hash = f.hasher().hash_one(item);
                        let slots: Vec<usize> = match arity {
                            3 => f.slots_of_hash::<3>(hash).expect("3-wise").to_vec(),
                            _ => f.slots_of_hash::<4>(hash).expect("4-wise").to_vec(),
                        };
                        assert_eq!(f.slots_of_hash::<2>(hash), None);
                        let passes = match f.fingerprints() {
                            Fingerprints::U8(t) => passes_at(t, &slots, hash, f.seed),
                            Fingerprints::U16(t) => passes_at(t, &slots, hash, f.seed),
                            Fingerprints::U32(t) => passes_at(t, &slots, hash, f.seed),
                        };
                        assert_eq!(passes, f.contains(&item), "{bits}-bit {arity}-wise, {item}");
                        answers.push(passes);
                    }
                    assert_eq!(f.contains_batch(&probes), answers);
                    // Of the six shapes, the filter's own alone gives a
                    // view, whose lookups one at a time and in a batch
                    // read the same slots.
                    let views = [
                        view::<u8, 3>(&f, &probes),
                        view::<u8, 4>(&f, &probes),
                        view::<u16, 3>(&f, &probes),
                        view::<u16, 4>(&f, &probes),
                        view::<u32, 3>(&f, &probes),
                        view::<u32, 4>(&f, &probes),
                    ];
                    let shape = FINGERPRINT_BITS_AND_ARITIES
                        .iter()
                        .position(|&s| s == (bits, arity))
                        .unwrap();
                    for (i, v) in views.into_iter().enumerate() {
                        match v {
                            Some((one, batch)) => {
                                assert_eq!(i, shape, "{bits}-bit {arity}-wise");
                                assert_eq!(one, answers);
                                assert_eq!(batch, answers);
                            }
                            None => assert_ne!(i, shape, "{bits}-bit {arity}-wise"),
                        }
                    }
                }
            }
        }
    }
}
