//! Batches of 10,000 items against a Redis server the bench starts itself,
//! kept three ways:
//!
//! - **bloomlab**: [`RedisBloomFilter`]'s `insert_batch` and
//!   `contains_batch`: a lookup is one `GETRANGE` of the item's 64-byte block
//!   per item plus one read of the guard byte of each shard the batch
//!   touches; an insert is one `BITFIELD key SET u1 …` per item, or, when
//!   the batch puts many items in a shard (as here), one script per shard
//!   that ORs a mask of their bits in. Every command of a batch goes in one
//!   pipeline.
//! - **documents**: what the articles and Redisson do with Redis bitmaps: one
//!   bitmap key holding a classic (unblocked) Bloom filter of `m` bits and `k`
//!   hashes from [`classic::size_for`], and one `SETBIT` (insert) or `GETBIT`
//!   (lookup) per bit, every command of a batch in one pipeline.
//! - **set**: the exact answer, a Redis set of the items: one `SADD` or
//!   `SISMEMBER` per item (the one-command-per-item form, not `SMISMEMBER`),
//!   every command of a batch in one pipeline.
//!
//! What is held fixed, and what cannot be:
//! - Every structure holds the same 1,000,000 seeded keys
//!   ([`keys::members`]) before anything is timed, and both filters are sized
//!   for 1,000,000 items at 1%.
//! - Both filters hash an item once with `DefaultHasher::from_seed(7)`
//!   (keyed SipHash-1-3). Their positions differ, by design: bloomlab puts an
//!   item's `k` bits in one 512-bit block (sizing from `blocked::size_for`),
//!   the documents' filter spreads them over the whole bitmap
//!   ([`Positions`], sizing from [`classic::size_for`]). So `m` and `k` are
//!   not the same; the bench prints both and the miss rate each one measures.
//! - The set stores each key as Redis stores it from the client: its decimal
//!   string (redis-rs's encoding of a `u64`). It has no rate.
//! - One client (redis-rs, blocking), one connection per structure, the same
//!   loopback server with `appendonly no` and no RDB snapshots, so disk I/O
//!   does not enter the timings.
//! - The documents' batches carry no guard and no configuration check
//!   (Redisson adds a check of its config hash to each batch); bloomlab's
//!   batches read the guard byte of every shard they touch, so that a shard
//!   lost in a restart is an error. Both differences favour the documents'
//!   approach.
//!
//! Lookups of absent keys ([`keys::probes`], never inserted) and of present
//! keys (the fill's members) run first, on exactly the filled structures.
//! Inserts come last and add fresh keys (a new seed per batch), so the set
//! does the work of a real insert, not the cheaper re-add of a member; the
//! structures grow past 1M items while inserts are timed.
//!
//! Besides criterion's times, the bench prints (to stderr) what criterion
//! cannot see, measured on the same server:
//! - **memory per item**: `MEMORY USAGE key SAMPLES 0` summed over each
//!   structure's keys (bloomlab's shards and its `name:meta` hash), right
//!   after the fill, divided by the items;
//! - **commands per item**, counted by the server (`INFO commandstats`,
//!   calls of every command but `INFO` and `CONFIG`) over a few batches;
//! - **round trips per batch**, measured, not assumed: the same batch is
//!   sent through a loopback proxy that holds every reply chunk back for a
//!   fixed delay `D` before passing it on, so each round trip costs `D` more;
//!   round trips = (time through the proxy − time direct) / `D`;
//! - **where the time goes**: wall time per batch, the bench thread's CPU
//!   time (`/proc/thread-self/schedstat`), the server's CPU time (`INFO cpu`)
//!   and the server's command execution time (`INFO commandstats`).
//!
//! `cargo bench -p bloomlab-redis -- --test` runs every benchmark once on
//! structures of 20,000 items (so the fill takes milliseconds) with a
//! 10 ms proxy delay and one batch per extra measurement: it checks that the
//! bench works, and its numbers mean nothing.

mod common;

