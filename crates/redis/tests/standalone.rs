//! One real `redis-server` (appendonly): answers equal the in-memory
//! filters', restarts keep every item, errors are typed.

mod common;

use bloomlab_classic::{BlockLayout, BlockedBloomFilter};
use std::collections::HashMap;

use bloomlab_core::DefaultHasher;
use bloomlab_core::hash::HashFunction;
use bloomlab_redis::{
    Bits, Counters, Error, FORMAT, Options, RedisBloomFilter, RedisCountingBloomFilter,
    RedisScalableBloomFilter, ScalableOptions,
};
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::redis_server::RedisServer;
use common::{CountingModel, SEED, connect};

#[test]
fn answers_equal_the_in_memory_filters() {
    let server = RedisServer::start().unwrap();
    let members = members(1, 200_000);
    let probes: Vec<u64> = probes(2, 2_000_000).collect();
    common::same_answers(|| connect(&server), "equal", &members, &probes, 1 << 20);
}

#[test]
fn counting_removes_as_the_model_does() {
    let server = RedisServer::start().unwrap();
    let options = Options::new().seed(SEED);
    let mut f = common::create::<Counters, _>(connect(&server), "c", 20_000, options);
    let mut model = CountingModel::new(20_000, 0.01);
    let members = members(3, 20_000);
    // Each member twice: it stays until removed twice.
    for _ in 0..2 {
        f.insert_batch(&members).unwrap();
        members.iter().for_each(|&m| model.insert(m));
    }
    for &m in &members[..10_000] {
        f.remove(&m).unwrap();
        assert!(model.remove(m));
    }
    assert!(f.contains_batch(&members).unwrap().iter().all(|&b| b));
    for &m in &members[..10_000] {
        f.remove(&m).unwrap();
        assert!(model.remove(m));
    }
    let probes: Vec<u64> = probes(4, 200_000).chain(members.iter().copied()).collect();
    let expected: Vec<bool> = probes.iter().map(|&p| model.contains(p)).collect();
    assert_eq!(f.contains_batch(&probes).unwrap(), expected);
    assert!(
        f.contains_batch(&members[10_000..])
            .unwrap()
            .iter()
            .all(|&b| b),
        "kept items stay"
    );
    // An item the counters prove absent: refused, nothing changed.
    let absent = probes
        .iter()
        .copied()
        .find(|&p| !model.contains(p))
        .unwrap();
    assert!(matches!(f.remove(&absent), Err(Error::NotPresent)));
    assert_eq!(f.contains_batch(&probes).unwrap(), expected);
}

#[test]
fn every_item_survives_a_restart() {
    let mut server = RedisServer::start().unwrap();
    let members = members(5, 30_000);
    {
        let mut b =
            RedisBloomFilter::<u64, _>::create(connect(&server), "rb", 30_000, 0.01).unwrap();
        let mut c =
            RedisCountingBloomFilter::<u64, _>::create(connect(&server), "rc", 30_000, 0.01)
                .unwrap();
        let mut s = RedisScalableBloomFilter::<u64, _>::create(connect(&server), "rs", 5_000, 0.01)
            .unwrap();
        b.insert_batch(&members).unwrap();
        c.insert_batch(&members).unwrap();
        s.insert_batch(&members).unwrap();
    }
    server.shutdown_save().unwrap();
    server.restart().unwrap();
    let mut b = RedisBloomFilter::<u64, _>::open(connect(&server), "rb").unwrap();
    let mut c = RedisCountingBloomFilter::<u64, _>::open(connect(&server), "rc").unwrap();
    let mut s = RedisScalableBloomFilter::<u64, _>::open(connect(&server), "rs").unwrap();
    assert!(b.contains_batch(&members).unwrap().iter().all(|&x| x));
    assert!(c.contains_batch(&members).unwrap().iter().all(|&x| x));
    assert!(s.contains_batch(&members).unwrap().iter().all(|&x| x));
    assert_eq!(s.len().unwrap(), 30_000);
}

