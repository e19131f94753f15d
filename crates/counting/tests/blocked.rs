//! BlockedCountingBloomFilter, in both layouts: conformance, the rate at
//! design load against the layout's exact theory, deleting safely (a seeded
//! model run), sticky saturation, the stored bytes and the typed errors of
//! bad input.

use std::hash::BuildHasher;

use bloomlab_core::codec::Writer;
use bloomlab_core::codec::{Envelope, FORMAT_VERSION};
use bloomlab_core::theory::{blocked, sectored};
use bloomlab_core::{DecodeError, DefaultHasher, Membership, ParamError, Persist, RemoveError};
use bloomlab_counting::{
    BLOCKED_TAG, BlockLayout, BlockedCountingBloomFilter, BuildError, CountingBloomFilter, TAG,
};
use bloomlab_testkit::codec::hex;
use bloomlab_testkit::fuzz::{self, EXTREME_HASHES, Field, Kind, Plan};
use bloomlab_testkit::inputs::{assert_cap_is_exact, assert_refused, assert_refuses_invalid_fprs};
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::model::{self, Multiset, Op};
use bloomlab_testkit::rates::assert_in_interval;
use bloomlab_testkit::{batch, codec, conformance, item_methods, machine};

type Blocked = BlockedCountingBloomFilter<u64>;

const LAYOUTS: [BlockLayout; 2] = [BlockLayout::Sectors, BlockLayout::Positions];

fn seeded_in(layout: BlockLayout, blocks: u64, hashes: u32, seed: u64) -> Blocked {
    BlockedCountingBloomFilter::builder_with_blocks(blocks, hashes)
        .layout(layout)
        .seed(seed)
        .build()
        .unwrap()
}

/// A filter in the positions layout, which takes any `k`.
fn seeded(blocks: u64, hashes: u32, seed: u64) -> Blocked {
    seeded_in(BlockLayout::Positions, blocks, hashes, seed)
}

fn sized_in(layout: BlockLayout, items: usize, fpr: f64, seed: u64) -> Blocked {
    let builder = Blocked::builder(items, fpr).layout(layout);
    builder.seed(seed).build().unwrap()
}

fn sized(items: usize, fpr: f64, seed: u64) -> Blocked {
    Blocked::builder(items, fpr).seed(seed).build().unwrap()
}

#[test]
fn conformance() {
    conformance::run(|n, p, seed| BlockedCountingBloomFilter::builder(n, p).seed(seed).build());
    conformance::run(|n, p, seed| {
        let positions = BlockedCountingBloomFilter::builder(n, p).layout(BlockLayout::Positions);
        positions.seed(seed).build()
    });
}

/// Non-zero 4-bit counters in a word.
fn nonzero(w: u64) -> u32 {
    ((w | w >> 1 | w >> 2 | w >> 3) & 0x1111_1111_1111_1111).count_ones()
}

/// This table's own rate: a probe picks a uniform block and passes if its
/// uniform counters there are non-zero. In the positions layout that is
/// `(X_b / 128)^k` for `X_b` non-zero counters in block `b`; in the sectors
/// layout the product over the block's words of `(X_w / 16)^(k/8)`.
fn own_rate(f: &Blocked) -> f64 {
    let k = f.num_hashes() as i32;
    let pass = |block: &[u64]| match f.layout() {
        BlockLayout::Positions => {
            (f64::from(block.iter().map(|&w| nonzero(w)).sum::<u32>()) / 128.0).powi(k)
        }
        BlockLayout::Sectors => block
            .iter()
            .map(|&w| (f64::from(nonzero(w)) / 16.0).powi(k / 8))
            .product(),
    };
    f.as_words().chunks(8).map(pass).sum::<f64>() / f.num_blocks() as f64
}

