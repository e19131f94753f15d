//! Persistence: pinned bytes, round trips of grown filters, and every
//! parameter that does not fit rejected with a typed error.

use bloomlab_core::codec::Envelope;
use bloomlab_core::hash::{HashFunction, Scheme};
use bloomlab_core::{DecodeError, Membership, Persist};
use bloomlab_scalable::ScalableBloomFilter;
use bloomlab_testkit::codec::{self, hex, unhex};
use bloomlab_testkit::keys::{members, probes};

/// A small seeded filter that has grown to three layers, hashed with
/// SipHash-1-3 as when its bytes were pinned.
fn small() -> ScalableBloomFilter<u64> {
    let mut f = ScalableBloomFilter::builder(4, 0.1)
        .hasher(codec::sip_seeded(7))
        .build()
        .unwrap();
    for i in 0..20u64 {
        f.insert(&i).unwrap();
    }
    f
}

#[test]
fn value_stability() {
    let f = small();
    assert_eq!(f.layers().len(), 3);
    let bytes = f.to_bytes();
    assert_eq!(
        hex(&bytes),
        pinned(Written::Now),
        "the format or the hashing changed"
    );
    assert_eq!(
        ScalableBloomFilter::<u64>::from_bytes(&bytes)
            .unwrap()
            .to_bytes(),
        bytes
    );
    // Of the default hash: AES-128-CMAC in the version field's high byte.
    let mut f = ScalableBloomFilter::builder(4, 0.1)
        .seed(7)
        .build()
        .unwrap();
    f.insert_all(&(0..20u64).collect::<Vec<_>>()).unwrap();
    let bytes = f.to_bytes();
    assert_eq!(bytes[4..6], [2, HashFunction::AesCmac.id()]);
    assert_eq!(
        ScalableBloomFilter::<u64>::from_bytes(&bytes)
            .unwrap()
            .to_bytes(),
        bytes
    );
}

/// `small()` as written by this build (`Written::Now`), by format 2 before
/// the classic sizing took fewer hashes for up to 1/32 more bits
/// (`Written::Format2SmallestTables`), and in format 1, before its layers placed their
/// bits by [`Scheme::FixedPoint`] (they used [`Scheme::Modular`]). Only
/// the version, the layers' hash counts, their words and the checksum differ.
#[derive(Clone, Copy)]
enum Written {
    Now,
    Format2SmallestTables,
    Format1,
}

fn pinned(written: Written) -> String {
    let (version, hashes, words, crc) = match written {
        Written::Format1 => (
            "0100",
            ["0b000000", "0b000000", "08000000"],
            [
                "23b660bb54780fac",
                "f56b18d2e0b512e2ef46bc30176b9ece",
                "00a854a00a88bbb8c208080ac3880609a820a0100a060009",
            ],
            "f7413438",
        ),
        Written::Format2SmallestTables => (
            "0200",
            ["0b000000", "0b000000", "08000000"],
            [
                "eafc30e7b858af42",
                "3ee316c8759e571ef94159e06cbe609c",
                "020c791804482414c180008143d20f514614889a04064b4a",
            ],
            "6d849f2e",
        ),
        Written::Now => (
            "0200",
            ["02000000", "03000000", "03000000"],
            [
                "0000200410100640",
                "104300402180071289000900400a0008",
                "000831000008201480000000430000110000800a00064240",
            ],
            "395ee09d",
        ),
    };
    [
        // magic BLMF, the version, variant 5 (scalable)
        "424c4d46",
        version,
        "0500",
        // hash key of seed 7
        "d29c963834099d362914eed032e4c7d6",
        // parameter length 113
        "71000000",
        // n0 = 4, P = 0.1
        "04000000000000009a9999999999b93f",
        // s = 2, r = 0.85
        "02000000333333333333eb3f",
        // no memory cap
        "000000000000000000",
        // len 20, active layer 2, 3 layers
        "14000000000000000200000003000000",
        // layer 0: 64 bits, k (now 2, before 11), 4 items
        "4000000000000000",
        hashes[0],
        "0400000000000000",
        // layer 1: 128 bits, k (now 3, before 11), 8 items
        "8000000000000000",
        hashes[1],
        "0800000000000000",
        // layer 2: 192 bits, k (now 3, before 8), 8 items
        "c000000000000000",
        hashes[2],
        "0800000000000000",
        // payload length 48
        "3000000000000000",
        // layer 0's word, layer 1's two, layer 2's three
        words[0],
        words[1],
        words[2],
        // CRC-32
        crc,
    ]
    .concat()
}

