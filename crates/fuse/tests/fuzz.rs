//! Decode-and-use fuzzing of the binary fuse filter: arbitrary bytes, and
//! real filters' files with their fields changed and the checksum
//! recomputed, go to `from_bytes`; every method is then called on whatever
//! decodes. No case may panic, hang (10 s per case) or abort.
//!
//! The directed cases of [`fuzz::Plan`] set every stored parameter of five
//! small filters (8-, 16- and 32-bit fingerprints, 3- and 4-wise, of
//! one key, two and a few hundred) to each edge value; [`RANDOM_CASES`]
//! random cases follow.
//!
//! To see one case: `BLOOMLAB_FUZZ_CASE=<index> cargo test -p bloomlab-fuse --test fuzz`.

use bloomlab_fuse::{BinaryFuseFilter, TAG};
use bloomlab_testkit::fuzz::{self, EXTREME_HASHES, Field, Kind, Plan, Sample};
use bloomlab_testkit::keys::members;

/// Random cases after the directed ones: a case that decodes builds no
/// table, so each costs microseconds.
const RANDOM_CASES: u64 = 200_000;

/// The stored parameters ([`BinaryFuseFilter::to_bytes`]).
fn fields() -> Vec<Field> {
    Field::params(
        0,
        &[
            ("fingerprint_bits", Kind::U8),
            ("arity", Kind::U8),
            ("segment_length_log2", Kind::U8),
            ("segment_count", Kind::U32),
            ("seed", Kind::U64),
            ("keys", Kind::U64),
        ],
    )
}

fn samples() -> Vec<Sample> {
    let shapes = [
        (8, 3, 300),
        (8, 4, 1),
        (16, 3, 2),
        (16, 4, 120),
        (32, 3, 40),
    ];
    let filters = shapes.into_iter().zip(1..).map(|((bits, arity, n), seed)| {
        BinaryFuseFilter::<u64>::builder_with_bits(bits)
            .arity(arity)
            .seed(seed)
            .build(members(seed, n))
            .expect("a small set builds")
    });
    fuzz::samples(filters, |_| fields())
}

#[test]
fn fuse_decode_and_use() {
    let plan = Plan::new("fuse", TAG, samples()).cases(RANDOM_CASES, 8);
    fuzz::run_decoder(&plan, BinaryFuseFilter::from_bytes, use_fuse);
}

/// Every method of a [`BinaryFuseFilter`]: a filter built from its keys
/// takes no inserts, so it is read, copied, written and read back.
fn use_fuse(f: &mut BinaryFuseFilter<u64>) {
    let _ = (f.len(), f.is_empty(), f.memory_bytes(), f.expected_fpr());
    let _ = (f.fingerprint_bits(), f.arity(), f.segment_length());
    let _ = (f.segment_count(), f.slots(), f.hasher());
    for h in EXTREME_HASHES {
        let _ = f.contains_hash(h);
    }
    let keys = members(40, 24);
    let one_by_one: Vec<bool> = keys.iter().map(|k| f.contains(k)).collect();
    assert_eq!(
        f.contains_batch(&keys),
        one_by_one,
        "batch and single lookups disagree"
    );
    let bytes = f.to_bytes();
    assert_eq!(f.clone().to_bytes(), bytes, "a clone differs");
    let _ = format!("{f:?}");
    let back =
        BinaryFuseFilter::<u64>::from_bytes(&bytes).expect("the filter's bytes decode again");
    assert_eq!(back.to_bytes(), bytes, "the filter read back differs");
    f.clear();
    assert!(f.is_empty());
}
