//! The descriptor of [`BinaryFuseFilter`], and the theory of its array
//! ([`Segments`]), for the catalog.

use std::hash::Hash;
use std::sync::Arc;

use bloomlab_core::descriptor::{
    AnyFilter, Build, BuildError, Capabilities, Choice, Descriptor, Lines, Plan, State, Table,
    Value, grouped,
};
use bloomlab_core::theory::{fuse as theory, lower_bound_bits_per_item};
use bloomlab_core::{
    DefaultHasher, Deletable, Filter, HashMembership, InsertError, Membership, ParamError,
    check_fpr,
};

use crate::{BinaryFuseFilter, FINGERPRINT_BITS, Invalid, MAX_KEYS, plan};

/// The array of a binary fuse filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Segments {
    /// Bits per fingerprint.
    pub fingerprint_bits: u32,
    /// Slots per key.
    pub arity: u32,
    /// Slots per segment.
    pub segment_length: u32,
    /// Segments a key's first slot may fall in.
    pub segment_count: u32,
    /// The fingerprint the rate needs, which may be wider than the crate
    /// stores; `fingerprint_bits` for a built filter.
    pub needed_bits: u32,
}

impl Segments {
    /// The array [`BinaryFuseFilter::builder`] lays out for `n` keys at
    /// rate `p` ([`plan`]); for a rate below `2^−32`, the
    /// array of 32-bit fingerprints, which [`Table::unbuildable`] refuses.
    ///
    /// # Errors
    ///
    /// [`ParamError::InvalidFpr`] for a rate outside (0, 1),
    /// [`ParamError::ZeroItems`] for no keys, [`ParamError::TooLarge`] past
    /// [`MAX_KEYS`].
    pub fn plan(n: u64, p: f64) -> Result<Plan, ParamError> {
        let needed_bits = lower_bound_bits_per_item(check_fpr(p)?).ceil() as u32;
        let stored = p.max(theory::fpr(32));
        let plan = plan(n, stored).map_err(|e| match e {
            bloomlab_core::BuildError::Param(e) => e,
            bloomlab_core::BuildError::Variant(Invalid::EmptySet) => ParamError::ZeroItems,
            _ => ParamError::TooLarge {
                needed: u128::MAX,
                limit: u128::from(MAX_KEYS),
            },
        })?;
        let table = Segments {
            fingerprint_bits: plan.fingerprint_bits,
            arity: plan.arity,
            segment_length: plan.segment_length,
            segment_count: plan.segment_count,
            needed_bits: needed_bits.max(plan.fingerprint_bits),
        };
        Ok(Plan::new(table, u128::from(plan.memory_bytes())))
    }

    fn slots(&self) -> u64 {
        (u64::from(self.segment_count) + u64::from(self.arity) - 1) * u64::from(self.segment_length)
    }
}

impl Table for Segments {
    fn parameters(&self) -> Vec<(&'static str, Value)> {
        vec![
            (
                "fingerprint_bits",
                Value::Count(self.fingerprint_bits.into()),
            ),
            ("arity", Value::Count(self.arity.into())),
            ("segment_length", Value::Count(self.segment_length.into())),
            ("segment_count", Value::Count(self.segment_count.into())),
        ]
    }

    /// `2^−f`, whatever the number of keys: the array was built for them.
    fn fpr(&self, _items: u64) -> f64 {
        theory::fpr(self.fingerprint_bits)
    }

    /// The paper's `f · size_factor(arity, n)`, with `f` the narrowest
    /// stored width that reaches `eps`.
    fn theory_bits_per_item(&self, eps: f64, items: u64) -> f64 {
        crate::fingerprint_bits_for(eps).map_or(f64::NAN, |f| {
            theory::bits_per_item(f, self.arity, items.max(2))
        })
    }

    /// One slot in each of `arity` segments, each in a line of its own.
    fn lookup_lines(&self, _items: u64) -> Lines {
        let lines = f64::from(self.arity);
        Lines {
            hit: lines,
            miss: lines,
        }
    }

    fn key_parameter(&self) -> String {
        format!("f={} {}-wise", self.fingerprint_bits, self.arity)
    }

    fn summary(&self, _items: u64) -> String {
        format!(
            "{} slots f={} {}-wise",
            grouped(self.slots()),
            self.fingerprint_bits,
            self.arity
        )
    }

    fn notes(&self, items: u64) -> Vec<String> {
        vec![format!(
            "static: built at once from its {} keys, rebuilt when the set changes; {:.3} slots \
             a key",
            grouped(items),
            self.slots() as f64 / items.max(1) as f64
        )]
    }

    fn remove_caveat(&self) -> String {
        "no removes: a changed set is built anew".to_owned()
    }

