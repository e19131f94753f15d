//! Bad input gives a typed error, one test per case.

use bloomlab_core::ParamError;
use bloomlab_cuckoo::{BuildError, CuckooFilter, Invalid, MAX_RELOCATIONS};
use bloomlab_testkit::inputs::{assert_cap_is_exact, assert_refused, assert_refuses_invalid_fprs};

#[test]
fn fingerprint_below_4_or_above_32_bits() {
    for f in [0, 3, 33] {
        let e = CuckooFilter::<u64>::builder(100, 0.01).fingerprint_bits(f);
        assert_eq!(
            e.build().unwrap_err(),
            BuildError::Variant(Invalid::FingerprintBits(f))
        );
        let e = CuckooFilter::<u64>::builder_with_buckets(64, f).build();
        assert_eq!(
            e.unwrap_err(),
            BuildError::Variant(Invalid::FingerprintBits(f))
        );
    }
}

#[test]
fn fingerprint_of_17_to_32_bits() {
    // 17 to 32 bits build, in every bucket size and layout.
    for f in [17, 24, 32] {
        for b in [2, 4, 8] {
            let cf = CuckooFilter::<u64>::builder_with_buckets(64, f)
                .bucket_size(b)
                .build()
                .unwrap();
            assert_eq!(cf.memory_bytes(), (64 * b * f / 8) as usize);
        }
        let semi = CuckooFilter::<u64>::builder_with_buckets(64, f)
            .semi_sorted(true)
            .build()
            .unwrap();
        assert_eq!(semi.memory_bytes(), (64 * (4 * f - 4) / 8) as usize);
    }
}

#[test]
fn semi_sorted_buckets_of_other_than_4_slots() {
    for b in [2, 8] {
        let e = CuckooFilter::<u64>::builder(100, 0.01)
            .bucket_size(b)
            .semi_sorted(true)
            .build();
        assert_eq!(
            e.unwrap_err(),
            BuildError::Variant(Invalid::SemiSortedBucketSize(b))
        );
        // Plain is what they get unless told.
        let plain = CuckooFilter::<u64>::builder(100, 0.01)
            .bucket_size(b)
            .build()
            .unwrap();
        assert!(!plain.is_semi_sorted());
    }
}

#[test]
fn bucket_size_not_2_4_or_8() {
    for b in [0, 1, 3, 5, 16] {
        let e = CuckooFilter::<u64>::builder(100, 0.01)
            .bucket_size(b)
            .build();
        assert_eq!(e.unwrap_err(), BuildError::Variant(Invalid::BucketSize(b)));
    }
}

#[test]
fn fpr_outside_0_1() {
    assert_refuses_invalid_fprs(|p| CuckooFilter::<u64>::new(100, p));
}

#[test]
fn zero_items() {
    assert_refused(CuckooFilter::<u64>::new(0, 0.01), ParamError::ZeroItems);
}

#[test]
fn fpr_needing_more_than_32_bits() {
    // b = 4 at 1e-9, a small table planned at 47% load: fpr(32, 4, 0.47) =
    // 3.76 / (2^32 − 1) = 8.8e-10 fits; 1e-10 takes log2(3.76e10) → 36 bits.
    assert_eq!(
        CuckooFilter::<u64>::new(100, 1e-9)
            .unwrap()
            .fingerprint_bits(),
        32
    );
    let unreachable = Invalid::FprUnreachable {
        fpr: 1e-10,
        bucket_size: 4,
        needed_bits: 36,
    };
    let e = CuckooFilter::<u64>::new(100, 1e-10).unwrap_err();
    assert_eq!(e, BuildError::Variant(unreachable));
    // Rates the 16-bit limit refused now build: 1e-6 takes 23 bits with 4
    // slots at 94% load (fpr(22, 4, 0.94) = 1.8e-6 does not do).
    let cf = CuckooFilter::<u64>::new(100_000, 1e-6).unwrap();
    assert_eq!(cf.fingerprint_bits(), 23);
    let cf = CuckooFilter::<u64>::builder(100_000, 1e-6)
        .bucket_size(8)
        .build()
        .unwrap();
    assert_eq!(cf.fingerprint_bits(), 24);
}