/// One table's rate scatters around theory's (over fillings) by the
/// layout's `rate_sd`, which with 128-counter blocks is larger than the
/// binomial spread of a million probes (up to 5.5 times its standard
/// deviation at 2,000 items): so the probes are checked, exactly binomially,
/// against the table's own rate, and that rate against `expected_fpr()`
/// within the 99.9% normal interval of its scatter (z = 3.2905).
fn measured_rate_matches_theory(layout: BlockLayout, items: usize, fpr: f64, seed: u64) {
    const PROBES: usize = 1_000_000;
    let mut f = sized_in(layout, items, fpr, seed);
    let keys = members(seed + 1, items);
    f.insert_all(&keys).unwrap();
    assert!(keys.iter().all(|k| f.contains(k)), "false negative");
    assert_eq!(f.saturated_counters(), 0);
    let (blocks, k, n) = (f.num_blocks(), f.num_hashes(), items as u64);
    let (theory, sd) = match layout {
        BlockLayout::Positions => (
            blocked::fpr_exact(128, blocks, n, k),
            blocked::rate_sd(128, blocks, n, k),
        ),
        BlockLayout::Sectors => (
            sectored::fpr_exact(16, 8, blocks, n, k),
            sectored::rate_sd(16, 8, blocks, n, k),
        ),
    };
    let expected = f.expected_fpr();
    assert_eq!(expected, theory);
    assert!(expected <= fpr && expected > fpr * 0.9, "{expected}");
    let own = own_rate(&f);
    assert!(
        (own - expected).abs() <= 3.2905 * sd,
        "{layout:?} n={items} p={fpr}: table rate {own:.6e}, theory {expected:.6e} ± {sd:.2e}"
    );
    let hits = probes(seed + 2, PROBES).filter(|p| f.contains(p)).count() as u64;
    let what = format!("{layout:?} n={items} p={fpr}: false positives (theory {expected:.6e})");
    assert_in_interval(hits, PROBES as u64, own, what);
}

#[test]
fn rate_at_one_percent() {
    for layout in LAYOUTS {
        for (i, n) in [2_000, 20_000, 100_000].into_iter().enumerate() {
            measured_rate_matches_theory(layout, n, 0.01, 100 + 10 * i as u64);
        }
    }
}

#[test]
fn rate_at_a_tenth_of_a_percent() {
    for layout in LAYOUTS {
        for (i, n) in [2_000, 20_000, 100_000].into_iter().enumerate() {
            measured_rate_matches_theory(layout, n, 0.001, 200 + 10 * i as u64);
        }
    }
}

/// Two counters in each word (k = 16), what the sectors layout sizes from
/// about 1e-5 down: the general path of the lookup.
#[test]
fn rate_with_two_counters_a_word() {
    let f = sized(20_000, 1e-5, 7);
    assert_eq!(f.num_hashes(), 16);
    measured_rate_matches_theory(BlockLayout::Sectors, 20_000, 1e-5, 7);
}

/// Seeded operations in deletion.rs's proportions (6 inserts from a pool
/// of `pool` keys, 4 removes, 1 clear, or one more insert when `!clears`),
/// drawn from the testkit's key stream.
fn ops(seed: u64, n: usize, pool: u64, clears: bool) -> Vec<Op> {
    let draw = |r: u64| match r % 11 {
        6..10 => Op::Remove((r >> 8) as usize),
        10 if clears => Op::Clear,
        _ => Op::Insert((r >> 8) % pool),
    };
    members(seed, n).into_iter().map(draw).collect()
}

/// Tables of one to three blocks, and in a quarter of the runs four keys
/// and no clears, so that counters collide and saturate: no member is ever
/// reported absent or refused (`model::run`), `len` follows the model,
/// insert reports new exactly what was absent, a non-member whose counters
/// prove it absent is refused with nothing changed, and counts below 15
/// bound the copies. Removing every copy at the end leaves only stuck
/// counters. Runs 0 to 95 use the positions layout with `k` from 1 to 12,
/// runs 96 to 143 the sectors layout with `k` = 8, 16 and 24.
#[test]
fn model_run_never_loses_a_member() {
    let (mut refused, mut stuck_members) = (0u32, 0u32);
    for run in 0..144u64 {
        let mut f = if run < 96 {
            seeded(1 + run % 3, 1 + (run / 4 % 12) as u32, run)
        } else {
            seeded_in(
                BlockLayout::Sectors,
                1 + run % 3,
                8 * (1 + (run / 4 % 3) as u32),
                run,
            )
        };
        let insert = |f: &mut Blocked, model: &mut Multiset, op| {
            let Op::Insert(key) = op else {
                unreachable!("no insert_unique drawn")
            };
            let absent = key | 1 << 63;
            if !f.contains(&absent) {
                let before = f.clone();
                assert_eq!(f.remove(&absent), Err(RemoveError::NotPresent));
                assert!(*f == before, "a refused remove changed the filter");
                refused += 1;
            }
            let reported = f.contains(&key);
            assert_eq!(f.insert(&key), Ok(!reported));
            model.insert(key);
        };
        let model = model::run(
            &mut f,
            &ops(run, 300, [4, 48][run as usize % 2], run % 4 >= 2),
            insert,
            |f, model, op| {
                if op == Op::Clear {
                    assert_eq!(f.saturated_counters(), 0);
                }
                for (key, times) in model.iter() {
                    let count = f.count(&key);
                    assert!(count >= 1, "member {key} counted 0");
                    assert!(count == 15 || count as usize >= times, "{count} < {times}");
                    stuck_members += u32::from(count == 15);
                }
            },
        );
        for (key, times) in model.iter() {
            for _ in 0..times {
                assert_eq!(f.remove(&key), Ok(()));
            }
        }
        assert!(f.is_empty());
        let stuck = (0..f.num_counters()).filter(|&i| f.counter(i) == Some(15));
        assert_eq!(stuck.count() as u64, f.saturated_counters());
        let left = (0..f.num_counters()).filter(|&i| !matches!(f.counter(i), Some(0 | 15)));
        assert_eq!(left.count(), 0, "run {run}: a counter kept a removed copy");
    }
    // The runs did exercise refusals and stuck counters.
    assert!(
        refused > 1_000 && stuck_members > 1_000,
        "{refused} {stuck_members}"
    );
}