#[test]
fn export_and_import_round_trip() {
    let server = RedisServer::start().unwrap();
    let members = members(6, 10_000);
    let mut f = RedisBloomFilter::<u64, _>::create_with(
        connect(&server),
        "ex",
        10_000,
        0.001,
        Options::new().seed(SEED).max_shard_bytes(4096),
    )
    .unwrap();
    f.insert_batch(&members).unwrap();
    let memory = f.export().unwrap();
    let probes: Vec<u64> = probes(7, 100_000).collect();
    assert_eq!(
        memory.contains_batch(&probes),
        f.contains_batch(&probes).unwrap()
    );
    let mut g = RedisBloomFilter::import(connect(&server), "im", &memory, 1 << 20).unwrap();
    assert_eq!(
        g.contains_batch(&probes).unwrap(),
        memory.contains_batch(&probes)
    );
    assert!(g.export().unwrap().words().eq(memory.words()));
    assert!(matches!(
        RedisBloomFilter::import(connect(&server), "im", &memory, 1 << 20),
        Err(Error::Exists { .. })
    ));
    // A filter in the sectors layout places its bits where a Redis table
    // does not look for them: refused, and nothing is written.
    let sectors = BlockedBloomFilter::<u64>::builder(1_000, 0.01)
        .build()
        .unwrap();
    assert!(matches!(
        RedisBloomFilter::import(connect(&server), "sectors", &sectors, 1 << 20),
        Err(Error::Layout(BlockLayout::Sectors))
    ));
    let written: Vec<String> = redis::cmd("KEYS")
        .arg("*sectors*")
        .query(&mut connect(&server))
        .unwrap();
    assert!(written.is_empty(), "{written:?}");
    // The estimate computed from BITCOUNT in Redis is the one of the table
    // read back (its len), and near the 10,000 items inserted.
    let in_redis = f.estimate_count().unwrap();
    assert_eq!(memory.len(), in_redis.round() as usize);
    assert!((in_redis - 10_000.0).abs() < 100.0, "{in_redis}");
}

/// A filter stored with SipHash-1-3, as every filter was before AES-CMAC
/// became the default, keeps its function: its metadata names it, and every
/// process that opens it hashes with SipHash-1-3. Metadata of the formats
/// before 3 (no checksum) is refused, naming the field.
#[test]
fn filters_stored_with_siphash_keep_it() {
    let server = RedisServer::start().unwrap();
    let mut raw = connect(&server);
    let meta = |raw: &mut redis::Connection, name: &str| -> HashMap<String, String> {
        redis::cmd("HGETALL")
            .arg(format!("{name}:meta"))
            .query(raw)
            .unwrap()
    };
    let sip = DefaultHasher::with_function(HashFunction::SipHash13, [3, 4]);
    let mut memory = BlockedBloomFilter::<u64>::builder(1_000, 0.01)
        .layout(BlockLayout::Positions)
        .hasher(sip.clone())
        .build()
        .unwrap();
    let keys = members(8, 1_000);
    memory.insert_batch(&keys).unwrap();
    RedisBloomFilter::import(connect(&server), "old", &memory, 1 << 20).unwrap();
    let fields = meta(&mut raw, "old");
    assert_eq!(
        (fields["format"].as_str(), fields["hash"].as_str()),
        (FORMAT, "siphash-1-3")
    );
    let mut opened = RedisBloomFilter::<u64, _>::open(connect(&server), "old").unwrap();
    assert_eq!(opened.hasher(), &sip);
    let probes: Vec<u64> = probes(9, 20_000).collect();
    assert_eq!(
        opened.contains_batch(&probes).unwrap(),
        memory.contains_batch(&probes)
    );
    // A new filter is written with the current function, named.
    RedisBloomFilter::<u64, _>::create(connect(&server), "new", 1_000, 0.01).unwrap();
    let fields = meta(&mut raw, "new");
    assert_eq!(
        (fields["format"].as_str(), fields["hash"].as_str()),
        (FORMAT, "aes-128-cmac")
    );
    for old in ["bloomlab-redis/1", "bloomlab-redis/2"] {
        redis::cmd("HSET")
            .arg("new:meta")
            .arg("format")
            .arg(old)
            .exec(&mut raw)
            .unwrap();
        let e = RedisBloomFilter::<u64, _>::open(connect(&server), "new").unwrap_err();
        assert!(
            matches!(&e, Error::CorruptMetadata { field: "format", value: Some(v), .. } if v == old),
            "{e}"
        );
    }
}

