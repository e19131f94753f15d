//! What a shared filter must never do, whatever happens to its keys: answer
//! "absent" for an item it holds when Redis evicts keys under memory
//! pressure, take a name that multiplies every command, or answer for an
//! item type it was not built for.

mod common;

use bloomlab_redis::{
    Bits, Cells, Counters, Error, MAX_NAME_BYTES, Options, RedisBlockedFilter, RedisBloomFilter,
    RedisCountingBloomFilter, RedisScalableBloomFilter, ScalableOptions,
};
use bloomlab_testkit::keys::members;
use bloomlab_testkit::redis_server::RedisServer;
use common::connect;

/// The errors a filter whose keys were evicted may give.
fn evicted_error(e: &Error) -> bool {
    matches!(
        e,
        Error::ShardMissing { .. }
            | Error::NotFound { .. }
            | Error::CorruptMetadata { .. }
            | Error::Incomplete { .. }
    )
}

/// How looking up a filter's items ended: every item present, or a typed
/// error. An item answered absent fails the test.
fn sound_or_refused(name: &str, answers: Result<Vec<bool>, Error>) -> bool {
    match answers {
        Ok(a) => {
            let absent = a.iter().filter(|&&x| !x).count();
            assert_eq!(absent, 0, "{name}: {absent} inserted items answered absent");
            true
        }
        Err(e) => {
            assert!(evicted_error(&e), "{name}: {e:?}");
            false
        }
    }
}

/// Filters of 60 MB in all on a server allowed 24 MB that evicts any key
/// (`allkeys-lru`): keys of every filter are evicted as the others are
/// written, and every lookup afterwards answers all items present or fails
/// with a typed error.
/// Creates the blocked filter `name` of cells `L` for `expected` items at
/// 1% and inserts `items` in one batch.
fn fill<L: Cells>(
    conn: redis::Connection,
    name: &str,
    expected: usize,
    options: Options,
    items: &[u64],
) -> Result<(), Error> {
    let mut f = RedisBlockedFilter::<u64, _, L>::create_with(conn, name, expected, 0.01, options)?;
    f.insert_batch(items).map(drop).map_err(|e| *e.source)
}

