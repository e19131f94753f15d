//! `bloomlab-cli inspect --redis URL NAME` (feature `redis`): what a filter
//! kept in Redis by bloomlab-redis is, how full, and what rate it gives now.
//!
//! The filter is opened read-only by [`bloomlab_redis::inspect`], whatever
//! its kind and item type, with every check `open` makes: a damaged or
//! partly lost filter is an error, never a report of wrong numbers.

use std::fmt;

use bloomlab_redis::{Info, Kind, Options};
use serde::Serialize;

use bloomlab_choose::numbers::{bytes, grouped};

/// What `inspect --redis` reports of one filter.
#[derive(Debug, Clone, Serialize)]
pub struct RedisInspection {
    /// The filter's name.
    pub name: String,
    /// The filter type: `RedisBloomFilter`, `RedisCountingBloomFilter`,
    /// `RedisScalableBloomFilter` or `RedisCuckooFilter`.
    pub variant: &'static str,
    /// The item type it was created for, as Rust names it (`u64`, `str`).
    pub item: String,
    /// The items it was sized for (`None` when it was imported).
    pub design_items: Option<u64>,
    /// The rate it was sized for (`None` when it was imported).
    pub design_fpr: Option<f64>,
    /// Items it holds at its rate; a cuckoo filter's slots (see
    /// [`Info::capacity`]).
    pub capacity: Option<u64>,
    /// Bytes of its tables in Redis, guards included.
    pub bytes: u64,
    /// Shard keys, besides the metadata hash.
    pub shards: u64,
    /// Layers: 1 but for a scalable filter.
    pub layers: u32,
    /// A scalable filter's growth factor.
    pub growth_factor: Option<u32>,
    /// Items counted exactly, where the filter keeps a count.
    pub len: Option<u64>,
    /// Items estimated from its table (exact for a cuckoo filter).
    pub estimate_count: f64,
    /// `estimate_count / capacity`: how far into what it holds at its
    /// rate it is (over 1 past it).
    pub load: Option<f64>,
    /// The false-positive rate theory gives at its present load.
    pub expected_fpr: f64,
}

impl RedisInspection {
    fn of(info: Info) -> Self {
        let variant = match info.kind {
            Kind::Bloom => "RedisBloomFilter",
            Kind::Counting => "RedisCountingBloomFilter",
            Kind::Scalable => "RedisScalableBloomFilter",
            Kind::Cuckoo => "RedisCuckooFilter",
        };
        Self {
            name: info.name,
            variant,
            item: info.item,
            design_items: info.design.map(|(n, _)| n),
            design_fpr: info.design.map(|(_, p)| p),
            capacity: info.capacity,
            bytes: info.bytes,
            shards: info.shards,
            layers: info.layers,
            growth_factor: info.growth_factor,
            len: info.len,
            estimate_count: info.estimate_count,
            load: info
                .capacity
                .filter(|&c| c > 0)
                .map(|c| info.estimate_count / c as f64),
            expected_fpr: info.expected_fpr,
        }
    }
}

/// Why a filter in Redis could not be inspected.
#[derive(Debug)]
#[non_exhaustive]
pub enum RedisInspectError {
    /// The URL is not a Redis URL, or the server does not answer.
    Connect {
        /// The URL as given.
        url: String,
        /// Why.
        source: redis::RedisError,
    },
    /// bloomlab-redis refused the filter: not found, damaged, too large.
    Filter(bloomlab_redis::Error),
}

impl fmt::Display for RedisInspectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedisInspectError::Connect { url, source } => {
                write!(f, "cannot connect to {url}: {source}")
            }
            RedisInspectError::Filter(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RedisInspectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RedisInspectError::Connect { source, .. } => Some(source),
            RedisInspectError::Filter(e) => Some(e),
        }
    }
}

/// Looks at the filter `name` in the server at `url` (`redis://host:port/`),
/// accepting filters of up to `max_bytes` bytes.
///
/// # Errors
///
/// [`RedisInspectError`]: no server there, no such filter, or a damaged one.
pub fn inspect(
    url: &str,
    name: &str,
    max_bytes: u64,
) -> Result<RedisInspection, RedisInspectError> {
    let connect = |source| RedisInspectError::Connect {
        url: url.to_owned(),
        source,
    };
    let conn = redis::Client::open(url)
        .and_then(|c| c.get_connection())
        .map_err(connect)?;
    bloomlab_redis::inspect(conn, name, Options::new().max_bytes(max_bytes))
        .map(RedisInspection::of)
        .map_err(RedisInspectError::Filter)
}

impl fmt::Display for RedisInspection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "filter         {} in Redis", self.name)?;
        writeln!(f, "variant        {} of {}", self.variant, self.item)?;
        match (self.design_items, self.design_fpr) {
            (Some(n), Some(p)) => writeln!(f, "sized for      {} items at {p}", grouped(n))?,
            _ => writeln!(
                f,
                "sized for      (imported from memory: no design recorded)"
            )?,
        }
        writeln!(
            f,
            "tables         {} ({} bytes) in {} shard key{}{}",
            bytes(self.bytes),
            grouped(self.bytes),
            grouped(self.shards),
            if self.shards == 1 { "" } else { "s" },
            match (self.layers, self.growth_factor) {
                (1, None) => String::new(),
                (l, Some(g)) =>
                    format!(", {l} layer{} growing {g}×", if l == 1 { "" } else { "s" }),
                (l, None) => format!(", {l} layers"),
            }
        )?;
        // A cuckoo filter's capacity is its slots; the others' the items
        // they hold at their rate.
        let unit = if self.variant == "RedisCuckooFilter" {
            "slots"
        } else {
            "items at its rate"
        };
        if let Some(c) = self.capacity {
            writeln!(f, "capacity       {} {unit}", grouped(c))?;
        }
        if let Some(fill) = self.load {
            writeln!(f, "load           {:.2}% of that capacity", 100.0 * fill)?;
        }
        let estimate = format!("about {}", grouped(self.estimate_count.round() as u64));
        match self.len {
            Some(n) => writeln!(
                f,
                "items          {} counted; {estimate} from the table",
                grouped(n)
            )?,
            None => writeln!(
                f,
                "items          {estimate} from the table (no count kept)"
            )?,
        }
        write!(
            f,
            "expected rate  {:.3e} (theory at its present load)",
            self.expected_fpr
        )
    }
}