/// 4 blocks (512 counters), 4,000 inserts of k = 4 (positions; 31
/// increments a counter on average) or k = 8 (sectors; 62): almost every
/// counter saturates; removing half the items refuses none and loses none
/// of the rest.
#[test]
fn overload_then_remove_half_loses_nothing() {
    for (layout, k) in [(BlockLayout::Positions, 4), (BlockLayout::Sectors, 8)] {
        let mut f = seeded_in(layout, 4, k, 2024);
        let keys = members(2024, 4_000);
        f.insert_all(&keys).unwrap();
        let saturated = f.saturated_counters();
        assert!(saturated > 400, "{layout:?}: {saturated}");
        let (removed, kept) = keys.split_at(2_000);
        for k in removed {
            assert_eq!(f.remove(k), Ok(()), "an inserted item is never refused");
        }
        assert!(kept.iter().all(|k| f.contains(k)));
        assert_eq!(f.len(), 2_000);
        assert_eq!(f.saturated_counters(), saturated);
    }
}

#[test]
fn refused_remove_changes_nothing() {
    let mut f = sized(1_000, 0.01, 5);
    f.insert_all(&members(6, 1_000)).unwrap();
    let refused = model::refused_removes_change_nothing(&mut f, probes(7, 1_000));
    assert!(refused > 950, "{refused}");
    assert_eq!(f.len(), 1_000);
    let mut empty = seeded(2, 3, 1);
    assert_eq!(empty.remove(&u64::MAX), Err(RemoveError::NotPresent));
    assert!(empty.as_words().iter().all(|&w| w == 0) && empty.is_empty());
}

/// An item reported present whose counters still prove it absent: two of
/// its positions fall on one counter `p`, which holds 1. In one block, the
/// item's counters are raised by other items, each of which touches `p`
/// once (the first) or not at all; the remove is refused with nothing
/// changed, and removing the other items leaves the block empty. k = 2 in
/// the positions layout, k = 16 (two counters in each word) in the sectors
/// layout.
#[test]
fn a_counter_below_its_positions_refuses_the_remove() {
    for (layout, k) in [(BlockLayout::Positions, 2), (BlockLayout::Sectors, 16)] {
        let counts = |hash| {
            let mut f = seeded_in(layout, 1, k, 1);
            f.insert_hash(hash);
            (0..128)
                .map(|i| f.counter(i).unwrap())
                .collect::<Vec<u32>>()
        };
        let (h, p) = (0..100_000u64)
            .find_map(|h| {
                counts(h)
                    .iter()
                    .position(|&c| c == 2)
                    .map(|p| (h, p as u64))
            })
            .expect("some hash repeats a position");
        let mine = counts(h);
        let mut f = seeded_in(layout, 1, k, 1);
        let mut others = Vec::new();
        let todo = std::iter::once(p).chain((0..128).filter(|&c| c != p && mine[c as usize] > 0));
        for c in todo {
            if f.counter(c) != Some(0) {
                continue;
            }
            let on_p = u32::from(c == p);
            let g = (1u64 << 40..)
                .find(|&g| {
                    let theirs = counts(g);
                    theirs[c as usize] > 0 && theirs[p as usize] == on_p
                })
                .expect("a hash on the counter");
            f.insert_hash(g);
            others.push(g);
        }
        assert_eq!(f.counter(p), Some(1), "{layout:?}");
        assert!(
            f.contains_hash(h),
            "{layout:?}: every counter of h is non-zero"
        );
        let before = f.clone();
        assert_eq!(f.remove_hash(h), Err(RemoveError::NotPresent), "{layout:?}");
        assert!(f == before && f.len() == others.len());
        for g in others {
            assert_eq!(f.remove_hash(g), Ok(()));
        }
        assert!(f.is_empty() && f.as_words().iter().all(|&w| w == 0));
    }
}

