//! Every filter's item operations, defined once from its hash-level ones.
//!
//! A variant implements [`HashMembership`] (and [`HashDeletable`] if it can
//! forget an item): what it does with the one 64-bit hash of an item, and
//! which memory a lookup or an insert reads, so that a batch can prefetch
//! it. The blanket impls here make every such filter a [`Membership`] (and
//! a [`Deletable`]) of its item type: each operation hashes an item once,
//! with the filter's own hasher, and hands the hash on. The functions of
//! this module are the bodies of those impls, and of the variants' inherent
//! methods of the same names.
//!
//! A variant is its [`Filter`] impl and its hash-level operations; here a
//! toy filter of one 64-bit word:
//!
//! ```
//! use std::hash::BuildHasher;
//! use std::marker::PhantomData;
//! use bloomlab_core::{DefaultHasher, Filter, HashMembership, InsertError, Membership};
//!
//! /// One bit of a 64-bit word per item.
//! struct Word<T: ?Sized, S = DefaultHasher> {
//!     bits: u64,
//!     len: usize,
//!     hasher: S,
//!     item: PhantomData<fn(&T)>,
//! }
//!
//! impl<T: ?Sized, S> Filter for Word<T, S> {
//!     fn len(&self) -> usize { self.len }
//!     fn memory_bytes(&self) -> usize { 8 }
//!     fn expected_fpr(&self) -> f64 { 1.0 - (-(self.len as f64) / 64.0).exp() }
//!     fn clear(&mut self) { (self.bits, self.len) = (0, 0) }
//! }
//!
//! impl<T: ?Sized, S: BuildHasher> HashMembership for Word<T, S> {
//!     type Item = T;
//!     type Hasher = S;
//!     fn hasher(&self) -> &S { &self.hasher }
//!     fn insert_hash(&mut self, hash: u64) -> Result<bool, InsertError> {
//!         let new = !self.contains_hash(hash);
//!         self.bits |= 1 << (hash >> 58);
//!         self.len += 1;
//!         Ok(new)
//!     }
//!     fn contains_hash(&self, hash: u64) -> bool { self.bits >> (hash >> 58) & 1 == 1 }
//!     fn lookup_lines(&self) -> usize { 1 }
//!     fn prefetch_lookup(&self, _: u64) {}
//! }
//!
//! // No more is needed for `Membership<str>`.
//! let hasher = DefaultHasher::from_seed(1);
//! let mut w: Word<str> = Word { bits: 0, len: 0, hasher: hasher.clone(), item: PhantomData };
//! assert_eq!(w.insert("apple"), Ok(true));
//! assert_eq!(w.insert_all(["pear", "plum"]), Ok(2));
//! assert!(w.contains("apple") && w.contains("plum"));
//! assert_eq!((w.len(), w.bits_per_item()), (3, Some(64.0 / 3.0)));
//!
//! // One hash of an item serves every filter that shares the hasher.
//! let hash = bloomlab_core::by_hash::hash(&w, "pear");
//! assert_eq!(hash, hasher.hash_one("pear"));
//! assert!(w.contains_hash(hash));
//! ```
//!
//! A `Box` or `&mut` of a filter is a filter too: of a variant through its
//! hash-level operations, of a `dyn Membership<T>` or `dyn Deletable<T>`
//! (alone, `+ Send`, or `+ Send + Sync`) by forwarding each call. Neither
//! can be one impl for every `Box<F: Membership<T>>`: it would overlap
//! with the blanket impls here (E0119), since another crate may implement
//! [`HashMembership`] for `Box<ItsFilter>`. So a filter that implements
//! [`Membership`] directly, not through [`HashMembership`], is boxed or
//! borrowed as a trait object.

use std::borrow::Borrow;
use std::hash::{BuildHasher, Hash};
use std::ops::Deref;

use crate::batch;
use crate::error::{InsertBatchError, InsertError, RemoveError};
use crate::membership::{Deletable, Filter, Membership};

/// What a filter does with the 64-bit hash of an item: the operations every
/// variant defines, from which [`by_hash`](self) defines those on items.
///
/// The hash is [`hasher`](Self::hasher)`().hash_one(item)`: a caller that
/// hashes an item once can probe several filters that share a hasher with
/// it.
pub trait HashMembership: Filter {
    /// The items the filter holds: the `T` of its [`Membership<T>`].
    type Item: ?Sized;

    /// The hasher that turns an item into its hash.
    type Hasher: BuildHasher;

    /// The hasher items go through.
    fn hasher(&self) -> &Self::Hasher;

