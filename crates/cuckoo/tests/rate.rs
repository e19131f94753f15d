//! The measured false-positive rate of a full table against theory.

use bloomlab_core::Membership;
use bloomlab_core::theory::cuckoo as theory;
use bloomlab_cuckoo::CuckooFilter;
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::rates::assert_in_interval;

/// Fills a 2^14-bucket, 4-slot table until the first `Full`, then counts
/// the false positives among fresh probes: the count must fall in the 99.9%
/// binomial interval of `expected_fpr()`, which is theory at the load the
/// table reached (α = len / slots) with 2^f − 1 fingerprint values.
fn rate_at_full_load(f: u32, probe_count: usize) {
    let mut cf = CuckooFilter::builder_with_buckets(1 << 14, f)
        .seed(u64::from(f))
        .build()
        .unwrap();
    for key in members(1_000 + u64::from(f), cf.capacity() as usize) {
        if cf.insert(&key).is_err() {
            break;
        }
    }
    let load = cf.fill_ratio();
    assert!(load > 0.95, "f {f}: filled only to {load}");
    let expected = cf.expected_fpr();
    assert_eq!(expected, theory::fpr(f, 4, load));
    // The occupancy-aware refinement is never above it, and barely below.
    let refined = cf.estimated_fpr();
    assert!(refined <= expected && (expected - refined) / expected < 1e-3);
    let hits = probes(2_000 + u64::from(f), probe_count)
        .filter(|p| cf.contains(p))
        .count() as u64;
    let what = format!("f {f}: false positives at load {load:.4}");
    assert_in_interval(hits, probe_count as u64, expected, what);
    // bits_per_item agrees with the theory's f/α.
    let per_item = cf.bits_per_item().unwrap();
    assert!((per_item - theory::bits_per_item(f, load)).abs() < 1e-9);
}

#[test]
fn eight_bit_fingerprints_at_full_load() {
    rate_at_full_load(8, 200_000); // about 6,000 false positives
}

#[test]
fn twelve_bit_fingerprints_at_full_load() {
    rate_at_full_load(12, 1_000_000); // about 1,900
}

#[test]
fn sixteen_bit_fingerprints_at_full_load() {
    rate_at_full_load(16, 4_000_000); // about 460
}

/// Two- and eight-slot buckets at a load in between.
#[test]
fn other_bucket_sizes_at_partial_load() {
    for (b, f) in [(2, 8), (8, 10)] {
        let mut cf = CuckooFilter::builder_with_buckets(1 << 12, f)
            .bucket_size(b)
            .seed(5)
            .build()
            .unwrap();
        let n = cf.capacity() as usize * 3 / 4;
        cf.insert_all(&members(77, n)).unwrap();
        assert_eq!(cf.fill_ratio(), 0.75);
        let expected = cf.expected_fpr();
        let probe_count = 500_000;
        let hits = probes(78, probe_count).filter(|p| cf.contains(p)).count() as u64;
        let what = format!("b {b} f {f}: false positives");
        assert_in_interval(hits, probe_count as u64, expected, what);
    }
}
