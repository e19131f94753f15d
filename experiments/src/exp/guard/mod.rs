//! Experiment `guard`: the documents' scenario end to end. A database
//! (SQLite, on disk) holds N rows keyed by id; a cache (Redis, or an
//! in-process LRU when no `redis-server` is found) sits in front of it; and
//! a guard (no filter, or one of the filters) in front of the cache turns
//! away the ids it proves absent. Request streams with a share of absent ids
//! run through every guard, and each request follows the same path:
//!
//! 1. the guard says absent → "not found" (no cache, no database);
//! 2. else cache `GET` → hit → the cached row;
//! 3. miss → one query by primary key → a row: cache it (`SET … EX`) and
//!    answer it; no row: answer "not found" (nothing is cached).
//!
//! Every answer is checked against the truth, so a guard that hid an
//! existing row (or a stale cache entry) would show as a wrong answer.
//!
//! Then a stream with inserts of new rows runs through a static filter
//! rebuilt from the database at a few intervals, with an insertable filter
//! of the rows inserted since its last build ([`rebuilt`]), and through no
//! guard and the classic filter beside it: `guard_rebuilt.csv`.

use std::collections::{HashSet, VecDeque};
use std::path::Path;
use std::time::Instant;

use bloomlab::BinaryFuseFilter;
use bloomlab::prelude::*;
use bloomlab_lab::keys::{members, probes, rng};
use bloomlab_lab::redis_server::RedisServer;
use bloomlab_redis::{
    Cells, Options, RedisBlockedFilter, RedisBloomFilter, RedisCountingBloomFilter,
};
use rand::Rng;
use rand_distr::{Distribution, Zipf};
use rusqlite::OptionalExtension;

use super::{Ctx, Error, Output, sub_seed};
use crate::plot;
use crate::progress;
use crate::report::Section;
use crate::scale::Scale;
use crate::table::{
    Hits, Table, against_theory, fixed, instance_interval, markdown, rate, short_percent,
    t_interval, yes_no,
};

mod charts;
mod guards;
mod rebuilt;
mod report;
mod rows;
mod stack;
mod store;
mod workload;

use charts::*;
use guards::*;
use rebuilt::*;
use report::*;
use rows::*;
use stack::*;
use store::*;
use workload::*;

/// Seconds a cached row lives: longer than any run, so that nothing expires
/// mid-run and the counts do not depend on the clock.
const TTL_SECONDS: u64 = 3_600;

/// YCSB's default skew: the id of rank r is asked with weight 1/r^0.99.
const ZIPF_EXPONENT: f64 = 0.99;

/// Runs of every guard on every stream, each with its own requests and
/// its own filter: a row's latencies and rate are read over them.
pub const RUNS: usize = 5;

/// The shares of absent ids in the mixed streams.
const ABSENT_SHARES: [f64; 4] = [0.0, 0.5, 0.9, 0.99];

/// The Redis database the cache uses; the Redis filters live in database 0,
/// so flushing the cache between runs leaves them alone.
const CACHE_DB: u8 = 1;

/// Rows in the database and requests per stream at each scale.
pub fn sizes(scale: Scale) -> (u64, usize) {
    match scale {
        Scale::Quick => (5_000, 2_000),
        Scale::Default => (100_000, 10_000),
        Scale::Full => (1_000_000, 200_000),
    }
}

/// Starts the Redis the experiment uses, or says why the LRU runs instead.
/// Only a missing `redis-server` falls back; any other failure is an error.
fn start_redis() -> Result<(Option<RedisServer>, String), Error> {
    match RedisServer::start_with(&[("appendonly", "no"), ("save", "")]) {
        Ok(server) => {
            let note = format!(
                "Redis ({}), started by the experiment on a free loopback port, without \
                 persistence",
                redis_version(&server)
            );
            Ok((Some(server), note))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((
            None,
            "an in-process LRU (`lru` crate): no `redis-server` was found on PATH, so the \
             Redis cache and the two Redis guards did not run"
                .into(),
        )),
        Err(e) => Err(Error::store("guard: starting redis-server")(e)),
    }
}

fn redis_version(server: &RedisServer) -> String {
    server
        .command(&["INFO", "server"])
        .ok()
        .and_then(|r| {
            r.as_str().and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("redis_version:"))
                    .map(|v| format!("redis-server {}", v.trim()))
            })
        })
        .unwrap_or_else(|| "redis-server".into())
}