#[test]
fn twenty_copies_saturate_and_stay_present() {
    for (layout, k) in [(BlockLayout::Positions, 6u32), (BlockLayout::Sectors, 8)] {
        let mut f = seeded_in(layout, 16, k, 3);
        for _ in 0..20 {
            f.insert(&u64::MAX).unwrap();
        }
        let mine: Vec<u64> = (0..f.num_counters())
            .filter(|&i| f.counter(i) != Some(0))
            .collect();
        assert!((1..=k as usize).contains(&mine.len()), "{mine:?}");
        if layout == BlockLayout::Sectors {
            // One counter in each word of the block.
            assert_eq!(mine.len(), 8, "{mine:?}");
        }
        assert!(mine.iter().all(|&i| f.counter(i) == Some(15)));
        assert_eq!(f.saturated_counters(), mine.len() as u64);
        assert_eq!(f.count(&u64::MAX), 15);
        let others = members(4, 200);
        f.insert_all(&others).unwrap();
        let saturated = f.saturated_counters();
        for _ in 0..20 {
            assert_eq!(f.remove(&u64::MAX), Ok(()));
        }
        assert!(f.contains(&u64::MAX), "stuck counters keep it present");
        assert!(mine.iter().all(|&i| f.counter(i) == Some(15)));
        assert_eq!((f.len(), f.saturated_counters()), (200, saturated));
        assert!(others.iter().all(|k| f.contains(k)));
        // Stuck counters never prove absence: one more remove passes too.
        assert_eq!(f.remove(&u64::MAX), Ok(()));
        let recount = (0..f.num_counters()).filter(|&i| f.counter(i) == Some(15));
        assert_eq!(recount.count() as u64, f.saturated_counters());
        // Below saturation the count bounds the copies from above.
        for _ in 0..7 {
            f.insert(&(u64::MAX - 7)).unwrap();
        }
        let c = f.count(&(u64::MAX - 7));
        assert!((7..15).contains(&c), "{c}");
        assert_eq!(f.count(&(u64::MAX - 8)), 0);
        f.clear();
        assert_eq!(
            (f.saturated_counters(), f.len(), f.expected_fpr()),
            (0, 0, 0.0)
        );
    }
}

/// Both layouts come back equal, in their format versions: 2 for
/// positions (what older builds read), 3 for sectors.
#[test]
fn round_trip_is_equal_and_answers_alike() {
    for (layout, k, version) in [
        (BlockLayout::Positions, 5, FORMAT_VERSION),
        (BlockLayout::Sectors, 8, 3),
    ] {
        let mut f = seeded_in(layout, 37, k, 3);
        let keys = members(3, 1_000);
        f.insert_all(&keys).unwrap();
        for _ in 0..20 {
            f.insert(&0u64).unwrap();
        }
        let bytes = f.to_bytes();
        // The version, and the hash function (AES-128-CMAC) in the high byte.
        assert_eq!(bytes[4..6], [version as u8, 1], "{layout:?}");
        let g = Blocked::from_bytes(&bytes).unwrap();
        assert!(g == f && g.layout() == layout);
        assert_eq!(g.as_words(), f.as_words());
        assert_eq!((g.num_blocks(), g.num_hashes(), g.len()), (37, k, 1_020));
        assert!(g.saturated_counters() >= 1);
        assert_eq!(g.saturated_counters(), f.saturated_counters());
        assert_eq!(g.hasher().key(), DefaultHasher::from_seed(3).key());
        assert_eq!(g.expected_fpr().to_bits(), f.expected_fpr().to_bits());
        assert!(keys.iter().all(|k| g.contains(k)));
        let disagree = probes(4, 100_000).filter(|p| f.contains(p) != g.contains(p));
        assert_eq!(disagree.count(), 0);
        assert_eq!(<Blocked as Persist>::to_bytes(&g), bytes);
        assert_eq!(<Blocked as Persist>::from_bytes(&bytes), Ok(f));
    }
}

