use super::*;
use bloomlab_core::hash::mix64;
use bloomlab_core::theory::{blocked, sectored};

fn seeded(layout: BlockLayout, blocks: u64, k: u32, seed: u64) -> BlockedCountingBloomFilter<u64> {
    BlockedCountingBloomFilter::builder_with_blocks(blocks, k)
        .layout(layout)
        .seed(seed)
        .build()
        .unwrap()
}

/// The counts one insert of `hash` leaves in its block, by the layout's
/// own definition (not through `InBlock`).
fn expected_counts(layout: BlockLayout, hash: u64, k: u32) -> [u32; 128] {
    let mut want = [0u32; 128];
    match layout {
        BlockLayout::Positions => {
            for p in BlockPositions::new(hash, 7).take(k as usize) {
                want[p as usize] += 1;
            }
        }
        BlockLayout::Sectors => {
            for round in 0..k / 8 {
                let x = if round == 0 {
                    hash as u32
                } else {
                    mix64(hash ^ u64::from(round).wrapping_mul(0x9e37_79b9_7f4a_7c15)) as u32
                };
                for (w, salt) in bloomlab_core::hash::SECTOR_SALTS.iter().enumerate() {
                    want[16 * w + (x.wrapping_mul(*salt) >> 28) as usize] += 1;
                }
            }
        }
    }
    want
}

#[test]
fn an_item_counts_in_its_block_only() {
    let hash = 0xfeed_face_dead_beef;
    for (layout, k) in [
        (BlockLayout::Positions, 6),
        (BlockLayout::Sectors, 8),
        (BlockLayout::Sectors, 16),
        (BlockLayout::Sectors, 64),
    ] {
        let mut f = seeded(layout, 10, k, 1);
        assert!(f.insert_hash(hash));
        let block = reduce(hash, 10);
        let want = expected_counts(layout, hash, k);
        for i in 0..f.num_counters() {
            let expect = if i / 128 == block {
                want[(i % 128) as usize]
            } else {
                0
            };
            assert_eq!(f.counter(i), Some(expect), "{layout:?} k {k}: counter {i}");
        }
        if layout == BlockLayout::Sectors {
            // k / 8 increments in each word.
            let words = &f.as_words()[8 * block as usize..][..8];
            let sum = |w: u64| (0..16).map(|j| (w >> (4 * j)) & 15).sum::<u64>();
            assert!(
                words.iter().all(|&w| sum(w) == u64::from(k / 8)),
                "{layout:?} k {k}"
            );
        }
        assert_eq!(f.counter(f.num_counters()), None);
        assert!(f.contains_hash(hash));
        assert_eq!(f.count_hash(hash), 1);
        f.remove_hash(hash).unwrap();
        assert!(f.as_words().iter().all(|&w| w == 0));
        assert_eq!(f.remove_hash(hash), Err(RemoveError::NotPresent));
    }
}

/// The lookup's word-by-word tests (the `k` = 8 arm and the masks of
/// larger `k`) answer as the counters `InBlock` lists: present exactly
/// when all of them are non-zero, over a block filled to every load.
#[test]
fn the_sectored_lookup_tests_the_counters_inserts_set() {
    for k in [8, 16, 24] {
        let mut f = seeded(BlockLayout::Sectors, 1, k, 3);
        for step in 0..60u64 {
            for probe in 0..200u64 {
                let h = mix64(probe ^ step << 32);
                let all = f.positions(h).all(|i| f.counter(i) != Some(0));
                assert_eq!(f.contains_hash(h), all, "k {k} step {step} probe {probe}");
            }
            f.insert_hash(mix64(step | 1 << 40));
        }
    }
}

