//! Decode-and-use fuzzing of the scalable filter (issue 12): arbitrary
//! bytes, and real filters' files with their fields changed and the checksum
//! recomputed, go to `from_bytes`; every method is then called on whatever
//! decodes, with enough inserts to add a layer to a small filter. No case may
//! panic, hang (10 s per case) or abort.
//!
//! The directed cases of [`fuzz::Plan`] set every stored field of four small
//! filters (two layers; one layer with growth 4; capped at 4 KiB and full;
//! cleared with empty layers after the active one), every layer's fields
//! included, to each edge value; [`RANDOM_CASES`] random cases follow. See
//! the const for the time they take.
//!
//! To see one case: `BLOOMLAB_FUZZ_CASE=<index> cargo test -p bloomlab-scalable --test fuzz`.

use bloomlab_scalable::{ScalableBloomFilter, TAG};
use bloomlab_testkit::fuzz::{self, EXTREME_HASHES, Field, Kind, Plan, Sample};
use bloomlab_testkit::item_methods;
use bloomlab_testkit::keys::members;

/// Random cases after the directed ones. A case costs about 6 µs on average
/// here: most inputs are refused in microseconds, and one that decodes takes
/// 50–500 µs (some 300 inserts that may add a layer, five encodings). 4 s
/// measured in the test profile on two cores, well inside the 20–30 s a
/// variant may spend in CI, with room for a slower machine.
const RANDOM_CASES: u64 = 600_000;

/// The stored parameters ([`bloomlab_scalable::codec`]) of a filter of
/// `layers` layers: the schedule, and the fields of the first three layers
/// and of the last.
fn fields(layers: usize) -> Vec<Field> {
    use Kind::*;
    let mut v = Field::params(
        0,
        &[
            ("initial_capacity", U64),
            ("fpr", F64),
            ("growth_factor", U32),
            ("tightening_ratio", F64),
            ("capped", U8),
            ("max_bytes", U64),
            ("len", U64),
            ("active", U32),
            ("layers", U32),
        ],
    );
    const NAMES: [[&str; 3]; 4] = [
        ["layer 0 bits", "layer 0 hashes", "layer 0 added"],
        ["layer 1 bits", "layer 1 hashes", "layer 1 added"],
        ["layer 2 bits", "layer 2 hashes", "layer 2 added"],
        ["last layer bits", "last layer hashes", "last layer added"],
    ];
    let named = (0..layers.min(3)).chain((layers > 3).then_some(layers - 1));
    for (i, [bits, hashes, added]) in named.zip(NAMES.iter().take(3).chain([&NAMES[3]])) {
        v.extend(Field::params(
            53 + 20 * i,
            &[(bits, U64), (hashes, U32), (added, U64)],
        ));
    }
    v
}

fn samples() -> Vec<Sample> {
    let builder = ScalableBloomFilter::builder;
    let builders = [
        (builder(100, 0.01), 250),
        (builder(10, 0.5).growth_factor(4).tightening_ratio(0.99), 5),
        (builder(1, 0.001).redisbloom().max_bytes(4096), 10_000),
        (builder(20, 0.05), 100),
    ];
    let mut filters = fuzz::seeded(builders, |b, seed| b.seed(seed).build().unwrap());
    // Cleared, with empty layers after the active one.
    filters[3].clear();
    fuzz::fill(&mut filters[3], 5, 3);
    fuzz::samples(filters, |f| fields(f.layers().len()))
}

#[test]
fn scalable_decode_and_use() {
    let plan = Plan::new("scalable", TAG, samples()).cases(RANDOM_CASES, 15);
    fuzz::run_decoder(&plan, ScalableBloomFilter::from_bytes, use_scalable);
}

/// Every inherent method of a [`ScalableBloomFilter`], with enough inserts
/// to fill a small filter's active layer and add the next, then
/// [`fuzz::use_membership`].
fn use_scalable(f: &mut ScalableBloomFilter<u64>) {
    let layers = f.layers().len() as u32;
    let _ = (f.len(), f.is_empty(), f.added(), f.capacity());
    let _ = (f.target_fpr(), f.initial_capacity(), f.growth_factor());
    let _ = (f.tightening_ratio(), f.max_bytes(), f.hasher());
    let _ = (f.memory_bytes(), f.expected_fpr());
    for i in [0, 1, layers, layers + 1, 64, 1100, u32::MAX] {
        let _ = (f.layer_capacity(i), f.layer_fpr(i));
    }
    for h in EXTREME_HASHES {
        let _ = f.contains_hash(h);
    }
    for h in EXTREME_HASHES {
        if f.insert_hash(h).is_ok() {
            assert!(f.contains_hash(h), "hash {h:#x} absent after insert_hash");
        }
    }
    let methods = item_methods!(ScalableBloomFilter<u64>);
    fuzz::use_items(f, &methods, &members(40, 240));
    assert!(f.added() <= f.len() as u64 || f.len() == usize::MAX);
    let _ = (f.capacity(), f.memory_bytes(), f.expected_fpr());
    for layer in f.layers() {
        let _ = (layer.num_bits(), layer.len(), layer.expected_fpr());
    }
    let copy = f.clone();
    assert_eq!(copy.to_bytes(), f.to_bytes(), "a clone differs");
    let _ = format!("{f:?}");
    let bytes = f.to_bytes();
    ScalableBloomFilter::<u64>::from_bytes(&bytes).expect("the filter's bytes decode after use");
    fuzz::use_membership(f);
}
