//! The suite every variant's tests run: one generic check over
//! `F: Membership<u64> + Persist`, given a constructor.
//!
//! ```ignore
//! #[test]
//! fn conformance() {
//!     conformance::run(|n, p, seed| BloomFilter::builder(n, p).seed(seed).build());
//! }
//! ```

use std::fmt::Debug;

use bloomlab_core::{Membership, Persist};

use crate::keys::{members, probes};
use crate::rates::assert_in_interval;

/// How the suite sizes its filters and how many probes it spends.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    /// Items the filter is built for and filled with.
    pub items: usize,
    /// The target false-positive rate the filter is built for.
    pub fpr: f64,
    /// Non-member probes for the rate check.
    pub probes: usize,
}

impl Default for Scale {
    fn default() -> Self {
        Self {
            items: 10_000,
            fpr: 0.01,
            probes: 1_000_000,
        }
    }
}

/// Runs every check at the default [`Scale`]; see [`run_at`].
pub fn run<F, E, C>(make: C)
where
    F: Membership<u64> + Persist,
    E: Debug,
    C: Fn(usize, f64, u64) -> Result<F, E>,
{
    run_at(Scale::default(), make);
}

/// Runs every check. `make(items, fpr, seed)` must build an empty filter for
/// `items` items at rate `fpr`, its hash key derived from `seed`.
///
/// # Panics
///
/// On the first check that fails, naming it, or if `make` fails.
pub fn run_at<F, E, C>(scale: Scale, make: C)
where
    F: Membership<u64> + Persist,
    E: Debug,
    C: Fn(usize, f64, u64) -> Result<F, E>,
{
    let make = |items, fpr, seed| {
        make(items, fpr, seed)
            .unwrap_or_else(|e| panic!("a filter for {items} items at {fpr}: {e:?}"))
    };
    no_false_negatives_and_rate(scale, &make);
    len_and_clear(&make);
    round_trip(scale, &make);
    corruption_is_detected(&make);
}

/// How many independent filters the rate check averages over.
pub const RATE_FILTERS: u64 = 10;

/// Fills [`RATE_FILTERS`] filters to capacity, each with its own seed: no
/// member reported absent; the false positives of all of them together inside
/// the 99.9% binomial interval of the mean `expected_fpr()`; and no fewer bits
/// than the information-theoretic bound at the rate each reports.
///
/// Why several filters: one table's true rate scatters around theory (its
/// fill is random), which a binomial interval over probes does not account
/// for. At 10,000 items that scatter is about 1.2% of the rate for a classic
/// filter, more than the 1% the probes themselves contribute at 10^6 probes,
/// so a single table would fall outside a "99.9%" interval a few percent of
/// the time. Averaged over ten tables the scatter adds a tenth of its variance:
/// the interval then covers about 99.8% of outcomes instead of 99.9%.
pub fn no_false_negatives_and_rate<F, C>(scale: Scale, make: &C)
where
    F: Membership<u64>,
    C: Fn(usize, f64, u64) -> F,
{
    let per_filter = scale.probes / RATE_FILTERS as usize;
    let (mut hits, mut expected_sum) = (0u64, 0.0f64);
    for j in 0..RATE_FILTERS {
        let mut f = make(scale.items, scale.fpr, 11 + 100 * j);
        assert!(f.is_empty() && f.len() == 0, "a new filter is empty");
        assert_eq!(
            f.expected_fpr(),
            0.0,
            "an empty filter has no false positives"
        );
        let keys = members(12 + 100 * j, scale.items);
        for k in &keys {
            f.insert(k)
                .expect("a filter takes the items it was built for");
        }
        let missing = keys.iter().filter(|k| !f.contains(k)).count();
        assert_eq!(missing, 0, "false negatives after {} inserts", scale.items);
        assert_eq!(f.len(), scale.items);

        let expected = f.expected_fpr();
        assert!(expected > 0.0 && expected <= 1.0, "expected_fpr {expected}");
        expected_sum += expected;
        hits += probes(13 + 100 * j, per_filter)
            .filter(|p| f.contains(p))
            .count() as u64;

        let bits = f.memory_bytes() as f64 * 8.0;
        let bound = scale.items as f64 * (1.0 / expected).log2();
        assert!(
            bits >= bound,
            "{bits} bits cannot reach rate {expected} for {} items",
            scale.items
        );
        let per_item = f.bits_per_item().expect("not empty");
        assert!((per_item - bits / scale.items as f64).abs() < 1e-9);
    }
    let trials = per_filter as u64 * RATE_FILTERS;
    let expected = expected_sum / RATE_FILTERS as f64;
    let what = format!("false positives of {RATE_FILTERS} filters at the mean expected_fpr");
    assert_in_interval(hits, trials, expected, what);
}

/// `insert` reports new items, `len` counts them, `clear` empties the filter.
pub fn len_and_clear<F, C>(make: &C)
where
    F: Membership<u64>,
    C: Fn(usize, f64, u64) -> F,
{
    let mut f = make(1_000, 0.001, 21);
    let keys = members(22, 500);
    let new = f.insert_all(&keys).expect("room for 500 of 1,000");
    // Each Ok(false) is a false positive among 500 fresh keys at rate ≤ 0.001.
    assert!(new >= 490, "only {new} of 500 fresh keys reported new");
    assert_eq!(f.len(), 500);
    assert_eq!(f.count_contained(&keys), 500);
    assert_eq!(
        f.insert(&keys[0]),
        Ok(false),
        "a member is reported present"
    );
    let before = f.memory_bytes();
    f.clear();
    assert!(f.is_empty());
    assert_eq!(f.memory_bytes(), before, "clear keeps the table");
    assert_eq!(f.count_contained(&keys), 0, "clear forgets every item");
    assert_eq!(f.insert(&keys[0]), Ok(true));
}

/// Encoding and decoding gives a filter that answers every query alike.
pub fn round_trip<F, C>(scale: Scale, make: &C)
where
    F: Membership<u64> + Persist,
    C: Fn(usize, f64, u64) -> F,
{
    let mut f = make(scale.items, scale.fpr, 31);
    let keys = members(32, scale.items / 2);
    f.insert_all(&keys).expect("room for half the capacity");
    let bytes = f.to_bytes();
    let g = F::from_bytes(&bytes).expect("a filter decodes what it encoded");
    assert_eq!(g.len(), f.len());
    assert_eq!(g.memory_bytes(), f.memory_bytes());
    assert_eq!(g.expected_fpr().to_bits(), f.expected_fpr().to_bits());
    assert_eq!(g.count_contained(&keys), keys.len());
    let disagree = probes(33, 100_000)
        .filter(|p| f.contains(p) != g.contains(p))
        .count();
    assert_eq!(disagree, 0, "decoded filter answers differently");
    assert_eq!(g.to_bytes(), bytes, "re-encoding changes the bytes");
}

/// Every single-byte corruption and every truncation of a small encoded
/// filter is an error, never a panic or a different filter.
pub fn corruption_is_detected<F, C>(make: &C)
where
    F: Membership<u64> + Persist,
    C: Fn(usize, f64, u64) -> F,
{
    let mut f = make(40, 0.05, 41);
    f.insert_all(&members(42, 20)).expect("room");
    let bytes = f.to_bytes();
    for i in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut bad = bytes.clone();
            bad[i] ^= flip;
            assert!(
                F::from_bytes(&bad).is_err(),
                "corrupting byte {i} with {flip:#x} went unseen"
            );
        }
    }
    for len in 0..bytes.len() {
        assert!(
            F::from_bytes(&bytes[..len]).is_err(),
            "truncation to {len} bytes went unseen"
        );
    }
}