#[test]
fn errors_are_typed() {
    let mut server = RedisServer::start().unwrap();
    let mut raw = connect(&server);
    redis::cmd("SET")
        .arg("str:meta")
        .arg("x")
        .exec(&mut raw)
        .unwrap();
    assert!(matches!(
        RedisBloomFilter::<u64, _>::create(connect(&server), "str", 100, 0.01),
        Err(Error::WrongType { key }) if key == "str:meta"
    ));
    RedisBloomFilter::<u64, _>::create(connect(&server), "p", 1_000, 0.01).unwrap();
    assert!(matches!(
        RedisBloomFilter::<u64, _>::create(connect(&server), "p", 1_000, 0.02),
        Err(Error::Mismatch {
            field: "design",
            ..
        })
    ));
    assert!(matches!(
        RedisCountingBloomFilter::<u64, _>::open(connect(&server), "p"),
        Err(Error::Mismatch { field: "kind", .. })
    ));
    assert!(matches!(
        RedisBloomFilter::<u64, _>::open(connect(&server), "nobody"),
        Err(Error::NotFound { .. })
    ));
    redis::cmd("HSET")
        .arg("p:meta")
        .arg("blocks")
        .arg("many")
        .exec(&mut raw)
        .unwrap();
    assert!(matches!(
        RedisBloomFilter::<u64, _>::open(connect(&server), "p"),
        Err(Error::CorruptMetadata { .. })
    ));
    assert!(matches!(
        RedisBloomFilter::<u64, _>::create(connect(&server), "a{b", 1_000, 0.01),
        Err(Error::InvalidName(_))
    ));
    assert!(matches!(
        RedisBloomFilter::<u64, _>::create(connect(&server), "z", 1_000, 1.5),
        Err(Error::Param(_))
    ));

    // A creator that stopped before marking its filter ready: open refuses
    // it, create finishes it.
    RedisBloomFilter::<u64, _>::create(connect(&server), "p2", 1_000, 0.01).unwrap();
    redis::cmd("HSET")
        .arg("p2:meta")
        .arg("ready")
        .arg(0)
        .exec(&mut raw)
        .unwrap();
    redis::cmd("DEL").arg("p2:0").exec(&mut raw).unwrap();
    assert!(matches!(
        RedisBloomFilter::<u64, _>::open(connect(&server), "p2"),
        Err(Error::Incomplete { .. })
    ));
    let mut p2 = RedisBloomFilter::<u64, _>::create(connect(&server), "p2", 1_000, 0.01).unwrap();
    assert!(!p2.contains(&1).unwrap(), "its shard exists again, empty");
    RedisBloomFilter::<u64, _>::open(connect(&server), "p2").unwrap();

    // A shard lost (deleted here; dropped by a restart without persistence
    // in production) is reported, never answered from an empty key.
    let mut lost =
        RedisBloomFilter::<u64, _>::create(connect(&server), "lost", 1_000, 0.01).unwrap();
    lost.insert(&1).unwrap();
    redis::cmd("DEL").arg("lost:0").exec(&mut raw).unwrap();
    assert!(matches!(lost.contains(&1), Err(Error::ShardMissing { key }) if key == "lost:0"));
    assert!(matches!(lost.insert(&1), Err(Error::ShardMissing { .. })));
    assert!(
        matches!(lost.contains(&1), Err(Error::ShardMissing { .. })),
        "still reported"
    );
    // The same for a batch ORed in as a mask, and for a counting remove: the
    // scripts refuse before writing anything.
    let mut dense =
        RedisBloomFilter::<u64, _>::create(connect(&server), "dense", 1_000, 0.01).unwrap();
    redis::cmd("DEL").arg("dense:0").exec(&mut raw).unwrap();
    let e = dense.insert_batch(&members(12, 1_000)).unwrap_err();
    assert!(matches!(*e.source, Error::ShardMissing { .. }), "{e}");
    assert!(e.stored.is_empty() && e.unknown.is_empty());
    let exists: bool = redis::cmd("EXISTS").arg("dense:0").query(&mut raw).unwrap();
    assert!(!exists, "nothing was written");
    let mut c = RedisCountingBloomFilter::<u64, _>::create(connect(&server), "gone-c", 1_000, 0.01)
        .unwrap();
    c.insert(&5).unwrap();
    redis::cmd("DEL").arg("gone-c:0").exec(&mut raw).unwrap();
    assert!(matches!(c.remove(&5), Err(Error::ShardMissing { .. })));

    // The server goes away: connection errors, typed, for every operation.
    let mut f = RedisBloomFilter::<u64, _>::create(connect(&server), "gone", 1_000, 0.01).unwrap();
    server.kill();
    assert!(matches!(f.contains(&1), Err(Error::Connection(_))));
    let e = f.insert_batch(&[1, 2, 3]).unwrap_err();
    assert!(matches!(*e.source, Error::Connection(_)), "{e}");
    assert!(e.stored.is_empty());
    assert!(
        redis::Client::open(server.url())
            .unwrap()
            .get_connection()
            .is_err(),
        "refused"
    );
}