use std::hash::BuildHasher;
use std::hint::black_box;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, Shutdown, TcpListener, TcpStream};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use bloomlab_core::DefaultHasher;
use bloomlab_core::hash::Positions;
use bloomlab_core::theory::classic;
use bloomlab_redis::{Options, RedisBloomFilter};
use bloomlab_testkit::keys;
use bloomlab_testkit::redis_server::RedisServer;
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const FPR: f64 = 0.01;
const BATCH: usize = 10_000;
const SEED: u64 = 7;
/// The first seed of the fresh keys that insert batches add, one seed per
/// batch; far from [`SEED`], whose keys fill the structures.
const FRESH_SEED: u64 = 1 << 32;
/// The bloomlab filter's name, the documents' bitmap key and the set key.
const FILTER: &str = "bloomlab";
const BITMAP: &str = "documents";
const SET: &str = "set";

/// The sizes of one run: the real one, or the quick one of `--test`.
struct Scale {
    items: usize,
    label: &'static str,
    /// Batches per measurement of commands and time per batch.
    batches: usize,
    /// The proxy's hold on replies, and batches sent through it.
    delay: Duration,
    proxied: usize,
}

impl Scale {
    fn from_args() -> Self {
        if std::env::args().any(|a| a == "--test") {
            Self {
                items: 20_000,
                label: "20k items, 1%",
                batches: 1,
                delay: Duration::from_millis(10),
                proxied: 1,
            }
        } else {
            Self {
                items: 1_000_000,
                label: "1M items, 1%",
                batches: 30,
                delay: Duration::from_millis(200),
                proxied: 3,
            }
        }
    }
}

/// The three ways of keeping the items, in the order every table lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Approach {
    Bloomlab,
    Documents,
    Set,
}

impl Approach {
    const ALL: [Self; 3] = [Self::Bloomlab, Self::Documents, Self::Set];

    /// The benchmark id's function name.
    fn id(self) -> &'static str {
        match self {
            Self::Bloomlab => "bloomlab",
            Self::Documents => "documents",
            Self::Set => "set",
        }
    }

    /// Opens the structure over `conn` (bloomlab's filter is created by the
    /// first call and opened by the others).
    fn connect(self, conn: redis::Connection, items: usize) -> Box<dyn Store> {
        match self {
            Self::Bloomlab => Box::new(
                RedisBloomFilter::<u64, _>::create_with(
                    conn,
                    FILTER,
                    items,
                    FPR,
                    Options::new().seed(SEED),
                )
                .expect("creating the bloomlab filter"),
            ),
            Self::Documents => Box::new(Documents::new(conn, items)),
            Self::Set => Box::new(Set(conn)),
        }
    }
}

/// What is timed: one question per criterion group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    LookupMiss,
    LookupHit,
    Insert,
}

impl Op {
    /// Lookups first, so they see exactly the filled structures.
    const ALL: [Self; 3] = [Self::LookupMiss, Self::LookupHit, Self::Insert];

    fn group(self) -> &'static str {
        match self {
            Self::LookupMiss => "redis_lookup_miss_10k",
            Self::LookupHit => "redis_lookup_hit_10k",
            Self::Insert => "redis_insert_10k",
        }
    }
}

/// A structure kept in Redis, one pipelined batch at a time.
trait Store {
    /// Adds `items`; returns how many were not reported present before.
    fn insert(&mut self, items: &[u64]) -> usize;
    /// Whether each of `items` is (probably) present.
    fn contains(&mut self, items: &[u64]) -> Vec<bool>;
    /// Every key the structure keeps in Redis.
    fn keys(&self) -> Vec<String>;
    /// `m` bits and `k` hashes, for a filter.
    fn geometry(&self) -> Option<(u64, u32)>;
}

/// Runs `op` on one batch; returns the `true` answers (new items for an
/// insert, items reported present for a lookup).
fn run(store: &mut dyn Store, op: Op, batch: &[u64]) -> usize {
    match op {
        Op::Insert => store.insert(batch),
        Op::LookupHit | Op::LookupMiss => store.contains(batch).into_iter().filter(|&b| b).count(),
    }
}

