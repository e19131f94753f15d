//! The acceptance tests of growth: from 1,000 items to a million, the rate
//! stays under the total promised at every layer boundary, no member is ever
//! reported absent, and memory stays within 2× a right-sized classic filter.

use bloomlab_core::theory::{classic, scalable};
use bloomlab_scalable::ScalableBloomFilter;
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::rates::assert_in_interval;
use bloomlab_testkit::stats::binomial_upper;

const PROBES: usize = 1_000_000;

/// What one layer-full checkpoint measured.
struct Checkpoint {
    layers: usize,
    len: usize,
    hits: u64,
    expected: f64,
    from_fill: f64,
    memory_ratio: f64,
}

/// The rate of a probe given the filter's present bits: a probe passes layer
/// `i` when its `k_i` positions are all set, probability `fill_i^k_i`
/// ([`classic::fpr_from_fill`]), and the layers' bits are independent.
fn rate_from_fill(f: &ScalableBloomFilter<u64>) -> f64 {
    scalable::compound_fpr(
        f.layers()
            .iter()
            .map(|l| classic::fpr_from_fill(l.fill_ratio(), f64::from(l.num_hashes()))),
    )
}

/// Grows a filter from `n0` items by `s` until `layers` layers are full,
/// checking at each layer-full checkpoint.
fn grow(
    p: f64,
    n0: usize,
    s: u32,
    r: f64,
    layers: usize,
    seed: u64,
    redisbloom: bool,
) -> Vec<Checkpoint> {
    let builder = ScalableBloomFilter::builder(n0, p).seed(seed);
    let builder = if redisbloom {
        builder.redisbloom()
    } else {
        builder.growth_factor(s).tightening_ratio(r)
    };
    let mut f = builder.build().unwrap();
    let full: u64 = (0..layers as u32)
        .map(|i| scalable::layer_capacity(n0 as u64, s, i).unwrap())
        .sum();
    // A few more keys than the layers hold: inserts of keys a layer already
    // reports (false positives) add nothing.
    let keys = members(seed + 1, full as usize + full as usize / 50 + 100);
    let mut out = Vec::new();
    for (count, key) in keys.iter().enumerate() {
        f.insert(key).unwrap();
        if f.added() != f.capacity() {
            continue;
        }
        let inserted = &keys[..=count];
        let missing = inserted.iter().filter(|k| !f.contains(k)).count();
        assert_eq!(missing, 0, "false negatives after {} inserts", count + 1);
        assert_eq!(f.len(), count + 1);

        let seed = seed + 100 + f.layers().len() as u64;
        let hits = probes(seed, PROBES).filter(|k| f.contains(k)).count() as u64;
        let bound = binomial_upper(PROBES as u64, p, 0.999);
        assert!(
            hits <= bound,
            "{} layers, {} items: {hits} false positives in {PROBES}, above {bound} for P = {p}",
            f.layers().len(),
            f.len()
        );
        // The rate the present bits give, within the binomial interval.
        let from_fill = rate_from_fill(&f);
        let what = "false positives at the rate the bits set predict";
        assert_in_interval(hits, PROBES as u64, from_fill, what);
        let expected = f.expected_fpr();
        assert!(expected < p, "theory at this load {expected} ≥ {p}");

        // Memory: exactly what theory sizes, within 2× a classic filter
        // right-sized for the items inserted.
        let bits = f.memory_bytes() as u64 * 8;
        assert_eq!(
            Ok(bits),
            scalable::bits_after(n0 as u64, s, p, f.tightening_ratio(), f.added())
        );
        let (right_sized, _) = classic::size_for(f.len() as u64, p).unwrap();
        let memory_ratio = bits as f64 / right_sized as f64;
        out.push(Checkpoint {
            layers: f.layers().len(),
            len: f.len(),
            hits,
            expected,
            from_fill,
            memory_ratio,
        });
        if f.layers().len() == layers {
            break;
        }
    }
    assert_eq!(out.len(), layers, "every layer boundary was checked");
    print(p, s, r, redisbloom, &out);
    out
}

/// The acceptance bound on memory: at most twice a right-sized classic filter.
fn assert_within_twice(out: &[Checkpoint]) {
    for c in out {
        assert!(
            c.memory_ratio <= 2.0,
            "{} layers: {:.3}× a right-sized filter",
            c.layers,
            c.memory_ratio
        );
    }
}

/// The curve, for `cargo test -- --nocapture`.
fn print(p: f64, s: u32, r: f64, redisbloom: bool, out: &[Checkpoint]) {
    let name = if redisbloom { "redisbloom" } else { "default" };
    println!("P = {p}, s = {s}, r = {r} ({name})");
    println!("layers        n   measured   from bits     theory  memory ratio");
    for c in out {
        println!(
            "{:>6} {:>8} {:>10.6} {:>11.6} {:>10.6} {:>13.3}",
            c.layers,
            c.len,
            c.hits as f64 / PROBES as f64,
            c.from_fill,
            c.expected,
            c.memory_ratio
        );
    }
}

#[test]
fn one_percent_from_a_thousand_to_a_million() {
    let out = grow(0.01, 1_000, 2, 0.85, 10, 1_001, false);
    assert_within_twice(&out);
    assert!(out.last().is_some_and(|c| c.len >= 1_000_000));
}

#[test]
fn a_tenth_of_a_percent_from_a_thousand_to_a_million() {
    let out = grow(0.001, 1_000, 2, 0.85, 10, 2_001, false);
    assert_within_twice(&out);
    assert!(out.last().is_some_and(|c| c.len >= 1_000_000));
}

#[test]
fn growth_factor_four() {
    // 1k, 4k, 16k, 64k, 256k: 341,000 items.
    assert_within_twice(&grow(0.01, 1_000, 4, 0.85, 5, 3_001, false));
}

#[test]
fn growth_factor_three() {
    // 1k, 3k, 9k, 27k, 81k, 243k: 364,000 items.
    assert_within_twice(&grow(0.01, 1_000, 3, 0.9, 6, 4_001, false));
}

#[test]
fn redisbloom_schedule_keeps_the_rate_with_more_memory() {
    let redis = grow(0.01, 1_000, 2, 0.5, 8, 5_001, true);
    let ours = grow(0.01, 1_000, 2, 0.85, 8, 5_001, false);
    // Halving the rate per layer costs ln 2 = 0.69 nats per item more with
    // each layer, against ln(1/0.85) = 0.16 for the default: the first layer
    // is smaller (0.5% against 0.15%); the two hold about the same at four
    // layers (ideal sizes: 103.0 against 103.1 nats per n0), and from the
    // fifth on RedisBloom's schedule holds more, and by the eighth it passes twice a right-sized
    // classic filter while the default stays near 1.6×.
    assert!(redis[0].memory_ratio < ours[0].memory_ratio);
    for i in 4..8 {
        assert!(ours[i].memory_ratio < redis[i].memory_ratio, "layer {i}");
    }
    assert!(redis[7].memory_ratio > 2.0);
    assert_within_twice(&ours);
}
