//! `RedisCuckooFilter` on a real `redis-server` and on a three-master
//! Cluster: the in-memory filter's answers, a multiset model, nothing lost
//! when full or restarted, typed errors for damaged keys, byte copies to and
//! from memory.

mod common;

use std::collections::BTreeMap;

use bloomlab_cuckoo::CuckooFilter;
use bloomlab_redis::{Connection, Error, Options, RedisCuckooFilter};
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::redis_server::{RedisCluster, RedisServer, key_slot};
use common::{connect, connect_cluster};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SEED: u64 = 21;

/// Something done to a key by hand.
type Damage<'a> = Box<dyn Fn(&mut redis::Connection) + 'a>;

fn options() -> Options {
    // Small shards, so that a filter has several and walks cross them.
    Options::new().seed(SEED).max_shard_bytes(4 << 10)
}

fn in_memory(items: usize, fpr: f64) -> CuckooFilter<u64> {
    CuckooFilter::builder(items, fpr)
        .seed(SEED)
        .build()
        .unwrap()
}

/// (a): `n` members, then `probes`: every answer equals the in-memory
/// filter's of the same seed, at the planned load (94% of the slots, where
/// many inserts relocate).
fn same_answers<C: Connection>(conn: C, name: &str, n: usize) -> RedisCuckooFilter<u64, C> {
    let mut f = RedisCuckooFilter::<u64, _>::create_with(conn, name, n, 0.01, options()).unwrap();
    let mut m = in_memory(n, 0.01);
    assert_eq!(
        (f.num_buckets(), f.bucket_size(), f.fingerprint_bits()),
        (m.num_buckets(), m.bucket_size(), m.fingerprint_bits())
    );
    assert!(f.num_shards() > 1);
    let items = members(31, n);
    assert_eq!(
        f.insert_batch(&items).unwrap(),
        m.insert_batch(&items).unwrap()
    );
    assert_eq!(f.len().unwrap(), m.len() as u64);
    assert!(f.contains_batch(&items).unwrap().iter().all(|&b| b));
    let probes: Vec<u64> = probes(32, 100_000).collect();
    let answers = f.contains_batch(&probes).unwrap();
    let expected = m.contains_batch(&probes);
    assert_eq!(answers, expected);
    let positives = answers.iter().filter(|&&b| b).count();
    assert!(positives > 0, "some false positives at 1%");
    for item in items.iter().take(200).chain(&probes[..200]) {
        assert_eq!(f.count(item).unwrap(), m.count(item));
    }
    f
}

#[test]
fn answers_equal_the_in_memory_filters_and_survive_a_restart() {
    let mut server = RedisServer::start().unwrap();
    let n = 20_000;
    let mut f = same_answers(connect(&server), "cf", n);
    let before = f.export().unwrap();
    drop(f);
    // (d) appendonly: a shutdown and a restart keep every byte.
    server.shutdown_save().unwrap();
    server.restart().unwrap();
    let mut f = RedisCuckooFilter::<u64, _>::open(connect(&server), "cf").unwrap();
    let items = members(31, n);
    assert!(f.contains_batch(&items).unwrap().iter().all(|&b| b));
    assert_eq!(f.len().unwrap(), n as u64);
    assert_eq!(f.export().unwrap().table_words(), before.table_words());
    // The scripts were forgotten with the restart and are loaded again.
    f.insert(&u64::MAX).unwrap();
    assert!(f.contains(&u64::MAX).unwrap());
}

