//! Decode-and-use fuzzing of the cuckoo filter (issue 12): arbitrary bytes,
//! and real filters' files with their fields changed and the checksum
//! recomputed, go to `from_bytes`; every method is then called on whatever
//! decodes. No case may panic, hang (10 s per case) or abort.
//!
//! The directed cases of [`fuzz::Plan`] set every stored field of seven small
//! filters (2-, 4- and 8-slot buckets, one bucket alone, a full table with
//! its relocation bound raised to the largest, a semi-sorted table, 8-slot
//! buckets of 20-bit fingerprints in an odd count, and a file of the first,
//! power-of-two format) to each edge value; [`RANDOM_CASES`] random cases
//! follow. See the const for the time they take.
//!
//! To see one case: `BLOOMLAB_FUZZ_CASE=<index> cargo test -p bloomlab-cuckoo --test fuzz`.

use bloomlab_cuckoo::{CuckooFilter, TAG};
use bloomlab_testkit::fuzz::{self, EXTREME_HASHES, Field, Kind, Plan, Sample};
use bloomlab_testkit::item_methods;
use bloomlab_testkit::keys::members;

/// Random cases after the directed ones. A case costs about 50 µs on average
/// here, most of it in the decoded full tables whose every insert tries all
/// its relocations (up to 0.1 s for a case with 2^16 of them): 11 s
/// measured in the test profile on two cores, inside the 20–30 s a variant
/// may spend in CI, with room for a slower machine.
const RANDOM_CASES: u64 = 200_000;

/// Parameters of one-byte fields named `bytes`, then the fields `rest`.
fn params(bytes: &[&'static str], rest: &[(&'static str, Kind)]) -> Vec<Field> {
    let one_byte = bytes.iter().map(|&name| (name, Kind::U8));
    Field::params(0, &one_byte.chain(rest.iter().copied()).collect::<Vec<_>>())
}

/// The stored parameters ([`CuckooFilter::to_bytes`]).
fn fields() -> Vec<Field> {
    let bytes = [
        "bucket_size",
        "fingerprint_bits",
        "form",
        "layout",
        "alternate_map",
    ];
    params(
        &bytes,
        &[
            ("buckets", Kind::U64),
            ("max_relocations", Kind::U32),
            ("len", Kind::U64),
        ],
    )
}

/// The parameters of the first, power-of-two form.
fn legacy_fields() -> Vec<Field> {
    let bytes = ["bucket_size", "fingerprint_bits", "log2_buckets"];
    params(
        &bytes,
        &[("max_relocations", Kind::U32), ("len", Kind::U64)],
    )
}

fn samples() -> Vec<Sample> {
    let with_buckets = CuckooFilter::builder_with_buckets;
    let builders = [
        (CuckooFilter::builder(100, 0.01), 50),
        (with_buckets(1, 4).bucket_size(2), 10),
        (with_buckets(4, 16).bucket_size(8).max_relocations(0), 20),
        // A full table: every insert tries all its relocations. The directed
        // cases raise the bound to MAX_RELOCATIONS; the random ones keep it
        // low, as 60 failing inserts of 2^16 relocations each take 0.2 s.
        (with_buckets(8, 5).max_relocations(1_000), 1000),
        (with_buckets(6, 9).semi_sorted(true), 20),
        (with_buckets(5, 20).bucket_size(8), 30),
    ];
    let filters = fuzz::seeded(builders, |b, seed| b.seed(seed).build().unwrap());
    let legacy = Sample {
        label: "first format: buckets=64 b=4 f=12 n=230".into(),
        bytes: include_bytes!("fixtures/legacy_b4_f12.bin").to_vec(),
        fields: legacy_fields(),
    };
    let mut samples = fuzz::samples(filters, |_| fields());
    samples.push(legacy);
    samples
}

#[test]
fn cuckoo_decode_and_use() {
    let plan = Plan::new("cuckoo", TAG, samples()).cases(RANDOM_CASES, 16);
    fuzz::run_decoder(&plan, CuckooFilter::from_bytes, use_cuckoo);
}

/// Every inherent method of a [`CuckooFilter`], then
/// [`fuzz::use_deletable`].
fn use_cuckoo(f: &mut CuckooFilter<u64>) {
    let _ = (f.bucket_size(), f.fingerprint_bits(), f.num_buckets());
    let _ = (f.capacity(), f.max_relocations(), f.hasher());
    let _ = (f.len(), f.is_empty(), f.fill_ratio(), f.memory_bytes());
    let _ = (f.bits_per_item(), f.expected_fpr(), f.estimated_fpr());
    let occupancy = f.occupancy();
    assert_eq!(occupancy.len() as u32, f.bucket_size() + 1);
    let held: u64 = occupancy
        .iter()
        .enumerate()
        .map(|(j, c)| j as u64 * c)
        .sum();
    assert_eq!(held, f.len() as u64, "occupancy disagrees with len");
    for h in EXTREME_HASHES {
        let _ = (f.contains_hash(h), f.count_hash(h));
    }
    let keys = members(40, 24);
    fuzz::use_items(f, &item_methods!(CuckooFilter<u64>), &keys);
    let _ = f.count(&u64::MAX);
    for k in &members(41, 8) {
        let (b1, b2) = f.candidate_buckets(k);
        assert!(b1 < f.num_buckets() && b2 < f.num_buckets());
        if f.insert_unique(k).is_ok() {
            assert!(f.contains(k), "an item insert_unique took is absent");
        }
    }
    for h in EXTREME_HASHES {
        if f.insert_hash(h).is_ok() {
            assert!(f.contains_hash(h), "hash {h:#x} absent after insert_hash");
        }
        let _ = f.insert_unique_hash(h);
    }
    fuzz::remove_some(f, &keys[..8]);
    for k in &keys[..8] {
        let _ = f.count(k);
    }
    let copy = f.clone();
    assert!(copy == *f, "a clone differs");
    let _ = format!("{f:?}");
    let _ = (f.expected_fpr(), f.estimated_fpr(), f.bits_per_item());
    let bytes = f.to_bytes();
    CuckooFilter::<u64>::from_bytes(&bytes).expect("the filter's bytes decode after use");
    fuzz::use_deletable(f);
}