impl Store for RedisBloomFilter<u64, redis::Connection> {
    fn insert(&mut self, items: &[u64]) -> usize {
        self.insert_batch(items).expect("bloomlab insert_batch")
    }

    fn contains(&mut self, items: &[u64]) -> Vec<bool> {
        self.contains_batch(items).expect("bloomlab contains_batch")
    }

    fn keys(&self) -> Vec<String> {
        let mut keys = self.shard_keys();
        keys.push(format!("{FILTER}:meta"));
        keys
    }

    fn geometry(&self) -> Option<(u64, u32)> {
        let bits = self.num_blocks() * u64::from(bloomlab_classic::BLOCK_BITS);
        Some((bits, self.num_hashes()))
    }
}

/// The documents' filter: one bitmap, one `SETBIT` or `GETBIT` per bit.
struct Documents {
    conn: redis::Connection,
    bits: u64,
    hashes: u32,
    hasher: DefaultHasher,
}

impl Documents {
    fn new(conn: redis::Connection, items: usize) -> Self {
        let (bits, hashes) = classic::size_for(items as u64, FPR).expect("classic sizing");
        // One key: Redis bitmaps stop at 2^32 bits.
        assert!(bits <= 1 << 32, "{bits} bits do not fit one bitmap");
        Self {
            conn,
            bits,
            hashes,
            hasher: DefaultHasher::from_seed(SEED),
        }
    }

    /// One command per bit of every item, in one pipeline; the replies are
    /// the bits (before the write, for `SETBIT`), `k` per item.
    fn per_bit(&mut self, command: &str, items: &[u64]) -> Vec<bool> {
        let mut pipe = redis::pipe();
        for &item in items {
            let hash = self.hasher.hash_one(item);
            for bit in Positions::new(hash, self.bits).take(self.hashes as usize) {
                pipe.cmd(command).arg(BITMAP).arg(bit);
                if command == "SETBIT" {
                    pipe.arg(1);
                }
            }
        }
        pipe.query(&mut self.conn).expect("bitmap pipeline")
    }
}

impl Store for Documents {
    fn insert(&mut self, items: &[u64]) -> usize {
        let old = self.per_bit("SETBIT", items);
        old.chunks(self.hashes as usize)
            .filter(|bits| bits.contains(&false))
            .count()
    }

    fn contains(&mut self, items: &[u64]) -> Vec<bool> {
        let bits = self.per_bit("GETBIT", items);
        bits.chunks(self.hashes as usize)
            .map(|bits| !bits.contains(&false))
            .collect()
    }

    fn keys(&self) -> Vec<String> {
        vec![BITMAP.to_owned()]
    }

    fn geometry(&self) -> Option<(u64, u32)> {
        Some((self.bits, self.hashes))
    }
}

/// The exact answer: a Redis set of the items.
struct Set(redis::Connection);

impl Set {
    fn per_item(&mut self, command: &str, items: &[u64]) -> Vec<bool> {
        let mut pipe = redis::pipe();
        for &item in items {
            pipe.cmd(command).arg(SET).arg(item);
        }
        pipe.query(&mut self.0).expect("set pipeline")
    }
}

impl Store for Set {
    fn insert(&mut self, items: &[u64]) -> usize {
        let added = self.per_item("SADD", items);
        added.into_iter().filter(|&b| b).count()
    }

    fn contains(&mut self, items: &[u64]) -> Vec<bool> {
        self.per_item("SISMEMBER", items)
    }

    fn keys(&self) -> Vec<String> {
        vec![SET.to_owned()]
    }

    fn geometry(&self) -> Option<(u64, u32)> {
        None
    }
}

/// The keys of every batch: members (present), probes (absent, top bit
/// set), each cycled through in batches, and fresh keys for inserts.
struct Workload {
    members: Vec<u64>,
    probes: Vec<u64>,
    hits: usize,
    misses: usize,
    fresh: u64,
}

impl Workload {
    fn new(items: usize) -> Self {
        assert_eq!(items % BATCH, 0, "whole batches of members");
        Self {
            members: keys::members(SEED, items),
            probes: keys::probes(SEED, items).collect(),
            hits: 0,
            misses: 0,
            fresh: FRESH_SEED,
        }
    }