/// (b): random inserts, unique inserts and removes against a multiset and
/// the in-memory filter of the same seed, checked all along.
fn model_run<C: Connection>(conn: C, name: &str, seed: u64, steps: usize) {
    let n = 2_000;
    let mut f = RedisCuckooFilter::<u64, _>::create_with(conn, name, n, 0.01, options()).unwrap();
    let mut m = in_memory(n, 0.01);
    // Ordered, so that the victims drawn are the same in every run.
    let mut model: BTreeMap<u64, usize> = BTreeMap::new();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let universe = 1_500u64;
    for step in 0..steps {
        let item = rng.random_range(0..universe);
        match rng.random_range(0..10) {
            0..=3 => {
                let redis = f.insert(&item).unwrap();
                assert_eq!(redis, m.insert(&item).unwrap(), "step {step}");
                *model.entry(item).or_default() += 1;
            }
            4..=5 => {
                let redis = f.insert_unique(&item).unwrap();
                assert_eq!(redis, m.insert_unique(&item).unwrap(), "step {step}");
                if redis {
                    *model.entry(item).or_default() += 1;
                }
            }
            6..=8 => {
                // Remove only what was inserted (removing a false positive
                // may remove another item's fingerprint).
                let Some((&victim, _)) = model.iter().nth(rng.random_range(0..model.len().max(1)))
                else {
                    continue;
                };
                f.remove(&victim).unwrap();
                m.remove(&victim).unwrap();
                let c = model.get_mut(&victim).unwrap();
                *c -= 1;
                if *c == 0 {
                    model.remove(&victim);
                }
            }
            _ => {
                let c = f.count(&item).unwrap();
                assert!(c >= model.get(&item).copied().unwrap_or(0), "step {step}");
                assert_eq!(c, m.count(&item), "step {step}");
            }
        }
        if step % 500 == 499 {
            let all: Vec<u64> = (0..universe).collect();
            let answers = f.contains_batch(&all).unwrap();
            assert_eq!(answers, m.contains_batch(&all), "step {step}");
            for &k in model.keys() {
                assert!(
                    answers[k as usize],
                    "member {k} reported absent at step {step}"
                );
            }
            let total: usize = model.values().sum();
            assert_eq!(f.len().unwrap(), total as u64);
        }
    }
    // Removing every copy forgets everything.
    for (&k, &c) in &model {
        for _ in 0..c {
            f.remove(&k).unwrap();
        }
    }
    assert_eq!(f.len().unwrap(), 0);
    assert!(f.export().unwrap().table_words().iter().all(|&w| w == 0));
    assert!(matches!(f.remove(&1), Err(Error::NotPresent)));
}

#[test]
fn a_multiset_model_never_loses_a_member() {
    let server = RedisServer::start().unwrap();
    for seed in 0..3 {
        model_run(connect(&server), &format!("model{seed}"), seed, 4_000);
    }
}

