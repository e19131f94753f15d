//! Tests of [`super`]: every sizing and decision against what the filters
//! build and what the documents claim.

use super::*;
use bloomlab::catalog::{AnyFilter, Catalog};
use bloomlab::prelude::*;
use bloomlab::scalable::descriptor::Layers;
use bloomlab::theory::classic;

fn all() -> Vec<Kind> {
    Kind::all(&Catalog::standard())
}

fn kind(id: &str, suffix: &str) -> Kind {
    Kind::find(id, suffix).unwrap()
}

/// Builds the real filter of `kind` for `w` with the builder call its
/// choice names, inserts `w.peak_items()` distinct keys (only the growing
/// filters change size as they fill), and returns its memory in bytes and
/// its table's label (a grown chain: each layer's `m` and `k`).
fn real_memory(kind: &Kind, w: &Workload) -> (usize, String) {
    let n0 = w.items as usize;
    let n = w.peak_items() as usize;
    let p = w.fpr;
    let option = |prefix: &str| -> u32 {
        let call = kind.choice.call;
        call.strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(')'))
            .map_or(0, |v| v.parse().unwrap())
    };
    let built: Box<dyn AnyFilter<u64>> = match (kind.variant.id, kind.choice.call) {
        ("counting", _) => Box::new(
            CountingBloomFilter::<u64>::builder(n, p)
                .seed(1)
                .counter_width(option(".counter_width("))
                .build()
                .unwrap(),
        ),
        ("scalable", _) => {
            let mut f = ScalableBloomFilter::builder(n0, p)
                .seed(1)
                .growth_factor(option(".growth_factor("))
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
            return (f.memory_bytes(), shape.join(" | "));
        }
        ("quotient-grow", ".growth(true)") => {
            let mut f = QuotientFilter::<u64>::builder(n0, p)
                .growth(true)
                .seed(1)
                .build()
                .unwrap();
            for i in 0..n as u64 {
                f.insert(&i).unwrap();
            }
            Box::new(f)
        }
        ("cuckoo", ".bucket_size(2)" | ".bucket_size(8)") => Box::new(
            CuckooFilter::<u64>::builder(n, p)
                .seed(1)
                .bucket_size(option(".bucket_size("))
                .build()
                .unwrap(),
        ),
        // A static filter is built from the n keys themselves.
        _ if kind.variant.can.from_keys => {
            let Build::FromKeys(build) = kind.variant.build else {
                unreachable!("from_keys")
            };
            let keys: Vec<u64> = (0..n as u64).collect();
            build(&keys.iter().collect::<Vec<_>>(), p, 1).unwrap()
        }
        (_, "") => (kind.variant.empty().unwrap())(n, p, 1).unwrap(),
        (id, call) => panic!("{id}: no builder for {call}"),
    };
    (built.memory_bytes(), built.table().label())
}

