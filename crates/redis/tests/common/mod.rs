//! What the tests share: in-memory models of the three filters, built from
//! the same seed and the same theory as the Redis ones, and the checks that
//! compare them.

#![allow(dead_code)]

use std::hash::BuildHasher;

use bloomlab_classic::{BlockLayout, BlockedBloomFilter};
use bloomlab_core::DefaultHasher;
use bloomlab_core::hash::{BlockPositions, reduce};
use bloomlab_core::theory::{blocked, scalable};
use bloomlab_redis::{
    Bits, Cells, Connection, Counters, Options, RedisBlockedFilter, RedisScalableBloomFilter,
    ScalableOptions,
};
use bloomlab_testkit::redis_server::{RedisCluster, RedisServer};
use redis::cluster::{ClusterClient, ClusterConnection};

/// The seed every filter of the tests is built with.
pub const SEED: u64 = 14;

/// Probes are looked up in batches of this many.
pub const CHUNK: usize = 100_000;

/// The scalable filter of the tests: layers of 50k, 100k, 200k, … at 1% in
/// total (s = 2, r = 0.85), as `ScalableOptions::new()` makes them.
pub const SCALABLE_INITIAL: usize = 50_000;

/// The in-memory model of a scalable filter: blocked layers sized as the
/// Redis filter sizes them, filled by the same rule (an item present in a
/// layer is not added; the active layer takes items up to its capacity).
pub struct ScalableModel {
    layers: Vec<BlockedBloomFilter<u64>>,
    count: u64,
    initial: u64,
    fpr: f64,
}

impl ScalableModel {
    pub fn new(initial: usize, fpr: f64) -> Self {
        let mut m = Self {
            layers: Vec::new(),
            count: 0,
            initial: initial as u64,
            fpr,
        };
        m.open();
        m
    }

    fn open(&mut self) {
        let i = self.layers.len() as u32;
        let capacity = scalable::layer_capacity(self.initial, 2, i).unwrap();
        let rate = scalable::layer_fpr(self.fpr, 0.85, i);
        let (blocks, k) = blocked::size_for(512, capacity, rate).unwrap();
        let layer = BlockedBloomFilter::builder_with_blocks(blocks, k)
            .layout(BlockLayout::Positions)
            .seed(SEED)
            .build()
            .unwrap();
        self.layers.push(layer);
        self.count = 0;
    }

    pub fn insert(&mut self, item: u64) -> bool {
        if self.contains(item) {
            return false;
        }
        let i = self.layers.len() as u32 - 1;
        if self.count >= scalable::layer_capacity(self.initial, 2, i).unwrap() {
            self.open();
        }
        self.layers.last_mut().unwrap().insert(&item).unwrap();
        self.count += 1;
        true
    }

    pub fn contains(&self, item: u64) -> bool {
        self.layers.iter().any(|l| l.contains(&item))
    }

    pub fn layers(&self) -> usize {
        self.layers.len()
    }
}

/// The in-memory model of the counting filter: a 4-bit counter per cell of
/// the blocked layout, saturating at 15, removed as the Redis script does.
pub struct CountingModel {
    counters: Vec<u8>,
    blocks: u64,
    k: u32,
    hasher: DefaultHasher,
}

impl CountingModel {
    pub fn new(items: usize, fpr: f64) -> Self {
        let (blocks, k) = blocked::size_for(512, items as u64, fpr).unwrap();
        Self {
            counters: vec![0; blocks as usize * 512],
            blocks,
            k,
            hasher: DefaultHasher::from_seed(SEED),
        }
    }

    fn cells(&self, item: u64) -> Vec<usize> {
        let h = self.hasher.hash_one(item);
        let base = reduce(h, self.blocks) as usize * 512;
        BlockPositions::new(h, 9)
            .take(self.k as usize)
            .map(|p| base + p as usize)
            .collect()
    }

    pub fn insert(&mut self, item: u64) {
        for c in self.cells(item) {
            self.counters[c] = (self.counters[c] + 1).min(15);
        }
    }

    pub fn remove(&mut self, item: u64) -> bool {
        let before = self.counters.clone();
        for c in self.cells(item) {
            match self.counters[c] {
                0 => {
                    self.counters = before;
                    return false;
                }
                15 => {}
                _ => self.counters[c] -= 1,
            }
        }
        true
    }

    pub fn contains(&self, item: u64) -> bool {
        self.cells(item).iter().all(|&c| self.counters[c] != 0)
    }
}

/// A blocking connection to `server`.
pub fn connect(server: &RedisServer) -> redis::Connection {
    redis::Client::open(server.url())
        .unwrap()
        .get_connection()
        .unwrap()
}

/// A blocking connection to `cluster`.
pub fn connect_cluster(cluster: &RedisCluster) -> ClusterConnection {
    ClusterClient::new(cluster.urls())
        .unwrap()
        .get_connection()
        .unwrap()
}

