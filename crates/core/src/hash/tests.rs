use super::*;

/// The lookup's test against the insert's cells
/// ([`sector_cell_masks`]): an item is held exactly when each word has
/// a non-zero value in the cell the item sets there, whichever of its
/// bits are set (counters 1, 2, 4 and 8 each count).
#[test]
fn a_cell_counts_when_any_of_its_bits_is_set() {
    fn oracle(block: &[u64; SECTORS], hash: u64, cell_bits: u32) -> bool {
        let ones = u64::MAX >> (u64::BITS - cell_bits);
        let cells = sector_cell_masks(hash, 1, cell_bits);
        block
            .iter()
            .zip(cells)
            .all(|(&word, c)| word & (c * ones) != 0)
    }
    let (mut held, mut state) = (0, 7u64);
    for _ in 0..2_000 {
        state = mix64(state);
        let hash = state;
        let own = sector_cell_masks(hash, 1, 4);
        // Each word's own counter holds one of 0, 1, 2, 4 or 8, so that
        // about a third of the blocks hold the item; other counters
        // are random.
        let block: [u64; SECTORS] = std::array::from_fn(|w| {
            let r = mix64(hash ^ w as u64);
            let value = [0, 1, 2, 4, 8][(r % 5) as usize];
            let others = mix64(r) & !(own[w] * 0xf);
            (own[w] * value) | others
        });
        let want = oracle(&block, hash, 4);
        held += usize::from(want);
        assert_eq!(
            sector_cells_set_portable::<4>(&block, hash),
            want,
            "{hash:x}"
        );
        assert_eq!(sector_cells_set::<4>(&block, hash), want, "{hash:x}");
        let bits: [u64; SECTORS] = std::array::from_fn(|w| mix64(hash ^ !(w as u64)));
        let want = oracle(&bits, hash, 1);
        assert_eq!(
            sector_cells_set_portable::<1>(&bits, hash),
            want,
            "{hash:x}"
        );
        assert_eq!(sector_cells_set::<1>(&bits, hash), want, "{hash:x}");
    }
    // (4/5)^8 = 0.168 of the blocks hold the item: 336 expected, sd 16.7.
    assert!((200..480).contains(&held), "{held}");
}

#[test]
fn seeded_keys_are_stable() {
    // Value stability: persisted seeded filters depend on this derivation
    // and on each function's value.
    let h = DefaultHasher::from_seed(42);
    assert_eq!(h.key(), [5793402173229077241, 15575695395016548392]);
    assert_eq!(h.function(), HashFunction::AesCmac);
    assert_eq!(h.hash_one(12345u64), AES_12345);
    let sip = DefaultHasher::with_function(HashFunction::SipHash13, h.key());
    assert_eq!(sip.hash_one(12345u64), 2005567834134552484);
    assert_eq!(
        DefaultHasher::from_seed_with(HashFunction::SipHash13, 42),
        sip
    );
    let random = DefaultHasher::random_with(HashFunction::SipHash13);
    assert_eq!(random.function(), HashFunction::SipHash13);
}

/// `from_seed(42)`'s AES-CMAC hash of `12345u64`.
const AES_12345: u64 = 16018959822610747512;

#[test]
#[allow(clippy::manual_hash_one)] // the hasher of `build_hasher` is what is tested
fn each_function_hashes_alike_through_its_hasher() {
    use std::hash::{Hash, Hasher};
    for function in [HashFunction::SipHash13, HashFunction::AesCmac] {
        let h = DefaultHasher::with_function(function, [3, 4]);
        assert_eq!(h.function(), function);
        assert_eq!(h, DefaultHasher::with_function(function, h.key()));
        for item in ["", "pear", "a longer item than one block of sixteen"] {
            let mut state = h.build_hasher();
            item.hash(&mut state);
            assert_eq!(state.finish(), h.hash_one(item), "{function:?} {item:?}");
        }
    }
    let [sip, aes] = [HashFunction::SipHash13, HashFunction::AesCmac]
        .map(|f| DefaultHasher::with_function(f, [3, 4]));
    assert_ne!(sip, aes);
    assert_ne!(sip.hash_one(1u64), aes.hash_one(1u64));
}

#[test]
fn random_keys_differ() {
    assert_ne!(DefaultHasher::random().key(), DefaultHasher::random().key());
}

#[test]
fn debug_hides_the_key() {
    let h = DefaultHasher::from_key([0x1234_5678, 0x9abc_def0]);
    let shown = format!("{h:?}");
    assert!(
        !shown.contains("305419896") && !shown.contains("12345678"),
        "{shown}"
    );
}

#[test]
fn reduce_covers_the_range_above_2_pow_32() {
    let m = 3u64 << 33;
    assert_eq!(reduce(0, m), 0);
    assert_eq!(reduce(u64::MAX, m), m - 1);
    assert_eq!(reduce(1 << 63, m), m / 2);
}

#[test]
fn positions_reach_above_2_pow_32() {
    let m = 1u64 << 36;
    for scheme in [Scheme::Modular, Scheme::FixedPoint] {
        let above = (0..1000u64)
            .flat_map(|i| scheme.positions(mix64(i), m).take(4))
            .filter(|&p| p >= 1 << 32)
            .count();
        // 15/16 of 4000 uniform positions lie above 2^32.
        assert!(above > 3500, "{scheme:?}: {above}");
    }
}

/// (hash, m) pairs for the recurrence tests: a small table, the
/// all-ones hash in a table of 7 slots, the largest m and a table of one
/// slot.
const EDGES: [(u64, u64); 4] = [
    (0x0123_4567_89ab_cdef, 1_408),
    (u64::MAX, 7),
    (42, u64::MAX),
    (9, 1),
];

