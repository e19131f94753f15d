//! What a service asks of a filter besides its items: what it is
//! ([`Info`], RedisBloom's `BF.INFO` and `CF.INFO`), and how long it lives
//! (Redisson's `expire`, over every key of the filter at once).

use std::time::Duration;

use redis::{Value, cmd};

use crate::conn::{Op, Replies};
use crate::error::Error;
use crate::layout;
use crate::meta::Kind;
use crate::ops::OneRound;

/// What a filter kept in Redis is and holds, read in one call:
/// [`info`](crate::RedisBloomFilter::info) on every filter.
///
/// The names are the in-memory filters' for the same things:
/// [`estimate_count`](Self::estimate_count) as
/// `BlockedBloomFilter::estimate_count`, [`len`](Self::len) as `len`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Info {
    /// The filter's name.
    pub name: String,
    /// Which filter it is.
    pub kind: Kind,
    /// The item type it was created for.
    pub item: String,
    /// The items and rate it was sized for (`None` when imported).
    pub design: Option<(u64, f64)>,
    /// Items it holds at its rate: the design's items for a Bloom or
    /// counting filter, the open layers' capacities together for a
    /// scalable filter (RedisBloom's `Capacity`), the slots of a cuckoo
    /// filter.
    pub capacity: Option<u64>,
    /// Bytes of its tables in Redis, guards included (not Redis's per-key
    /// overhead).
    pub bytes: u64,
    /// Shard keys, besides the metadata hash.
    pub shards: u64,
    /// Layers: 1 but for a scalable filter (RedisBloom's
    /// `Number of filters`).
    pub layers: u32,
    /// A scalable filter's growth factor (RedisBloom's `Expansion rate`).
    pub growth_factor: Option<u32>,
    /// Inserts counted exactly, where the filter keeps a count: a
    /// scalable filter's inserts, a cuckoo filter's stored fingerprints.
    pub len: Option<u64>,
    /// Items estimated from the cells set (the exact count for a cuckoo
    /// filter).
    pub estimate_count: f64,
    /// The false-positive rate theory gives: at the load counted in `len`
    /// where the filter keeps a count (the filter's `expected_fpr`), else
    /// for the table as it stands (the Bloom and counting filters'
    /// `estimated_fpr`).
    pub expected_fpr: f64,
}

/// Sets every key's time to live to `ttl` (at least a millisecond), or,
/// for `None`, removes it. A key that does not exist is the error it would
/// be for any other operation: the metadata's [`Error::NotFound`], a
/// shard's [`Error::ShardMissing`].
pub fn expire(
    name: String,
    keys: Vec<String>,
    ttl: Option<Duration>,
) -> impl Op<Output = (), Error = Error> {
    let cmds = keys
        .iter()
        .map(|k| match ttl {
            Some(t) => {
                let ms = u64::try_from(t.as_millis()).unwrap_or(u64::MAX).max(1);
                cmd("PEXPIRE").arg(k).arg(ms).take()
            }
            None => cmd("PERSIST").arg(k).take(),
        })
        .collect();
    OneRound::new(cmds, move |replies: Replies| {
        let values = replies.map_err(|f| Error::from_redis(f.error))?;
        for (i, (k, v)) in keys.iter().zip(&values).enumerate() {
            layout::check(k, v)?;
            // PERSIST answers 0 for a key without a time to live too.
            if ttl.is_some() && *v == Value::Int(0) {
                return Err(missing(&name, i, k));
            }
        }
        Ok(())
    })
}

/// The time the filter has left: the least time to live of its keys
/// (the filter fails as soon as one is gone), `None` when none has one.
pub fn ttl(name: String, keys: Vec<String>) -> impl Op<Output = Option<Duration>, Error = Error> {
    let cmds = keys.iter().map(|k| cmd("PTTL").arg(k).take()).collect();
    OneRound::new(cmds, move |replies: Replies| {
        let values = replies.map_err(|f| Error::from_redis(f.error))?;
        let mut least: Option<Duration> = None;
        for (i, (k, v)) in keys.iter().zip(&values).enumerate() {
            layout::check(k, v)?;
            match v {
                Value::Int(-2) => return Err(missing(&name, i, k)),
                Value::Int(-1) => {}
                Value::Int(ms) if *ms >= 0 => {
                    let t = Duration::from_millis(*ms as u64);
                    least = Some(least.map_or(t, |l| l.min(t)));
                }
                other => return Err(layout::unexpected(k, other)),
            }
        }
        Ok(least)
    })
}

/// A key of the filter that is gone: the metadata (the first key) or a
/// shard.
fn missing(name: &str, i: usize, key: &str) -> Error {
    if i == 0 {
        Error::NotFound {
            name: name.to_owned(),
        }
    } else {
        Error::ShardMissing {
            key: key.to_owned(),
        }
    }
}
