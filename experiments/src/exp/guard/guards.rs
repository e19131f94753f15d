//! The guards: no filter, or one of bloomlab's filters in process or kept
//! in Redis, or a static filter rebuilt from the database ([`Rebuilt`]).

use bloomlab::catalog::{self, AnyFilter, Descriptor};

use super::*;

/// What stands between the requests and the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    None,
    /// A bloomlab filter in process: the catalog entry of this id.
    Local(&'static str),
    RedisBloom,
    RedisCounting,
    /// A [`BinaryFuseFilter`] of every id in the database, rebuilt after
    /// every `every` requests (`None`: never within the run), beside a
    /// [`BloomFilter`] of the rows inserted since the last build.
    Rebuilt {
        every: Option<u64>,
    },
}

/// One guard of the comparison: a kind at a target rate.
#[derive(Debug, Clone, Copy)]
pub(super) struct Guard {
    pub(super) kind: Kind,
    pub(super) fpr: f64,
    pub(super) label: &'static str,
}

/// Every guard, in report order. The classic filter runs at each rate the
/// documents chose (3%, 1%, 0.1%); the others at 1%.
pub(super) const GUARDS: [Guard; 9] = [
    Guard::new(Kind::None, 1.0, "none"),
    Guard::new(Kind::Local("classic"), 0.03, "classic 3%"),
    Guard::new(Kind::Local("classic"), 0.01, "classic 1%"),
    Guard::new(Kind::Local("classic"), 0.001, "classic 0.1%"),
    Guard::new(Kind::Local("blocked"), 0.01, "blocked 1%"),
    Guard::new(Kind::Local("counting"), 0.01, "counting 1%"),
    Guard::new(Kind::Local("cuckoo"), 0.01, "cuckoo 1%"),
    Guard::new(Kind::RedisBloom, 0.01, "redis bloom 1%"),
    Guard::new(Kind::RedisCounting, 0.01, "redis counting 1%"),
];

impl Guard {
    pub(super) const fn new(kind: Kind, fpr: f64, label: &'static str) -> Self {
        Self { kind, fpr, label }
    }

    fn variant(self) -> Option<Descriptor<u64>> {
        match self.kind {
            Kind::Local(id) => catalog::find(id),
            _ => None,
        }
    }

    /// The Rust type, for the CSV and the prose.
    pub(super) fn type_name(self) -> &'static str {
        match self.kind {
            Kind::None => "-",
            Kind::Local(_) => self.variant().map_or("?", |v| v.type_name),
            Kind::RedisBloom => "RedisBloomFilter",
            Kind::RedisCounting => "RedisCountingBloomFilter",
            Kind::Rebuilt { .. } => "BinaryFuseFilter + BloomFilter",
        }
    }

    pub(super) fn needs_redis(self) -> bool {
        matches!(self.kind, Kind::RedisBloom | Kind::RedisCounting)
    }

    /// Whether the guard forgets a deleted row (no guard trivially does).
    pub(super) fn deletes(self) -> bool {
        match self.kind {
            Kind::None | Kind::RedisCounting => true,
            Kind::Local(_) => self.variant().is_some_and(|v| v.can.delete),
            Kind::RedisBloom | Kind::Rebuilt { .. } => false,
        }
    }
}

/// The Redis filter `name` of cells `L` for `guard`, built for the ids
/// `0..rows` and filled with them.
fn redis_filter<L: Cells>(
    conn: redis::Connection,
    name: &str,
    guard: Guard,
    rows: u64,
    seed: u64,
) -> Result<RedisBlockedFilter<u64, redis::Connection, L>, Error> {
    let err = format!("guard {}", guard.label);
    let n = usize::try_from(rows).map_err(Error::size("guard: rows"))?;
    let options = Options::new().seed(seed);
    let mut f = RedisBlockedFilter::create_with(conn, name, n, guard.fpr, options)
        .map_err(Error::filter(&err))?;
    let ids: Vec<u64> = (0..rows).collect();
    for chunk in ids.chunks(10_000) {
        f.insert_batch(chunk).map_err(Error::filter(&err))?;
    }
    Ok(f)
}

/// A guard built and filled with every row's id.
pub(super) enum Built {
    None,
    /// A filter in process; one that cannot delete keeps a deleted row's id.
    Local(Box<dyn AnyFilter<u64>>),
    RedisBloom(RedisBloomFilter<u64, redis::Connection>),
    RedisCounting(RedisCountingBloomFilter<u64, redis::Connection>),
    /// A static filter rebuilt from the database, and its insertable part.
    Rebuilt(Box<Rebuilt>),
}

