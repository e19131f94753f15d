use super::*;

fn table(buckets: u64, b: u32, f: u32, layout: Layout) -> Table {
    let words = Table::words_for(buckets, Table::bucket_bits(b, f, layout)).unwrap();
    let words = bloomlab_core::alloc::buffer(words).unwrap();
    Table::from_words(words, buckets, b, f, layout, AltMap::Sub)
}

/// Every shape the filter supports: (b, f, layout).
fn shapes() -> impl Iterator<Item = (u32, u32, Layout)> {
    BUCKET_SIZES
        .into_iter()
        .flat_map(|b| FINGERPRINT_BITS.map(move |f| (b, f, Layout::Plain)))
        .chain(FINGERPRINT_BITS.map(|f| (4, f, Layout::SemiSorted)))
}

fn contents(t: &Table, i: usize) -> Vec<u32> {
    let mut v: Vec<u32> = t.slots(i).collect();
    v.sort_unstable();
    v
}

#[test]
fn the_semi_sorted_index_is_a_bijection() {
    let mut seen = vec![false; 4096];
    let mut count = 0;
    for d in 0..16 {
        for c in 0..=d {
            for b in 0..=c {
                for a in 0..=b {
                    let r = semi_rank(a, b, c, d) as usize;
                    assert!(r < 3_876 && !seen[r], "{a} {b} {c} {d} → {r}");
                    let [ta, tb, tc, td] = RANK_TERMS;
                    let terms = ta[a as usize] + tb[b as usize] + tc[c as usize] + td[d as usize];
                    assert_eq!(usize::from(terms), r, "{a} {b} {c} {d}");
                    seen[r] = true;
                    count += 1;
                    let nib = u32::from(SEMI_DECODE[r]);
                    assert_eq!(nib, a | b << 4 | c << 8 | d << 12);
                }
            }
        }
    }
    assert_eq!(count, 3_876);
    assert_eq!(
        count,
        bloomlab_core::theory::cuckoo::SEMI_SORTED_INDEXES as usize
    );
}

/// Every shape: buckets written in a scattered order read back, writing
/// one bucket leaves its neighbours alone, and the bit count is exact.
#[test]
fn packing_round_trips_for_every_shape() {
    for (b, f, layout) in shapes() {
        let n = 32usize;
        let bits = Table::bucket_bits(b, f, layout);
        let mut t = table(n as u64, b, f, layout);
        assert_eq!(t.words().len(), (n as u32 * bits).div_ceil(64) as usize);
        let value = |i: usize, j: u32| -> u32 {
            let top = (1u64 << f) - 1;
            ((i as u64 * 7_919 + u64::from(j) * 104_729 + u64::from(f) * 31) % top) as u32 + 1
        };
        for i in (0..n).map(|i| (i * 13) % n) {
            for j in 0..b {
                assert!(t.put(i, value(i, j)), "{b} {f} {layout:?}");
            }
            assert!(!t.put(i, 1), "a full bucket takes nothing");
        }
        for i in 0..n {
            let mut want: Vec<u32> = (0..b).map(|j| value(i, j)).collect();
            want.sort_unstable();
            assert_eq!(contents(&t, i), want, "b {b} f {f} {layout:?} bucket {i}");
            assert_eq!(t.occupied(i), b);
            assert!(t.is_canonical(i));
            for &fp in &want {
                assert!(t.holds_either(i, i, fp));
                assert!(t.count(i, fp) >= 1);
            }
        }
        assert!(t.tail_is_clear());
        for i in 0..n {
            for j in 0..b {
                assert!(t.take(i, value(i, j)));
            }
        }
        assert!(t.words().iter().all(|&w| w == 0), "b {b} f {f} {layout:?}");
    }
}

