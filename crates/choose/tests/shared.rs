//! `choose --shared` against a real `redis-server`: the memory it states
//! for each bloomlab-redis filter is what `MEMORY USAGE` reports for the
//! filter's shard keys once bloomlab-redis has created it, and the
//! constants it repeats from bloomlab-redis still agree with it.

use bloomlab_choose::family::{self, Target, redis as chosen};
use bloomlab_choose::{Growth, Workload};
use bloomlab_redis::{
    RedisBloomFilter, RedisCountingBloomFilter, RedisCuckooFilter, RedisScalableBloomFilter,
};
use bloomlab_testkit::redis_server::RedisServer;

#[test]
fn the_repeated_constants_agree_with_bloomlab_redis() {
    assert_eq!(chosen::MAX_SHARDS, bloomlab_redis::MAX_SHARDS);
    assert_eq!(
        chosen::CUCKOO_MAX_SHARDS,
        bloomlab_redis::cuckoo::MAX_SHARDS
    );
    assert_eq!(
        chosen::CUCKOO_BUCKET_SIZE,
        bloomlab_redis::cuckoo::BUCKET_SIZE
    );
    assert_eq!(chosen::BLOCK_CELLS, bloomlab_classic::BLOCK_BITS);
    assert_eq!(
        bloomlab_core::shards::DEFAULT_MAX_BYTES,
        bloomlab_redis::DEFAULT_MAX_BYTES
    );
}

/// `MEMORY USAGE` of every key of the server: (shards, metadata hashes).
fn usage(conn: &mut redis::Connection) -> (u64, Vec<u64>) {
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(conn).unwrap();
    let (mut shards, mut metas) = (0, Vec::new());
    for key in keys {
        let bytes: u64 = redis::cmd("MEMORY")
            .arg("USAGE")
            .arg(&key)
            .query(conn)
            .unwrap();
        if key.ends_with(":meta") {
            metas.push(bytes);
        } else {
            shards += bytes;
        }
    }
    (shards, metas)
}

#[test]
fn the_memory_stated_is_what_redis_holds() {
    let server = RedisServer::start().unwrap();
    let client = redis::Client::open(server.url()).unwrap();
    let mut admin = client.get_connection().unwrap();
    let name = chosen::NAME;
    let mut checked = 0;
    // One shard and several, fingerprints of 6 to 27 bits; and the one
    // 7-bit cuckoo shard of 37,449 groups of 28 bytes (299,592 buckets, the
    // table for 1,126,460 items at 10%), whose 1,048,573 bytes with Redis's
    // 10 of string header spill past 1 MiB into the allocator's 1.25 MiB class.
    let grid = [1_000, 300_000, 2_000_000]
        .into_iter()
        .flat_map(|n| [0.2, 0.01, 1e-3, 1e-7].map(|p| (n, p)));
    for (items, fpr) in grid.chain([(1_126_460, 0.1)]) {
        {
            let w = Workload::fixed(items, fpr);
            let report = family::report(&w, Target::Redis);
            assert_eq!(report.workload.growth, Growth::Fixed);
            for offer in &report.offers {
                let conn = || client.get_connection().unwrap();
                let n = items as usize;
                let parameters = match offer.id {
                    "redis-bloom" => {
                        let f = RedisBloomFilter::<u64, _>::create(conn(), name, n, fpr).unwrap();
                        Some((f.num_blocks(), f.num_hashes(), f.num_shards()))
                    }
                    "redis-counting" => {
                        let f = RedisCountingBloomFilter::<u64, _>::create(conn(), name, n, fpr)
                            .unwrap();
                        Some((f.num_blocks(), f.num_hashes(), f.num_shards()))
                    }
                    "redis-cuckoo" => {
                        RedisCuckooFilter::<u64, _>::create(conn(), name, n, fpr).unwrap();
                        None
                    }
                    "redis-scalable" => {
                        RedisScalableBloomFilter::<u64, _>::create(conn(), name, n, fpr).unwrap();
                        None
                    }
                    other => panic!("an offer this test does not know: {other}"),
                };
                if let Some((blocks, k, shards)) = parameters {
                    assert_eq!(
                        offer.parameters,
                        format!(
                            "blocks={} k={k} shards={shards}",
                            bloomlab::catalog::grouped(blocks)
                        )
                    );
                }
                let (shards, metas) = usage(&mut admin);
                assert_eq!(offer.bytes, Some(shards), "{} {items} {fpr}", offer.id);
                // The report says the metadata hash adds under 1 kB.
                assert_eq!(metas.len(), 1);
                assert!(metas[0] < 1_000, "{} {}", offer.id, metas[0]);
                let _: () = redis::cmd("FLUSHALL").query(&mut admin).unwrap();
                checked += 1;
            }
        }
    }
    assert_eq!(checked, (3 * 4 + 1) * 4);
}