/// A blocked filter's envelope with these parameters and counter words.
fn envelope(blocks: u64, hashes: u32, len: u64, words: &[u64]) -> Vec<u8> {
    forged(Writer::new().u64(blocks).u32(hashes).u64(len), words)
}

fn forged(params: &mut Writer, words: &[u64]) -> Vec<u8> {
    let payload = Writer::new().words(words).finish();
    codec::sealed(BLOCKED_TAG, [1, 2], params.finish(), payload)
}

fn invalid(bytes: &[u8]) -> bool {
    codec::refuses_parameters::<Blocked>(bytes)
}

#[test]
fn forged_envelopes_decode_or_are_refused_for_their_parameters() {
    let mut words = [0u64; 16];
    words[8] = 0xf1;
    let f = Blocked::from_bytes(&envelope(2, 64, 1, &words)).unwrap();
    assert_eq!(
        (f.counter(128), f.counter(129), f.counter(256)),
        (Some(1), Some(15), None)
    );
    assert_eq!((f.num_blocks(), f.saturated_counters()), (2, 1));
    // Zero blocks, zero and 65 hashes, payloads of the wrong size, and a
    // block count whose words overflow.
    for (blocks, hashes, w) in [
        (0, 3, &[][..]),
        (2, 0, &words[..]),
        (2, 65, &words[..]),
        (1, 3, &words[..]),
        (3, 3, &words[..]),
        (2, 3, &words[..15]),
        (u64::MAX, 3, &words[..]),
    ] {
        let what = format!("{blocks} blocks, {hashes} hashes, {} words", w.len());
        assert!(invalid(&envelope(blocks, hashes, 0, w)), "{what}");
    }
    let trailing = forged(Writer::new().u64(2).u32(3).u64(0).u8(0), &words);
    assert!(invalid(&trailing), "trailing parameter bytes");
    let short = forged(Writer::new().u64(2).u32(3), &words);
    assert_eq!(Blocked::from_bytes(&short), Err(DecodeError::Truncated));
    // A version-3 file holds the sectors layout, whose k is a multiple of 8.
    let v3 = |hashes| {
        let params = Writer::new().u64(2).u32(hashes).u64(1).finish();
        let payload = Writer::new().words(&words).finish();
        let (tag, key) = (BLOCKED_TAG, [1, 2]);
        Envelope {
            version: 3,
            tag,
            hash: bloomlab_core::hash::HashFunction::CURRENT,
            key,
            params,
            payload,
        }
        .encode()
    };
    for hashes in [1, 3, 12, 63] {
        assert!(
            invalid(&v3(hashes)),
            "{hashes} hashes in the sectors layout"
        );
    }
    for hashes in [8, 64] {
        let f = Blocked::from_bytes(&v3(hashes)).unwrap();
        assert_eq!((f.layout(), f.num_hashes()), (BlockLayout::Sectors, hashes));
        assert_eq!((f.counter(129), f.saturated_counters()), (Some(15), 1));
    }
    assert_eq!(
        Blocked::from_bytes(&envelope(2, 3, 1, &words))
            .unwrap()
            .layout(),
        BlockLayout::Positions
    );
}

/// The stored form of a sectored filter of one block seeded 7 that holds 1,
/// 2 and 3, in format version 3: each item has one counter in each word.
#[test]
fn stored_bytes_of_the_sectors_layout_are_pinned() {
    // Hashed with SipHash-1-3, as when the bytes were pinned.
    let mut f = BlockedCountingBloomFilter::builder_with_blocks(1, 8)
        .layout(BlockLayout::Sectors)
        .hasher(codec::sip_seeded(7))
        .build()
        .unwrap();
    f.insert_all(&[1, 2, 3]).unwrap();
    let bytes = f.to_bytes();
    let header = [
        "424c4d46",                         // magic "BLMF"
        "0300",                             // format version 3
        "0700",                             // variant: blocked counting
        "d29c963834099d362914eed032e4c7d6", // key of seed 7
        "14000000",                         // 20 bytes of parameters:
        "0100000000000000",                 //   1 block
        "08000000",                         //   k = 8
        "0300000000000000",                 //   3 inserts
        "4000000000000000",                 // 64 bytes of payload
    ];
    let words = [
        "0000000000011001",
        "1000000001010000",
        "0000001000100100",
        "0000000010101000",
        "0010000010000001",
        "0001010000000010",
        "1000000010010000",
        "0000100011000000",
    ];
    let crc = "29fa9eb8";
    assert_eq!(hex(&bytes), header.concat() + &words.concat() + crc);
    let sum = |w: u64| (0..16).map(|j| (w >> (4 * j)) & 15).sum::<u64>();
    assert!(f.as_words().iter().all(|&w| sum(w) == 3));
    assert_eq!(Blocked::from_bytes(&bytes).unwrap(), f);
}

