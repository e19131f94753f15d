//! The connections services hold: one r2d2 pool shared by four threads,
//! each putting the opened filters on a pooled connection per batch; and
//! clones of one async `ConnectionManager` shared by four tasks. Nothing
//! is lost, and the answers are the in-memory filters'.

mod common;

use bloomlab_redis::{
    Bits, Counters, Options, RedisBloomFilter, RedisCountingBloomFilter, RedisCuckooFilter,
    RedisScalableBloomFilter, ScalableOptions,
};
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::redis_server::RedisServer;
use common::{connect, pool};

const THREADS: u64 = 4;
const EACH: usize = 20_000;

/// A counting, a scalable and a cuckoo filter named `names`, for every
/// item the threads insert, created with `seed` on connections of `pool`
/// and kept without one.
fn create_three(
    pool: &r2d2::Pool<redis::Client>,
    [counting, scalable, cuckoo]: [&str; 3],
    seed: u64,
) -> (
    RedisCountingBloomFilter<u64, ()>,
    RedisScalableBloomFilter<u64, ()>,
    RedisCuckooFilter<u64, ()>,
) {
    let total = THREADS as usize * EACH;
    let options = Options::new().seed(seed);
    let counting =
        common::create::<Counters, _>(pool.get().unwrap(), counting, total, options).on(());
    let scalable = common::scalable(
        pool.get().unwrap(),
        scalable,
        10_000,
        ScalableOptions::new().seed(seed),
    )
    .on(());
    let cuckoo =
        RedisCuckooFilter::<u64, _>::create_with(pool.get().unwrap(), cuckoo, total, 0.01, options)
            .unwrap()
            .on(());
    // Each gave its pooled connection back at once: the pool may be smaller
    // than three.
    (counting, scalable, cuckoo)
}

