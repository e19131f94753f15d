//! A real three-master Redis Cluster: shard keys spread over every master,
//! answers equal the in-memory filters', a restarted node loses nothing.

mod common;

use bloomlab_redis::{
    Counters, Error, Options, RedisBloomFilter, RedisCountingBloomFilter, RedisScalableBloomFilter,
};
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::redis_server::{RedisCluster, key_slot};
use common::connect_cluster;
use redis::cluster::ClusterClient;

#[test]
fn cluster_filters_answer_as_in_memory_and_survive_a_node_restart() {
    let mut cluster = RedisCluster::start(3).unwrap();
    let members = members(11, 200_000);
    let probes: Vec<u64> = probes(12, 2_000_000).collect();
    // Shards of 16 KiB: the 200k-item Bloom filter (234 KiB) has 15 of them.
    common::same_answers(
        || connect_cluster(&cluster),
        "cl",
        &members,
        &probes,
        16 << 10,
    );

    let bloom = RedisBloomFilter::<u64, _>::open(connect_cluster(&cluster), "cl-bloom").unwrap();
    assert!(bloom.num_shards() >= 10);
    let mut masters: Vec<usize> = bloom
        .shard_keys()
        .iter()
        .map(|k| cluster.node_of_slot(key_slot(k.as_bytes())).unwrap())
        .collect();
    masters.sort_unstable();
    masters.dedup();
    assert_eq!(masters, [0, 1, 2], "the shards lie on every master");

    for node in 0..3 {
        cluster.restart_node(node).unwrap();
    }
    let mut bloom =
        RedisBloomFilter::<u64, _>::open(connect_cluster(&cluster), "cl-bloom").unwrap();
    let mut counting =
        RedisCountingBloomFilter::<u64, _>::open(connect_cluster(&cluster), "cl-counting").unwrap();
    let mut scalable =
        RedisScalableBloomFilter::<u64, _>::open(connect_cluster(&cluster), "cl-scalable").unwrap();
    for c in members.chunks(common::CHUNK) {
        assert!(bloom.contains_batch(c).unwrap().iter().all(|&b| b));
        assert!(counting.contains_batch(c).unwrap().iter().all(|&b| b));
        assert!(scalable.contains_batch(c).unwrap().iter().all(|&b| b));
    }
}

#[test]
fn a_counting_remove_and_a_create_race_work_on_the_cluster() {
    let cluster = RedisCluster::start(3).unwrap();
    let options = Options::new().seed(common::SEED).max_shard_bytes(4 << 10);
    let mut f = common::create::<Counters, _>(connect_cluster(&cluster), "rm", 5_000, options);
    let items = members(13, 5_000);
    f.insert_batch(&items).unwrap();
    for i in &items[..2_500] {
        f.remove(i).unwrap();
    }
    assert!(
        f.contains_batch(&items[2_500..])
            .unwrap()
            .iter()
            .all(|&b| b)
    );
    // Processes racing to create one filter all end up with it.
    let urls = cluster.urls();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let urls = urls.clone();
            std::thread::spawn(move || {
                let conn = ClusterClient::new(urls).unwrap().get_connection().unwrap();
                let f = RedisBloomFilter::<u64, _>::create(conn, "race", 100_000, 0.01).unwrap();
                f.hasher().key()
            })
        })
        .collect();
    let keys: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert!(
        keys.windows(2).all(|w| w[0] == w[1]),
        "one hash key for all"
    );

    // Racing with different rates: one wins, every other is refused.
    let handles: Vec<_> = (1..=4)
        .map(|i| {
            let urls = urls.clone();
            std::thread::spawn(move || {
                let conn = ClusterClient::new(urls).unwrap().get_connection().unwrap();
                let fpr = 0.01 * f64::from(i);
                RedisBloomFilter::<u64, _>::create(conn, "race2", 100_000, fpr).map(drop)
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1);
    let refused = |r: &Result<(), Error>| {
        matches!(
            r,
            Err(Error::Mismatch {
                field: "design",
                ..
            })
        )
    };
    assert_eq!(results.iter().filter(|r| refused(r)).count(), 3);
}