#[test]
fn positions_follow_the_enhanced_recurrence() {
    // a + i·b + (i³ − i)/6 mod m, written out directly.
    for (hash, m) in EDGES {
        let a = u128::from(reduce(hash, m));
        let b = u128::from(reduce(hash.rotate_left(32).wrapping_mul(GOLDEN), m));
        let direct: Vec<u64> = (0..20u128)
            .map(|i| ((a + i * b + (i * i * i - i) / 6) % u128::from(m)) as u64)
            .collect();
        assert_eq!(
            Positions::new(hash, m).take(20).collect::<Vec<_>>(),
            direct,
            "m = {m}"
        );
    }
}

#[test]
fn small_tables_keep_k_positions_apart() {
    // Plain double hashing put all ten positions on one or two slots for
    // about one hash in a thousand at m = 1,408; the cubic term of the
    // modular scheme and the quadratic one of the fixed-point scheme
    // never do.
    for scheme in [Scheme::Modular, Scheme::FixedPoint] {
        let collapsed = (0..200_000u64)
            .filter(|&i| {
                let mut p: Vec<u64> = scheme.positions(mix64(i), 1_408).take(10).collect();
                p.sort_unstable();
                p.dedup();
                p.len() <= 2
            })
            .count();
        assert_eq!(collapsed, 0, "{scheme:?}");
    }
}

#[test]
fn fixed_positions_follow_the_quadratic_sequence() {
    // g_i = hash + i·d + C·i(i−1)/2 (mod 2^64), reduced to [0, m).
    for (hash, m) in EDGES {
        let d = hash.rotate_left(32).wrapping_mul(STEP);
        let direct: Vec<u64> = (0..20u64)
            .map(|i| {
                let g = hash
                    .wrapping_add(i.wrapping_mul(d))
                    .wrapping_add(GOLDEN.wrapping_mul(i * i.saturating_sub(1) / 2));
                reduce(g, m)
            })
            .collect();
        assert_eq!(
            FixedPositions::new(hash, m).take(20).collect::<Vec<_>>(),
            direct,
            "m = {m}"
        );
    }
}

#[test]
fn schemes_follow_their_format_versions() {
    assert_eq!(Scheme::of_version(1), Scheme::Modular);
    assert_eq!(Scheme::of_version(2), Scheme::FixedPoint);
    assert_eq!(Scheme::Modular.version(), 1);
    assert_eq!(Scheme::CURRENT.version(), crate::codec::FORMAT_VERSION);
    for scheme in [Scheme::Modular, Scheme::FixedPoint] {
        assert_eq!(Scheme::of_version(scheme.version()), scheme);
    }
    let (hash, m) = (mix64(5), 10_007);
    let modular: Vec<u64> = Scheme::Modular.positions(hash, m).take(7).collect();
    let fixed: Vec<u64> = Scheme::FixedPoint.positions(hash, m).take(7).collect();
    assert_eq!(modular, Positions::new(hash, m).take(7).collect::<Vec<_>>());
    assert_eq!(
        fixed,
        FixedPositions::new(hash, m).take(7).collect::<Vec<_>>()
    );
    assert_ne!(modular, fixed);
}

#[test]
fn all_tests_the_first_k_positions_of_its_scheme() {
    for scheme in [Scheme::Modular, Scheme::FixedPoint] {
        for k in [1, 3, 7, 12] {
            let (hash, m) = (mix64(u64::from(k)), 4_099);
            let set: Vec<u64> = scheme.positions(hash, m).take(k as usize).collect();
            assert!(scheme.all(hash, m, k, |p| set.contains(&p)));
            for missing in &set {
                assert!(!scheme.all(hash, m, k, |p| p != *missing && set.contains(&p)));
            }
        }
    }
}

#[test]
fn for_each_calls_the_first_k_positions_of_its_scheme() {
    for scheme in [Scheme::Modular, Scheme::FixedPoint] {
        for (hash, m) in EDGES {
            for k in [0, 1, 3, 7, 40] {
                let mut seen = Vec::new();
                scheme.for_each(hash, m, k, |p| seen.push(p));
                let want: Vec<u64> = scheme.positions(hash, m).take(k as usize).collect();
                assert_eq!(seen, want, "{scheme:?}, m = {m}, k = {k}");
            }
        }
    }
}

#[test]
fn block_positions_are_uniform_bytes() {
    let mut counts = [0u32; 512];
    for i in 0..10_000u64 {
        for p in BlockPositions::new(i, 9).take(10) {
            counts[p as usize] += 1;
        }
    }
    // 100,000 draws over 512 cells: mean 195.3, sd ≈ 14; 7 sd either side.
    assert!(
        counts.iter().all(|&c| (97..=293).contains(&c)),
        "{counts:?}"
    );
}

/// The unrolled loop of the blocked filters gives the iterator's positions,
/// for the two block sizes they use (512 bits; 128 counters) and for `k`
/// below, at and past a word's worth of positions.
#[test]
fn the_unrolled_positions_are_block_positions() {
    fn check<const LOG2_BITS: u32>(hash: u64, k: u32) {
        let mut got = Vec::new();
        for_each_block_position::<LOG2_BITS>(hash, k, |p| got.push(p));
        let want: Vec<u32> = BlockPositions::new(hash, LOG2_BITS)
            .take(k as usize)
            .collect();
        assert_eq!(got, want, "hash {hash:#x}, 2^{LOG2_BITS} bits, k = {k}");
    }
    let hashes = (0..2_000u64)
        .map(mix64)
        .chain([0, 1, 0xfeed_face_dead_beef, u64::MAX]);
    for hash in hashes {
        for k in [1, 2, 6, 7, 8, 9, 10, 13, 14, 15, 18, 19, 40, 64] {
            check::<9>(hash, k);
            check::<7>(hash, k);
        }
    }
}