#[test]
fn files_of_the_smallest_tables_keep_their_hashes_as_they_grow() {
    let old = unhex(&pinned(Written::Format2SmallestTables));
    let mut f = ScalableBloomFilter::<u64>::from_bytes(&old).unwrap();
    let hashes = |f: &ScalableBloomFilter<u64>| -> Vec<u32> {
        f.layers().iter().map(|l| l.num_hashes()).collect()
    };
    assert_eq!(hashes(&f), [11, 11, 8]);
    assert!((0..20u64).all(|i| f.contains(&i)));
    assert_eq!(f.to_bytes(), old, "written back as read");
    for i in 20..200u64 {
        f.insert(&i).unwrap();
    }
    // The layers it had keep their hashes; the ones it adds take today's.
    assert_eq!(hashes(&f)[..3], [11, 11, 8]);
    assert!(f.layers().len() > 3, "it grew");
    assert!((0..200u64).all(|i| f.contains(&i)));
}

#[test]
fn version_1_files_keep_their_positions_as_they_grow() {
    let old = unhex(&pinned(Written::Format1));
    let mut f = ScalableBloomFilter::<u64>::from_bytes(&old).unwrap();
    assert_eq!(f.scheme(), Scheme::Modular);
    assert!((0..20u64).all(|i| f.contains(&i)));
    assert_eq!(f.to_bytes(), old, "written back as read");
    for i in 20..200u64 {
        f.insert(&i).unwrap();
    }
    assert!(f.layers().len() > 3, "it grew");
    assert!(f.layers().iter().all(|l| l.scheme() == Scheme::Modular));
    assert!((0..200u64).all(|i| f.contains(&i)));
    let back = ScalableBloomFilter::<u64>::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(back.to_bytes()[4..6], [1, 0], "still format version 1");
    assert!((0..200u64).all(|i| back.contains(&i)));
    assert_eq!(small().scheme(), Scheme::CURRENT);
}

#[test]
fn grown_filters_round_trip() {
    for (n0, s, capped) in [(1_000, 2, false), (500, 4, true), (300, 3, false)] {
        let builder = ScalableBloomFilter::builder(n0, 0.01)
            .growth_factor(s)
            .seed(21);
        let builder = if capped {
            builder.max_bytes(1 << 20)
        } else {
            builder
        };
        let mut f = builder.build().unwrap();
        let keys = members(22, 40_000);
        f.insert_all(&keys).unwrap();
        assert!(f.layers().len() >= 4);

        let bytes = f.to_bytes();
        let g = ScalableBloomFilter::from_bytes(&bytes).unwrap();
        assert_eq!(g.to_bytes(), bytes);
        assert_eq!(
            (g.len(), g.added(), g.capacity(), g.memory_bytes()),
            (f.len(), f.added(), f.capacity(), f.memory_bytes())
        );
        assert_eq!(g.expected_fpr().to_bits(), f.expected_fpr().to_bits());
        assert_eq!(g.max_bytes(), f.max_bytes());
        assert_eq!(
            (
                g.growth_factor(),
                g.tightening_ratio(),
                g.target_fpr(),
                g.initial_capacity()
            ),
            (
                f.growth_factor(),
                f.tightening_ratio(),
                f.target_fpr(),
                f.initial_capacity()
            )
        );
        assert_eq!(g.count_contained(&keys), keys.len());
        assert!(probes(23, 100_000).all(|p| f.contains(&p) == g.contains(&p)));

        // The decoded filter goes on growing exactly as the original does.
        let (mut f, mut g) = (f, g);
        let more = members(24, 30_000);
        assert_eq!(f.insert_all(&more), g.insert_all(&more));
        assert_eq!(f.to_bytes(), g.to_bytes());
    }
}

