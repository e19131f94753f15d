//! Decode-and-use fuzzing of the quotient filter: arbitrary bytes, and real
//! filters' files with their fields changed and the checksum recomputed, go
//! to `from_bytes`; every method is then called on whatever decodes. No
//! case may panic, hang (10 s per case) or abort.
//!
//! The directed cases of [`fuzz::Plan`] set every stored parameter of six
//! small filters (fixed remainders at 1% and of one bit, a table filled to
//! its maximum load, a growing filter before and after its doublings, one
//! grown against a byte limit) to each edge value; [`RANDOM_CASES`] random
//! cases follow.
//!
//! To see one case: `BLOOMLAB_FUZZ_CASE=<index> cargo test -p bloomlab-quotient --test fuzz`.

use bloomlab_quotient::{QuotientFilter, TAG};
use bloomlab_testkit::fuzz::{self, EXTREME_HASHES, Field, Kind, Plan};
use bloomlab_testkit::item_methods;
use bloomlab_testkit::keys::members;

/// Random cases after the directed ones. Most mutations fail the decoder's
/// checks of the table (3,527 of 201,229 cases decode), so a case costs
/// about 11 µs: 2.3 s measured in the test profile on two busy cores.
const RANDOM_CASES: u64 = 200_000;

/// The stored parameters ([`QuotientFilter::to_bytes`]).
fn fields() -> Vec<Field> {
    Field::params(
        0,
        &[
            ("quotient_bits", Kind::U8),
            ("slot_bits", Kind::U8),
            ("variable", Kind::U8),
            ("insert_bits", Kind::U8),
            ("grows", Kind::U8),
            ("expansions", Kind::U8),
            ("promise", Kind::F64),
            ("max_bytes", Kind::U64),
            ("len", Kind::U64),
        ],
    )
}

fn samples() -> Vec<fuzz::Sample> {
    let fixed = |n, p| QuotientFilter::<u64>::builder(n, p);
    let grows = |n| QuotientFilter::<u64>::builder(n, 0.01).growth(true);
    let builders = [
        (fixed(100, 0.01), 80),
        (QuotientFilter::builder_with_bits(6, 1), 40),
        // Filled until an insert is refused: runs up against the spare blocks.
        (QuotientFilter::builder_with_bits(7, 4), 10_000),
        (grows(50), 40),
        (grows(20), 400),
        (grows(20).max_bytes(600), 10_000),
    ];
    let filters = fuzz::seeded(builders, |b, seed| b.seed(seed).build().unwrap());
    fuzz::samples(filters, |_| fields())
}

#[test]
fn quotient_decode_and_use() {
    let plan = Plan::new("quotient", TAG, samples()).cases(RANDOM_CASES, 9);
    fuzz::run_decoder(&plan, QuotientFilter::from_bytes, use_quotient);
}

/// Every inherent method of a [`QuotientFilter`], then
/// [`fuzz::use_deletable`].
fn use_quotient(f: &mut QuotientFilter<u64>) {
    let _ = (f.quotient_bits(), f.remainder_bits(), f.slot_bits());
    let _ = (f.used_slots(), f.capacity(), f.fill_ratio(), f.grows());
    let _ = (f.expansions(), f.target_fpr(), f.memory_bytes());
    let _ = (f.bits_per_item(), f.expected_fpr(), f.hasher());
    let held: u64 = f.remainder_lengths().iter().sum();
    assert_eq!(
        held,
        f.used_slots(),
        "remainder lengths disagree with the slots used"
    );
    for h in EXTREME_HASHES {
        let _ = (f.contains_hash(h), f.count_hash(h));
    }
    let keys = members(40, 24);
    fuzz::use_items(f, &item_methods!(QuotientFilter<u64>), &keys);
    let _ = f.count(&u64::MAX);
    for h in EXTREME_HASHES {
        if f.insert_hash(h).is_ok() {
            assert!(f.contains_hash(h), "hash {h:#x} absent after insert_hash");
        }
    }
    fuzz::remove_some(f, &keys[..8]);
    for k in &keys[..8] {
        let _ = f.count(k);
    }
    let copy = f.clone();
    let _ = f.clone().merge(&copy);
    let _ = format!("{f:?}");
    let bytes = f.to_bytes();
    QuotientFilter::<u64>::from_bytes(&bytes).expect("the filter's bytes decode after use");
    fuzz::use_deletable(f);
}
