//! The model of model-based tests of filters that delete: a multiset of
//! what was inserted and not removed, the operations a test draws, and
//! [`run`], which applies them to a filter and the model alike.

use std::collections::HashMap;

use bloomlab_core::{Deletable, Filter, Persist, RemoveError};

/// An operation of a model-based test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Insert this key.
    Insert(u64),
    /// Insert this key only if the filter does not report it present.
    InsertUnique(u64),
    /// Remove one copy of the model's member at this index (modulo the
    /// number of distinct members, in ascending order), if there is one.
    Remove(usize),
    /// Forget everything.
    Clear,
}

/// What a filter that deletes must hold: each key inserted and not
/// removed, as often as it was.
#[derive(Debug, Clone, Default)]
pub struct Multiset {
    copies: HashMap<u64, usize>,
}

impl Multiset {
    /// An empty multiset.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a copy of `key`.
    pub fn insert(&mut self, key: u64) {
        *self.copies.entry(key).or_default() += 1;
    }

    /// Whether `key` has a copy.
    pub fn contains(&self, key: u64) -> bool {
        self.copies.contains_key(&key)
    }

    /// The member [`Op::Remove`]`(index)` removes: the one at `index` modulo
    /// the number of distinct members, in ascending order; `None` when empty.
    pub fn nth(&self, index: usize) -> Option<u64> {
        let mut keys: Vec<u64> = self.copies.keys().copied().collect();
        keys.sort_unstable();
        keys.get(index % keys.len().max(1)).copied()
    }

    /// Removes one copy of `key`.
    ///
    /// # Panics
    ///
    /// If `key` has no copy.
    pub fn remove(&mut self, key: u64) {
        let left = self.copies.get_mut(&key).expect("a member");
        *left -= 1;
        if *left == 0 {
            self.copies.remove(&key);
        }
    }

    /// Forgets every key.
    pub fn clear(&mut self) {
        self.copies.clear();
    }

    /// Copies in all: what the filter's `len` must be.
    pub fn len(&self) -> usize {
        self.copies.values().sum()
    }

    /// Whether there is no copy of anything.
    pub fn is_empty(&self) -> bool {
        self.copies.is_empty()
    }

    /// Each member and its number of copies, in no order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, usize)> + '_ {
        self.copies.iter().map(|(&k, &c)| (k, c))
    }
}

/// Applies `ops` to `f` and to a [`Multiset`] model, and returns the model.
///
/// `insert(f, model, op)` applies the inserts ([`Op::Insert`] and
/// [`Op::InsertUnique`]), by the variant's own rules; `run` removes a
/// member of the model ([`Op::Remove`]), which must succeed, and clears
/// both ([`Op::Clear`]), after which `f` must be empty. After every
/// operation `f` must have the model's `len` and report every member of the
/// model present, and `holds(f, model, op)` checks what else the variant
/// owes.
///
/// # Panics
///
/// When one of those fails (a property test reports the panic as a
/// failing case and shrinks it).
pub fn run<F>(
    f: &mut F,
    ops: &[Op],
    mut insert: impl FnMut(&mut F, &mut Multiset, Op),
    mut holds: impl FnMut(&F, &Multiset, Op),
) -> Multiset
where
    F: Deletable<u64>,
{
    let mut model = Multiset::new();
    for &op in ops {
        match op {
            Op::Insert(_) | Op::InsertUnique(_) => insert(f, &mut model, op),
            Op::Remove(i) => {
                if let Some(key) = model.nth(i) {
                    let removed = Deletable::remove(f, &key);
                    assert_eq!(removed, Ok(()), "an inserted item must be removable");
                    model.remove(key);
                }
            }
            Op::Clear => {
                Filter::clear(f);
                model.clear();
                assert!(Filter::is_empty(f), "not empty after clear");
            }
        }
        assert_eq!(Filter::len(f), model.len());
        for (key, _) in model.iter() {
            assert!(f.contains(&key), "member {key} reported absent");
        }
        holds(f, &model, op);
    }
    model
}

/// Removes every item of `probes` that `filter` proves absent, checks that
/// each remove is refused ([`RemoveError::NotPresent`]) and that the stored
/// bytes are the same afterwards, and returns how many were removed.
///
/// # Panics
///
/// If a refused remove is not `NotPresent`, or changed the filter.
pub fn refused_removes_change_nothing<F>(filter: &mut F, probes: impl Iterator<Item = u64>) -> usize
where
    F: Deletable<u64> + Persist,
{
    let before = filter.to_bytes();
    let absent: Vec<u64> = probes.filter(|p| !filter.contains(p)).collect();
    for p in &absent {
        assert_eq!(filter.remove(p), Err(RemoveError::NotPresent));
    }
    assert!(
        filter.to_bytes() == before,
        "a refused remove changed the filter"
    );
    absent.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_counted_and_removed_in_order() {
        let mut m = Multiset::new();
        assert_eq!(m.nth(3), None);
        for k in [5, 2, 5, 9] {
            m.insert(k);
        }
        assert_eq!(
            (m.len(), m.nth(0), m.nth(1), m.nth(5)),
            (4, Some(2), Some(5), Some(9))
        );
        m.remove(5);
        assert!(m.contains(5));
        m.remove(5);
        assert!(!m.contains(5) && m.len() == 2);
        m.clear();
        assert!(m.is_empty());
    }
}