#[test]
fn cleared_filters_round_trip() {
    let mut f = small();
    f.clear();
    f.insert(&99u64).unwrap();
    let g: ScalableBloomFilter<u64> = ScalableBloomFilter::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(g.to_bytes(), f.to_bytes());
    assert_eq!(g.layers().len(), 3);
    assert!(g.contains(&99u64));
}

/// The parameters and payload of `small()`, to edit and re-wrap with a
/// valid checksum, so that only the parameter checks can catch the edit.
fn parts() -> Envelope {
    Envelope::decode(&small().to_bytes(), bloomlab_scalable::TAG).unwrap()
}

fn rewrap(env: &Envelope) -> Result<ScalableBloomFilter<u64>, DecodeError> {
    ScalableBloomFilter::from_bytes(&env.encode())
}

fn invalid(what: &'static str) -> Result<(), DecodeError> {
    Err(DecodeError::InvalidParameters { what })
}

/// Offsets of the fixed parameter fields (see `bloomlab_scalable::codec`).
const N0: usize = 0;
const FPR: usize = 8;
const GROWTH: usize = 16;
const RATIO: usize = 20;
const CAP_FLAG: usize = 28;
const CAP: usize = 29;
const LEN: usize = 37;
const ACTIVE: usize = 45;
const COUNT: usize = 49;
/// Layer `i`'s bits, hashes and items added.
const fn layer(i: usize) -> usize {
    53 + 20 * i
}

fn put(env: &mut Envelope, at: usize, bytes: &[u8]) {
    env.params[at..at + bytes.len()].copy_from_slice(bytes);
}

/// Sets the bits of the last of `small()`'s three layers to `resize` of
/// what they are, leaving the payload as it is.
fn resize_last_layer(env: &mut Envelope, resize: impl FnOnce(u64) -> u64) {
    let at = layer(2);
    let bits = u64::from_le_bytes(env.params[at..at + 8].try_into().unwrap());
    put(env, at, &resize(bits).to_le_bytes());
}

fn check(edit: impl FnOnce(&mut Envelope), expected: Result<(), DecodeError>) {
    let mut env = parts();
    edit(&mut env);
    assert_eq!(rewrap(&env).map(|_| ()), expected);
}

/// [`check`] of the edit that [`put`]s `bytes` at `at`.
fn check_put(at: usize, bytes: &[u8], expected: Result<(), DecodeError>) {
    check(|e| put(e, at, bytes), expected);
}

#[test]
fn the_unedited_parts_decode() {
    check(|_| {}, Ok(()));
}

#[test]
fn rejects_a_growth_factor_out_of_range() {
    for s in [5u32, 1] {
        check_put(GROWTH, &s.to_le_bytes(), invalid("growth factor"));
    }
}

#[test]
fn rejects_a_tightening_ratio_out_of_range() {
    for r in [1.0, f64::NAN] {
        check_put(RATIO, &r.to_le_bytes(), invalid("tightening ratio"));
    }
}

#[test]
fn rejects_a_total_rate_out_of_range() {
    for p in [0.0, 1.0f64] {
        check_put(FPR, &p.to_le_bytes(), invalid("total rate"));
    }
}

#[test]
fn rejects_a_zero_initial_capacity() {
    check_put(N0, &0u64.to_le_bytes(), invalid("initial capacity"));
}

#[test]
fn rejects_a_schedule_the_layers_do_not_follow() {
    // Twice the capacity: the first layer is then too small for its rate.
    check_put(
        N0,
        &8u64.to_le_bytes(),
        invalid("a layer too small for its rate"),
    );
    // A tighter total rate: likewise.
    check_put(
        FPR,
        &0.01f64.to_le_bytes(),
        invalid("a layer too small for its rate"),
    );
}

#[test]
fn rejects_a_bad_memory_cap() {
    check_put(CAP_FLAG, &[2], invalid("memory cap flag"));
    check_put(CAP, &1u64.to_le_bytes(), invalid("memory cap flag"));
    check(
        |e| {
            put(e, CAP_FLAG, &[1]);
            put(e, CAP, &16u64.to_le_bytes());
        },
        invalid("layers beyond the memory cap"),
    );
}

