//! One adapter per peer crate, so that the benches and the experiments drive
//! the crates bloomlab is compared with through the same traits as
//! bloomlab's own filters: [`Filter`](bloomlab_core::Filter),
//! [`Membership`](bloomlab_core::Membership) and, where the crate deletes,
//! [`Deletable`](bloomlab_core::Deletable).
//!
//! | module | crate | adapter | deletes |
//! |---|---|---|---|
//! | [`bloomfilter`] | `bloomfilter` 3 | [`Bloomfilter`] | no |
//! | [`cuckoofilter`] | `cuckoofilter` 0.5 | [`Cuckoofilter`] | yes |
//! | [`fastbloom`] | `fastbloom` 0.17 | [`Fastbloom`], [`FastbloomAtomic`] | no |
//! | [`fastbloom_rs`] | `fastbloom-rs` 0.5 | [`FastbloomRsCounting`] | yes |
//! | [`growable`] | `growable-bloom-filter` 2.1 | [`Growable`] | no |
//! | [`probabilistic`] | `probabilistic-collections` 0.7 | [`ProbabilisticBloom`], [`ProbabilisticScalable`], [`ProbabilisticCuckoo`] | the cuckoo filter |
//! | [`qfilter`] | `qfilter` 0.3 | [`Qfilter`] | yes |
//! | [`xorf`] | `xorf` 0.13 | [`Fuse8`] (static) | no |
//!
//! # One call of the crate per operation
//!
//! Every trait method makes exactly the call a user of the crate would make,
//! once, so that a benchmark through the adapter times what the crate does
//! and nothing more. Where the crate's answer says less than the trait's,
//! the adapter does not pay a second lookup to find out; it gives the answer
//! below, and says so on the type:
//! - `insert` returns `Ok(true)` ("new") for every stored item when the crate
//!   does not say whether the item was reported present before (the
//!   `bloomfilter`, `cuckoofilter`, `fastbloom-rs`, `qfilter` and
//!   `probabilistic-collections` adapters). `fastbloom` and
//!   `growable-bloom-filter` say, and their answer is passed on.
//! - `remove` returns `Ok(())` whether or not the item was found when the
//!   crate does not say (`fastbloom-rs`, `probabilistic-collections`'s
//!   cuckoo filter); [`FastbloomRsCounting::remove_reported`] pays the
//!   lookup for the experiments that need the answer.
//! - `Err(InsertError::Full)` keeps its promise (nothing added, nothing
//!   lost) except for [`Cuckoofilter`]: the `cuckoofilter` crate's
//!   `NotEnoughSpace` comes after it stored the new fingerprint and dropped
//!   another one. The deletion experiment counts what that loses.
//! - [`Filter::len`](bloomlab_core::Filter::len) is the crate's own count
//!   where it keeps one; otherwise the adapter counts insert calls minus
//!   remove calls, as bloomlab's Bloom filters count their inserts. The
//!   Bloom tables that keep no count share one adapter, [`Counted`], whose
//!   `len` counts insert calls.
//! - [`Filter::expected_fpr`](bloomlab_core::Filter::expected_fpr) is
//!   bloomlab's theory for the crate's table shape at its present load
//!   (`bloomlab_core::theory`), except for `qfilter` (its own estimate) and
//!   `xorf` (the 8-bit fingerprint's `2^-8`).
//!
//! Methods on u64 keys are `#[inline]`, so that the crate's call is inlined
//! into the benchmark loop exactly as a direct call is.

pub mod bloomfilter;
mod counted;
pub mod cuckoofilter;
pub mod fastbloom;
pub mod fastbloom_rs;
pub mod growable;
pub mod probabilistic;
pub mod qfilter;
pub mod xorf;

pub use self::bloomfilter::Bloomfilter;
pub use self::counted::Counted;
pub use self::cuckoofilter::Cuckoofilter;
pub use self::fastbloom::{Fastbloom, FastbloomAtomic, FastbloomDefaultHasher};
pub use self::fastbloom_rs::FastbloomRsCounting;
pub use self::growable::Growable;
pub use self::probabilistic::{ProbabilisticBloom, ProbabilisticCuckoo, ProbabilisticScalable};
pub use self::qfilter::Qfilter;
pub use self::xorf::Fuse8;

use bloomlab_core::{DefaultHasher, InsertError, RemoveError};

/// The answer of `insert` for a crate whose insert says only whether it
/// stored the item: `Ok(true)` (it does not say whether the item was
/// reported present before), and `Full` for its refusal.
#[inline]
fn stored<E>(outcome: Result<(), E>) -> Result<bool, InsertError> {
    outcome.map(|()| true).map_err(|_| InsertError::Full)
}

/// The answer of `remove` for a crate whose remove says whether it found
/// the item.
#[inline]
fn found(removed: bool) -> Result<(), RemoveError> {
    if removed {
        Ok(())
    } else {
        Err(RemoveError::NotPresent)
    }
}

/// Keyed SipHash-1-3 as a [`BuildHasher`] that is `Copy`, as
/// `probabilistic-collections` asks of its hashers: the same values as
/// [`sip_seeded`]`(seed)`, whose key is `DefaultHasher::from_seed(seed)`'s.
///
/// [`BuildHasher`]: std::hash::BuildHasher
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SipKey([u64; 2]);

impl SipKey {
    /// The key of `DefaultHasher::from_seed(seed)`.
    pub fn from_seed(seed: u64) -> Self {
        Self(sip_seeded(seed).key())
    }
}

impl std::hash::BuildHasher for SipKey {
    type Hasher = siphasher::sip::SipHasher13;

    fn build_hasher(&self) -> Self::Hasher {
        siphasher::sip::SipHasher13::new_with_keys(self.0[0], self.0[1])
    }
}

/// bloomlab's [`DefaultHasher`] of `seed` under SipHash-1-3, its default
/// function before AES-128-CMAC: the hasher the benchmarks that hold the
/// hash fixed give to bloomlab's filters and to every peer that takes one.
/// Its `build_hasher`, which the peers call for every item, is as cheap as
/// the peers' own (AES-CMAC's must copy or share its round keys).
pub fn sip_seeded(seed: u64) -> DefaultHasher {
    DefaultHasher::from_seed_with(bloomlab_core::hash::HashFunction::SipHash13, seed)
}

/// Keyed SipHash-1-3 for `seed` and `seed + 1`: the pair of hashers given
/// to the peers that ask for two (`probabilistic-collections`), the first
/// of which hashes exactly as a bloomlab filter built with
/// [`sip_seeded`]`(seed)` does.
pub fn sip_pair(seed: u64) -> [SipKey; 2] {
    [
        SipKey::from_seed(seed),
        SipKey::from_seed(seed.wrapping_add(1)),
    ]
}

#[cfg(test)]
mod tests {
    use bloomlab_core::{Filter, Membership};

    /// What every adapter does with one item inserted twice into the empty
    /// `f`: it answers `Ok(true)`, then `Ok(second)` (`true` where the crate
    /// does not say whether the item was there), reports it present, counts
    /// `len`, gives a rate in (0, 10^-3), and forgets it on `clear`.
    pub(super) fn one_item_twice<F: Filter + Membership<u64>>(mut f: F, second: bool, len: usize) {
        assert_eq!(f.insert(&42), Ok(true));
        assert_eq!(f.insert(&42), Ok(second));
        assert!(f.contains(&42));
        assert_eq!(Filter::len(&f), len);
        let fpr = f.expected_fpr();
        assert!(fpr > 0.0 && fpr < 1e-3, "{fpr}");
        f.clear();
        assert!(f.is_empty() && !f.contains(&42));
    }
}
