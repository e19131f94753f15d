//! A batch of 10,000 fresh items inserted into `RedisScalableBloomFilter`
//! against the same batch inserted into `RedisBloomFilter`, on one Redis
//! server the bench starts itself (`appendonly no`, no snapshots).
//!
//! Every measured batch starts from the same filled state: before each one
//! (untimed) the server is flushed and the filters' keys restored from a
//! `DUMP` taken after the fill, so that a run of many batches neither
//! fills the Bloom filter past its design nor grows the scalable one past
//! the setting it measures. Two settings:
//!
//! - **one layer**: both filters for 1,000,000 items at 1% (the scalable
//!   filter's first layer holds 1,000,000), each filled with the same
//!   500,000 keys: a batch reads one layer.
//! - **three layers**: the scalable filter starts at 100,000 items and holds
//!   600,000 (layers of 100k, 200k and 400k, the last three quarters full); the
//!   Bloom filter is for 1,000,000 items and holds the same 600,000 keys: a
//!   batch reads three layers.
//!
//! A third row times the scalable filter's one-script-per-item path, which
//! every batch took before the batch path and which a batch falls back to
//! when other writers keep changing its blocks.
//!
//! Both filters hash with `DefaultHasher::from_seed(7)` and one connection
//! each, blocking. `cargo bench -p bloomlab-redis --bench scalable -- --test`
//! runs each once at 1/50 of the sizes.

mod common;

use std::hint::black_box;

use bloomlab_redis::{Options, RedisBloomFilter, RedisScalableBloomFilter, ScalableOptions};
use bloomlab_testkit::keys;
use bloomlab_testkit::redis_server::RedisServer;
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const BATCH: usize = 10_000;
const SEED: u64 = 7;

/// One setting: the scalable filter's first layer, and the items both
/// filters hold before a batch.
struct Setting {
    label: &'static str,
    initial: usize,
    filled: usize,
}

fn connect(server: &RedisServer) -> redis::Connection {
    redis::Client::open(server.url())
        .and_then(|c| c.get_connection())
        .expect("connecting to the bench's redis-server")
}

/// Every key on the server, dumped.
fn dump(conn: &mut redis::Connection) -> Vec<(String, Vec<u8>)> {
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(conn).expect("KEYS");
    keys.into_iter()
        .map(|k| {
            let d = redis::cmd("DUMP").arg(&k).query(conn).expect("DUMP");
            (k, d)
        })
        .collect()
}

/// Puts the server back to the dumped keys.
fn restore(conn: &mut redis::Connection, keys: &[(String, Vec<u8>)]) {
    let mut pipe = redis::pipe();
    pipe.cmd("FLUSHALL");
    for (k, d) in keys {
        pipe.cmd("RESTORE").arg(k).arg(0).arg(d);
    }
    pipe.exec(conn).expect("RESTORE");
}

fn scalable_batches(c: &mut Criterion) {
    let test = std::env::args().any(|a| a == "--test");
    let scale = if test { 50 } else { 1 };
    let settings = [
        Setting {
            label: "one layer",
            initial: 1_000_000 / scale,
            filled: 500_000 / scale,
        },
        Setting {
            label: "three layers",
            initial: 100_000 / scale,
            filled: 600_000 / scale,
        },
    ];
    let server = RedisServer::start_with(&[("appendonly", "no"), ("save", "")])
        .expect("starting redis-server");
    let mut control = connect(&server);
    let mut group = c.benchmark_group("redis_scalable_insert_10k");
    group.throughput(Throughput::Elements(BATCH as u64));
    for setting in &settings {
        restore(&mut control, &[]);
        let members = keys::members(SEED, setting.filled);
        let design = 1_000_000 / scale;
        let mut bloom = RedisBloomFilter::<u64, _>::create_with(
            connect(&server),
            "bloom",
            design,
            0.01,
            Options::new().seed(SEED),
        )
        .expect("creating the Bloom filter");
        let mut scalable = RedisScalableBloomFilter::<u64, _>::create_with(
            connect(&server),
            "scalable",
            setting.initial,
            0.01,
            ScalableOptions::new().seed(SEED),
        )
        .expect("creating the scalable filter");
        for chunk in members.chunks(BATCH) {
            bloom.insert_batch(chunk).expect("filling");
            scalable.insert_batch(chunk).expect("filling");
        }
        let layers = scalable.num_layers().expect("layers");
        eprintln!(
            "\nscalable bench, {}: {} items in {layers} layers; Bloom filter of {} blocks",
            setting.label,
            setting.filled,
            bloom.num_blocks()
        );
        let saved = dump(&mut control);
        let mut fresh = 1u64 << 40;
        let mut batch = || {
            fresh += 1;
            keys::members(fresh, BATCH)
        };
        let id = |name| BenchmarkId::new(name, setting.label);
        group.bench_function(id("RedisBloomFilter"), |b| {
            b.iter_batched(
                || {
                    restore(&mut control, &saved);
                    batch()
                },
                |items| black_box(bloom.insert_batch(&items).expect("insert_batch")),
                BatchSize::PerIteration,
            );
        });
        // The scalable filter's handle is opened anew after each restore: a
        // handle that saw a layer the restore took away would rightly
        // refuse the filter as corrupt.
        let reopen = |control: &mut redis::Connection| {
            restore(control, &saved);
            RedisScalableBloomFilter::<u64, _>::open(connect(&server), "scalable")
                .expect("opening the scalable filter")
        };
        group.bench_function(id("RedisScalableBloomFilter"), |b| {
            b.iter_batched(
                || (reopen(&mut control), batch()),
                |(mut scalable, items)| {
                    black_box(scalable.insert_batch(&items).expect("insert_batch"))
                },
                BatchSize::PerIteration,
            );
        });
        // One script per item: what every batch cost before the batch
        // path, and what a batch falls back to under contention.
        group.bench_function(id("RedisScalableBloomFilter one script per item"), |b| {
            b.iter_batched(
                || (reopen(&mut control), batch()),
                |(mut scalable, items)| {
                    let added = scalable.insert_batch_one_by_one(&items);
                    black_box(added.expect("insert_batch_one_by_one"))
                },
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::criterion(20, 6);
    targets = scalable_batches
}
criterion_main!(benches);
