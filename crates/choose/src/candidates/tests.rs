//! Tests of [`super`]: every sizing and decision against what the filters
//! build and what the documents claim.

use super::*;
use bloomlab::prelude::*;

/// Builds the real filter of `kind` for `w` and returns its memory in
/// bytes after inserting `w.peak_items()` distinct keys (only the
/// scalable filter changes size as it fills).
fn real_memory(kind: Kind, w: &Workload) -> (usize, String) {
    let n0 = w.items as usize;
    let n = w.peak_items() as usize;
    let p = w.fpr;
    match kind {
        Kind::Classic => {
            let f: BloomFilter<u64> = BloomFilter::builder(n, p).seed(1).build().unwrap();
            let shape = format!("m={} k={}", f.num_bits(), f.num_hashes());
            (f.memory_bytes(), shape)
        }
        Kind::Atomic => {
            let f: AtomicBloomFilter<u64> =
                AtomicBloomFilter::builder(n, p).seed(1).build().unwrap();
            let shape = format!("m={} k={}", f.num_bits(), f.num_hashes());
            (f.memory_bytes(), shape)
        }
        Kind::Blocked => {
            let f: BlockedBloomFilter<u64> =
                BlockedBloomFilter::builder(n, p).seed(1).build().unwrap();
            let shape = format!("blocks={} k={}", f.num_blocks(), f.num_hashes());
            (f.memory_bytes(), shape)
        }
        Kind::Counting(width) => {
            let f = CountingBloomFilter::<u64>::builder(n, p)
                .seed(1)
                .counter_width(width)
                .build()
                .unwrap();
            let shape = format!("m={} k={}", f.num_counters(), f.num_hashes());
            (f.memory_bytes(), shape)
        }
        Kind::Scalable(s) => {
            let mut f = ScalableBloomFilter::builder(n0, p)
                .seed(1)
                .growth_factor(s)
                .build()
                .unwrap();
            for i in 0..n as u64 {
                f.insert(&i).unwrap();
            }
            let shape: Vec<String> = f
                .layers()
                .iter()
                .map(|l| format!("m={} k={}", l.num_bits(), l.num_hashes()))
                .collect();
            (f.memory_bytes(), shape.join(" | "))
        }
        Kind::Cuckoo(b) => {
            let f = CuckooFilter::<u64>::builder(n, p)
                .seed(1)
                .bucket_size(b)
                .build()
                .unwrap();
            let shape = format!(
                "buckets={} f={} semi={}",
                f.num_buckets(),
                f.fingerprint_bits(),
                f.is_semi_sorted()
            );
            (f.memory_bytes(), shape)
        }
        Kind::Entry(_) => {
            let f = (kind.variant().build)(n, p, 1).unwrap();
            (f.memory_bytes(), super::planned(&f.shape()))
        }
    }
}

fn predicted_shape(params: &Params) -> String {
    match params {
        Params::Bits { bits, hashes } => format!("m={bits} k={hashes}"),
        Params::Blocks { blocks, hashes, .. } => format!("blocks={blocks} k={hashes}"),
        Params::Counters {
            counters, hashes, ..
        } => format!("m={counters} k={hashes}"),
        Params::Layers { layers, .. } => layers
            .iter()
            .map(|l| format!("m={} k={}", l.bits, l.hashes))
            .collect::<Vec<_>>()
            .join(" | "),
        Params::Buckets {
            buckets,
            fingerprint_bits,
            semi_sorted,
            ..
        } => format!("buckets={buckets} f={fingerprint_bits} semi={semi_sorted}"),
        Params::Planned { table } => table.clone(),
    }
}

#[test]
fn predictions_match_what_the_constructors_build() {
    // Sizes on both sides of the cuckoo small-table rule and of a
    // power-of-two bucket boundary; rates from 30% to 1.2e-4, where
    // 2-slot buckets need the widest fingerprint the crate stores.
    let sizes = [1u64, 7, 1_000, 3_891, 3_892, 50_000];
    let rates = [0.3, 0.01, 1e-3, 1.2e-4];
    for &n in &sizes {
        for &p in &rates {
            let w = Workload::fixed(n, p);
            for kind in Kind::all() {
                let sized = size(kind, &w).unwrap();
                if !sized.unbuildable.is_empty() {
                    continue; // checked below
                }
                let (bytes, shape) = real_memory(kind, &w);
                assert_eq!(
                    sized.figures.memory_bytes, bytes as u64,
                    "{kind:?} n={n} p={p}"
                );
                assert_eq!(
                    predicted_shape(&sized.figures.params),
                    shape,
                    "{kind:?} n={n} p={p}"
                );
            }
        }
    }
}

#[test]
fn scalable_predictions_match_a_grown_filter() {
    // Starts at 1,000 and grows to 5,500: three layers with s = 2
    // (1k + 2k + 4k), two with s = 4 (1k + 4k … then 16k).
    for (to, s) in [(5_500u64, 2u32), (5_500, 4), (3_000, 2), (21_000, 4)] {
        let mut w = Workload::fixed(1_000, 0.01);
        w.growth = super::super::workload::Growth::GrowsTo { to };
        let sized = size(Kind::Scalable(s), &w).unwrap();
        let (bytes, shape) = real_memory(Kind::Scalable(s), &w);
        assert_eq!(sized.figures.memory_bytes, bytes as u64, "to={to} s={s}");
        assert_eq!(predicted_shape(&sized.figures.params), shape);
    }
}