    fn batch(&mut self, op: Op) -> Vec<u64> {
        let cycle = |keys: &[u64], at: &mut usize| {
            let i = *at % (keys.len() / BATCH);
            *at += 1;
            keys[i * BATCH..(i + 1) * BATCH].to_vec()
        };
        match op {
            Op::LookupMiss => cycle(&self.probes, &mut self.misses),
            Op::LookupHit => cycle(&self.members, &mut self.hits),
            Op::Insert => {
                self.fresh += 1;
                keys::members(self.fresh, BATCH)
            }
        }
    }
}

/// What one approach cost for one operation, per batch of [`BATCH`].
#[derive(Debug)]
struct Cost {
    approach: Approach,
    op: Op,
    /// The commands the server ran (every kind but `INFO` and `CONFIG`).
    commands: Vec<String>,
    commands_per_item: f64,
    wall: Duration,
    client_cpu: Option<Duration>,
    server_cpu: Duration,
    server_exec: Duration,
    /// `true` answers over items.
    true_rate: f64,
    round_trips: f64,
}

/// Measures `batches` batches of `op` on `store` (commands, wall, CPU),
/// then `scale.proxied` more through `proxied`, a connection to the same
/// structure through the delaying proxy (round trips).
fn cost(
    control: &mut redis::Connection,
    approach: Approach,
    store: &mut dyn Store,
    proxied: &mut dyn Store,
    work: &mut Workload,
    op: Op,
    scale: &Scale,
) -> Cost {
    let batches: Vec<Vec<u64>> = (0..scale.batches).map(|_| work.batch(op)).collect();
    redis::cmd("CONFIG")
        .arg("RESETSTAT")
        .exec(control)
        .expect("CONFIG RESETSTAT");
    let server_before = server_cpu(control);
    let client_before = thread_cpu();
    let start = Instant::now();
    let yes: usize = batches.iter().map(|b| run(store, op, b)).sum();
    let wall = start.elapsed();
    let client_cpu = thread_cpu().zip(client_before).map(|(a, b)| a - b);
    let server_cpu = server_cpu(control) - server_before;
    let stats = command_stats(control);

    let direct = wall / scale.batches as u32;
    let mut through_proxy: Vec<Duration> = (0..scale.proxied)
        .map(|_| {
            let batch = work.batch(op);
            let start = Instant::now();
            black_box(run(proxied, op, &batch));
            start.elapsed()
        })
        .collect();
    through_proxy.sort();
    let median = through_proxy[through_proxy.len() / 2];
    let round_trips = (median.as_secs_f64() - direct.as_secs_f64()) / scale.delay.as_secs_f64();

    let per_batch = |d: Duration| d / scale.batches as u32;
    let items = (scale.batches * BATCH) as f64;
    Cost {
        approach,
        op,
        commands: stats.iter().map(|s| s.name.to_uppercase()).collect(),
        commands_per_item: stats.iter().map(|s| s.calls).sum::<u64>() as f64 / items,
        wall: direct,
        client_cpu: client_cpu.map(per_batch),
        server_cpu: per_batch(server_cpu),
        server_exec: per_batch(Duration::from_micros(stats.iter().map(|s| s.usec).sum())),
        true_rate: yes as f64 / items,
        round_trips,
    }
}

