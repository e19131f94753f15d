//! Filling the samples of a plan, and the closures that use a decoded
//! filter's every method.

use bloomlab_core::{Deletable, Filter, HashDeletable, Membership, Persist};

use crate::batch::Methods;
use crate::keys::{members, probes};

use super::*;

/// Hashes a decoded filter's hash entry points are probed with: the ends of
/// the range and the top bit alone.
pub const EXTREME_HASHES: [u64; 4] = [0, 1, u64::MAX, 0x8000_0000_0000_0000];

/// Inserts `members(seed, n)` into `f` in order, up to the first refusal:
/// how the samples of a plan are filled.
pub fn fill<F: Membership<u64>>(f: &mut F, seed: u64, n: usize) {
    for k in members(seed, n) {
        if f.insert(&k).is_err() {
            break;
        }
    }
}

/// Small filters to take samples of, one per `(builder, n)`: the `i`-th
/// (counting from 1) is `build(builder, i)`, [`fill`]ed with `n` members of
/// seed `i`.
pub fn seeded<B, F>(
    builders: impl IntoIterator<Item = (B, usize)>,
    build: impl Fn(B, u64) -> F,
) -> Vec<F>
where
    F: Membership<u64>,
{
    builders
        .into_iter()
        .zip(1..)
        .map(|((builder, n), seed)| {
            let mut f = build(builder, seed);
            fill(&mut f, seed, n);
            f
        })
        .collect()
}

/// A [`Sample`] of each filter: its bytes, labelled by its `Debug` form (its
/// shape and length, never its key), with the fields `fields` names.
pub fn samples<F>(
    filters: impl IntoIterator<Item = F>,
    fields: impl Fn(&F) -> Vec<Field>,
) -> Vec<Sample>
where
    F: Persist + std::fmt::Debug,
{
    filters
        .into_iter()
        .map(|f| Sample {
            label: format!("{f:?}"),
            bytes: f.to_bytes(),
            fields: fields(&f),
        })
        .collect()
}

/// Uses a decoded filter through its own item methods `m` (see
/// [`item_methods!`](crate::item_methods)): `contains_batch` of `keys`, an
/// insert and a lookup of `u64::MAX`, then the first half of `keys` inserted
/// one at a time and the rest as one batch. Every key an insert took is
/// then reported present.
///
/// # Panics
///
/// If a key an insert took is reported absent, or a method panics.
pub fn use_items<F>(f: &mut F, m: &Methods<F>, keys: &[u64]) {
    let _ = (m.contains_batch)(f, keys);
    let _ = (m.insert)(f, &u64::MAX);
    let _ = (m.contains)(f, &u64::MAX);
    let (one_by_one, batch) = keys.split_at(keys.len() / 2);
    for k in one_by_one {
        if (m.insert)(f, k).is_ok() {
            assert!((m.contains)(f, k), "an inserted item is absent");
        }
    }
    let stored = match (m.insert_batch)(f, batch) {
        Ok(_) => batch.len(),
        Err(e) => e.stored,
    };
    assert!(
        batch[..stored].iter().all(|k| (m.contains)(f, k)),
        "an item insert_batch stored is absent"
    );
}

/// Keys a use of a decoded filter inserts and probes: members and probes
/// from fixed seeds, so every case uses the same ones.
fn use_keys() -> (Vec<u64>, Vec<u64>) {
    (members(0xf0, 48), probes(0xf1, 32).collect())
}

/// Calls every method of [`Membership`] and [`Persist`] on a decoded filter
/// `f`, with `u64` items, and checks what must hold whatever the
/// filter's contents: its bytes decode to a filter with the same bytes,
/// before and after use; an item it took is reported present; and after
/// `clear` it is empty and reports none of them.
///
/// # Panics
///
/// If one of those fails, or a method panics.
pub fn use_membership<F>(f: &mut F)
where
    F: Membership<u64> + Persist,
{
    let (keys, others) = use_keys();
    round_trip(f, "as decoded");
    read_only(f, &others);

    let mut taken = Vec::new();
    for k in &keys[..16] {
        if Membership::<u64>::insert(f, k).is_ok() {
            taken.push(*k);
        }
    }
    let _ = Membership::<u64>::insert_batch(f, &keys[16..32]);
    let _ = Membership::<u64>::insert_all(f, &keys[32..40]);
    for k in &taken {
        assert!(
            Membership::<u64>::contains(f, k),
            "an item inserted with Ok is reported absent"
        );
    }
    read_only(f, &others);
    round_trip(f, "after inserts");

    Filter::clear(f);
    assert!(
        Filter::is_empty(f) && Filter::len(f) == 0,
        "not empty after clear"
    );
    assert_eq!(
        Membership::<u64>::count_contained(f, &keys),
        0,
        "items reported present after clear"
    );
    read_only(f, &others);
    let _ = Membership::<u64>::insert(f, &keys[0]);
    round_trip(f, "after clear");
}

/// [`use_membership`], then [`Deletable::remove`] of members, probes and
/// items never inserted, in between inserts.
///
/// # Panics
///
/// As [`use_membership`].
pub fn use_deletable<F>(f: &mut F)
where
    F: Deletable<u64> + Persist,
{
    let (keys, others) = use_keys();
    for k in keys.iter().take(8) {
        let _ = Membership::<u64>::insert(f, k);
    }
    for k in keys.iter().take(12).chain(&others[..8]) {
        let _ = Deletable::<u64>::remove(f, k);
    }
    read_only(f, &others);
    round_trip(f, "after removes");
    use_membership(f);
    for k in keys.iter().take(4) {
        let _ = Deletable::<u64>::remove(f, k);
    }
}

/// Removes, from a decoded filter `f` that deletes, the items of
/// [`EXTREME_HASHES`] by hash, then `keys` and `u64::MAX`, whether or not
/// it holds them: a removal may be refused, never panic.
///
/// # Panics
///
/// If a removal panics.
pub fn remove_some<F>(f: &mut F, keys: &[u64])
where
    F: HashDeletable<Item = u64>,
{
    for h in EXTREME_HASHES {
        let _ = f.remove_hash(h);
    }
    for k in keys.iter().chain(&[u64::MAX]) {
        let _ = Deletable::<u64>::remove(f, k);
    }
}

/// The methods that only read.
fn read_only<F>(f: &F, probes: &[u64])
where
    F: Membership<u64>,
{
    let _ = Filter::len(f);
    let _ = Filter::is_empty(f);
    let _ = Filter::memory_bytes(f);
    let _ = Filter::expected_fpr(f);
    let _ = Filter::bits_per_item(f);
    let one = probes.iter().map(|p| Membership::<u64>::contains(f, p));
    let batch = Membership::<u64>::contains_batch(f, probes);
    assert!(
        one.eq(batch),
        "contains_batch answers differently from contains"
    );
    let _ = Membership::<u64>::count_contained(f, probes);
}

/// Encodes `f`, decodes the bytes and encodes again: the bytes must decode,
/// to the same bytes.
fn round_trip<F: Persist>(f: &F, when: &str) {
    let bytes = f.to_bytes();
    match F::from_bytes(&bytes) {
        Ok(g) => assert!(
            g.to_bytes() == bytes,
            "{when}: re-encoding a decoded filter changes its bytes"
        ),
        Err(e) => panic!("{when}: the filter's own bytes do not decode: {e}"),
    }
}
