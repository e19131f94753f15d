use bloomlab_guava::{GuavaBloomFilter, LongFunnel};

use super::redis::jemalloc_size;
use super::*;

fn workload(items: u64, fpr: f64) -> Workload {
    Workload::fixed(items, fpr)
}

fn offer<'a>(r: &'a FamilyReport, id: &str) -> &'a Offer {
    r.offers.iter().find(|o| o.id == id).expect("offered")
}

#[test]
fn jemalloc_classes_are_its_documented_table() {
    // jemalloc(3)'s table of size classes for 64-bit systems, 16-byte
    // quantum and 4 KiB pages: each class maps to itself, one byte more to
    // the next class.
    let kib = 1u64 << 10;
    let classes = [
        8,
        16,
        32,
        48,
        64,
        80,
        96,
        112,
        128,
        160,
        192,
        224,
        256,
        320,
        384,
        448,
        512,
        640,
        768,
        896,
        1024,
        1280,
        1536,
        1792,
        2048,
        2560,
        3072,
        3584,
        4 * kib,
        5 * kib,
        6 * kib,
        7 * kib,
        8 * kib,
        10 * kib,
        12 * kib,
        14 * kib,
        16 * kib,
        20 * kib,
        24 * kib,
        28 * kib,
        32 * kib,
        40 * kib,
        48 * kib,
        56 * kib,
        64 * kib,
        80 * kib,
        896 * kib,
        1024 * kib,
        1280 * kib,
    ];
    for pair in classes.windows(2) {
        assert_eq!(jemalloc_size(pair[0]), pair[0]);
        if pair[0] != 80 * kib {
            assert_eq!(jemalloc_size(pair[0] + 1), pair[1], "{}", pair[0] + 1);
        }
    }
    assert_eq!(jemalloc_size(1), 8);
}

#[test]
fn guava_file_size_is_what_to_bytes_writes() {
    for items in [1, 7, 1_000, 123_457, 1_000_000] {
        for fpr in [0.3, 0.03, 0.01, 1e-3, 1e-6, 1e-12] {
            let r = report(&workload(items, fpr), Target::Guava);
            let o = offer(&r, "guava");
            let filter = GuavaBloomFilter::create(LongFunnel, items, fpr).unwrap();
            assert_eq!(
                o.bytes,
                Some(filter.to_bytes().len() as u64),
                "{items} {fpr}"
            );
            assert_eq!(
                o.parameters,
                format!(
                    "m={} k={}",
                    grouped(filter.bit_size()),
                    filter.num_hash_functions()
                )
            );
            assert!(o.fits);
            assert_eq!(r.recommendation.id.as_deref(), Some("guava"));
        }
    }
}

#[test]
fn guava_refuses_what_guava_refuses() {
    // No removes, no unknown growth; a rate past 255 hash functions.
    let mut w = workload(1_000, 0.01);
    w.deletes = true;
    let r = report(&w, Target::Guava);
    assert_eq!(r.recommendation.id, None);
    assert!(
        offer(&r, "guava")
            .reasons
            .contains(&"cannot remove items".to_owned())
    );
    let r = report(&workload(1_000, 1e-300), Target::Guava);
    let o = offer(&r, "guava");
    assert!(!o.fits);
    assert!(o.reasons[0].contains("hash functions"), "{:?}", o.reasons);
    assert!(GuavaBloomFilter::create(LongFunnel, 1_000, 1e-300).is_err());
    // A rate so high that Guava sizes no bits.
    let r = report(&workload(1, 0.999), Target::Guava);
    assert!(
        offer(&r, "guava").reasons[0].contains("0 bits"),
        "{:?}",
        r.offers
    );
    assert!(GuavaBloomFilter::create(LongFunnel, 1, 0.999).is_err());
}

#[test]
fn redis_filters_follow_the_workload() {
    let w = workload(1_000_000, 0.01);
    let r = report(&w, Target::Redis);
    assert_eq!(r.recommendation.id.as_deref(), Some("redis-bloom"));
    assert!(r.offers.iter().all(|o| o.fits && o.bytes.is_some()));

    let removes = Workload { deletes: true, ..w };
    let r = report(&removes, Target::Redis);
    let top = r.recommendation.id.as_deref();
    assert!(
        matches!(top, Some("redis-cuckoo" | "redis-counting")),
        "{top:?}"
    );
    for o in &r.offers {
        assert_eq!(o.fits, o.supports.remove, "{}", o.id);
    }

    let grows = Workload {
        growth: Growth::Unknown,
        ..w
    };
    let r = report(&grows, Target::Redis);
    assert_eq!(r.recommendation.id.as_deref(), Some("redis-scalable"));
    assert_eq!(r.offers.iter().filter(|o| o.fits).count(), 1);

    let both = Workload {
        deletes: true,
        ..grows
    };
    assert_eq!(report(&both, Target::Redis).recommendation.id, None);

    // A limit between the Bloom filter and the next keeps only the Bloom filter.
    let bloom = offer(&report(&w, Target::Redis), "redis-bloom")
        .bytes
        .unwrap();
    let tight = Workload {
        max_memory: Some(bloom),
        ..w
    };
    let r = report(&tight, Target::Redis);
    assert_eq!(r.offers.iter().filter(|o| o.fits).count(), 1);
    let r = report(
        &Workload {
            max_memory: Some(bloom - 1),
            ..w
        },
        Target::Redis,
    );
    assert_eq!(r.recommendation.id, None);
}

#[test]
fn caveats_are_in_the_recommendation_where_they_bite() {
    let removes = Workload {
        deletes: true,
        ..workload(1_000_000, 0.01)
    };
    let r = report(&removes, Target::Redis);
    let text = &r.recommendation.text;
    match r.recommendation.id.as_deref() {
        Some("redis-cuckoo") => {
            assert!(text.contains("inserts start failing"), "{text}");
            assert!(text.contains("inserted 8 times"), "{text}");
            assert!(text.contains("`insert_unique` with `remove`"), "{text}");
        }
        other => panic!("a cuckoo filter is smallest at 1%: {other:?}"),
    }
    // The counting filter's trap, where it is the one to use: a rate the
    // cuckoo filter's 32-bit fingerprints cannot reach.
    let deep = Workload {
        deletes: true,
        ..workload(1_000, 1e-12)
    };
    let r = report(&deep, Target::Redis);
    assert_eq!(r.recommendation.id.as_deref(), Some("redis-counting"));
    assert!(
        r.recommendation.text.contains("never added answers Ok"),
        "{}",
        r.recommendation.text
    );
    // Without removes, no remove caveat.
    let r = report(&workload(1_000_000, 0.01), Target::Redis);
    assert!(
        !r.recommendation.text.contains("remove"),
        "{}",
        r.recommendation.text
    );
}