fn redis_batches(c: &mut Criterion) {
    let scale = Scale::from_args();
    let server = RedisServer::start_with(&[("appendonly", "no"), ("save", "")])
        .expect("starting redis-server");
    let client = redis::Client::open(server.url()).expect("client");
    let connect = || client.get_connection().expect("connecting to redis-server");
    let mut control = connect();
    let mut work = Workload::new(scale.items);

    let mut stores: Vec<(Approach, Box<dyn Store>)> = Approach::ALL
        .iter()
        .map(|&a| (a, a.connect(connect(), scale.items)))
        .collect();
    eprintln!("\nredis bench: {} ({} keys each)", scale.label, scale.items);
    for (approach, store) in &mut stores {
        let start = Instant::now();
        for chunk in work.members.chunks(BATCH) {
            store.insert(chunk);
        }
        let bytes = memory_usage(&mut control, &store.keys());
        let per_item = bytes as f64 / scale.items as f64;
        let geometry = store.geometry().map_or(String::new(), |(m, k)| {
            let bits = m as f64 / scale.items as f64;
            format!(", m = {m} bits ({bits:.2} bits/item), k = {k}")
        });
        eprintln!(
            "  {:<9} filled in {:.1} s; MEMORY USAGE {bytes} bytes over {} keys = \
             {per_item:.2} bytes ({:.1} bits) per item{geometry}",
            approach.id(),
            start.elapsed().as_secs_f64(),
            store.keys().len(),
            per_item * 8.0,
        );
    }

    let proxy = delaying_proxy(server.port(), scale.delay).expect("starting the proxy");
    let proxy_client = redis::Client::open(format!("redis://127.0.0.1:{proxy}/")).expect("client");
    let mut proxied: Vec<Box<dyn Store>> = Approach::ALL
        .iter()
        .map(|a| {
            let conn = proxy_client
                .get_connection()
                .expect("connecting to the proxy");
            a.connect(conn, scale.items)
        })
        .collect();

    let mut costs = Vec::new();
    for op in Op::ALL {
        for ((approach, store), proxied) in stores.iter_mut().zip(&mut proxied) {
            let (store, proxied) = (store.as_mut(), proxied.as_mut());
            let cost = cost(
                &mut control,
                *approach,
                store,
                proxied,
                &mut work,
                op,
                &scale,
            );
            if op == Op::LookupHit {
                assert_eq!(cost.true_rate, 1.0, "{approach:?} lost a member");
            }
            costs.push(cost);
        }
        let mut group = c.benchmark_group(op.group());
        group.throughput(Throughput::Elements(BATCH as u64));
        for (approach, store) in &mut stores {
            let id = BenchmarkId::new(approach.id(), scale.label);
            group.bench_function(id, |b| {
                b.iter_batched(
                    || work.batch(op),
                    |batch| black_box(run(store.as_mut(), op, &batch)),
                    BatchSize::PerIteration,
                );
            });
        }
        group.finish();
    }
    report(&costs, &scale);
}

/// The per-batch costs, as a Markdown table on stderr.
fn report(costs: &[Cost], scale: &Scale) {
    eprintln!(
        "\nPer batch of {BATCH} ({} batches direct, {} through a proxy holding replies {:?}):\n",
        scale.batches, scale.proxied, scale.delay
    );
    eprintln!(
        "| approach | operation | commands | commands/item | round trips/batch | wall ms | \
         client CPU ms | server CPU ms | server exec ms | exec µs/command | true answers |"
    );
    eprintln!("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|");
    for c in costs {
        let ms = |d: Duration| format!("{:.2}", d.as_secs_f64() * 1e3);
        let per_command = c.server_exec.as_secs_f64() * 1e6 / (c.commands_per_item * BATCH as f64);
        eprintln!(
            "| {} | {:?} | {} | {:.2} | {:.2} | {} | {} | {} | {} | {per_command:.2} | {:.4} |",
            c.approach.id(),
            c.op,
            c.commands.join(", "),
            c.commands_per_item,
            c.round_trips,
            ms(c.wall),
            c.client_cpu.map_or("n/a".to_owned(), ms),
            ms(c.server_cpu),
            ms(c.server_exec),
            c.true_rate,
        );
    }
}

/// Bytes Redis reports for `keys` (`MEMORY USAGE key SAMPLES 0`: every
/// element of a set counted, not a sample).
fn memory_usage(conn: &mut redis::Connection, keys: &[String]) -> u64 {
    keys.iter()
        .map(|key| {
            redis::cmd("MEMORY")
                .arg("USAGE")
                .arg(key)
                .arg("SAMPLES")
                .arg(0)
                .query::<Option<u64>>(conn)
                .expect("MEMORY USAGE")
                .unwrap_or_else(|| panic!("no key {key}"))
        })
        .sum()
}