/// The label `real_memory` reads off the built filter, from the figures.
fn predicted_shape(kind: &Kind, w: &Workload, params: &Params) -> String {
    // A chain of layers is labelled by its layers; any other table, grown
    // or not, by the parameters it was built with.
    if kind.variant.id != "scalable" {
        return params.theory.label();
    }
    let plan = (kind.choice.plan)(w.items, w.fpr).unwrap();
    let layers = Layers {
        initial_capacity: w.items,
        growth: plan.table.parameters()[1].1.to_string().parse().unwrap(),
        tightening: bloomlab::scalable::DEFAULT_TIGHTENING_RATIO,
        fpr: w.fpr,
    };
    layers
        .holding(w.peak_items())
        .unwrap()
        .iter()
        .map(|(m, k, _)| format!("m={m} k={k}"))
        .collect::<Vec<_>>()
        .join(" | ")
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
            for kind in all() {
                let sized = size(&kind, &w).unwrap();
                if !sized.unbuildable.is_empty() {
                    continue; // checked below
                }
                let (bytes, shape) = real_memory(&kind, &w);
                assert_eq!(
                    sized.figures.memory_bytes,
                    bytes as u64,
                    "{} n={n} p={p}",
                    kind.id()
                );
                assert_eq!(
                    predicted_shape(&kind, &w, &sized.figures.params),
                    shape,
                    "{} n={n} p={p}",
                    kind.id()
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
        let kind = kind("scalable", &s.to_string());
        let sized = size(&kind, &w).unwrap();
        let (bytes, shape) = real_memory(&kind, &w);
        assert_eq!(sized.figures.memory_bytes, bytes as u64, "to={to} s={s}");
        assert_eq!(predicted_shape(&kind, &w, &sized.figures.params), shape);
    }
}

#[test]
fn unbuildable_cuckoo_configurations_are_refused_by_the_crate_too() {
    // At 10^-9 the fingerprint needs 2^f ≥ 2bα/ε + 1 at the design load
    // α: 33 bits with 4 slots (α = 0.95), 34 with 8; 32 with 2.
    let build = |b| {
        CuckooFilter::<u64>::builder(10_000, 1e-9)
            .bucket_size(b)
            .build()
    };
    for (b, needed) in [(4u32, 33u32), (8, 34)] {
        let sized = size(
            &kind("cuckoo", &b.to_string()),
            &Workload::fixed(10_000, 1e-9),
        )
        .unwrap();
        let f = &sized.figures.params.parameters["fingerprint_bits"];
        assert_eq!(f, &serde_json::Value::from(needed), "b={b}");
        assert_eq!(sized.unbuildable.len(), 1, "{:?}", sized.unbuildable);
        assert!(build(b).is_err());
    }
    let sized = size(&kind("cuckoo", "2"), &Workload::fixed(10_000, 1e-9)).unwrap();
    let f = &sized.figures.params.parameters["fingerprint_bits"];
    assert_eq!(f, &serde_json::Value::from(32));
    assert!(sized.unbuildable.is_empty());
    assert_eq!(build(2).unwrap().fingerprint_bits(), 32);
}

#[test]
fn classic_rows_follow_the_guava_sizing() {
    // E1: 1,000 items at 0.1%: Guava's 14,377 bits with k = 10, rounded
    // up to whole words, is the smallest table (225 words = 14,400 bits);
    // the constructor takes k = 8 in 229 words (14,656 bits, 1.8% more),
    // the fewest hashes within 1/32 of it.
    assert_eq!(classic::smallest_size_for(1_000, 0.001), Ok((14_400, 10)));
    let sized = size(&kind("classic", ""), &Workload::fixed(1_000, 0.001)).unwrap();
    assert_eq!(sized.figures.params.short(), "m=14,656 k=8");
    assert_eq!(sized.figures.memory_bytes, 1_832);
    assert!((sized.figures.bits_per_item - 14.656).abs() < 1e-12);
    // (1 − e^{−8/14.656})^8 = 9.80e-4 by hand.
    assert!((sized.figures.expected_fpr - 9.80e-4).abs() < 5e-6);
}

#[test]
fn counting_is_width_times_classic() {
    let w = Workload::fixed(10_000, 0.01);
    let classic = size(&kind("classic", ""), &w).unwrap().figures;
    for width in [4u32, 8] {
        let c = size(&kind("counting", &width.to_string()), &w)
            .unwrap()
            .figures;
        assert_eq!(c.memory_bytes, classic.memory_bytes * u64::from(width));
        assert_eq!(c.expected_fpr, classic.expected_fpr);
        // A miss stops at the first zero counter: fewer lines than k.
        assert!(c.lines_miss < c.lines_hit && c.lines_miss > 1.0);
    }
}

#[test]
fn huge_workloads_are_an_error_not_a_panic() {
    let w = Workload::fixed(u64::MAX, 1e-9);
    for kind in all() {
        let e = size(&kind, &w).unwrap_err();
        assert!(!e.contains(&u128::MAX.to_string()), "{}: {e}", kind.id());
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
}

#[test]
fn every_kind_is_a_catalog_entry_of_its_type() {
    let kinds = all();
    for kind in &kinds {
        let v = &kind.variant;
        assert!(kind.label().starts_with(v.type_name), "{}", kind.id());
        assert!(kind.id().starts_with(v.id), "{}", kind.id());
    }
    // Every entry that lists choices is weighed; the semi-sorted cuckoo
    // layout lists none (the builder's option, not a filter of its own).
    let ids: Vec<String> = kinds.iter().map(Kind::id).collect();
    assert_eq!(
        ids,
        [
            "classic",
            "blocked",
            "atomic",
            "counting-4",
            "counting-8",
            "counting-blocked",
            "scalable-2",
            "scalable-4",
            "cuckoo-4",
            "cuckoo-2",
            "cuckoo-8",
            "fuse",
            "quotient",
            "quotient-grow",
        ]
    );
}