/// Runs the experiment: `guard.csv`, `guard_rebuilt.csv`,
/// `guard_queries.svg`, `guard_latency.svg`, the report section and its
/// appendix.
pub fn run(ctx: &Ctx) -> Result<Output, Error> {
    let (n_rows, requests) = sizes(ctx.scale);
    let (server, cache_note) = start_redis()?;
    let filter_url = server.as_ref().map(RedisServer::url);
    let mut cache = match &server {
        Some(s) => {
            let url = format!("redis://127.0.0.1:{}/{CACHE_DB}", s.port());
            Cache::Redis(
                redis::Client::open(url)
                    .and_then(|c| c.get_connection())
                    .map_err(Error::store("guard: connecting to the cache"))?,
            )
        }
        None => Cache::Lru(lru::LruCache::unbounded()),
    };
    let scratch = tempfile::Builder::new()
        .prefix(".guard-db-")
        .tempdir()
        .map_err(Error::store("guard: a temporary folder for the database"))?;
    let db = Database::create(&scratch.path().join("rows.sqlite"), n_rows)?;

    let streams = Stream::all();
    // Each run its own requests and its own filters (hash keys).
    let scripts: Vec<Vec<Vec<Op>>> = (0..RUNS)
        .map(|run| {
            let seed = sub_seed(ctx.seed, &format!("guard/run/{run}"));
            streams
                .iter()
                .map(|&w| script(w, n_rows, requests, seed))
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let guards: Vec<Guard> = GUARDS
        .into_iter()
        .filter(|g| !g.needs_redis() || server.is_some())
        .collect();
    let runs = guards.len() * streams.len() * RUNS + rebuilt::guards(requests).len();
    let bar = progress::bar(runs as u64, "guard");
    let started = Instant::now();
    let mut rows = Vec::new();
    for &guard in &guards {
        let mut tallies: Vec<Vec<Tally>> = streams.iter().map(|_| Vec::new()).collect();
        let (mut expected_fpr, mut memory) = (0.0, 0);
        for (run, scripts) in scripts.iter().enumerate() {
            let seed = sub_seed(ctx.seed, &format!("guard/filter/{}/{run}", guard.label));
            let mut filter = Built::build(guard, n_rows, seed, filter_url.as_deref())?;
            expected_fpr += filter.expected_fpr()? / RUNS as f64;
            memory = memory.max(filter.memory_bytes());
            // Churn is last: it is the only stream that changes the rows and the guard.
            for (ops, runs) in scripts.iter().zip(&mut tallies) {
                cache.clear()?;
                let tally = run_script(&mut filter, &mut cache, &db, ops)?;
                for id in left_deleted(ops) {
                    db.insert(id)?;
                }
                runs.push(tally);
                bar.inc(1);
            }
            filter.discard()?;
        }
        for (&stream, runs) in streams.iter().zip(tallies) {
            rows.push(Row::measured(guard, stream, memory, expected_fpr, runs));
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    // After every stream of `guard.csv`, whose rows it leaves as they were.
    let rebuilt = run_inserts(ctx, n_rows, requests, &db, &mut cache, &bar)?;
    bar.finish_and_clear();
    drop(db);
    scratch
        .close()
        .map_err(Error::store("guard: removing the temporary database"))?;

    let wrong: u64 = rows.iter().map(|r| r.tally.wrong_answers).sum();
    if wrong > 0 {
        return Err(Error::Invariant(format!(
            "guard: {wrong} requests were answered wrongly (a guard hid a row, or the cache \
             served a deleted one)"
        )));
    }
    let hid: u64 = rebuilt.iter().map(|r| r.row.tally.wrong_answers).sum();
    if hid > 0 {
        return Err(Error::Invariant(format!(
            "guard: {hid} requests of the inserts stream were answered wrongly (a guard \
             answered absent for a row it holds)"
        )));
    }
    let t = table(&rows, n_rows, cache.name());
    let queries = plot::draw_categories("guard_queries.svg", &queries_chart(&rows))?;
    let latency = plot::draw_categories("guard_latency.svg", &latency_chart(&rows))?;
    let section = Section::new(
        "Guard: a filter in front of a real database",
        body(&rows, &rebuilt, n_rows, requests),
    );
    Ok(Output::new(section)
        .appendix(appendix(&rows, n_rows, requests, &cache_note, seconds))
        .appendix(rebuilt_appendix(&rebuilt, n_rows, requests))
        .table("guard.csv", t)
        .table(
            "guard_rebuilt.csv",
            rebuilt_table(&rebuilt, n_rows, cache.name()),
        )
        .chart("guard_queries.svg", queries)
        .chart("guard_latency.svg", latency))
}
