//! Unit tests of the cuckoo filter's geometry and metadata.

use std::collections::HashMap;
use std::hash::BuildHasher;

use bloomlab_cuckoo::MAX_BUCKETS;

use bloomlab_core::ParamError;
use bloomlab_cuckoo::CuckooFilter;

use super::shape::CuckooState;
use super::*;
use crate::error::Error;
use crate::layout::Keys;
use crate::table::Options;

#[test]
fn locations_are_the_in_memory_filters() {
    for (items, fpr) in [(1_000usize, 0.01), (100_000, 0.001), (3, 0.2)] {
        let cf = CuckooFilter::<u64>::builder(items, fpr)
            .seed(5)
            .build()
            .unwrap();
        let meta = CuckooMeta::planned(items, fpr, &Options::new().seed(5), "u64".into()).unwrap();
        let g = meta.geometry().unwrap();
        assert_eq!(
            (g.buckets, g.fingerprint_bits),
            (cf.num_buckets(), cf.fingerprint_bits())
        );
        for item in 0..2_000u64 {
            let (fp, i1, i2) = g.locate(meta.hasher().hash_one(item));
            assert_eq!((i1, i2), cf.candidate_buckets(&item));
            assert_eq!(g.other(i2, fp), i1);
            assert!(fp >= 1 && fp < 1 << g.fingerprint_bits);
        }
    }
}

#[test]
fn shards_start_on_bytes_and_hold_whole_buckets() {
    // 13-bit fingerprints: a bucket is 52 bits, 8 buckets 52 bytes.
    let g = Geometry::new(1_002, 4, 13, 53 * 10).unwrap();
    assert_eq!(g.shard_buckets % 8, 0);
    assert!(g.shard_buckets * 52 / 8 < 53 * 10);
    let total: u64 = (0..g.shards()).map(|s| g.body_bytes(s)).sum();
    assert_eq!(total, g.table_bytes());
    assert_eq!(g.table_bytes(), (1_002u64 * 52).div_ceil(8));
    assert!(matches!(
        Geometry::new(8, 4, 13, 52),
        Err(Error::ShardTooSmall { needed: 53, .. })
    ));
    assert_eq!(Geometry::new(8, 4, 13, 53).unwrap().shards(), 1);
    // 2^32 buckets in shards of 8: past the cap on shard keys.
    assert!(matches!(
        Geometry::new(MAX_BUCKETS, 4, 13, 53),
        Err(Error::Param(ParamError::TooLarge { .. }))
    ));
    let most = Geometry::new(MAX_BUCKETS, 4, 32, 1 << 20).unwrap();
    assert!(most.shards() <= MAX_SHARDS);
}

#[test]
fn metadata_reads_back_and_every_bound_is_checked() {
    let keys = Keys::tagged("m").unwrap();
    let meta = CuckooMeta::planned(1_000, 0.01, &Options::new().seed(1), "u64".into()).unwrap();
    let hash: HashMap<String, String> = meta
        .fields(0)
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    let (back, state) = CuckooMeta::parse(&keys, &hash).unwrap();
    assert_eq!((back, state), (meta, CuckooState::default()));
    let bad = [
        ("buckets", "0"),
        ("buckets", "4294967297"),
        ("buckets", "-1"),
        ("bucket_size", "3"),
        ("fingerprint_bits", "33"),
        ("fingerprint_bits", "3"),
        ("max_relocations", "65537"),
        ("max_shard_bytes", "40"),
        ("max_shard_bytes", "536870913"),
        ("count", "1000000"),
        ("count", "x"),
        ("count", ""),
        ("ready", "2"),
        ("key", "00"),
        ("key", "+0000000000000000000000000000000"),
        ("format", "bloomlab-redis/1"),
        ("hash", "md5"),
        ("fpr", "1.5"),
        ("items", "0"),
        ("kind", "quotient"),
    ];
    for (field, value) in bad {
        let mut h = hash.clone();
        h.insert(field.to_owned(), value.to_owned());
        let e = CuckooMeta::parse(&keys, &h);
        assert!(
            matches!(e, Err(Error::CorruptMetadata { .. })),
            "{field} = {value:?}: {e:?}"
        );
    }
    let mut h = hash.clone();
    h.insert("kind".into(), "bloom".into());
    assert!(matches!(
        CuckooMeta::parse(&keys, &h),
        Err(Error::Mismatch { field: "kind", .. })
    ));
    h.remove("items");
    h.insert("kind".into(), KIND.into());
    assert!(CuckooMeta::parse(&keys, &h).is_err(), "fpr without items");
}