#[test]
fn unbuildable_cuckoo_configurations_are_refused_by_the_crate_too() {
    // At 10^-9 the fingerprint needs 2^f ≥ 2bα/ε + 1 at the design load
    // α: 33 bits with 4 slots (α = 0.95), 34 with 8; 32 with 2.
    for (b, needed) in [(4u32, 33u32), (8, 34)] {
        let plan = cuckoo_plan(10_000, 1e-9, b).unwrap();
        assert_eq!(plan.fingerprint_bits, needed, "b={b}");
        assert_eq!(plan.unbuildable.len(), 1, "{:?}", plan.unbuildable);
        assert!(
            CuckooFilter::<u64>::builder(10_000, 1e-9)
                .bucket_size(b)
                .build()
                .is_err()
        );
    }
    let plan = cuckoo_plan(10_000, 1e-9, 2).unwrap();
    assert_eq!(plan.fingerprint_bits, 32);
    assert!(plan.unbuildable.is_empty());
    let f = CuckooFilter::<u64>::builder(10_000, 1e-9)
        .bucket_size(2)
        .build()
        .unwrap();
    assert_eq!(f.fingerprint_bits(), 32);
}

#[test]
fn classic_rows_follow_the_guava_sizing() {
    // E1: 1,000 items at 0.1%: Guava's 14,377 bits with k = 10, rounded
    // up to whole words, is the smallest table (225 words = 14,400 bits);
    // the constructor takes k = 8 in 229 words (14,656 bits, 1.8% more),
    // the fewest hashes within 1/32 of it.
    assert_eq!(classic::smallest_size_for(1_000, 0.001), Ok((14_400, 10)));
    let sized = size(Kind::Classic, &Workload::fixed(1_000, 0.001)).unwrap();
    assert_eq!(
        sized.figures.params,
        Params::Bits {
            bits: 14_656,
            hashes: 8
        }
    );
    assert_eq!(sized.figures.memory_bytes, 1_832);
    assert!((sized.figures.bits_per_item - 14.656).abs() < 1e-12);
    // (1 − e^{−8/14.656})^8 = 9.80e-4 by hand.
    assert!((sized.figures.expected_fpr - 9.80e-4).abs() < 5e-6);
}

#[test]
fn counting_is_width_times_classic() {
    let w = Workload::fixed(10_000, 0.01);
    let classic = size(Kind::Classic, &w).unwrap().figures;
    for width in COUNTER_WIDTHS {
        let c = size(Kind::Counting(width), &w).unwrap().figures;
        assert_eq!(c.memory_bytes, classic.memory_bytes * u64::from(width));
        assert_eq!(c.expected_fpr, classic.expected_fpr);
        // A miss stops at the first zero counter: fewer lines than k.
        assert!(c.lines_miss < c.lines_hit && c.lines_miss > 1.0);
    }
}

#[test]
fn huge_workloads_are_an_error_not_a_panic() {
    let w = Workload::fixed(u64::MAX, 1e-9);
    for kind in Kind::all() {
        let e = size(kind, &w).unwrap_err();
        assert!(!e.contains(&u128::MAX.to_string()), "{kind:?}: {e}");
    }
}

#[test]
fn a_size_too_large_is_said_in_bytes_never_as_the_overflow_marker() {
    let limit = u128::from(u64::MAX);
    let overflow = param_error(&too_large(OVERFLOW));
    assert_eq!(
        overflow,
        "the table is too large to count in bytes: more than the limit of 18.4 EB \
         (18,446,744,073,709,551,615 bytes)"
    );
    let e = param_error(&ParamError::TooLarge {
        needed: 5_000,
        limit: 4_096,
    });
    assert_eq!(
        e,
        "the table would need 5.0 kB (5,000 bytes), more than the limit of 4.1 kB (4,096 bytes)"
    );
    let e = param_error(&too_large(limit + 1));
    assert_eq!(
        e,
        "the table would need 18446744073709551616 bytes, more than the limit of 18.4 EB \
         (18,446,744,073,709,551,615 bytes)"
    );
    assert_eq!(
        words_bytes(u128::MAX),
        Err(too_large(u128::MAX.div_ceil(64) * 8))
    );
}

#[test]
fn every_kind_is_a_catalog_entry_of_its_type() {
    for kind in Kind::all() {
        let v = kind.variant();
        assert!(kind.label().starts_with(v.type_name), "{}", kind.id());
        assert!(kind.id().starts_with(v.id), "{}", kind.id());
    }
}

#[test]
fn an_entry_without_a_model_is_sized_by_its_plan() {
    // The semi-sorted cuckoo layout is a catalog entry `choose` does not
    // weigh; asked for it, it sizes it as the entry plans, which is what
    // the builder allocates.
    let kind = Kind::Entry("cuckoo-ss");
    assert!(!Kind::all().contains(&kind));
    for (n, p) in [(1_000, 0.01), (123_457, 1e-4), (1_000_000, 0.001)] {
        let w = Workload::fixed(n, p);
        let sized = size(kind, &w).unwrap();
        let (bytes, shape) = real_memory(kind, &w);
        assert_eq!(sized.figures.memory_bytes, bytes as u64, "{n} at {p}");
        assert_eq!(predicted_shape(&sized.figures.params), shape, "{n} at {p}");
        assert_eq!(sized.figures.lines_miss, 2.0);
        assert!(sized.figures.expected_fpr <= p, "{n} at {p}");
        assert_eq!(kind.label(), "CuckooFilter (semi-sorted)");
    }
}