impl Built {
    pub(super) fn build(
        guard: Guard,
        rows: u64,
        seed: u64,
        redis: Option<&str>,
    ) -> Result<Self, Error> {
        let n = usize::try_from(rows).map_err(Error::size("guard: rows"))?;
        let err = format!("guard {}", guard.label);
        let mut filter = match guard.kind {
            Kind::None => return Ok(Built::None),
            Kind::Rebuilt { .. } => {
                return Err(Error::Invariant(format!(
                    "{err}: built from the database by Rebuilt::build"
                )));
            }
            Kind::Local(id) => {
                let v = guard
                    .variant()
                    .ok_or_else(|| Error::Invariant(format!("{err}: no variant {id}")))?;
                let build = v
                    .empty()
                    .ok_or_else(|| Error::Invariant(format!("{err}: takes no inserts")))?;
                Built::Local(build(n, guard.fpr, seed).map_err(Error::filter(&err))?)
            }
            Kind::RedisBloom | Kind::RedisCounting => {
                let url =
                    redis.ok_or_else(|| Error::Invariant(format!("{err} needs a redis-server")))?;
                let conn = redis::Client::open(url)
                    .and_then(|c| c.get_connection())
                    .map_err(Error::filter(&err))?;
                return Ok(if guard.kind == Kind::RedisBloom {
                    Built::RedisBloom(redis_filter(conn, "guard-bloom", guard, rows, seed)?)
                } else {
                    Built::RedisCounting(redis_filter(conn, "guard-counting", guard, rows, seed)?)
                });
            }
        };
        for id in 0..rows {
            filter.insert(id)?;
        }
        Ok(filter)
    }

    pub(super) fn contains(&mut self, id: u64) -> Result<bool, Error> {
        match self {
            Built::None => Ok(true),
            Built::Local(f) => Ok(f.contains(&id)),
            Built::RedisBloom(f) => f.contains(&id),
            Built::RedisCounting(f) => f.contains(&id),
            Built::Rebuilt(g) => Ok(g.contains(id)),
        }
        .map_err(Error::filter("guard: Redis lookup"))
    }

    pub(super) fn insert(&mut self, id: u64) -> Result<(), Error> {
        let what = format!("inserting {id} into the guard");
        match self {
            Built::None => Ok(()),
            Built::Local(f) => match f.as_membership() {
                Some(m) => m.insert(&id).map(drop).map_err(Error::filter(&what)),
                None => Err(Error::Invariant(format!("{what}: it takes no inserts"))),
            },
            Built::RedisBloom(f) => f.insert(&id).map(drop).map_err(Error::filter(&what)),
            Built::RedisCounting(f) => f.insert(&id).map(drop).map_err(Error::filter(&what)),
            Built::Rebuilt(g) => g.insert(id),
        }
    }

    /// Removes a deleted row's id where the filter can; a classic filter
    /// (and a rebuilt one, until its next build) keeps it (a stale entry).
    pub(super) fn remove(&mut self, id: u64) -> Result<(), Error> {
        let what = format!("removing {id} from the guard");
        match self {
            Built::None | Built::RedisBloom(_) | Built::Rebuilt(_) => Ok(()),
            Built::Local(f) => match f.as_deletable() {
                Some(f) => f.remove(&id).map_err(Error::filter(&what)),
                None => Ok(()),
            },
            Built::RedisCounting(f) => f.remove(&id).map_err(Error::filter(&what)),
        }
    }

    /// The rate theory predicts at the present load (for the Redis filters,
    /// which keep no count, the rate of their table as it stands); 1 for no
    /// guard, which lets every absent id through.
    pub(super) fn expected_fpr(&mut self) -> Result<f64, Error> {
        match self {
            Built::RedisBloom(f) => f.estimated_fpr(),
            Built::RedisCounting(f) => f.estimated_fpr(),
            _ => return Ok(self.rate_now().unwrap_or(1.0)),
        }
        .map_err(Error::filter("guard: Redis expected rate"))
    }

    /// The rate theory predicts now, for the guards in process (a Redis
    /// filter's would cost a round trip per request).
    pub(super) fn rate_now(&self) -> Option<f64> {
        match self {
            Built::None => Some(1.0),
            Built::Local(f) => Some(f.expected_fpr()),
            Built::Rebuilt(g) => Some(g.expected_fpr()),
            Built::RedisBloom(_) | Built::RedisCounting(_) => None,
        }
    }

    /// Whether the last look-up passed by a rebuilt guard's insertable
    /// part alone (its static part said absent).
    pub(super) fn passed_by_delta(&self) -> bool {
        match self {
            Built::Rebuilt(g) => g.last_by_delta,
            _ => false,
        }
    }

    /// Counts one op of a script; rebuilds a rebuilt guard from `db` at the
    /// end of its interval.
    pub(super) fn after_op(&mut self, db: &Database) -> Result<(), Error> {
        match self {
            Built::Rebuilt(g) => g.after_op(db),
            _ => Ok(()),
        }
    }

    pub(super) fn memory_bytes(&self) -> u64 {
        match self {
            Built::None => 0,
            Built::Local(f) => f.memory_bytes() as u64,
            Built::RedisBloom(f) => f.memory_bytes(),
            Built::RedisCounting(f) => f.memory_bytes(),
            Built::Rebuilt(g) => g.memory_bytes(),
        }
    }

    /// Deletes a Redis filter's keys; in-process filters just drop.
    pub(super) fn discard(self) -> Result<(), Error> {
        match self {
            Built::RedisBloom(mut f) => f.delete(),
            Built::RedisCounting(mut f) => f.delete(),
            _ => Ok(()),
        }
        .map_err(Error::filter("guard: deleting the Redis filter"))
    }
}
