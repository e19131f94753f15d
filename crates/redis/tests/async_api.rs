//! The async API, on a real server and a real Cluster: the same answers as
//! the blocking API and the in-memory filters.

mod common;

use bloomlab_classic::{BlockLayout, BlockedBloomFilter};
use bloomlab_redis::aio::{AsyncConnection, RedisBlockedFilter, RedisScalableBloomFilter};
use bloomlab_redis::{Bits, Cells, Counters, Error, Options, ScalableOptions};
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::redis_server::{RedisCluster, RedisServer};
use common::{SCALABLE_INITIAL, SEED, ScalableModel};

/// Creates the filter `name` of cells `L` through `conn`, inserts
/// `members` and checks its answers to `probes` against `memory`'s.
async fn filled<C: AsyncConnection, L: Cells>(
    conn: C,
    name: &str,
    members: &[u64],
    probes: &[u64],
    memory: &BlockedBloomFilter<u64>,
) -> RedisBlockedFilter<u64, C, L> {
    let options = Options::new().seed(SEED).max_shard_bytes(16 << 10);
    let mut f = RedisBlockedFilter::<u64, C, L>::create_with(conn, name, 100_000, 0.01, options)
        .await
        .unwrap();
    f.insert_batch(members).await.unwrap();
    assert_eq!(
        f.contains_batch(probes).await.unwrap(),
        memory.contains_batch(probes)
    );
    f
}

/// Fills one filter of each kind through `conn` and compares every answer
/// with the in-memory models.
async fn same_answers<C: AsyncConnection + Clone>(conn: C, prefix: &str) {
    let members = members(21, 100_000);
    let probes: Vec<u64> = probes(22, 300_000).collect();

    let mut memory = BlockedBloomFilter::<u64>::builder(100_000, 0.01)
        .layout(BlockLayout::Positions)
        .seed(SEED)
        .build()
        .unwrap();
    memory.insert_batch(&members).unwrap();
    let name = format!("{prefix}-b");
    let mut bloom = filled::<C, Bits>(conn.clone(), &name, &members, &probes, &memory).await;
    assert!(bloom.export().await.unwrap().words().eq(memory.words()));

    let name = format!("{prefix}-c");
    let mut counting = filled::<C, Counters>(conn.clone(), &name, &members, &probes, &memory).await;
    counting.remove(&members[0]).await.unwrap();
    let absent = probes.iter().find(|&&p| !memory.contains(&p)).unwrap();
    assert!(matches!(
        counting.remove(absent).await,
        Err(Error::NotPresent)
    ));

    let options = ScalableOptions::new().seed(SEED).max_shard_bytes(16 << 10);
    let mut scalable = RedisScalableBloomFilter::<u64, C>::create_with(
        conn,
        &format!("{prefix}-s"),
        SCALABLE_INITIAL,
        0.01,
        options,
    )
    .await
    .unwrap();
    let mut model = ScalableModel::new(SCALABLE_INITIAL, 0.01);
    let added = scalable.insert_batch(&members).await.unwrap();
    assert_eq!(added, members.iter().filter(|&&m| model.insert(m)).count());
    let expected: Vec<bool> = probes.iter().map(|&p| model.contains(p)).collect();
    assert_eq!(scalable.contains_batch(&probes).await.unwrap(), expected);
    assert_eq!(
        scalable.num_layers().await.unwrap() as usize,
        model.layers()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_standalone_answers_as_in_memory() {
    let server = RedisServer::start().unwrap();
    same_answers(common::connect_async(&server).await, "async").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_cluster_answers_as_in_memory() {
    let cluster = RedisCluster::start(3).unwrap();
    same_answers(common::connect_cluster_async(&cluster).await, "async").await;
}