/// The server's CPU time so far, user and system (`INFO cpu`).
fn server_cpu(conn: &mut redis::Connection) -> Duration {
    let info: String = redis::cmd("INFO").arg("cpu").query(conn).expect("INFO cpu");
    let field = |name: &str| {
        info.lines()
            .find_map(|l| {
                l.strip_prefix(name)?
                    .strip_prefix(':')?
                    .trim()
                    .parse::<f64>()
                    .ok()
            })
            .unwrap_or_else(|| panic!("no {name} in INFO cpu"))
    };
    Duration::from_secs_f64(field("used_cpu_user") + field("used_cpu_sys"))
}

/// One line of `INFO commandstats`.
struct CommandStat {
    name: String,
    calls: u64,
    usec: u64,
}

/// The commands run since the last `CONFIG RESETSTAT`, but `INFO` and
/// `CONFIG` (the bench's own bookkeeping).
fn command_stats(conn: &mut redis::Connection) -> Vec<CommandStat> {
    let info: String = redis::cmd("INFO")
        .arg("commandstats")
        .query(conn)
        .expect("INFO commandstats");
    info.lines()
        .filter_map(|line| {
            // cmdstat_bitfield:calls=10000,usec=5120,usec_per_call=0.51,...
            let (name, fields) = line.strip_prefix("cmdstat_")?.split_once(':')?;
            let get = |key: &str| {
                fields.split(',').find_map(|kv| {
                    let (k, v) = kv.split_once('=')?;
                    (k == key).then(|| v.parse::<u64>().ok()).flatten()
                })
            };
            Some(CommandStat {
                name: name.to_owned(),
                calls: get("calls")?,
                usec: get("usec")?,
            })
        })
        // Subcommands are named `config|resetstat`.
        .filter(|s| s.name != "info" && !s.name.starts_with("config"))
        .collect()
}

/// The calling thread's CPU time so far, from the scheduler's accounting,
/// where Linux exposes it.
fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// A loopback proxy in front of `upstream` that passes requests on at once
/// and holds every chunk of replies for `delay`, in order. Each round trip
/// a client makes through it then takes `delay` longer than it would
/// direct. Returns its port; it serves every connection until the process
/// ends.
fn delaying_proxy(upstream: u16, delay: Duration) -> std::io::Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    let port = listener.local_addr()?.port();
    thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            let Ok(server) = TcpStream::connect((Ipv4Addr::LOCALHOST, upstream)) else {
                return;
            };
            let pumps = || -> std::io::Result<()> {
                client.set_nodelay(true)?;
                server.set_nodelay(true)?;
                let (mut from_client, to_server) = (client.try_clone()?, server.try_clone()?);
                thread::spawn(move || copy(&mut from_client, to_server));
                let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
                let mut from_server = server.try_clone()?;
                thread::spawn(move || {
                    let mut buf = vec![0; 1 << 16];
                    while let Ok(n @ 1..) = from_server.read(&mut buf) {
                        if tx
                            .send((Instant::now() + delay, buf[..n].to_vec()))
                            .is_err()
                        {
                            break;
                        }
                    }
                });
                let mut to_client = client.try_clone()?;
                thread::spawn(move || {
                    for (due, bytes) in rx {
                        thread::sleep(due.saturating_duration_since(Instant::now()));
                        if to_client.write_all(&bytes).is_err() {
                            break;
                        }
                    }
                    let _ = to_client.shutdown(Shutdown::Write);
                });
                Ok(())
            };
            if pumps().is_err() {
                return;
            }
        }
    });
    Ok(port)
}

/// Copies `from` into `to` until `from` ends, then ends `to`.
fn copy(from: &mut TcpStream, mut to: TcpStream) {
    let _ = std::io::copy(from, &mut to);
    let _ = to.shutdown(Shutdown::Write);
}

criterion_group! {
    name = benches;
    config = common::criterion(10, 5);
    targets = redis_batches
}
criterion_main!(benches);