#[test]
fn damaged_files_are_typed_errors() {
    let mut f = seeded(2, 4, 9);
    f.insert_all(&members(10, 20)).unwrap();
    let bytes = f.to_bytes();
    for len in 0..bytes.len() {
        assert_eq!(
            Blocked::from_bytes(&bytes[..len]),
            Err(DecodeError::Truncated),
            "{len}"
        );
    }
    let n = bytes.len();
    for i in [40, n - 20, n - 1] {
        let mut bad = bytes.clone();
        bad[i] ^= 0x10;
        let e = Blocked::from_bytes(&bad).unwrap_err();
        assert!(
            matches!(e, DecodeError::ChecksumMismatch { .. }),
            "byte {i}: {e:?}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        Blocked::from_bytes(&longer),
        Err(DecodeError::TrailingBytes)
    );
    // The other counting filter's tag, and the other filter reading this one.
    let as_counting = codec::sealed(
        TAG,
        [1, 2],
        Writer::new().u64(1).u32(3).u64(0).finish(),
        vec![0; 64],
    );
    let (expected, found) = (BLOCKED_TAG, TAG.id());
    let wrong = DecodeError::WrongVariant { expected, found };
    assert_eq!(Blocked::from_bytes(&as_counting), Err(wrong));
    let (expected, found) = (TAG, BLOCKED_TAG.id());
    let wrong = DecodeError::WrongVariant { expected, found };
    assert_eq!(CountingBloomFilter::<u64>::from_bytes(&bytes), Err(wrong));
}

/// Decode-and-use fuzzing (as fuzz.rs runs it for the counting filter), at
/// a scale for this file's time budget: every stored field of three small
/// filters set to its edge values, then seeded random cases.
#[test]
fn decode_and_use_never_panics() {
    let layout = [
        ("blocks", Kind::U64),
        ("num_hashes", Kind::U32),
        ("len", Kind::U64),
    ];
    let fields = Field::params(0, &layout);
    let builders = [
        (BlockedCountingBloomFilter::builder(100, 0.01), 50),
        (
            BlockedCountingBloomFilter::builder_with_blocks(1, 3).layout(BlockLayout::Positions),
            0,
        ),
        (BlockedCountingBloomFilter::builder_with_blocks(2, 64), 5),
    ];
    let mut filters = fuzz::seeded(builders, |b, seed| b.seed(seed).build().unwrap());
    for _ in 0..20 {
        filters[1].insert(&7u64).unwrap();
    }
    let samples = fuzz::samples(filters, |_| fields.clone());
    let plan = Plan::new("blocked counting", BLOCKED_TAG, samples).cases(RANDOM_CASES, 15);
    fuzz::run_decoder(&plan, Blocked::from_bytes, use_blocked);
}

/// A decoded case costs about 1.5 ms here, most of it in `expected_fpr`
/// (the exact occupancy recursion, up to 64 hashes); one case in ten
/// decodes: about 0.3 s in release.
const RANDOM_CASES: u64 = 2_000;

fn use_blocked(f: &mut Blocked) {
    let m = f.num_counters();
    assert_eq!(m, f.num_blocks() * 128);
    assert_eq!(f.memory_bytes() as u64, m / 2);
    assert!(f.saturated_counters() <= m);
    for i in [0, m - 1, m, u64::MAX] {
        assert_eq!(f.counter(i).is_some(), i < m, "counter({i}) of {m}");
    }
    for h in EXTREME_HASHES {
        f.insert_hash(h);
        assert!(f.contains_hash(h) && f.count_hash(h) > 0);
    }
    let keys = members(40, 24);
    fuzz::use_items(f, &item_methods!(Blocked), &keys);
    for h in EXTREME_HASHES {
        let _ = f.remove_hash(h);
    }
    let _ = (format!("{f:?}"), f.expected_fpr(), f.remove(&u64::MAX));
    fuzz::use_deletable(f);
}

/// Sizes no machine can hold: a typed error (or, where the allocator grants
/// every request lazily, a filter of that size), never an abort.
#[test]
fn hostile_sizes_are_out_of_memory_not_an_abort() {
    let bytes = 1u128 << 46;
    let huge = Blocked::with_blocks(1 << 40, 8);
    machine::assert_refused_or_granted(huge, BuildError::OutOfMemory { bytes }, bytes);
    let (blocks, _) = sectored::size_for(16, 8, 1_000_000_000_000, 0.01).unwrap();
    let bytes = u128::from(blocks) * 64;
    let trillion = Blocked::new(1_000_000_000_000, 0.01);
    machine::assert_refused_or_granted(trillion, BuildError::OutOfMemory { bytes }, bytes);
}

#[test]
fn bad_parameters_are_typed_errors() {
    assert_refuses_invalid_fprs(|p| Blocked::new(100, p));
    assert_refused(Blocked::new(0, 0.01), ParamError::ZeroItems);
    assert_refused(Blocked::with_blocks(0, 3), ParamError::ZeroBits);
    assert_refused(Blocked::with_blocks(4, 0), ParamError::ZeroHashes);
    assert_refused(Blocked::with_blocks(4, 65), ParamError::TooManyHashes(65));
    assert_eq!(Blocked::with_blocks(4, 64).unwrap().num_hashes(), 64);
    // The sectors layout spreads k over eight words; the positions layout
    // takes any k.
    for k in [1, 7, 12, 63] {
        let per_sector = ParamError::HashesPerSector {
            hashes: k,
            sectors: 8,
        };
        assert_refused(Blocked::with_blocks(4, k), per_sector);
        assert_eq!(seeded(4, k, 1).num_hashes(), k);
    }
    let needed = u128::from(u64::MAX) * 64;
    let limit = isize::MAX as u128;
    assert_refused(
        Blocked::with_blocks(u64::MAX, 8),
        ParamError::TooLarge { needed, limit },
    );
}

#[test]
fn larger_than_allowed() {
    let bytes = Blocked::new(1_000, 0.01).unwrap().memory_bytes();
    assert_cap_is_exact(
        |cap| Blocked::builder(1_000, 0.01).max_bytes(cap).build(),
        bytes,
    );
    let exact = |cap| Blocked::builder_with_blocks(10, 8).max_bytes(cap).build();
    assert_cap_is_exact(exact, 640);
}

#[test]
fn batches_match_single_calls() {
    let make = || sized(batch::ITEMS, 0.01, 3);
    let methods = item_methods!(Blocked);
    let mut f = batch::check(make, &methods);
    let items = members(5, batch::ITEMS);
    assert_eq!(f.clone().insert_batch(&items), Ok(0), "members are not new");
    for k in &items[..batch::ITEMS / 2] {
        f.remove(k).unwrap();
    }
    let answers = batch::assert_lookups_match(&f, &methods, &items);
    assert!(answers.iter().any(|&x| !x), "some removed items are absent");
    let (mut one, fresh) = (make(), members(6, 1_000));
    let new = methods.one_by_one(&mut one, &fresh).unwrap();
    assert!(new > 980, "{new}");
    let (g, via_trait) = batch::assert_trait_agrees(&make(), &methods, &fresh, &items);
    assert_eq!(via_trait, Ok(new));
    assert!(g == one);
}

#[test]
fn hash_level_methods_are_the_item_methods() {
    let mut f = seeded(50, 6, 11);
    let h = DefaultHasher::from_seed(11);
    let keys = members(12, 500);
    for k in &keys {
        let reported = f.contains(k);
        assert_eq!(f.insert_hash(h.hash_one(k)), !reported);
    }
    for k in &keys {
        assert!(f.contains_hash(h.hash_one(k)));
        assert_eq!(f.count(k), f.count_hash(h.hash_one(k)));
    }
    for k in &keys[..250] {
        assert_eq!(f.remove_hash(h.hash_one(k)), Ok(()));
    }
    let mut g = seeded(50, 6, 11);
    g.insert_all(&keys[250..]).unwrap();
    assert!(f == g, "removes by hash undo inserts by item");
}