#[test]
fn fill_counts_non_zero_counters() {
    for (layout, k) in [(BlockLayout::Positions, 5), (BlockLayout::Sectors, 8)] {
        let mut f = seeded(layout, 4, k, 2);
        assert_eq!(
            (f.fill_ratio(), f.estimated_fpr(), f.estimate_count()),
            (0.0, 0.0, 0.0)
        );
        for i in 0..40u64 {
            f.insert(&i).unwrap();
        }
        let nonzero = |lo: u64, n: u64| (lo..lo + n).filter(|&i| f.counter(i) != Some(0)).count();
        assert_eq!(f.fill_ratio(), nonzero(0, 512) as f64 / 512.0);
        let pass = |b: u64| match layout {
            BlockLayout::Positions => (nonzero(128 * b, 128) as f64 / 128.0).powi(5),
            BlockLayout::Sectors => (0..8)
                .map(|w| nonzero(128 * b + 16 * w, 16) as f64 / 16.0)
                .product(),
        };
        let want: f64 = (0..4).map(pass).sum::<f64>() / 4.0;
        assert!((f.estimated_fpr() - want).abs() < 1e-15, "{layout:?}");
        let estimate = f.estimate_count();
        assert!(estimate > 20.0 && estimate < 80.0, "{layout:?}: {estimate}");
    }
}

#[test]
fn the_count_estimate_survives_a_full_word() {
    // At the design load of a large table some 16-counter words fill
    // up; pooled over the whole table, the estimate stays finite.
    let n = 50_000u64;
    let (f, full) = (0..40)
        .find_map(|seed| {
            let mut f = BlockedCountingBloomFilter::<u64>::builder(n as usize, 0.01)
                .seed(seed)
                .build()
                .unwrap();
            for i in 0..n {
                f.insert(&i).unwrap();
            }
            let words = f.counters.words();
            let full = words.iter().filter(|&&w| nonzero_counters(w) == 16).count();
            (full > 0).then_some((f, full))
        })
        .expect("a seed whose table has a full word");
    assert!(full > 0 && f.num_hashes() == 8);
    // One draw per word: under Poisson block loads each counter is zero
    // independently, and the estimate's spread is the binomial one of
    // the zero counters through the delta method. A fixed n spreads less.
    let (blocks, m) = (f.num_blocks() as f64, f.num_counters() as f64);
    let sd = blocked::estimate_count_sd(blocks, 16.0, 1.0, m, 1.0 - f.fill_ratio());
    let est = f.estimate_count();
    // 3.29 sd: the 99.9% normal interval.
    assert!(
        (est - n as f64).abs() <= 3.2905 * sd,
        "{est} for {n} items, sd {sd:.1}, {full} full words"
    );
}

#[test]
fn a_block_is_one_cache_line() {
    let f: BlockedCountingBloomFilter<u64> = BlockedCountingBloomFilter::with_blocks(3, 8).unwrap();
    assert_eq!(f.memory_bytes(), 3 * 64);
    assert_eq!(f.as_words().as_ptr() as usize % 64, 0);
}

#[test]
fn sized_by_the_layouts_theory() {
    let n = 100_000;
    let f: BlockedCountingBloomFilter<u64> =
        BlockedCountingBloomFilter::new(n as usize, 0.01).unwrap();
    let (blocks, k) = sectored::size_for(16, 8, n, 0.01).unwrap();
    assert_eq!(
        (f.layout(), f.num_blocks(), f.num_hashes()),
        (BlockLayout::Sectors, blocks, k)
    );
    let full = sectored::fpr_exact(16, 8, blocks, n, k);
    assert!(
        full <= 0.01 && sectored::fpr_exact(16, 8, blocks - 1, n, k) > 0.01,
        "{full}"
    );
    let g: BlockedCountingBloomFilter<u64> = BlockedCountingBloomFilter::builder(n as usize, 0.01)
        .layout(BlockLayout::Positions)
        .build()
        .unwrap();
    let (blocks, k) = blocked::size_for(128, n, 0.01).unwrap();
    assert_eq!((g.num_blocks(), g.num_hashes()), (blocks, k));
    assert!(blocked::fpr_exact(128, blocks, n, k) <= 0.01);
}