/// A multiplexed async connection to `server`. A batch is one request, so
/// its response timeout is raised: the default 500 ms would not cover
/// 300k lookups.
pub async fn connect_async(server: &RedisServer) -> redis::aio::MultiplexedConnection {
    let client = redis::Client::open(server.url()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    conn.set_response_timeout(std::time::Duration::from_secs(60));
    conn
}

/// An async connection to `cluster`.
pub async fn connect_cluster_async(
    cluster: &RedisCluster,
) -> redis::cluster_async::ClusterConnection {
    let client = ClusterClient::new(cluster.urls()).unwrap();
    client.get_async_connection().await.unwrap()
}

/// A pool of at most `size` connections to `server`.
pub fn pool(server: &RedisServer, size: u32) -> r2d2::Pool<redis::Client> {
    let client = redis::Client::open(server.url()).unwrap();
    r2d2::Pool::builder().max_size(size).build(client).unwrap()
}

/// Creates the scalable filter `name` whose first layer holds `initial`
/// items, at 1% in total.
pub fn scalable<C: Connection>(
    conn: C,
    name: &str,
    initial: usize,
    options: ScalableOptions,
) -> RedisScalableBloomFilter<u64, C> {
    RedisScalableBloomFilter::create_with(conn, name, initial, 0.01, options).unwrap()
}

/// Creates the filter `name` of cells `L` for `items` at 1%.
pub fn create<L: Cells, C: Connection>(
    conn: C,
    name: &str,
    items: usize,
    options: Options,
) -> RedisBlockedFilter<u64, C, L> {
    RedisBlockedFilter::create_with(conn, name, items, 0.01, options).unwrap()
}

/// Looks every probe up in chunks of [`CHUNK`].
pub fn lookups(probes: &[u64], batch: impl FnMut(&[u64]) -> Vec<bool>) -> Vec<bool> {
    probes.chunks(CHUNK).flat_map(batch).collect()
}

/// Inserts `members` into the three filters `prefix-bloom`, `prefix-counting`
/// and `prefix-scalable` (made by `connect`) and into their models, then
/// checks that every probe gets the same answer from Redis and from memory.
pub fn same_answers<C: Connection>(
    mut connect: impl FnMut() -> C,
    prefix: &str,
    members: &[u64],
    probes: &[u64],
    shard_bytes: usize,
) {
    let n = members.len();
    let options = Options::new().seed(SEED).max_shard_bytes(shard_bytes);

    let mut bloom = create::<Bits, C>(connect(), &format!("{prefix}-bloom"), n, options);
    let mut memory = BlockedBloomFilter::<u64>::builder(n, 0.01)
        .layout(BlockLayout::Positions)
        .seed(SEED)
        .build()
        .unwrap();
    assert_eq!(bloom.num_blocks(), memory.num_blocks());
    let new: usize = members
        .chunks(CHUNK)
        .map(|c| bloom.insert_batch(c).unwrap())
        .sum();
    assert_eq!(
        new,
        memory.insert_batch(members).unwrap(),
        "new items, Bloom"
    );
    let redis = lookups(probes, |c| bloom.contains_batch(c).unwrap());
    assert_eq!(redis, memory.contains_batch(probes), "Bloom answers");
    assert!(
        lookups(members, |c| bloom.contains_batch(c).unwrap())
            .iter()
            .all(|&b| b)
    );

    let mut counting = create::<Counters, C>(connect(), &format!("{prefix}-counting"), n, options);
    for c in members.chunks(CHUNK) {
        counting.insert_batch(c).unwrap();
    }
    let redis = lookups(probes, |c| counting.contains_batch(c).unwrap());
    assert_eq!(redis, memory.contains_batch(probes), "counting answers");

    let mut scalable = RedisScalableBloomFilter::<u64, C>::create_with(
        connect(),
        &format!("{prefix}-scalable"),
        SCALABLE_INITIAL,
        0.01,
        ScalableOptions::new()
            .seed(SEED)
            .max_shard_bytes(shard_bytes),
    )
    .unwrap();
    let mut model = ScalableModel::new(SCALABLE_INITIAL, 0.01);
    let added: usize = members
        .chunks(CHUNK)
        .map(|c| scalable.insert_batch(c).unwrap())
        .sum();
    let model_added = members.iter().filter(|&&m| model.insert(m)).count();
    assert_eq!(added, model_added, "items added, scalable");
    assert_eq!(scalable.num_layers().unwrap() as usize, model.layers());
    let redis = lookups(probes, |c| scalable.contains_batch(c).unwrap());
    let expected: Vec<bool> = probes.iter().map(|&p| model.contains(p)).collect();
    assert_eq!(redis, expected, "scalable answers");
    assert!(members.iter().all(|&m| model.contains(m)));
}