#[test]
fn bucket_count_outside_1_to_2_pow_32() {
    for n in [0u64, (1 << 32) + 1, 1 << 33, u64::MAX] {
        let e = CuckooFilter::<u64>::builder_with_buckets(n, 8).build();
        assert_eq!(e.unwrap_err(), BuildError::Variant(Invalid::NumBuckets(n)));
    }
    // Any count in between.
    for n in [1u64, 3, 100, 263, 1_000_001] {
        let cf = CuckooFilter::<u64>::builder_with_buckets(n, 8)
            .build()
            .unwrap();
        assert_eq!(cf.num_buckets(), n);
    }
}

#[test]
fn too_many_relocations() {
    let e = CuckooFilter::<u64>::builder(100, 0.01)
        .max_relocations(MAX_RELOCATIONS + 1)
        .build();
    assert_eq!(
        e.unwrap_err(),
        BuildError::Variant(Invalid::TooManyRelocations(MAX_RELOCATIONS + 1))
    );
    assert!(
        CuckooFilter::<u64>::builder(100, 0.01)
            .max_relocations(MAX_RELOCATIONS)
            .build()
            .is_ok()
    );
}

#[test]
fn table_larger_than_allowed() {
    // 1,000 items at 1%: ⌈1,000 / (4 · 0.94)⌉ = 266 buckets of 4 × 10 bits,
    // 10,640 bits: 167 words, 1,336 bytes.
    // Semi-sorted, the same buckets take 266 · 36 bits: 150 words, 1,200 bytes.
    let plain = CuckooFilter::<u64>::builder(1_000, 0.01);
    let semi_sorted = plain.clone().semi_sorted(true);
    for (builder, bytes) in [(plain, 1_336), (semi_sorted, 1_200)] {
        assert_cap_is_exact(|cap| builder.clone().max_bytes(cap).build(), bytes);
    }
}

#[test]
fn more_items_than_2_pow_32_buckets_hold() {
    let e = CuckooFilter::<u64>::new(usize::MAX, 0.01).unwrap_err();
    assert!(
        matches!(e, BuildError::Param(ParamError::TooLarge { .. })),
        "{e:?}"
    );
}

/// A table with more bits than `usize` can number (over 512 MiB on a 32-bit
/// target) is `TooLarge`, with this target's limit, before anything is
/// allocated: its bit positions would wrap.
#[test]
fn tables_past_the_targets_bit_positions_are_too_large() {
    // 2^28 buckets of 4 × 8 bits: 2^33 bits, 1 GiB.
    let built = CuckooFilter::<u64>::builder_with_buckets(1 << 28, 8)
        .bucket_size(4)
        .build();
    if cfg!(target_pointer_width = "64") {
        // Zeroed lazily: no page of it is touched.
        assert_eq!(built.unwrap().memory_bytes(), 1 << 30);
    } else {
        match built {
            Err(BuildError::Param(ParamError::TooLarge { needed, limit })) => {
                assert_eq!(needed, 1 << 30);
                assert!(limit < 1 << 29, "{limit}");
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn errors_display_and_chain() {
    let e = BuildError::Param(ParamError::ZeroItems);
    assert!(std::error::Error::source(&e).is_some());
    for e in [
        BuildError::Variant(Invalid::BucketSize(3)),
        BuildError::Variant(Invalid::FingerprintBits(33)),
        BuildError::Variant(Invalid::SemiSortedBucketSize(8)),
        BuildError::Variant(Invalid::NumBuckets(0)),
        BuildError::Variant(Invalid::TooManyRelocations(1 << 20)),
        BuildError::Variant(Invalid::FprUnreachable {
            fpr: 1e-9,
            bucket_size: 4,
            needed_bits: 33,
        }),
    ] {
        assert!(!e.to_string().is_empty());
        assert!(std::error::Error::source(&e).is_none());
    }
    assert_eq!(
        BuildError::from(ParamError::ZeroItems),
        BuildError::Param(ParamError::ZeroItems)
    );
}