/// The fast lookup agrees with reading every slot, for every shape, on
/// buckets with many empty and repeated slots.
#[test]
fn lookup_paths_agree_for_every_shape() {
    for (b, f, layout) in shapes() {
        let n = 64usize;
        let mut t = table(n as u64, b, f, layout);
        let top = (1u64 << f) - 1;
        let mut x = u64::from(b * 100 + f) + 7 * u64::from(layout == Layout::SemiSorted);
        let mut stored = Vec::new();
        for i in 0..n {
            for _ in 0..b {
                x = bloomlab_core::hash::mix64(x);
                // A quarter of the slots empty; small values repeat.
                let fp = match x & 7 {
                    0 | 1 => continue,
                    2 => 1 + (x >> 8) % 3,
                    _ => 1 + (x >> 8) % top,
                } as u32;
                assert!(t.put(i, fp));
                stored.push(fp);
            }
        }
        let mut probes: Vec<u32> = stored.clone();
        probes.extend((0..400).map(|k| {
            x = bloomlab_core::hash::mix64(x ^ k);
            1 + (x % top) as u32
        }));
        for i1 in 0..n {
            let i2 = (i1 * 37 + 5) % n;
            for &fp in &probes {
                let slow = t.count(i1, fp) > 0 || t.count(i2, fp) > 0;
                assert_eq!(t.holds_either(i1, i2, fp), slow, "b {b} f {f} {layout:?}");
            }
        }
    }
}

/// Buckets that may span one word more than a load's own count are read
/// by one unaligned load of 8 or 16 bytes when they fit it from any
/// starting bit, and word by word otherwise: the shapes the test above
/// covers take both ways.
#[test]
fn buckets_that_straddle_words_are_read_by_one_load() {
    let le = cfg!(target_endian = "little");
    // Four slots of 10 bits (the default shape at 1%), of 7 and of 14,
    // and 57 bits, the widest an 8-byte load holds from any bit.
    for bits in [40, 28, 56, 57] {
        assert_eq!(Table::read_as_bytes(bits, 64), le, "{bits}");
    }
    // Widths that divide the load never straddle; 58 to 63 bits may not
    // fit 8 bytes from the last bit of a byte.
    for bits in [8, 16, 32, 64, 58, 60, 63] {
        assert!(!Table::read_as_bytes(bits, 64), "{bits}");
    }
    for bits in [68, 92, 120, 121] {
        assert_eq!(Table::read_as_bytes(bits, 128), le, "{bits}");
    }
    for bits in [128, 122, 124] {
        assert!(!Table::read_as_bytes(bits, 128), "{bits}");
    }
    let probes: Vec<Probe> = shapes()
        .map(|(b, f, layout)| table(8, b, f, layout).probe)
        .collect();
    for bytes in [
        Probe::Plain64Bytes,
        Probe::Semi64Bytes,
        Probe::Plain128Bytes,
        Probe::Semi128Bytes,
    ] {
        assert_eq!(probes.contains(&bytes), le, "{bytes:?}");
    }
    for words in [
        Probe::Plain64,
        Probe::Plain64Aligned,
        Probe::Semi64,
        Probe::Plain128,
        Probe::Semi128,
    ] {
        assert!(probes.contains(&words), "{words:?}");
    }
}

/// A swap and its undo restore the bits, in either layout, even when
/// the bucket holds the swapped-in value already.
#[test]
fn swaps_undo_exactly() {
    for (b, f, layout) in [
        (4, 12, Layout::SemiSorted),
        (4, 12, Layout::Plain),
        (8, 20, Layout::Plain),
        (4, 4, Layout::SemiSorted),
        (4, 32, Layout::SemiSorted),
    ] {
        let mut t = table(3, b, f, layout);
        for fp in [9, 3, 9] {
            assert!(t.put(1, fp));
        }
        let before = t.clone();
        let mut path = Vec::new();
        for (j, fp) in [(0u32, 9u32), (3, 5), (1, 3), (2, 9)] {
            let old = t.swap(1, j % b, fp);
            path.push((j % b, fp, old));
        }
        assert!(t != before);
        for &(j, fp, old) in path.iter().rev() {
            t.unswap(1, j, fp, old);
        }
        assert!(t == before, "b {b} f {f} {layout:?}");
    }
}