    /// Adds the item whose hash is `hash`, as [`Membership::insert`] adds
    /// an item.
    ///
    /// # Errors
    ///
    /// [`InsertError::Full`]: nothing was added, and nothing already in the
    /// filter was lost.
    fn insert_hash(&mut self, hash: u64) -> Result<bool, InsertError>;

    /// Whether the item whose hash is `hash` is reported present.
    fn contains_hash(&self, hash: u64) -> bool;

    /// Cache lines a lookup reads (its `k` words, its block, its two
    /// buckets): how far ahead a batch prefetches ([`batch::ahead`]).
    fn lookup_lines(&self) -> usize;

    /// Starts loading the memory [`contains_hash`](Self::contains_hash)
    /// reads for `hash` ([`batch::prefetch`]), without waiting for it.
    fn prefetch_lookup(&self, hash: u64);

    /// Cache lines an insert reads; by default those of a lookup.
    fn insert_lines(&self) -> usize {
        self.lookup_lines()
    }

    /// Starts loading the memory [`insert_hash`](Self::insert_hash) reads
    /// for `hash`; by default that of a lookup.
    fn prefetch_insert(&self, hash: u64) {
        self.prefetch_lookup(hash);
    }
}

/// A [`HashMembership`] filter that can also forget the item of a hash.
pub trait HashDeletable: HashMembership {
    /// Removes one occurrence of the item whose hash is `hash`, as
    /// [`Deletable::remove`] removes an item.
    ///
    /// # Errors
    ///
    /// [`RemoveError::NotPresent`]: the filter proves the item absent;
    /// nothing changed.
    fn remove_hash(&mut self, hash: u64) -> Result<(), RemoveError>;
}

/// The hash of `item` by `filter`'s hasher: what its `*_hash` methods take.
/// Any borrowed form of the item type hashes as the item does (a `&str` as
/// the `String` it stands for).
#[inline]
pub fn hash<F, Q>(filter: &F, item: &Q) -> u64
where
    F: HashMembership + ?Sized,
    F::Item: Borrow<Q>,
    Q: Hash + ?Sized,
{
    filter.hasher().hash_one(item)
}

/// Adds `item`: [`Membership::insert`].
///
/// # Errors
///
/// As [`HashMembership::insert_hash`].
#[inline]
pub fn insert<F>(filter: &mut F, item: &F::Item) -> Result<bool, InsertError>
where
    F: HashMembership + ?Sized,
    F::Item: Hash,
{
    let hash = hash(filter, item);
    filter.insert_hash(hash)
}

/// Whether `item` is reported present: [`Membership::contains`].
#[inline]
pub fn contains<F, Q>(filter: &F, item: &Q) -> bool
where
    F: HashMembership + ?Sized,
    F::Item: Borrow<Q>,
    Q: Hash + ?Sized,
{
    filter.contains_hash(hash(filter, item))
}

/// Removes one occurrence of `item`: [`Deletable::remove`].
///
/// # Errors
///
/// As [`HashDeletable::remove_hash`].
#[inline]
pub fn remove<F, Q>(filter: &mut F, item: &Q) -> Result<(), RemoveError>
where
    F: HashDeletable + ?Sized,
    F::Item: Borrow<Q>,
    Q: Hash + ?Sized,
{
    let hash = hash(filter, item);
    filter.remove_hash(hash)
}

/// The answers of [`contains`] for every item of `items`, in order,
/// pipelined ([`batch::contains`]): [`Membership::contains_batch`].
pub fn contains_batch<F, Q>(filter: &F, items: &[Q]) -> Vec<bool>
where
    F: HashMembership + ?Sized,
    F::Item: Borrow<Q>,
    Q: Hash,
{
    batch::contains(
        filter.hasher(),
        items,
        batch::ahead(filter.memory_bytes(), filter.lookup_lines()),
        |hash| filter.prefetch_lookup(hash),
        |hash| filter.contains_hash(hash),
    )
}

/// Inserts every item of `items` in order, as [`insert`] would, pipelined
/// (a chunk hashed first, each item's memory prefetched ahead of its
/// insert, as [`contains_batch`] does), and returns how many were new:
/// [`Membership::insert_batch`].
///
/// # Errors
///
/// [`InsertBatchError`] at the first item that cannot be inserted: the
/// items before it stay inserted, it and the ones after it are not, and
/// nothing stored before the call is lost.
pub fn insert_batch<F>(filter: &mut F, items: &[F::Item]) -> Result<usize, InsertBatchError>
where
    F: HashMembership + ?Sized,
    F::Item: Hash + Sized,
{
    insert_batch_by(filter, items, |f, hash| f.insert_hash(hash))
}

