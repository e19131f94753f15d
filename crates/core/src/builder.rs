//! What every variant's builder holds beside its own options: the hasher,
//! random unless a seed or another hasher is given, and the item type.
//!
//! A variant's `Builder<T, S>` wraps a [`Settings<T, O, S>`](Settings) of
//! its own options `O` (sizes, widths, limits: a `Copy` struct), reads
//! and sets them through `Deref`, and keeps its own documented `seed` and
//! `hasher` methods, which call those here.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use crate::hash::DefaultHasher;

/// A builder's options `O` and the hasher `S` its filter of `T` will use.
pub struct Settings<T: ?Sized, O, S = DefaultHasher> {
    options: O,
    hasher: S,
    item: PhantomData<fn(&T)>,
}

impl<T: ?Sized, O> Settings<T, O> {
    /// `options` with a random hash key ([`DefaultHasher::random`]).
    pub fn new(options: O) -> Self {
        Self::with_hasher(options, DefaultHasher::random())
    }

    /// The hash key derived from `seed` ([`DefaultHasher::from_seed`]).
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.hasher = DefaultHasher::from_seed(seed);
        self
    }
}

impl<T: ?Sized, O, S> Settings<T, O, S> {
    /// `options` with `hasher`.
    pub fn with_hasher(options: O, hasher: S) -> Self {
        Self {
            options,
            hasher,
            item: PhantomData,
        }
    }

    /// The same options with `hasher`.
    pub fn hasher<S2>(self, hasher: S2) -> Settings<T, O, S2> {
        Settings::with_hasher(self.options, hasher)
    }

    /// The options and the hasher, for `build`.
    pub fn into_parts(self) -> (O, S) {
        (self.options, self.hasher)
    }
}

impl<T: ?Sized, O, S> Deref for Settings<T, O, S> {
    type Target = O;

    fn deref(&self) -> &O {
        &self.options
    }
}

impl<T: ?Sized, O, S> DerefMut for Settings<T, O, S> {
    fn deref_mut(&mut self) -> &mut O {
        &mut self.options
    }
}

impl<T: ?Sized, O: Clone, S: Clone> Clone for Settings<T, O, S> {
    fn clone(&self) -> Self {
        Self::with_hasher(self.options.clone(), self.hasher.clone())
    }
}

/// As a builder: `Builder { options: …, hasher: … }`.
impl<T: ?Sized, O: fmt::Debug, S: fmt::Debug> fmt::Debug for Settings<T, O, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("options", &self.options)
            .field("hasher", &self.hasher)
            .finish()
    }
}

/// Implements `Clone` and `Debug` for builders that are a newtype over
/// [`Settings`] (`pub struct Builder<T: ?Sized, S>(Settings<T, Options, S>)`),
/// as those of `Settings` do: a derive would ask `T: Clone`, which a
/// builder of `str` items is not.
#[doc(hidden)]
#[macro_export]
macro_rules! impl_builder {
    ($($builder:ident),+) => {$(
        impl<T: ?Sized, S: ::core::clone::Clone> ::core::clone::Clone for $builder<T, S> {
            fn clone(&self) -> Self {
                Self(self.0.clone())
            }
        }

        impl<T: ?Sized, S: ::core::fmt::Debug> ::core::fmt::Debug for $builder<T, S> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Debug::fmt(&self.0, f)
            }
        }
    )+};
}
