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

use bloomlab_core::codec::Variant;
use bloomlab_scalable::ScalableBloomFilter;
use bloomlab_testkit::fuzz::{self, Field, Kind, Plan, Sample};
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
    let mut v = vec![
        Field::param("initial_capacity", 0, Kind::U64),
        Field::param("fpr", 8, Kind::F64),
        Field::param("growth_factor", 16, Kind::U32),
        Field::param("tightening_ratio", 20, Kind::F64),
        Field::param("capped", 28, Kind::U8),
        Field::param("max_bytes", 29, Kind::U64),
        Field::param("len", 37, Kind::U64),
        Field::param("active", 45, Kind::U32),
        Field::param("layers", 49, Kind::U32),
    ];
    const NAMES: [[&str; 3]; 4] = [
        ["layer 0 bits", "layer 0 hashes", "layer 0 added"],
        ["layer 1 bits", "layer 1 hashes", "layer 1 added"],
        ["layer 2 bits", "layer 2 hashes", "layer 2 added"],
        ["last layer bits", "last layer hashes", "last layer added"],
    ];
    let named = (0..layers.min(3)).chain((layers > 3).then_some(layers - 1));
    for (i, [bits, hashes, added]) in named.zip(NAMES.iter().take(3).chain([&NAMES[3]])) {
        let at = 53 + 20 * i;
        v.push(Field::param(bits, at, Kind::U64));
        v.push(Field::param(hashes, at + 8, Kind::U32));
        v.push(Field::param(added, at + 12, Kind::U64));
    }
    v
}

/// Inserts until the first refusal or `n` items.
fn fill(f: &mut ScalableBloomFilter<u64>, seed: u64, n: usize) {
    for k in members(seed, n) {
        if f.insert(&k).is_err() {
            break;
        }
    }
}

fn samples() -> Vec<Sample> {
    let mut a = ScalableBloomFilter::builder(100, 0.01)
        .seed(1)
        .build()
        .unwrap();
    fill(&mut a, 1, 250);
    let mut b = ScalableBloomFilter::builder(10, 0.5)
        .growth_factor(4)
        .tightening_ratio(0.99)
        .seed(2)
        .build()
        .unwrap();
    fill(&mut b, 2, 5);
    let mut c = ScalableBloomFilter::builder(1, 0.001)
        .redisbloom()
        .max_bytes(4096)
        .seed(3)
        .build()
        .unwrap();
    fill(&mut c, 3, 10_000);
    let mut d = ScalableBloomFilter::builder(20, 0.05)
        .seed(4)
        .build()
        .unwrap();
    fill(&mut d, 4, 100);
    d.clear();
    fill(&mut d, 5, 3);
    [a, b, c, d]
        .iter()
        .map(|f| Sample {
            label: format!(
                "n0={} P={} s={} r={} cap={:?} layers={} n={}",
                f.initial_capacity(),
                f.fpr(),
                f.growth_factor(),
                f.tightening_ratio(),
                f.max_bytes(),
                f.layers().len(),
                f.len()
            ),
            bytes: f.to_bytes(),
            fields: fields(f.layers().len()),
        })
        .collect()
}

#[test]
fn scalable_decode_and_use() {
    let mut plan = Plan::new("scalable", Variant::Scalable, samples());
    plan.random_cases = RANDOM_CASES;
    plan.seed = 15;
    let report = fuzz::run(&plan, |bytes| {
        match ScalableBloomFilter::from_bytes(bytes) {
            Ok(mut f) => {
                use_scalable(&mut f);
                fuzz::use_membership(&mut f);
                true
            }
            Err(_) => false,
        }
    });
    eprintln!("scalable: {report}");
}

/// Probes: the extreme hashes.
const HASHES: [u64; 4] = [0, 1, u64::MAX, 0x8000_0000_0000_0000];

/// Every inherent method of a [`ScalableBloomFilter`], with enough inserts
/// to fill a small filter's active layer and add the next.
fn use_scalable(f: &mut ScalableBloomFilter<u64>) {
    let layers = f.layers().len() as u32;
    let _ = (f.len(), f.is_empty(), f.added(), f.capacity());
    let _ = (f.fpr(), f.initial_capacity(), f.growth_factor());
    let _ = (f.tightening_ratio(), f.max_bytes(), f.hasher());
    let _ = (f.memory_bytes(), f.expected_fpr());
    for i in [0, 1, layers, layers + 1, 64, 1100, u32::MAX] {
        let _ = (f.layer_capacity(i), f.layer_fpr(i));
    }
    for h in HASHES {
        let _ = f.contains_hash(h);
    }
    let keys = members(40, 240);
    let _ = f.contains_batch(&keys);
    let _ = f.insert(&u64::MAX);
    let _ = f.contains(&u64::MAX);
    for h in HASHES {
        if f.insert_hash(h).is_ok() {
            assert!(f.contains_hash(h), "hash {h:#x} absent after insert_hash");
        }
    }
    for k in &keys[..120] {
        if f.insert(k).is_ok() {
            assert!(f.contains(k), "an inserted item is absent");
        }
    }
    let stored = match f.insert_batch(&keys[120..]) {
        Ok(_) => 120,
        Err(e) => e.stored,
    };
    assert!(
        keys[120..120 + stored].iter().all(|k| f.contains(k)),
        "an item insert_batch stored is absent"
    );
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
}