/// [`insert_batch`] through a `handle` on the filter, whose `insert` adds
/// one hash: `&F` for a filter whose inserts take `&self` (an atomic one),
/// `&mut F` otherwise.
///
/// # Errors
///
/// As [`insert_batch`].
pub fn insert_batch_by<H, F>(
    handle: H,
    items: &[F::Item],
    insert: impl FnMut(&mut H, u64) -> Result<bool, InsertError>,
) -> Result<usize, InsertBatchError>
where
    H: Deref<Target = F>,
    F: HashMembership + ?Sized,
    F::Item: Hash + Sized,
{
    batch::insert(
        handle,
        items,
        |f, chunk| batch::Hashes::of(f.hasher(), chunk),
        |f| batch::ahead(f.memory_bytes(), f.insert_lines()),
        |f, hash| f.prefetch_insert(hash),
        insert,
    )
}

/// Inserts every item, for the `Extend` impls of filters whose inserts
/// cannot fail.
///
/// # Panics
///
/// If an insert fails, which no filter it is meant for does.
pub fn extend<F, I>(filter: &mut F, items: I)
where
    F: HashMembership + ?Sized,
    F::Item: Hash,
    I: IntoIterator,
    I::Item: Borrow<F::Item>,
{
    for item in items {
        if let Err(error) = insert(filter, item.borrow()) {
            panic!("extending a filter whose inserts cannot fail: {error}");
        }
    }
}

impl<F> Membership<F::Item> for F
where
    F: HashMembership + ?Sized,
    F::Item: Hash,
{
    #[inline]
    fn insert(&mut self, item: &F::Item) -> Result<bool, InsertError> {
        insert(self, item)
    }

    #[inline]
    fn contains(&self, item: &F::Item) -> bool {
        contains(self, item)
    }

    fn contains_batch(&self, items: &[F::Item]) -> Vec<bool>
    where
        F::Item: Sized,
    {
        contains_batch(self, items)
    }

    fn insert_batch(&mut self, items: &[F::Item]) -> Result<usize, InsertBatchError>
    where
        F::Item: Sized,
    {
        insert_batch(self, items)
    }
}

impl<F> Deletable<F::Item> for F
where
    F: HashDeletable + ?Sized,
    F::Item: Hash,
{
    #[inline]
    fn remove(&mut self, item: &F::Item) -> Result<(), RemoveError> {
        remove(self, item)
    }
}

// A boxed or borrowed variant is one: the blanket impls above then make it
// a `Membership` and a `Deletable`.
macro_rules! forward_hash_membership {
    ($($wrapper:ty),*) => {$(
        impl<F: HashMembership + ?Sized> HashMembership for $wrapper {
            type Item = F::Item;
            type Hasher = F::Hasher;

            fn hasher(&self) -> &F::Hasher {
                (**self).hasher()
            }

            #[inline]
            fn insert_hash(&mut self, hash: u64) -> Result<bool, InsertError> {
                (**self).insert_hash(hash)
            }

            #[inline]
            fn contains_hash(&self, hash: u64) -> bool {
                (**self).contains_hash(hash)
            }

            fn lookup_lines(&self) -> usize {
                (**self).lookup_lines()
            }

            #[inline]
            fn prefetch_lookup(&self, hash: u64) {
                (**self).prefetch_lookup(hash)
            }

            fn insert_lines(&self) -> usize {
                (**self).insert_lines()
            }

            #[inline]
            fn prefetch_insert(&self, hash: u64) {
                (**self).prefetch_insert(hash)
            }
        }

        impl<F: HashDeletable + ?Sized> HashDeletable for $wrapper {
            #[inline]
            fn remove_hash(&mut self, hash: u64) -> Result<(), RemoveError> {
                (**self).remove_hash(hash)
            }
        }
    )*};
}

forward_hash_membership!(Box<F>, &mut F);

// A boxed or borrowed trait object is a filter: a `Box<dyn Membership<u64>>`
// can be passed where `impl Membership<u64>` is asked for. Every method
// forwards, batch ones included, so the variants' pipelined ones stay in use.
macro_rules! forward_dyn {
    ($($object:ty),*) => {$(
        forward_dyn!(@membership Box<$object>);
        forward_dyn!(@membership &mut $object);
    )*};
    (@membership $wrapper:ty) => {
        impl<'a, T: ?Sized + 'a> Membership<T> for $wrapper {
            fn insert(&mut self, item: &T) -> Result<bool, InsertError> {
                (**self).insert(item)
            }

            fn contains(&self, item: &T) -> bool {
                (**self).contains(item)
            }

            fn contains_batch(&self, items: &[T]) -> Vec<bool>
            where
                T: Sized,
            {
                (**self).contains_batch(items)
            }

            fn insert_batch(&mut self, items: &[T]) -> Result<usize, InsertBatchError>
            where
                T: Sized,
            {
                (**self).insert_batch(items)
            }
        }
    };
    (@deletable $($wrapper:ty),*) => {$(
        impl<'a, T: ?Sized + 'a> Deletable<T> for $wrapper {
            fn remove(&mut self, item: &T) -> Result<(), RemoveError> {
                (**self).remove(item)
            }
        }
    )*};
}