/// (c): inserts past the planned size until many are refused; an insert
/// refused with `Full` changes no byte, and everything acknowledged stays.
fn fill_past_capacity<C: Connection>(conn: C, name: &str) {
    let mut f =
        RedisCuckooFilter::<u64, _>::create_with(conn, name, 1_000, 0.01, options()).unwrap();
    let capacity = f.capacity();
    let mut acknowledged = Vec::new();
    let mut refused = 0;
    let mut item = 0u64;
    while refused < 20 {
        item += 1;
        match f.insert(&item) {
            Ok(_) => acknowledged.push(item),
            Err(Error::Full) => {
                refused += 1;
                let before = f.export().unwrap();
                // Refused again, and the table is byte for byte as it was.
                assert!(matches!(f.insert(&item), Err(Error::Full)));
                assert_eq!(f.export().unwrap().table_words(), before.table_words());
                assert_eq!(f.len().unwrap(), acknowledged.len() as u64);
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(
        acknowledged.len() as u64 > capacity * 9 / 10,
        "{} of {capacity} slots",
        acknowledged.len()
    );
    assert!(f.contains_batch(&acknowledged).unwrap().iter().all(|&b| b));
    // A batch past capacity: the items refused are named as not stored,
    // the others are present.
    let more: Vec<u64> = (1_000_000..1_000_200).collect();
    let e = f.insert_batch(&more).unwrap_err();
    assert!(matches!(*e.source, Error::Full));
    assert!(e.unknown.is_empty());
    assert!(e.stored.len() < more.len());
    let stored: Vec<u64> = e.stored.iter().map(|&i| more[i]).collect();
    assert!(f.contains_batch(&stored).unwrap().iter().all(|&b| b));
    assert!(f.contains_batch(&acknowledged).unwrap().iter().all(|&b| b));
    assert_eq!(f.len().unwrap(), (acknowledged.len() + stored.len()) as u64);
    // A remove frees a slot: an insert fits again.
    f.remove(&acknowledged[0]).unwrap();
    assert!(f.insert(&acknowledged[0]).is_ok());
}

#[test]
fn concurrent_writers_lose_nothing() {
    // Four writers fill one filter to 85% of its slots at once (the order of
    // their inserts varies from run to run, so not to the planned 94%,
    // where a run could meet a Full): walks of one never undo another's,
    // and the count is exact.
    let server = RedisServer::start().unwrap();
    let n = 8_000;
    RedisCuckooFilter::<u64, _>::create_with(connect(&server), "conc", n, 0.01, options()).unwrap();
    let items = members(71, n * 9 / 10);
    std::thread::scope(|scope| {
        for part in items.chunks(items.len().div_ceil(4)) {
            let server = &server;
            scope.spawn(move || {
                let mut f = RedisCuckooFilter::<u64, _>::open(connect(server), "conc").unwrap();
                for chunk in part.chunks(100) {
                    f.insert_batch(chunk).unwrap();
                    assert!(f.contains_batch(chunk).unwrap().iter().all(|&b| b));
                }
            });
        }
    });
    let mut f = RedisCuckooFilter::<u64, _>::open(connect(&server), "conc").unwrap();
    assert!(f.contains_batch(&items).unwrap().iter().all(|&b| b));
    assert_eq!(f.len().unwrap(), items.len() as u64);
    assert_eq!(f.export().unwrap().len(), items.len());
}

#[test]
fn a_full_filter_refuses_without_losing_anything() {
    let server = RedisServer::start().unwrap();
    fill_past_capacity(connect(&server), "full");
}

/// (e): a deleted, truncated or retyped shard, and damaged metadata, are
/// typed errors for every operation, never an absent answer.
#[test]
fn damaged_keys_are_typed_errors() {
    let server = RedisServer::start().unwrap();
    let mut f =
        RedisCuckooFilter::<u64, _>::create_with(connect(&server), "dmg", 5_000, 0.01, options())
            .unwrap();
    let items = members(41, 5_000);
    f.insert_batch(&items).unwrap();
    let shards = f.num_shards();
    assert!(shards >= 2);
    let mut raw = connect(&server);
    for s in [0, shards - 1] {
        let key = f.shard_key(s);
        let bytes: Vec<u8> = redis::cmd("GET").arg(&key).query(&mut raw).unwrap();
        let damage: [(&str, Damage<'_>); 4] = [
            (
                "deleted",
                Box::new(|c| redis::cmd("DEL").arg(&key).exec(c).unwrap()),
            ),
            (
                "truncated",
                Box::new(|c| {
                    redis::cmd("SET")
                        .arg(&key)
                        .arg(&bytes[..bytes.len() - 1])
                        .exec(c)
                        .unwrap()
                }),
            ),
            (
                "recreated",
                Box::new(|c| {
                    redis::cmd("DEL").arg(&key).exec(c).unwrap();
                    redis::cmd("SETRANGE")
                        .arg(&key)
                        .arg(10)
                        .arg("x")
                        .exec(c)
                        .unwrap();
                }),
            ),
            (
                "retyped",
                Box::new(|c| {
                    redis::cmd("DEL").arg(&key).exec(c).unwrap();
                    redis::cmd("RPUSH").arg(&key).arg("x").exec(c).unwrap();
                }),
            ),
        ];
        for (what, damage) in &damage {
            damage(&mut raw);
            let typed = |e: Error| match e {
                Error::ShardMissing { key: k } if *what != "retyped" => k == key,
                Error::WrongType { key: k } if *what == "retyped" => k == key,
                _ => false,
            };
            // Every item: each touches shard s or not; the batch touches it.
            let e = f.contains_batch(&items).unwrap_err();
            assert!(typed(e), "{what} shard {s}: contains_batch");
            let victims: Vec<&u64> = items
                .iter()
                .filter(|i| f.contains(*i).is_err())
                .take(3)
                .collect();
            assert!(!victims.is_empty(), "{what} shard {s}");
            for &v in &victims {
                assert!(typed(f.contains(v).unwrap_err()), "{what} contains");
                assert!(typed(f.count(v).unwrap_err()), "{what} count");
                assert!(typed(f.insert(v).unwrap_err()), "{what} insert");
                assert!(
                    typed(f.insert_unique(v).unwrap_err()),
                    "{what} insert_unique"
                );
                assert!(typed(f.remove(v).unwrap_err()), "{what} remove");
            }
            assert!(typed(f.export().unwrap_err()), "{what} export");
            // Repaired, the filter answers again and lost nothing.
            redis::cmd("DEL").arg(&key).exec(&mut raw).unwrap();
            redis::cmd("SET")
                .arg(&key)
                .arg(&bytes)
                .exec(&mut raw)
                .unwrap();
            assert!(f.contains_batch(&items).unwrap().iter().all(|&b| b));
        }
    }
    assert_eq!(f.len().unwrap(), items.len() as u64);

    // The metadata: edited fields, a retyped hash, a deleted one.
    let meta = f.meta_key();
    for (field, value) in [
        ("buckets", "18446744073709551615"),
        ("fingerprint_bits", "64"),
        ("count", "-1"),
        ("count", "x"),
        ("max_shard_bytes", "0"),
    ] {
        let old: String = redis::cmd("HGET")
            .arg(&meta)
            .arg(field)
            .query(&mut raw)
            .unwrap();
        redis::cmd("HSET")
            .arg(&meta)
            .arg(field)
            .arg(value)
            .exec(&mut raw)
            .unwrap();
        let e = RedisCuckooFilter::<u64, _>::open(connect(&server), "dmg").unwrap_err();
        assert!(
            matches!(e, Error::CorruptMetadata { .. }),
            "{field} {value}: {e}"
        );
        assert!(
            matches!(f.contains(&items[0]), Err(Error::CorruptMetadata { .. })),
            "{field} {value}"
        );
        assert!(matches!(f.insert(&1), Err(Error::CorruptMetadata { .. })));
        assert!(matches!(f.len(), Err(Error::CorruptMetadata { .. })));
        redis::cmd("HSET")
            .arg(&meta)
            .arg(field)
            .arg(old)
            .exec(&mut raw)
            .unwrap();
    }
    assert!(f.contains(&items[0]).unwrap());
    redis::cmd("RENAME")
        .arg(&meta)
        .arg("{dmg}:saved")
        .exec(&mut raw)
        .unwrap();
    assert!(matches!(f.contains(&items[0]), Err(Error::NotFound { .. })));
    assert!(matches!(f.insert(&1), Err(Error::NotFound { .. })));
    assert!(matches!(f.remove(&items[0]), Err(Error::NotFound { .. })));
    redis::cmd("RPUSH")
        .arg(&meta)
        .arg("x")
        .exec(&mut raw)
        .unwrap();
    assert!(matches!(f.contains(&items[0]), Err(Error::WrongType { key }) if key == meta));
    assert!(matches!(
        RedisCuckooFilter::<u64, _>::open(connect(&server), "dmg"),
        Err(Error::WrongType { .. })
    ));
    redis::cmd("DEL").arg(&meta).exec(&mut raw).unwrap();
    redis::cmd("RENAME")
        .arg("{dmg}:saved")
        .arg(&meta)
        .exec(&mut raw)
        .unwrap();
    assert!(f.contains_batch(&items).unwrap().iter().all(|&b| b));
}

#[test]
fn create_is_idempotent_and_checks_its_parameters() {
    let server = RedisServer::start().unwrap();
    let a =
        RedisCuckooFilter::<u64, _>::create_with(connect(&server), "idem", 1_000, 0.01, options())
            .unwrap();
    let b =
        RedisCuckooFilter::<u64, _>::create_with(connect(&server), "idem", 1_000, 0.01, options())
            .unwrap();
    assert_eq!(a.num_buckets(), b.num_buckets());
    // A random key adopts the existing one.
    let c = RedisCuckooFilter::<u64, _>::create_with(
        connect(&server),
        "idem",
        1_000,
        0.01,
        Options::new().max_shard_bytes(4 << 10),
    )
    .unwrap();
    assert_eq!(c.hasher(), a.hasher());
    for (items, fpr, opts, field) in [
        (2_000, 0.01, options(), "design"),
        (1_000, 0.01, options().seed(SEED + 1), "key"),
        (
            1_000,
            0.01,
            options().max_shard_bytes(8 << 10),
            "max_shard_bytes",
        ),
    ] {
        let e =
            RedisCuckooFilter::<u64, _>::create_with(connect(&server), "idem", items, fpr, opts)
                .unwrap_err();
        assert!(
            matches!(e, Error::Mismatch { field: f, .. } if f == field),
            "{e}"
        );
    }
    for (items, fpr) in [(0, 0.01), (10, 0.0), (10, 1.0), (10, f64::NAN), (10, 1e-12)] {
        let e =
            RedisCuckooFilter::<u64, _>::create(connect(&server), "bad", items, fpr).unwrap_err();
        assert!(matches!(e, Error::Param(_)), "{items} {fpr}: {e}");
    }
    let e = RedisCuckooFilter::<u64, _>::create_with(
        connect(&server),
        "bad",
        10,
        0.01,
        Options::new().max_shard_bytes(8),
    )
    .unwrap_err();
    assert!(matches!(e, Error::ShardTooSmall { .. }), "{e}");
    assert!(matches!(
        RedisCuckooFilter::<u64, _>::create(connect(&server), "a{b}", 10, 0.01),
        Err(Error::InvalidName(_))
    ));
    assert!(matches!(
        RedisCuckooFilter::<u64, _>::open(connect(&server), "none"),
        Err(Error::NotFound { .. })
    ));
    // Another kind under the name.
    bloomlab_redis::RedisScalableBloomFilter::<u64, _>::create(connect(&server), "sc", 100, 0.01)
        .unwrap();
    assert!(matches!(
        RedisCuckooFilter::<u64, _>::open(connect(&server), "sc"),
        Err(Error::Mismatch { field: "kind", .. })
    ));
    let mut d = RedisCuckooFilter::<u64, _>::open(connect(&server), "idem").unwrap();
    d.delete().unwrap();
    assert!(matches!(d.contains(&1), Err(Error::NotFound { .. })));
}

/// (f): an in-memory filter imported answers as it does and exports back
/// to the same table; one exported imports again.
#[test]
fn export_and_import_are_byte_copies() {
    let server = RedisServer::start().unwrap();
    let items = members(51, 10_000);
    for (b, f) in [(4, 10), (2, 13), (8, 32), (4, 7)] {
        let mut m: CuckooFilter<u64> = CuckooFilter::builder(10_000, 0.01)
            .bucket_size(b)
            .fingerprint_bits(f)
            .seed(SEED)
            .build()
            .unwrap();
        m.insert_batch(&items).unwrap();
        let name = format!("imp{b}-{f}");
        let mut r = RedisCuckooFilter::import(connect(&server), &name, &m, 3_000).unwrap();
        assert!(r.num_shards() > 1);
        assert_eq!(r.len().unwrap(), m.len() as u64);
        let probes: Vec<u64> = probes(52, 30_000).collect();
        assert_eq!(
            r.contains_batch(&probes).unwrap(),
            m.contains_batch(&probes)
        );
        assert!(r.contains_batch(&items).unwrap().iter().all(|&x| x));
        let back = r.export().unwrap();
        assert!(back == m, "b {b} f {f}: the same table, len, bound and key");
        // Both go on alike: the Redis filter and the copy (with room made
        // first: the table is at its planned load).
        let more = members(53, 200);
        let mut copy = back.clone();
        for i in &items[..500] {
            r.remove(i).unwrap();
            copy.remove(i).unwrap();
        }
        r.insert_batch(&more).unwrap();
        copy.insert_batch(&more).unwrap();
        assert_eq!(
            r.contains_batch(&probes).unwrap(),
            copy.contains_batch(&probes)
        );
        assert!(matches!(
            RedisCuckooFilter::import(connect(&server), &name, &m, 3_000),
            Err(Error::Exists { .. })
        ));
    }
    let semi: CuckooFilter<u64> = CuckooFilter::builder(100, 0.01)
        .semi_sorted(true)
        .seed(1)
        .build()
        .unwrap();
    assert!(matches!(
        RedisCuckooFilter::import(connect(&server), "semi", &semi, 3_000),
        Err(Error::CuckooLayout(_))
    ));
    let mut raw = connect(&server);
    let exists: bool = redis::cmd("EXISTS")
        .arg("{semi}:meta")
        .query(&mut raw)
        .unwrap();
    assert!(!exists, "nothing written");
}

#[test]
fn on_a_cluster_answers_equal_and_node_restarts_lose_nothing() {
    let mut cluster = RedisCluster::start(3).unwrap();
    let n = 10_000;
    let f = same_answers(connect_cluster(&cluster), "ccf", n);
    // Every key of the filter on the node of its tag's slot.
    let node = cluster.node_of_slot(key_slot(b"{ccf}")).unwrap();
    for s in 0..f.num_shards() {
        let key = f.shard_key(s);
        assert_eq!(
            cluster.node_of_slot(key_slot(key.as_bytes())).unwrap(),
            node
        );
    }
    drop(f);
    model_run(connect_cluster(&cluster), "cmodel", 7, 2_000);
    fill_past_capacity(connect_cluster(&cluster), "cfull");
    for i in 0..3 {
        cluster.restart_node(i).unwrap();
    }
    let mut f = RedisCuckooFilter::<u64, _>::open(connect_cluster(&cluster), "ccf").unwrap();
    let items = members(31, n);
    assert!(f.contains_batch(&items).unwrap().iter().all(|&b| b));
    assert_eq!(f.len().unwrap(), n as u64);
    assert!(f.insert(&u64::MAX).is_ok(), "scripts loaded again");
}

/// The async twin on `conn`: the same answers as the in-memory filter, and
/// the same scripts and errors.
async fn async_same_answers<C: bloomlab_redis::aio::AsyncConnection>(conn: C, name: &str) {
    use bloomlab_redis::aio::RedisCuckooFilter as AsyncCuckoo;
    let n = 5_000;
    let mut f = AsyncCuckoo::<u64, C>::create_with(conn, name, n, 0.01, options())
        .await
        .unwrap();
    let mut m = in_memory(n, 0.01);
    let items = members(61, n);
    assert_eq!(
        f.insert_batch(&items).await.unwrap(),
        m.insert_batch(&items).unwrap()
    );
    let probes: Vec<u64> = probes(62, 20_000).collect();
    assert_eq!(
        f.contains_batch(&probes).await.unwrap(),
        m.contains_batch(&probes)
    );
    assert!(!f.insert_unique(&items[0]).await.unwrap());
    assert!(f.insert(&items[0]).await.is_ok());
    assert_eq!(f.count(&items[0]).await.unwrap(), 2);
    f.remove(&items[0]).await.unwrap();
    assert!(f.contains(&items[0]).await.unwrap());
    assert_eq!(f.len().await.unwrap(), n as u64);
    // Relocations may place fingerprints elsewhere: the answers agree.
    let copy = f.export().await.unwrap();
    assert_eq!(copy.len(), n);
    assert_eq!(copy.contains_batch(&probes), m.contains_batch(&probes));
    f.delete().await.unwrap();
    assert!(matches!(f.contains(&1).await, Err(Error::NotFound { .. })));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_twin_answers_as_in_memory() {
    let server = RedisServer::start().unwrap();
    async_same_answers(common::connect_async(&server).await, "acf").await;
    let cluster = RedisCluster::start(3).unwrap();
    async_same_answers(common::connect_cluster_async(&cluster).await, "acf").await;
}
