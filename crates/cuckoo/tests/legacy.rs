//! Files of the first format (power-of-two bucket counts and at most 16-bit
//! fingerprints, with the XOR alternate bucket) still read, answer exactly
//! as the code that wrote them did, and keep working.
//!
//! The fixtures were written by that code (commit 8b4a8b5) with
//! `CuckooFilter::builder_with_buckets(buckets, f).bucket_size(b)
//! .max_relocations(r).seed(seed)`, then `members(seed, n)` inserted; each
//! `.probes` file holds the answers of `contains` for `probes(seed, 4_000)`,
//! one bit each, low bit first.

use std::fs;
use std::path::Path;

use bloomlab_core::{Deletable, Membership};
use bloomlab_cuckoo::CuckooFilter;
use bloomlab_testkit::keys::{members, probes};

struct Fixture {
    bytes: Vec<u8>,
    answers: Vec<u8>,
    buckets: u64,
    b: u32,
    f: u32,
    relocations: u32,
    seed: u64,
    n: usize,
}

/// `(buckets, b, f, relocations, seed, n)` of each fixture, whose files
/// are `fixtures/legacy_b{b}_f{f}.bin` and `.probes`.
const SHAPES: [(u64, u32, u32, u32, u64, usize); 3] = [
    (16, 2, 7, 500, 21, 24),
    (64, 4, 12, 500, 22, 230),
    (8, 8, 16, 77, 23, 50),
];

fn fixtures() -> Vec<Fixture> {
    SHAPES
        .into_iter()
        .map(|(buckets, b, f, relocations, seed, n)| {
            let read = |ext: &str| {
                let name = format!("legacy_b{b}_f{f}.{ext}");
                let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures")
                    .join(name);
                fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            };
            Fixture {
                bytes: read("bin"),
                answers: read("probes"),
                buckets,
                b,
                f,
                relocations,
                seed,
                n,
            }
        })
        .collect()
}

fn answers(cf: &CuckooFilter<u64>, seed: u64) -> Vec<bool> {
    probes(seed, 4_000).map(|p| cf.contains(&p)).collect()
}

fn recorded(bits: &[u8]) -> Vec<bool> {
    (0..4_000)
        .map(|i| bits[i / 8] >> (i % 8) & 1 == 1)
        .collect()
}

#[test]
fn first_format_files_read_and_answer_as_before() {
    for fx in &fixtures() {
        // The first form: a log2 bucket count in the third parameter byte.
        let params = &fx.bytes[28..28 + 15];
        assert_eq!(1u64 << params[2], fx.buckets);
        let cf = CuckooFilter::<u64>::from_bytes(&fx.bytes).unwrap();
        let label = format!("b {} f {}", fx.b, fx.f);
        assert_eq!(cf.num_buckets(), fx.buckets, "{label}");
        assert_eq!(cf.bucket_size(), fx.b, "{label}");
        assert_eq!(cf.fingerprint_bits(), fx.f, "{label}");
        assert_eq!(cf.max_relocations(), fx.relocations, "{label}");
        assert_eq!(cf.len(), fx.n, "{label}");
        assert!(!cf.is_semi_sorted());
        let keys = members(fx.seed, fx.n);
        assert_eq!(cf.count_contained(&keys), fx.n, "{label}");
        // Every answer, false positives included, is the old code's.
        assert_eq!(answers(&cf, fx.seed), recorded(&fx.answers), "{label}");
    }
}

#[test]
fn first_format_filters_keep_working_and_are_rewritten_in_the_new_form() {
    for fx in &fixtures() {
        let mut cf = CuckooFilter::<u64>::from_bytes(&fx.bytes).unwrap();
        let label = format!("b {} f {}", fx.b, fx.f);
        // Written again: the any-count form, which reads back the same
        // filter (the same XOR map) with the same answers.
        let bytes = cf.to_bytes();
        assert_eq!(bytes[28 + 2], 0x80, "{label}");
        let back = CuckooFilter::<u64>::from_bytes(&bytes).unwrap();
        assert!(back == cf, "{label}");
        assert_eq!(answers(&back, fx.seed), recorded(&fx.answers), "{label}");
        // Inserts until the first refusal lose nothing; every original
        // member can be removed.
        let keys = members(fx.seed, fx.n);
        let more = members(fx.seed + 1_000, cf.capacity() as usize);
        let mut added = Vec::new();
        for k in &more {
            if cf.insert(k).is_err() {
                break;
            }
            added.push(*k);
        }
        assert!(cf.fill_ratio() > 0.5, "{label}: {}", cf.fill_ratio());
        assert_eq!(cf.count_contained(&keys), keys.len(), "{label}");
        assert_eq!(cf.count_contained(&added), added.len(), "{label}");
        for k in &keys {
            assert_eq!(Deletable::remove(&mut cf, k), Ok(()), "{label}");
        }
        assert_eq!(cf.len(), added.len());
        assert_eq!(cf.count_contained(&added), added.len(), "{label}");
    }
}

/// The bytes the first format's value-stability test pinned: 4 buckets of
/// 2 × 8 bits, keys 1 to 5, seed 7.
#[test]
fn the_first_formats_pinned_bytes_still_read() {
    let hex = [
        "424c4d46",
        "0100",
        "0600",
        "d29c963834099d362914eed032e4c7d6",
        "0f000000",
        "02",
        "08",
        "02",
        "14000000",
        "0500000000000000",
        "0800000000000000",
        "0000e70081e59f50",
        "e10bbb2c",
    ]
    .concat();
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let cf = CuckooFilter::<u64>::from_bytes(&bytes).unwrap();
    assert_eq!(
        (cf.num_buckets(), cf.bucket_size(), cf.fingerprint_bits()),
        (4, 2, 8)
    );
    assert_eq!((cf.len(), cf.max_relocations()), (5, 20));
    assert!((1..=5u64).all(|k| cf.contains(&k)));
}