forward_dyn!(
    dyn Membership<T> + 'a,
    dyn Membership<T> + Send + 'a,
    dyn Membership<T> + Send + Sync + 'a,
    dyn Deletable<T> + 'a,
    dyn Deletable<T> + Send + 'a,
    dyn Deletable<T> + Send + Sync + 'a
);
forward_dyn!(@deletable
    Box<dyn Deletable<T> + 'a>,
    Box<dyn Deletable<T> + Send + 'a>,
    Box<dyn Deletable<T> + Send + Sync + 'a>,
    &mut (dyn Deletable<T> + 'a),
    &mut (dyn Deletable<T> + Send + 'a),
    &mut (dyn Deletable<T> + Send + Sync + 'a)
);

/// What a variant's inherent `insert_hash` returns: `bool` where an insert
/// cannot fail, a `Result` where it can be refused; [`impl_filter!`]'s
/// `HashMembership` takes either.
#[doc(hidden)]
pub trait Inserted {
    /// As [`HashMembership::insert_hash`] returns it.
    ///
    /// # Errors
    ///
    /// The refusal, where there was one.
    fn into_result(self) -> Result<bool, InsertError>;
}

impl Inserted for bool {
    #[inline]
    fn into_result(self) -> Result<bool, InsertError> {
        Ok(self)
    }
}

impl Inserted for Result<bool, InsertError> {
    #[inline]
    fn into_result(self) -> Result<bool, InsertError> {
        self
    }
}

/// Implements, for a variant crate's filter type, the traits no blanket impl
/// can: those whose methods are the type's inherent ones of the same names
/// (a blanket impl over a trait that supplies them would overlap with the
/// `Box` and `&mut` impls of [`Filter`], E0119), and std's and serde's,
/// which no crate may implement for every `F`. Each impl it writes is one
/// call, of the inherent method or of a function of this module; the
/// inherent methods keep their own docs.
///
/// ```text
/// bloomlab_core::impl_filter!(Filter, Extend, Persist
///     for CountingBloomFilter<T, S> where S: BuildHasher);
/// ```
///
/// The type takes the item type `T` and the hasher `S`, in that order; the
/// bounds after `where` are those of its inherent methods. Each name asks
/// for:
///
/// - `Filter`: [`Filter`](crate::Filter) from the inherent `len`,
///   `memory_bytes`, `expected_fpr` and `clear`;
/// - `HashMembership`: [`HashMembership`] from the inherent `hasher`,
///   `insert_hash` (returning `bool`, or a `Result` where an insert can be
///   refused: [`Inserted`]) and `contains_hash`, and the crate-private
///   `lookup_cache_lines` and `prefetch_hash` (its
///   [`lookup_lines`](HashMembership::lookup_lines) and
///   [`prefetch_lookup`](HashMembership::prefetch_lookup));
/// - `HashDeletable`: [`HashDeletable`] from the inherent `remove_hash`;
/// - `Extend`: `Extend<T>` and `Extend<&T>` from [`extend`], for a filter
///   whose inserts cannot fail;
/// - `Persist`: [`Persist`](crate::Persist) for the type with the
///   [`DefaultHasher`](crate::DefaultHasher), from the inherent `to_bytes`
///   and `from_bytes`;
/// - `Serde`: `serde`'s `Serialize` and `Deserialize` for the type with the
///   default hasher, through the bytes of the envelope (needs this
///   crate's feature `serde`).
///
/// `impl_filter!(BitOr<MergeError> for BloomFilter<T, S> where …)` writes
/// `&a | &b` from the inherent `union`, whose error is `MergeError`.
#[doc(hidden)]
#[macro_export]
macro_rules! impl_filter {
    (BitOr<$error:ty> for $filter:ident<T, S> where $($bound:tt)+) => {
        /// `&a | &b`: a new filter holding the items of both, as `a.union(&b)`
        /// makes it, or the error of that `union` (an operator cannot panic
        /// on bad input). There is no `|=`, which could not report the
        /// error: use `union`.
        impl<T: ?Sized, S> ::core::ops::BitOr<&$filter<T, S>> for &$filter<T, S>
        where
            $($bound)+
        {
            type Output = ::core::result::Result<$filter<T, S>, $error>;

            fn bitor(self, other: &$filter<T, S>) -> Self::Output {
                let mut merged = ::core::clone::Clone::clone(self);
                merged.union(other)?;
                ::core::result::Result::Ok(merged)
            }
        }
    };
    ($($name:ident),+ for $filter:ident<T, S> $(where $($bound:tt)+)?) => {
        $crate::impl_filter!(@all [$($name)+] $filter [$($($bound)+)?]);
    };
    (@all [$($name:ident)+] $filter:ident $bounds:tt) => {
        $($crate::impl_filter!(@one $name $filter $bounds);)+
    };
    (@one Filter $filter:ident [$($bound:tt)*]) => {
        impl<T: ?Sized, S> $crate::Filter for $filter<T, S> where $($bound)* {
            fn len(&self) -> usize {
                $filter::len(self)
            }

            fn memory_bytes(&self) -> usize {
                $filter::memory_bytes(self)
            }

            fn expected_fpr(&self) -> f64 {
                $filter::expected_fpr(self)
            }

            fn clear(&mut self) {
                $filter::clear(self)
            }
        }
    };
    (@one HashMembership $filter:ident [$($bound:tt)*]) => {
        impl<T: ?Sized, S> $crate::HashMembership for $filter<T, S> where $($bound)* {
            type Item = T;
            type Hasher = S;

            fn hasher(&self) -> &S {
                $filter::hasher(self)
            }

            #[inline]
            fn insert_hash(
                &mut self,
                hash: u64,
            ) -> ::core::result::Result<bool, $crate::InsertError> {
                $crate::by_hash::Inserted::into_result($filter::insert_hash(self, hash))
            }

            #[inline]
            fn contains_hash(&self, hash: u64) -> bool {
                $filter::contains_hash(self, hash)
            }

            fn lookup_lines(&self) -> usize {
                $filter::lookup_cache_lines(self)
            }

            #[inline]
            fn prefetch_lookup(&self, hash: u64) {
                $filter::prefetch_hash(self, hash)
            }
        }
    };
    (@one HashDeletable $filter:ident [$($bound:tt)*]) => {
        impl<T: ?Sized, S> $crate::HashDeletable for $filter<T, S> where $($bound)* {
            #[inline]
            fn remove_hash(
                &mut self,
                hash: u64,
            ) -> ::core::result::Result<(), $crate::RemoveError> {
                $filter::remove_hash(self, hash)
            }
        }
    };
    (@one Extend $filter:ident $bounds:tt) => {
        $crate::impl_filter!(@extend $filter $bounds [T] [T: ::core::hash::Hash]);
        $crate::impl_filter!(
            @extend $filter $bounds [&'a T] ['a, T: ::core::hash::Hash + ?Sized + 'a]
        );
    };
    (@extend $filter:ident [$($bound:tt)*] [$($item:tt)+] [$($generics:tt)+]) => {
        /// Inserts every item, by value or by reference (`filter.extend(&ids)`):
        /// an insert into this filter cannot fail.
        impl<$($generics)+, S> ::core::iter::Extend<$($item)+> for $filter<T, S>
        where
            $($bound)*
        {
            fn extend<I: ::core::iter::IntoIterator<Item = $($item)+>>(&mut self, items: I) {
                $crate::by_hash::extend(self, items);
            }
        }
    };
    (@one Persist $filter:ident $bounds:tt) => {
        impl<T: ?Sized> $crate::Persist for $filter<T, $crate::DefaultHasher> {
            fn to_bytes(&self) -> ::std::vec::Vec<u8> {
                $filter::to_bytes(self)
            }

            fn from_bytes(bytes: &[u8]) -> ::core::result::Result<Self, $crate::DecodeError> {
                $filter::from_bytes(bytes)
            }
        }
    };
    (@one Serde $filter:ident $bounds:tt) => {
        impl<T: ?Sized> $crate::serde_envelope::serde::Serialize
            for $filter<T, $crate::DefaultHasher>
        {
            fn serialize<Z: $crate::serde_envelope::serde::Serializer>(
                &self,
                serializer: Z,
            ) -> ::core::result::Result<Z::Ok, Z::Error> {
                $crate::serde_envelope::serialize(self, serializer)
            }
        }

        impl<'de, T: ?Sized> $crate::serde_envelope::serde::Deserialize<'de>
            for $filter<T, $crate::DefaultHasher>
        {
            fn deserialize<D: $crate::serde_envelope::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                $crate::serde_envelope::deserialize(deserializer)
            }
        }
    };
}