#[test]
fn eviction_is_an_error_never_an_absent_answer() {
    let server = RedisServer::start_with(&[
        ("appendonly", "no"),
        ("maxmemory", "24mb"),
        ("maxmemory-policy", "allkeys-lru"),
    ])
    .unwrap();
    let items = members(1, 20_000);
    let shards = Options::new().seed(5).max_shard_bytes(256 << 10);
    let scalable = ScalableOptions::new()
        .seed(5)
        .max_shard_bytes(256 << 10)
        .growth_factor(4);
    // Each filter is created and filled while the others' keys are pushed
    // out; a step may itself meet an evicted key, which must be a typed
    // error.
    let mut opened = Vec::new();
    for round in 0..4 {
        let (b, c, s) = (
            format!("b{round}"),
            format!("c{round}"),
            format!("s{round}"),
        );
        let step = |what: &str, r: Result<(), Error>| {
            if let Err(e) = r {
                assert!(evicted_error(&e), "{what}: {e:?}");
            }
        };
        step(
            &b,
            fill::<Bits>(connect(&server), &b, 8_000_000, shards, &items),
        );
        step(
            &c,
            fill::<Counters>(connect(&server), &c, 1_000_000, shards, &items),
        );
        // Several batches, so that the layers open while keys are evicted.
        step(
            &s,
            RedisScalableBloomFilter::<u64, _>::create_with(
                connect(&server),
                &s,
                5_000,
                0.01,
                scalable,
            )
            .and_then(|mut f| {
                items
                    .chunks(5_000)
                    .try_for_each(|chunk| f.insert_batch(chunk).map(drop).map_err(|e| *e.source))
            }),
        );
        opened.push((b, c, s));
    }
    let stats: String = redis::cmd("INFO")
        .arg("stats")
        .query(&mut connect(&server))
        .unwrap();
    let evicted: u64 = stats
        .lines()
        .find_map(|l| l.strip_prefix("evicted_keys:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap();
    assert!(evicted > 0, "nothing was evicted: {stats}");
    let (mut sound, mut refused) = (0, 0);
    for (b, c, s) in &opened {
        let results = [
            (
                b,
                RedisBloomFilter::<u64, _>::open(connect(&server), b)
                    .and_then(|mut f| f.contains_batch(&items)),
            ),
            (
                c,
                RedisCountingBloomFilter::<u64, _>::open(connect(&server), c)
                    .and_then(|mut f| f.contains_batch(&items)),
            ),
            (
                s,
                RedisScalableBloomFilter::<u64, _>::open(connect(&server), s)
                    .and_then(|mut f| f.contains_batch(&items)),
            ),
        ];
        for (name, answers) in results {
            if sound_or_refused(name, answers) {
                sound += 1;
            } else {
                refused += 1;
            }
        }
    }
    eprintln!("{evicted} keys evicted: {sound} filters whole, {refused} refused");
    assert!(refused > 0, "keys were evicted but no filter noticed");
}

#[test]
fn names_past_the_limit_are_refused_before_anything_is_sent() {
    let server = RedisServer::start().unwrap();
    let long = "n".repeat(4 << 20);
    assert!(matches!(
        RedisBloomFilter::<u64, _>::create(connect(&server), &long, 1_000, 0.01),
        Err(Error::InvalidName(shown)) if shown.len() == 64
    ));
    assert!(matches!(
        RedisCountingBloomFilter::<u64, _>::open(connect(&server), &long),
        Err(Error::InvalidName(_))
    ));
    assert!(matches!(
        RedisScalableBloomFilter::<u64, _>::create(
            connect(&server),
            &long[..MAX_NAME_BYTES + 1],
            1_000,
            0.01
        ),
        Err(Error::InvalidName(_))
    ));
    let longest = &long[..MAX_NAME_BYTES];
    let mut f =
        RedisScalableBloomFilter::<u64, _>::create(connect(&server), longest, 1_000, 0.01).unwrap();
    let items = members(2, 3_000);
    f.insert_batch(&items).unwrap();
    assert!(f.contains_batch(&items).unwrap().iter().all(|&x| x));
}

#[test]
fn the_item_type_is_part_of_the_filter() {
    let server = RedisServer::start().unwrap();
    let mut words =
        RedisBloomFilter::<String, _>::create(connect(&server), "w", 1_000, 0.01).unwrap();
    words.insert(&"one".to_owned()).unwrap();
    // `&str` hashes as `String` does: the same filter.
    let mut borrowed = RedisBloomFilter::<&str, _>::open(connect(&server), "w").unwrap();
    assert!(borrowed.contains("one").unwrap());
    match RedisBloomFilter::<u64, _>::open(connect(&server), "w") {
        Err(Error::Mismatch {
            field: "item",
            existing,
            requested,
            ..
        }) => assert_eq!((existing.as_str(), requested.as_str()), ("str", "u64")),
        other => panic!("{other:?}"),
    }
    RedisScalableBloomFilter::<u32, _>::create(connect(&server), "n", 1_000, 0.01).unwrap();
    assert!(matches!(
        RedisScalableBloomFilter::<u64, _>::open(connect(&server), "n"),
        Err(Error::Mismatch { field: "item", .. })
    ));
    assert!(matches!(
        RedisScalableBloomFilter::<u64, _>::create(connect(&server), "n", 1_000, 0.01),
        Err(Error::Mismatch { field: "item", .. })
    ));
}

/// A filter larger than the client accepts is refused on open, and a
/// design larger than the limit on create, before anything is allocated.
#[test]
fn the_size_a_client_accepts_is_capped() {
    let server = RedisServer::start().unwrap();
    let small = Options::new().max_bytes(1 << 20);
    assert!(matches!(
        RedisBloomFilter::<u64, _>::create_with(connect(&server), "big", 10_000_000, 0.01, small),
        Err(Error::Param(_))
    ));
    RedisBloomFilter::<u64, _>::create(connect(&server), "big", 10_000_000, 0.01).unwrap();
    match RedisBloomFilter::<u64, _>::open_with(connect(&server), "big", small) {
        Err(Error::OverLimit { bytes, limit, .. }) => {
            assert_eq!(limit, 1 << 20);
            assert!(bytes > 11_000_000, "{bytes}");
        }
        other => panic!("{other:?}"),
    }
    // A scalable filter stops growing at the limit: the insert that would
    // open a layer past it is refused, and every item it holds stays.
    let capped = ScalableOptions::new().seed(1).max_bytes(64 << 10);
    let mut s = common::scalable(connect(&server), "cap", 10_000, capped);
    let items = members(3, 100_000);
    let e = s.insert_batch(&items).unwrap_err();
    assert!(matches!(*e.source, Error::OverLimit { .. }), "{e:?}");
    let stored: Vec<u64> = e.stored.iter().map(|&i| items[i]).collect();
    assert!(!stored.is_empty());
    assert!(s.contains_batch(&stored).unwrap().iter().all(|&x| x));
}

/// An export reads each shard's blocks and guard by range, and its length:
/// a shard that grew (written past its guard by something else) is refused
/// rather than read whole or taken for the table.
#[test]
fn an_export_refuses_a_shard_of_the_wrong_length() {
    use bloomlab_redis::RedisCuckooFilter;

    let server = RedisServer::start().unwrap();
    let mut raw = connect(&server);
    let items = members(4, 2_000);
    let mut b = RedisBloomFilter::<u64, _>::create(connect(&server), "eb", 2_000, 0.01).unwrap();
    b.insert_batch(&items).unwrap();
    let mut k = RedisCuckooFilter::<u64, _>::create(connect(&server), "ek", 2_000, 0.01).unwrap();
    k.insert_batch(&items).unwrap();
    assert!(b.export().is_ok() && k.export().is_ok());
    for key in ["eb:0", "{ek}:0"] {
        redis::cmd("APPEND")
            .arg(key)
            .arg("tail")
            .exec(&mut raw)
            .unwrap();
    }
    assert!(matches!(b.export(), Err(Error::ShardMissing { key }) if key == "eb:0"));
    assert!(matches!(k.export(), Err(Error::ShardMissing { key }) if key == "{ek}:0"));
    // Lookups read the blocks and the guard, which the tail left alone.
    assert!(b.contains_batch(&items).unwrap().iter().all(|&x| x));
}

/// A server brought back from an older snapshot holds fewer layers than a
/// handle has seen. Layers are never closed, so the handle refuses the
/// filter with a typed error on every path, at once: it neither retries
/// forever nor answers from the older layers alone.
#[test]
fn a_filter_older_than_its_handle_is_refused_not_retried() {
    use std::sync::mpsc;
    use std::time::Duration;

    let server = RedisServer::start().unwrap();
    let mut raw = connect(&server);
    let options = ScalableOptions::new().seed(6);
    let mut s = common::scalable(connect(&server), "old", 1_000, options);
    s.insert_batch(&members(7, 500)).unwrap();
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut raw).unwrap();
    let snapshot: Vec<(String, Vec<u8>)> = keys
        .iter()
        .map(|k| {
            (
                k.clone(),
                redis::cmd("DUMP").arg(k).query(&mut raw).unwrap(),
            )
        })
        .collect();
    s.insert_batch(&members(8, 3_000)).unwrap();
    assert!(s.num_layers().unwrap() >= 2);
    redis::cmd("FLUSHALL").exec(&mut raw).unwrap();
    for (k, dump) in &snapshot {
        redis::cmd("RESTORE")
            .arg(k)
            .arg(0)
            .arg(dump)
            .exec(&mut raw)
            .unwrap();
    }
    let (done, outcome) = mpsc::channel();
    std::thread::spawn(move || {
        let more = members(9, 100);
        let results = [
            s.insert_batch_one_by_one(&more)
                .map(drop)
                .map_err(|e| *e.source),
            s.insert_batch(&more).map(drop).map_err(|e| *e.source),
            s.contains_batch(&more).map(drop),
        ];
        done.send(results).unwrap();
    });
    let results = outcome
        .recv_timeout(Duration::from_secs(30))
        .expect("every call returned");
    // The layer the handle saw is gone (`ShardMissing`, where the read of
    // its blocks comes first) or the count is below it (`CorruptMetadata`).
    for r in results {
        let refused = matches!(
            r,
            Err(Error::CorruptMetadata {
                field: "layers",
                ..
            } | Error::ShardMissing { .. })
        );
        assert!(refused, "{r:?}");
    }
}