#[test]
fn four_threads_share_one_pool() {
    let server = RedisServer::start().unwrap();
    // Fewer connections than threads: they wait for one, as services do.
    let pool = pool(&server, 3);
    let total = THREADS as usize * EACH;
    // Each filter is opened once, then kept without a connection (`on(())`)
    // and put on a pooled one for each batch.
    let bloom =
        common::create::<Bits, _>(pool.get().unwrap(), "pb", total, Options::new().seed(21)).on(());
    let (counting, scalable, cuckoo) = create_three(&pool, ["pc", "ps", "pk"], 21);
    let sets: Vec<Vec<u64>> = (0..THREADS).map(|t| members(300 + t, EACH)).collect();
    std::thread::scope(|s| {
        for set in &sets {
            let (pool, bloom, counting, scalable, cuckoo) =
                (&pool, &bloom, &counting, &scalable, &cuckoo);
            s.spawn(move || {
                for chunk in set.chunks(2_500) {
                    bloom.on(pool.get().unwrap()).insert_batch(chunk).unwrap();
                    counting
                        .on(pool.get().unwrap())
                        .insert_batch(chunk)
                        .unwrap();
                    scalable
                        .on(pool.get().unwrap())
                        .insert_batch(chunk)
                        .unwrap();
                    cuckoo.on(pool.get().unwrap()).insert_batch(chunk).unwrap();
                    let mut check = bloom.on(pool.get().unwrap());
                    assert!(check.contains_batch(chunk).unwrap().iter().all(|&x| x));
                }
            });
        }
    });
    let all = sets.concat();
    for chunk in all.chunks(20_000) {
        // One statement each: a handle gives its connection back when the
        // statement ends.
        let all_present = |answers: Vec<bool>| answers.iter().all(|&x| x);
        assert!(all_present(
            bloom.on(pool.get().unwrap()).contains_batch(chunk).unwrap()
        ));
        assert!(all_present(
            counting
                .on(pool.get().unwrap())
                .contains_batch(chunk)
                .unwrap()
        ));
        assert!(all_present(
            scalable
                .on(pool.get().unwrap())
                .contains_batch(chunk)
                .unwrap()
        ));
        assert!(all_present(
            cuckoo
                .on(pool.get().unwrap())
                .contains_batch(chunk)
                .unwrap()
        ));
    }
    assert_eq!(
        scalable.on(pool.get().unwrap()).len().unwrap(),
        total as u64
    );
    assert_eq!(cuckoo.on(pool.get().unwrap()).len().unwrap(), total as u64);
    let mut b = bloom.on(pool.get().unwrap());
    // The pooled Bloom filter answers exactly as the same filter over a
    // plain connection, absent keys included.
    let probes: Vec<u64> = probes(301, 50_000).collect();
    let plain = RedisBloomFilter::<u64, _>::open(connect(&server), "pb");
    assert_eq!(
        b.contains_batch(&probes).unwrap(),
        plain.unwrap().contains_batch(&probes).unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_tasks_share_one_connection_manager() {
    let server = RedisServer::start().unwrap();
    let client = redis::Client::open(server.url()).unwrap();
    let manager = redis::aio::ConnectionManager::new(client).await.unwrap();
    let total = THREADS as usize * EACH;
    let filter = bloomlab_redis::aio::RedisScalableBloomFilter::<u64, _>::create_with(
        manager,
        "am",
        10_000,
        0.01,
        ScalableOptions::new().seed(22),
    )
    .await
    .unwrap();
    let sets: Vec<Vec<u64>> = (0..THREADS).map(|t| members(400 + t, EACH)).collect();
    let tasks: Vec<_> = sets
        .iter()
        .cloned()
        .map(|set| {
            let mut mine = filter.clone();
            tokio::spawn(async move {
                for chunk in set.chunks(5_000) {
                    mine.insert_batch(chunk).await.unwrap();
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let mut check = filter.clone();
    let all = sets.concat();
    assert!(check.contains_batch(&all).await.unwrap().iter().all(|&x| x));
    assert_eq!(check.len().await.unwrap(), total as u64);
}

#[test]
fn one_shared_handle_serves_four_threads_with_lookups_on_self() {
    use bloomlab_redis::Shared;
    use std::sync::Arc;

    let server = RedisServer::start().unwrap();
    let pool = pool(&server, 2);
    let total = THREADS as usize * EACH;
    // Each opened on a pooled connection, which went back to the pool: the
    // shared handles hold none.
    let (bloom, scalable, cuckoo) = create_three(&pool, ["sb", "ss", "sk"], 23);
    let bloom = Arc::new(bloom.on(Shared(pool.clone())));
    let scalable = Arc::new(scalable.on(Shared(pool.clone())));
    let cuckoo = Arc::new(cuckoo.on(Shared(pool.clone())));
    let sets: Vec<Vec<u64>> = (0..THREADS).map(|t| members(500 + t, EACH)).collect();
    std::thread::scope(|s| {
        for set in &sets {
            let (bloom, scalable, cuckoo) = (&bloom, &scalable, &cuckoo);
            s.spawn(move || {
                for chunk in set.chunks(2_500) {
                    bloom.insert_batch(chunk).unwrap();
                    scalable.insert_batch(chunk).unwrap();
                    cuckoo.insert_batch(chunk).unwrap();
                    assert!(bloom.contains_batch(chunk).unwrap().iter().all(|&x| x));
                }
                assert!(bloom.insert(&u64::MAX).is_ok());
                assert!(scalable.contains(&chunk_first(set)).unwrap());
                assert!(cuckoo.contains(&chunk_first(set)).unwrap());
            });
        }
    });
    let all = sets.concat();
    assert!(bloom.contains_batch(&all).unwrap().iter().all(|&x| x));
    assert!(scalable.contains_batch(&all).unwrap().iter().all(|&x| x));
    assert!(cuckoo.contains_batch(&all).unwrap().iter().all(|&x| x));
    // The handles that hold the parameters also run the rest, on one
    // connection each.
    assert_eq!(
        scalable.on(pool.get().unwrap()).len().unwrap(),
        total as u64
    );
}

fn chunk_first(set: &[u64]) -> u64 {
    set[0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shared_async_handle_serves_four_tasks() {
    use bloomlab_redis::Shared;
    use std::sync::Arc;

    let server = RedisServer::start().unwrap();
    let conn = common::connect_async(&server).await;
    let filter =
        bloomlab_redis::aio::RedisBloomFilter::<u64, _>::create(conn.clone(), "as", 100_000, 0.01)
            .await
            .unwrap();
    let filter = Arc::new(filter.on(Shared(conn)));
    let sets: Vec<Vec<u64>> = (0..THREADS).map(|t| members(600 + t, EACH)).collect();
    let tasks: Vec<_> = sets
        .iter()
        .cloned()
        .map(|set| {
            let filter = Arc::clone(&filter);
            tokio::spawn(async move {
                filter.insert_batch(&set).await.unwrap();
                filter.contains(&set[0]).await.unwrap()
            })
        })
        .collect();
    for t in tasks {
        assert!(t.await.unwrap());
    }
    let all = sets.concat();
    assert!(
        filter
            .contains_batch(&all)
            .await
            .unwrap()
            .iter()
            .all(|&x| x)
    );
}