#[test]
fn swaps_undo_exactly_in_every_bucket_of_every_shape() {
    // Five buckets: the last ones' windows run past the table's end.
    for (b, f, layout) in shapes() {
        let top = u32::MAX >> (32 - f);
        let fp = |x: u32| x % top + 1;
        let mut t = table(5, b, f, layout);
        for i in 0..5 {
            for j in 0..b - 1 {
                assert!(t.put(i, fp(i as u32 * 11 + j * 5)));
            }
        }
        let before = t.clone();
        for i in 0..5 {
            let mut path = Vec::new();
            for (step, j) in (0..b).rev().chain(0..b).enumerate() {
                let new = fp(7 * step as u32 + 3);
                let old = t.swap(i, j, new);
                path.push((j, new, old));
            }
            assert!(t != before, "b {b} f {f} {layout:?} bucket {i}");
            for &(j, new, old) in path.iter().rev() {
                t.unswap(i, j, new, old);
            }
            assert!(t == before, "b {b} f {f} {layout:?} bucket {i}");
        }
    }
}

#[test]
fn put_take_and_count() {
    for layout in [Layout::Plain, Layout::SemiSorted] {
        let mut t = table(4, 4, 12, layout);
        assert!(t.put(1, 0xabc));
        assert!(t.put(1, 0x123));
        assert!(t.put(1, 0xabc));
        assert!(t.put(1, 0xfff));
        assert!(!t.put(1, 0x001), "a full bucket takes nothing");
        assert_eq!(t.count(1, 0xabc), 2);
        assert!(!t.holds_either(1, 1, 0x124));
        assert!(t.take(1, 0xabc));
        assert_eq!(t.occupied(1), 3);
        assert_eq!(t.count(1, 0xabc), 1);
        assert!(!t.take(1, 0x555));
        assert_eq!(t.occupied(0) + t.occupied(2), 0);
    }
}

/// Semi-sorted buckets: 4f − 4 bits, and a non-canonical bucket (an
/// index past 3,875, or suffixes out of order) is recognised.
#[test]
fn semi_sorted_canonical_form() {
    let mut t = table(2, 4, 8, Layout::SemiSorted);
    assert_eq!(t.bits_per_bucket(), 28);
    assert!(t.put(0, 0x17));
    assert!(t.put(0, 0x13));
    assert!(t.is_canonical(0));
    // Prefixes (0, 0, 1, 1), suffixes (0, 0, 3, 7): swap the last two.
    let v = t.read128(0, 28);
    let swapped = (v & 0xfff) | (u128::from(3u32) << 24) | (u128::from(7u32) << 20);
    t.write128(0, 28, swapped);
    assert!(!t.is_canonical(0));
    t.write128(0, 28, 3_876);
    assert!(!t.is_canonical(0));
    t.write128(0, 28, 0);
    assert!(t.is_canonical(0));
}

#[test]
fn other_bucket_is_an_involution() {
    for buckets in [1u64, 2, 3, 7, 64, 100, 263, 264, 1 << 20, (1 << 20) + 1] {
        let t = Table::from_words(
            bloomlab_core::alloc::buffer(0).unwrap(),
            buckets,
            4,
            16,
            Layout::Plain,
            AltMap::Sub,
        );
        let mut same = 0;
        for fp in (1..65_536u32).step_by(97) {
            let i = (u64::from(fp) * 31 % buckets) as usize;
            let j = t.other_bucket(i, fp);
            assert!((j as u64) < buckets);
            assert_eq!(t.other_bucket(j, fp), i, "m {buckets} fp {fp}");
            same += usize::from(i == j);
        }
        if buckets % 2 == 0 {
            assert_eq!(
                same, 0,
                "m {buckets}: an even count never maps a bucket to itself"
            );
        }
    }
}