    fn beyond_capacity(&self, items: u64) -> String {
        format!(
            "static: holds the {} keys it was built from; a key added later is answered \
             absent until the filter is rebuilt",
            grouped(items)
        )
    }

    /// [`Plan::build_scratch_bytes`](crate::Plan::build_scratch_bytes).
    fn build_scratch_bytes(&self, items: u64) -> u64 {
        crate::Plan {
            fingerprint_bits: self.fingerprint_bits,
            arity: self.arity,
            segment_length: self.segment_length,
            segment_count: self.segment_count,
        }
        .build_scratch_bytes(items)
    }

    fn unbuildable(&self) -> Vec<String> {
        let widest = FINGERPRINT_BITS[FINGERPRINT_BITS.len() - 1];
        if self.needed_bits > widest {
            vec![format!(
                "this rate needs {}-bit fingerprints; bloomlab-fuse stores at most {widest}",
                self.needed_bits
            )]
        } else {
            Vec::new()
        }
    }
}

/// The descriptor of [`BinaryFuseFilter`]: built from its keys, 3- or
/// 4-wise as [`plan`] chooses.
pub fn descriptors<T: Hash + ?Sized + 'static>() -> Vec<Descriptor<T>> {
    vec![Descriptor {
        id: "fuse",
        type_name: "BinaryFuseFilter",
        option: "",
        crate_name: "bloomlab-fuse",
        tag: crate::TAG.id(),
        caveat: "static: built from its keys; a changed set is rebuilt",
        can: Capabilities {
            from_keys: true,
            ..Capabilities::default()
        },
        plan: Segments::plan,
        // The chooser weighs it for a set built at once and rebuilt
        // (`--static`), and rules it out wherever items are inserted.
        choices: vec![Choice {
            suffix: "",
            option: "",
            call: "",
            plan: Segments::plan,
        }],
        build: Build::FromKeys(|keys, p, seed| {
            let built = BinaryFuseFilter::<T>::builder(p)
                .seed(seed)
                .build(keys.iter().copied());
            BuildError::boxed("fuse", built.map(Keyed))
        }),
        decode: |b| Ok(Box::new(Keyed(BinaryFuseFilter::<T>::from_bytes(b)?))),
    }]
}

/// A filter as the catalog holds it, for items of any type.
///
/// [`Lookup<T>`](bloomlab_core::Lookup) for every `T` comes from core's
/// blanket impl over [`Membership`], which core derives from
/// [`HashMembership`]: this adapter implements the latter with an insert
/// that is always refused ([`InsertError::Full`]: a static filter takes no
/// item), and [`AnyFilter::as_membership`] gives `None`, so no caller of
/// the catalog reaches that insert.
struct Keyed<T: ?Sized>(BinaryFuseFilter<T>);

impl<T: ?Sized> Filter for Keyed<T> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }

    fn expected_fpr(&self) -> f64 {
        self.0.expected_fpr()
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}

impl<T: ?Sized> HashMembership for Keyed<T> {
    type Item = T;
    type Hasher = DefaultHasher;

    fn hasher(&self) -> &DefaultHasher {
        self.0.hasher()
    }

    fn insert_hash(&mut self, _hash: u64) -> Result<bool, InsertError> {
        Err(InsertError::Full)
    }

    fn contains_hash(&self, hash: u64) -> bool {
        self.0.contains_hash(hash)
    }

    fn lookup_lines(&self) -> usize {
        self.0.arity() as usize
    }

    fn prefetch_lookup(&self, hash: u64) {
        self.0.prefetch(hash);
    }
}

impl<T: Hash + ?Sized> AnyFilter<T> for Keyed<T> {
    fn table(&self) -> Arc<dyn Table> {
        let f = &self.0;
        Arc::new(Segments {
            fingerprint_bits: f.fingerprint_bits(),
            arity: f.arity(),
            segment_length: f.segment_length(),
            segment_count: f.segment_count(),
            needed_bits: f.fingerprint_bits(),
        })
    }
    fn as_membership(&mut self) -> Option<&mut dyn Membership<T>> {
        None
    }
    fn into_membership(self: Box<Self>) -> Option<Box<dyn Membership<T>>>
    where
        Self: 'static,
    {
        None
    }
    fn as_deletable(&mut self) -> Option<&mut dyn Deletable<T>> {
        None
    }
    fn to_bytes(&self) -> Vec<u8> {
        self.0.to_bytes()
    }
    fn state(&self) -> State {
        let f = &self.0;
        State {
            parameters: self.table().parameters(),
            fill_ratio: f.len() as f64 / f.slots() as f64,
            len: f.len() as u64,
            estimate_count: f.len() as f64,
            estimated_fpr: f.expected_fpr(),
            estimated_from: "the fingerprint width (2^-f)",
        }
    }
    fn lookup_lines(&self) -> usize {
        self.0.arity() as usize
    }
}
