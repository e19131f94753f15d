//! Every filter bloomlab offers, in one list of descriptors.
//!
//! A [`Descriptor`] is exported by the variant's own crate
//! (`bloomlab_classic::descriptor::descriptors`, …): its name, what it can
//! do ([`Capabilities`]), how its constructor sizes a table for `n` items
//! at rate `ε` without allocating ([`Plan`], whose [`Table`] carries the
//! table's theory), the configurations the chooser weighs ([`Choice`]), and
//! a constructor and a decoder behind `Box<dyn AnyFilter<T>>`. The catalog
//! is the list of them ([`Catalog::standard`]); the `bloomlab` binary's
//! experiments, its chooser and `bloomlab inspect`, and the benchmarks,
//! iterate a [`Catalog`] and select entries by capability, never by name.
//!
//! ```
//! use bloomlab::catalog::Catalog;
//!
//! for v in Catalog::<str>::standard().iter() {
//!     let keys = ["paris", "lyon"];
//!     // Planned for its capacity, or for its keys if built from them.
//!     let planned = if v.can.from_keys { keys.len() as u64 } else { 10_000 };
//!     let plan = (v.plan)(planned, 0.01)?;
//!     // Every entry holds a set of keys: built from them, or built empty
//!     // and filled.
//!     let mut filter = v.holding(&keys, 10_000, 0.01, 7)?;
//!     assert!(filter.contains("paris"), "{}", v.id);
//!     // The incremental ones take inserts.
//!     if let Some(m) = filter.as_membership() {
//!         m.insert("nice")?;
//!     }
//!     // The plan is what the constructor allocates.
//!     assert_eq!(plan.memory_bytes, filter.memory_bytes() as u128, "{}", v.id);
//!     assert_eq!(filter.as_deletable().is_some(), v.can.delete, "{}", v.id);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Adding a variant
//!
//! A new filter is a crate of its own. The crate defines the filter and its
//! hash-level operations
//! ([`HashMembership`](bloomlab_core::HashMembership), and
//! [`HashDeletable`](bloomlab_core::HashDeletable) if it deletes), owns its
//! envelope [`Tag`](bloomlab_core::Tag), implements [`Table`] for the shape
//! of its tables and [`AnyFilter`] for the filter, and exports
//! `descriptors::<T>()`. Outside the crate, three files change:
//!
//! 1. the root `Cargo.toml`: the crate in the workspace's `members` and
//!    `[workspace.dependencies]`;
//! 2. `crates/bloomlab/Cargo.toml`: the facade depends on it (and forwards
//!    its `serde` feature);
//! 3. `crates/bloomlab/src/lib.rs`: its re-export, and its `descriptors` in
//!    the facade's list of families.
//!
//! The chooser, the experiments, `bloomlab inspect` and the benchmarks then
//! take it up; the test `a_registered_variant_joins_everything` in
//! `experiments/tests/toy_variant.rs` registers a variant of its own with
//! [`Catalog::with`] and checks that it does. The test
//! `catalog_is_the_only_list` in `crates/bloomlab/tests/catalog.rs` checks
//! that every entry's plan, table, tag and capabilities agree with the
//! filter it builds.

use std::hash::Hash;

pub use bloomlab_core::descriptor::{
    AnyFilter, Build, BuildError, BuildFn, Capabilities, Choice, DecodeFn, Descriptor, FromKeysFn,
    Lines, Plan, PlanFn, State, Table, Value, decimal_bytes, grouped, sci,
};

/// A list of descriptors: the standard one, or it with variants of a
/// program's own registered.
pub struct Catalog<T: ?Sized + 'static> {
    entries: Vec<Descriptor<T>>,
}

impl<T: ?Sized> Clone for Catalog<T> {
    fn clone(&self) -> Self {
        Catalog {
            entries: self.entries.clone(),
        }
    }
}

impl<T: ?Sized> std::fmt::Debug for Catalog<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|v| v.id))
            .finish()
    }
}

impl<T: Hash + ?Sized + 'static> Catalog<T> {
    /// Every variant bloomlab offers, in report order.
    pub fn standard() -> Self {
        Catalog {
            entries: crate::families(),
        }
    }
}

impl<T: ?Sized + 'static> Catalog<T> {
    /// The catalog with `variant` added at its end.
    ///
    /// # Panics
    ///
    /// If its id is already listed: ids name entries everywhere (CSV
    /// rows, `choose`'s table).
    #[must_use]
    pub fn with(mut self, variant: Descriptor<T>) -> Self {
        assert!(
            self.find(variant.id).is_none(),
            "the catalog already lists `{}`",
            variant.id
        );
        self.entries.push(variant);
        self
    }

    /// The entries, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Descriptor<T>> {
        self.entries.iter()
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry `id` names.
    pub fn find(&self, id: &str) -> Option<&Descriptor<T>> {
        self.entries.iter().find(|v| v.id == id)
    }

    /// The first entry whose envelope carries `tag`.
    pub fn by_tag(&self, tag: u16) -> Option<&Descriptor<T>> {
        self.entries.iter().find(|v| v.tag == tag)
    }
}

impl<'a, T: ?Sized + 'static> IntoIterator for &'a Catalog<T> {
    type Item = &'a Descriptor<T>;
    type IntoIter = std::slice::Iter<'a, Descriptor<T>>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Every configuration of the standard catalog, in report order.
pub fn variants<T: Hash + ?Sized + 'static>() -> Vec<Descriptor<T>> {
    crate::families()
}

/// The standard entry `id` names.
pub fn find<T: Hash + ?Sized + 'static>(id: &str) -> Option<Descriptor<T>> {
    Catalog::standard().find(id).cloned()
}

/// The first standard entry whose envelope carries `tag`.
pub fn by_tag<T: Hash + ?Sized + 'static>(tag: u16) -> Option<Descriptor<T>> {
    Catalog::standard().by_tag(tag).cloned()
}