#[test]
fn rejects_layer_counts_that_do_not_fit() {
    check(
        |e| {
            put(e, COUNT, &0u32.to_le_bytes());
            e.params.truncate(layer(0));
        },
        invalid("no layers"),
    );
    check_put(
        ACTIVE,
        &3u32.to_le_bytes(),
        invalid("active layer beyond the last"),
    );
    // More layers declared than the parameters hold.
    for count in [4, u32::MAX] {
        check_put(COUNT, &count.to_le_bytes(), Err(DecodeError::Truncated));
    }
    check(
        |e| e.params.push(0),
        invalid("parameters longer than their fields"),
    );
}

#[test]
fn rejects_layer_sizes_that_do_not_fit() {
    for hashes in [0u32, 65] {
        check_put(layer(0) + 8, &hashes.to_le_bytes(), invalid("layer size"));
    }
    check_put(layer(0), &0u64.to_le_bytes(), invalid("layer size"));
    // One word fewer in the last layer, with the payload to match: too
    // small for the layer's rate.
    check(
        |e| {
            resize_last_layer(e, |bits| bits - 64);
            let end = e.payload.len() - 8;
            e.payload.truncate(end);
        },
        invalid("a layer too small for its rate"),
    );
    // One word more than the payload holds in the last layer.
    check(
        |e| resize_last_layer(e, |bits| bits + 64),
        Err(DecodeError::Truncated),
    );
    check(
        |e| e.payload.extend([0; 8]),
        invalid("payload longer than the layers"),
    );
}

#[test]
fn rejects_item_counts_that_do_not_fit() {
    // Layer 0 holds 4: 5 is too many, 3 leaves a hole before the active layer.
    for added in [5u64, 3] {
        check_put(
            layer(0) + 12,
            &added.to_le_bytes(),
            invalid("items added to a layer"),
        );
    }
    // The active layer moved back: layer 2 holds items past it.
    check_put(
        ACTIVE,
        &1u32.to_le_bytes(),
        invalid("items added to a layer"),
    );
    // Fewer inserts than items added.
    check_put(
        LEN,
        &2u64.to_le_bytes(),
        invalid("more items added than inserted"),
    );
    // Every bit of the first layer set: more than k per item.
    check(
        |e| {
            e.payload[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        },
        invalid("bits set do not fit the items added"),
    );
}

#[test]
fn rejects_other_variants() {
    let classic: bloomlab_classic::BloomFilter<u64> =
        bloomlab_classic::BloomFilter::builder(100, 0.01)
            .seed(1)
            .build()
            .unwrap();
    assert_eq!(
        ScalableBloomFilter::from_bytes(&classic.to_bytes()).map(|_: ScalableBloomFilter<u64>| ()),
        Err(DecodeError::WrongVariant {
            expected: bloomlab_scalable::TAG,
            found: bloomlab_classic::CLASSIC_TAG.id()
        })
    );
}

#[test]
fn the_trait_and_the_inherent_methods_agree() {
    let f = small();
    assert_eq!(Persist::to_bytes(&f), f.to_bytes());
    let g = <ScalableBloomFilter<u64> as Persist>::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(g.to_bytes(), f.to_bytes());
}

proptest::proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
        let _ = ScalableBloomFilter::<u64>::from_bytes(&bytes);
    }

    /// Edits behind a valid checksum reach the parameter checks: any result
    /// is fine but a panic, and a filter that decodes must answer for every
    /// item it held before the edit or else have a changed parameter.
    #[test]
    fn edited_parameters_never_panic(at in 0usize..113, value in proptest::num::u8::ANY) {
        let mut env = parts();
        let at = at % env.params.len();
        env.params[at] = value;
        if let Ok(g) = rewrap(&env) {
            let _ = g.expected_fpr();
            let _ = g.contains(&1u64);
            let mut g = g;
            let _ = g.insert(&12_345u64);
        }
    }

    #[test]
    fn edited_payloads_never_panic(at in 0usize..1_000, value in proptest::num::u8::ANY) {
        let mut env = parts();
        let at = at % env.payload.len();
        env.payload[at] = value;
        let _ = rewrap(&env);
    }
}
