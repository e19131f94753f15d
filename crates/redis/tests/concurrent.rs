//! Eight writers, each with its own connection, fill one filter of each kind
//! at once: no item is lost, and the scalable filter's layers keep its
//! promised total rate.

use std::thread;

use bloomlab_core::theory::scalable;
use bloomlab_redis::{
    RedisBloomFilter, RedisCountingBloomFilter, RedisScalableBloomFilter, ScalableOptions,
};
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::redis_server::RedisServer;
use bloomlab_testkit::stats::binomial_upper;

const WRITERS: u64 = 8;
const EACH: usize = 50_000;
const TOTAL: usize = WRITERS as usize * EACH;

fn connect(url: &str) -> redis::Connection {
    redis::Client::open(url).unwrap().get_connection().unwrap()
}

/// Runs `write` for each writer's disjoint set on its own thread and
/// connection, all at once.
fn eight_writers(url: &str, write: fn(redis::Connection, &[u64])) -> Vec<u64> {
    let sets: Vec<Vec<u64>> = (0..WRITERS).map(|w| members(100 + w, EACH)).collect();
    thread::scope(|s| {
        for set in &sets {
            s.spawn(|| {
                for chunk in set.chunks(10_000) {
                    write(connect(url), chunk);
                }
            });
        }
    });
    sets.concat()
}

#[test]
fn eight_writers_lose_nothing() {
    let server = RedisServer::start().unwrap();
    let url = server.url();
    RedisBloomFilter::<u64, _>::create(connect(&url), "b", TOTAL, 0.01).unwrap();
    RedisCountingBloomFilter::<u64, _>::create(connect(&url), "c", TOTAL, 0.01).unwrap();
    let all = eight_writers(&url, |conn, items| {
        let mut b = RedisBloomFilter::<u64, _>::open(conn, "b").unwrap();
        b.insert_batch(items).unwrap();
        let mut c = RedisCountingBloomFilter::<u64, _>::open(b.into_connection(), "c").unwrap();
        c.insert_batch(items).unwrap();
    });
    let mut b = RedisBloomFilter::<u64, _>::open(connect(&url), "b").unwrap();
    let mut c = RedisCountingBloomFilter::<u64, _>::open(connect(&url), "c").unwrap();
    for chunk in all.chunks(100_000) {
        assert!(b.contains_batch(chunk).unwrap().iter().all(|&x| x));
        assert!(c.contains_batch(chunk).unwrap().iter().all(|&x| x));
    }
}

#[test]
fn eight_writers_never_overfill_a_scalable_layer() {
    let server = RedisServer::start().unwrap();
    let url = server.url();
    const INITIAL: usize = 20_000;
    let options = ScalableOptions::new().seed(9);
    RedisScalableBloomFilter::<u64, _>::create_with(connect(&url), "s", INITIAL, 0.01, options)
        .unwrap();
    let all = eight_writers(&url, |conn, items| {
        let mut s = RedisScalableBloomFilter::<u64, _>::open(conn, "s").unwrap();
        s.insert_batch(items).unwrap();
    });
    let mut s = RedisScalableBloomFilter::<u64, _>::open(connect(&url), "s").unwrap();
    for chunk in all.chunks(100_000) {
        assert!(s.contains_batch(chunk).unwrap().iter().all(|&x| x));
    }
    assert_eq!(s.len().unwrap(), TOTAL as u64);

    // Every closed layer holds exactly its capacity and the active one no
    // more than its own: the filter opened the fewest layers that hold the
    // items it added.
    let (added, layers) = (s.added().unwrap(), s.num_layers().unwrap());
    let capacity = |i| scalable::layer_capacity(INITIAL as u64, 2, i).unwrap();
    let closed: u64 = (0..layers - 1).map(capacity).sum();
    assert!(
        closed < added && added <= closed + capacity(layers - 1),
        "{added} in {layers}"
    );
    // An insert is dropped only as a false positive, at a rate never above
    // the promised 1%: the dropped count stays within the 99.9% binomial
    // bound of 1% of the inserts.
    let dropped = TOTAL as u64 - added;
    assert!(
        dropped <= binomial_upper(TOTAL as u64, 0.01, 0.999),
        "{dropped} dropped"
    );

    // The promised total rate, measured on 1M absent keys: the count of
    // false positives stays within the 99.9% binomial bound at the rate the
    // layers' theory gives, which is itself below the promise.
    let expected = s.expected_fpr().unwrap();
    assert!(expected <= 0.01, "{expected}");
    let probes: Vec<u64> = probes(200, 1_000_000).collect();
    let fp: usize = probes
        .chunks(100_000)
        .map(|c| s.contains_batch(c).unwrap().iter().filter(|&&x| x).count())
        .sum();
    let bound = binomial_upper(probes.len() as u64, expected, 0.999);
    eprintln!(
        "scalable after 8 writers: {added} added in {layers} layers, {dropped} dropped; \
         {fp} false positives in {} probes (theory {expected:.5}, bound {bound})",
        probes.len()
    );
    assert!(
        fp as u64 <= bound,
        "{fp} false positives, bound {bound} at {expected}"
    );
    assert!((fp as f64 / probes.len() as f64) < 0.01);
}