#[test]
fn a_server_killed_mid_batch_says_what_was_stored() {
    let mut server = RedisServer::start().unwrap();
    // The counting filter sends one command per item (and is the filter for
    // which knowing what was stored matters: an insert sent twice counts
    // twice).
    let mut f =
        RedisCountingBloomFilter::<u64, _>::create(connect(&server), "mid", 2_000_000, 0.01)
            .unwrap();
    let url = server.url();
    let items = members(8, 2_000_000);
    let writer = std::thread::spawn(move || {
        let e = f.insert_batch(&items).unwrap_err();
        (
            e.stored.len(),
            e.unknown.len(),
            matches!(*e.source, Error::Connection(_)),
        )
    });
    // Kill the server once it has started on the batch.
    let mut watch = redis::Client::open(url).unwrap().get_connection().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let info: String = redis::cmd("INFO").arg("stats").query(&mut watch).unwrap();
        let calls = info
            .lines()
            .find_map(|l| l.strip_prefix("total_commands_processed:"))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(0);
        if calls > 1_000 || std::time::Instant::now() > deadline {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    server.kill();
    let (stored, unknown, connection) = writer.join().unwrap();
    assert!(connection, "the cause is the lost connection");
    assert_eq!(
        stored + unknown,
        2_000_000,
        "every item is stored or unknown"
    );
}

#[test]
fn scripts_are_loaded_again_when_the_server_forgot_them() {
    let server = RedisServer::start().unwrap();
    let mut raw = connect(&server);
    let options = ScalableOptions::new().seed(SEED);
    let mut s = common::scalable(connect(&server), "fs", 1_000, options);
    let mut c =
        RedisCountingBloomFilter::<u64, _>::create(connect(&server), "fc", 1_000, 0.01).unwrap();
    let items = members(9, 3_000);
    let mut model = common::ScalableModel::new(1_000, 0.01);
    let mut added_by_model = |part: &[u64]| part.iter().filter(|&&m| model.insert(m)).count();
    assert_eq!(
        s.insert_batch(&items[..1_000]).unwrap(),
        added_by_model(&items[..1_000])
    );
    redis::cmd("SCRIPT").arg("FLUSH").exec(&mut raw).unwrap();
    // Every script call of this batch is refused with NOSCRIPT, then sent
    // again once the scripts are loaded: each item is added exactly once.
    let added = s.insert_batch(&items[1_000..]).unwrap();
    assert_eq!(added, added_by_model(&items[1_000..]));
    assert_eq!(s.len().unwrap(), 3_000);
    assert!(s.contains_batch(&items).unwrap().iter().all(|&x| x));
    c.insert(&7).unwrap();
    redis::cmd("SCRIPT").arg("FLUSH").exec(&mut raw).unwrap();
    c.remove(&7).unwrap();
    assert!(!c.contains(&7).unwrap());
}

#[test]
fn both_insert_paths_answer_as_in_memory() {
    // Small batches go item by item, large ones (here from 5,000 items: two
    // shards of 9,686 blocks) as one mask per shard; both
    // must report the same new items as the in-memory filter, in order,
    // duplicates within a batch included.
    let server = RedisServer::start().unwrap();
    let options = Options::new().seed(SEED);
    let mut f = common::create::<Bits, _>(connect(&server), "paths", 1_000_000, options);
    let mut memory = BlockedBloomFilter::<u64>::builder(1_000_000, 0.01)
        .layout(BlockLayout::Positions)
        .seed(SEED)
        .build()
        .unwrap();
    let items = members(10, 150_000);
    let mut start = 0;
    for size in [1, 10, 1_000, 5_000, 40_000, 100_000] {
        let end = (start + size).min(items.len());
        let mut batch = items[start..end].to_vec();
        batch.extend_from_within(..batch.len() / 2);
        assert_eq!(
            f.insert_batch(&batch).unwrap(),
            memory.insert_batch(&batch).unwrap(),
            "batch of {size}"
        );
        start = end;
    }
    let probes: Vec<u64> = probes(11, 200_000).chain(items.iter().copied()).collect();
    assert_eq!(
        f.contains_batch(&probes).unwrap(),
        memory.contains_batch(&probes)
    );
    assert!(f.export().unwrap().words().eq(memory.words()));
    // Both paths ran: BITFIELD for the small batches, the mask script for
    // the large ones (scripts ran more than the one that created the filter).
    let stats: String = redis::cmd("INFO")
        .arg("commandstats")
        .query(&mut connect(&server))
        .unwrap();
    let calls = |command: &str| {
        stats
            .lines()
            .find_map(|l| l.strip_prefix(&format!("cmdstat_{command}:calls=")))
            .and_then(|rest| rest.split(',').next()?.parse::<u64>().ok())
            .unwrap_or(0)
    };
    assert!(calls("bitfield") >= 1_011, "{stats}");
    assert!(calls("evalsha") > 1, "{stats}");
}

#[test]
fn scalable_batches_of_every_density_answer_as_the_model() {
    // Batches from one item to many per block, each with half of it again
    // at its end (duplicates within a batch see the batch's own earlier
    // items), against layers of 20k, 40k, 80k, ... items: sparse batches are
    // read block by block, dense ones as spans of a shard, and a batch that
    // fills the active layer opens the next part-way.
    let server = RedisServer::start().unwrap();
    let options = ScalableOptions::new().seed(SEED).max_shard_bytes(16 << 10);
    let mut f = common::scalable(connect(&server), "density", 20_000, options);
    let mut model = common::ScalableModel::new(20_000, 0.01);
    let items = members(12, 120_000);
    let (mut start, mut sent) = (0, 0);
    for size in [1, 3, 10, 100, 1_000, 5_000, 30_000, 80_000] {
        let end = (start + size).min(items.len());
        let mut batch = items[start..end].to_vec();
        batch.extend_from_within(..batch.len() / 2);
        let expected = batch.iter().filter(|&&m| model.insert(m)).count();
        assert_eq!(f.insert_batch(&batch).unwrap(), expected, "batch of {size}");
        start = end;
        sent += batch.len() as u64;
    }
    assert_eq!(f.num_layers().unwrap() as usize, model.layers());
    assert!(model.layers() >= 3);
    assert_eq!(f.len().unwrap(), sent);
    // The path a batch falls back to under contention, one script per
    // item, answers alike and opens the next layer when it must.
    let (before, layers) = (f.added().unwrap(), f.num_layers().unwrap());
    let mut batch = members(14, 150_000);
    batch.extend_from_within(..1_000);
    let expected = batch.iter().filter(|&&m| model.insert(m)).count();
    assert_eq!(f.insert_batch_one_by_one(&batch).unwrap(), expected);
    assert_eq!(f.added().unwrap(), before + expected as u64);
    assert_eq!(f.num_layers().unwrap(), layers + 1);
    assert_eq!(f.num_layers().unwrap() as usize, model.layers());
    let probes: Vec<u64> = probes(13, 200_000)
        .chain(items.iter().copied())
        .chain(batch.iter().copied())
        .collect();
    let expected: Vec<bool> = probes.iter().map(|&p| model.contains(p)).collect();
    assert_eq!(f.contains_batch(&probes).unwrap(), expected);
}

/// Every key of the filter, with its time to live in ms (-1: none).
fn ttls(raw: &mut redis::Connection, pattern: &str) -> Vec<(String, i64)> {
    let keys: Vec<String> = redis::cmd("KEYS").arg(pattern).query(raw).unwrap();
    keys.into_iter()
        .map(|k| {
            let t: i64 = redis::cmd("PTTL").arg(&k).query(raw).unwrap();
            (k, t)
        })
        .collect()
}

#[test]
fn info_and_time_to_live_cover_every_key() {
    use bloomlab_redis::{Kind, RedisCuckooFilter};
    use std::time::Duration;

    let server = RedisServer::start().unwrap();
    let mut raw = connect(&server);
    let items = members(15, 30_000);
    let minute = Duration::from_secs(60);

    let shards = Options::new().seed(SEED).max_shard_bytes(4 << 10);
    let mut b = common::create::<Bits, _>(connect(&server), "ib", 30_000, shards);
    b.insert_batch(&items).unwrap();
    let info = b.info().unwrap();
    assert_eq!((info.kind, info.item.as_str()), (Kind::Bloom, "u64"));
    assert_eq!(
        (info.design, info.capacity),
        (Some((30_000, 0.01)), Some(30_000))
    );
    assert_eq!(
        (info.shards, info.bytes),
        (b.num_shards(), b.memory_bytes())
    );
    // The estimate from the cells set is within 2% of the items here.
    assert!(
        (info.estimate_count / 30_000.0 - 1.0).abs() < 0.02,
        "{info:?}"
    );
    assert!(info.expected_fpr < 0.012 && info.len.is_none(), "{info:?}");
    b.expire(minute).unwrap();
    let left = b.ttl().unwrap().unwrap();
    assert!(left <= minute && left > minute / 2, "{left:?}");
    let keys = ttls(&mut raw, "ib:*");
    assert_eq!(keys.len() as u64, b.num_shards() + 1);
    assert!(keys.iter().all(|(_, t)| *t > 0), "{keys:?}");
    // A batch that ORs its bits into the shards keeps their time to live.
    b.insert_batch(&members(16, 30_000)).unwrap();
    assert!(ttls(&mut raw, "ib:*").iter().all(|(_, t)| *t > 0));
    b.persist().unwrap();
    assert_eq!(b.ttl().unwrap(), None);
    assert!(ttls(&mut raw, "ib:*").iter().all(|(_, t)| *t == -1));

    // A scalable filter's later layers take the time to live it was given.
    let options = ScalableOptions::new().seed(SEED);
    let mut s = common::scalable(connect(&server), "is", 10_000, options);
    s.insert_batch(&items[..5_000]).unwrap();
    s.expire(minute).unwrap();
    s.insert_batch(&items).unwrap();
    let info = s.info().unwrap();
    assert_eq!(
        (info.kind, info.layers, info.growth_factor),
        (Kind::Scalable, 2, Some(2))
    );
    assert_eq!(info.capacity, Some(30_000));
    assert_eq!(info.len, Some(35_000));
    let keys = ttls(&mut raw, "{is}:*");
    assert!(
        keys.iter().any(|(k, _)| k.starts_with("{is}:1:")),
        "{keys:?}"
    );
    assert!(keys.iter().all(|(_, t)| *t > 0), "{keys:?}");
    s.persist().unwrap();
    assert_eq!(s.ttl().unwrap(), None);

    let mut c = RedisCuckooFilter::<u64, _>::create_with(
        connect(&server),
        "ic",
        30_000,
        0.01,
        Options::new().seed(SEED),
    )
    .unwrap();
    c.insert_batch(&items[..1_000]).unwrap();
    let info = c.info().unwrap();
    assert_eq!((info.kind, info.len), (Kind::Cuckoo, Some(1_000)));
    assert_eq!(info.capacity, Some(c.capacity()));

    // A filter whose time runs out is gone as a whole.
    c.expire(Duration::from_millis(20)).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert!(ttls(&mut raw, "{ic}:*").is_empty());
    assert!(matches!(
        RedisCuckooFilter::<u64, _>::open(connect(&server), "ic"),
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(c.ttl(), Err(Error::NotFound { .. })));
}
