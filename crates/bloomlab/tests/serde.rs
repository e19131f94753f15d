//! Every filter round-trips through serde (feature `serde`) as the bytes of
//! its envelope, and a corrupted or mistyped record is an error, not a
//! filter (issue 13, point 6).

mod common;

use bloomlab::prelude::*;
use common::{AnyFilter, EachFilter, each_filter};

/// JSON out and back: the same filter, the same bytes, the same answers.
struct RoundTrip;

impl EachFilter for RoundTrip {
    fn visit<F: AnyFilter>(&mut self, mut f: F) {
        for i in 0..500u64 {
            f.insert(&i).unwrap();
        }
        let json = serde_json::to_string(&f).unwrap();
        let back: F = serde_json::from_str(&json).unwrap();
        assert_eq!(back, f);
        assert_eq!(back.to_bytes(), f.to_bytes());
        assert!((0..500u64).all(|i| back.contains(&i)));

        // One flipped byte fails the checksum: an error naming it.
        let mut bytes = f.to_bytes();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x10;
        let corrupted = serde_json::to_string(&bytes).unwrap();
        let err = serde_json::from_str::<F>(&corrupted).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
    }
}

#[test]
fn every_filter_round_trips_through_serde() {
    each_filter(1_000, 100, &mut RoundTrip);
}

#[test]
fn a_record_of_another_filter_is_refused_naming_both() {
    let classic = BloomFilter::<u64>::builder(100, 0.01)
        .seed(1)
        .build()
        .unwrap();
    let json = serde_json::to_string(&classic).unwrap();
    let err = serde_json::from_str::<CuckooFilter<u64>>(&json).unwrap_err();
    // Core knows a tag, not the filter behind it: the catalog does.
    let msg = err.to_string();
    assert!(msg.contains("not a CuckooFilter (variant tag 6)"), "{msg}");
    assert!(msg.contains("a filter of variant tag 1"), "{msg}");
    let found = bloomlab::catalog::by_tag::<u64>(1).unwrap();
    assert_eq!(found.type_name, "BloomFilter");
}
