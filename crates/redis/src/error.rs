//! What can go wrong between a filter and its Redis server.

use std::fmt;

use bloomlab_classic::BlockLayout;
use bloomlab_core::ParamError;
use redis::RedisError;

/// Why an operation on a filter kept in Redis failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The parameters cannot make a filter: a rate outside (0, 1), zero
    /// items, a growth factor or tightening ratio out of range, a table past
    /// Redis's limits.
    Param(ParamError),
    /// A scalable filter's growth factor is not one of
    /// [`GROWTH_FACTORS`](bloomlab_scalable::GROWTH_FACTORS).
    GrowthFactor(u32),
    /// A scalable filter's tightening ratio is not in (0, 1).
    TighteningRatio(f64),
    /// The name is empty, longer than
    /// [`MAX_NAME_BYTES`](crate::MAX_NAME_BYTES), or holds `{` or `}`, which
    /// would change the Cluster slots its keys hash to. Holds the name's
    /// first 64 characters.
    InvalidName(String),
    /// The shard size leaves no room for one block (and the shard's guard
    /// byte), or cuts the table into more than
    /// [`MAX_SHARDS`](crate::MAX_SHARDS) shards.
    ShardTooSmall {
        /// The shard size asked for, in bytes.
        max_shard_bytes: usize,
        /// The smallest shard size that works.
        needed: usize,
    },
    /// The server could not be reached, or the connection broke: connection
    /// refused, reset, timed out.
    Connection(RedisError),
    /// A key of the filter holds another Redis type (a string where its
    /// metadata hash should be, say).
    WrongType {
        /// The key.
        key: String,
    },
    /// No filter of this name: its metadata hash does not exist.
    NotFound {
        /// The filter's name.
        name: String,
    },
    /// [`import`](crate::RedisBloomFilter::import) found a filter of this
    /// name already; it never overwrites one.
    Exists {
        /// The filter's name.
        name: String,
    },
    /// The filter's metadata exists but its shards are not all written yet:
    /// it is being created, or its creator stopped part-way. `create` with
    /// the same parameters finishes it.
    Incomplete {
        /// The filter's name.
        name: String,
    },
    /// The metadata hash exists but a field is missing, edited (its
    /// checksum no longer matches), or out of the bounds `create` enforces,
    /// or a scalable filter's counts contradict its layers. Nothing was
    /// changed.
    CorruptMetadata {
        /// The metadata key.
        key: String,
        /// The field at fault.
        field: &'static str,
        /// Its stored text (its first 64 characters), or `None` when it is
        /// missing.
        value: Option<String>,
        /// What is wrong with it.
        reason: String,
    },
    /// The filter stored in Redis is larger than this client accepts
    /// ([`Options::max_bytes`](crate::Options::max_bytes), default
    /// [`DEFAULT_MAX_BYTES`](crate::DEFAULT_MAX_BYTES)): open it with a
    /// higher limit if it is meant to be that large.
    OverLimit {
        /// The filter's name.
        name: String,
        /// Bytes its tables take in Redis.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// The client could not allocate memory for what it read (an export):
    /// nothing was changed in Redis.
    OutOfMemory {
        /// Bytes asked for.
        bytes: u64,
    },
    /// A filter of this name exists with other parameters.
    Mismatch {
        /// The filter's name.
        name: String,
        /// The parameter that differs.
        field: &'static str,
        /// Its value in Redis.
        existing: String,
        /// The value asked for.
        requested: String,
    },
    /// A shard of a filter that was complete is gone or was recreated empty:
    /// the server restarted without persistence, or the key was deleted. Its
    /// items can no longer be answered for; the filter must be deleted and
    /// built again (or imported from a copy).
    ShardMissing {
        /// The shard's key.
        key: String,
    },
    /// The counting filter's counters prove the item absent: nothing was
    /// removed.
    NotPresent,
    /// The scalable filter would need a layer past what `u64` capacities or
    /// Redis can hold; or the cuckoo filter freed no slot within its
    /// relocation bound (nothing was stored, nothing was lost).
    Full,
    /// An in-memory blocked filter to import lays out its bits in a layout
    /// Redis tables do not use: they place an item's bits as
    /// [`BlockLayout::Positions`] does.
    Layout(BlockLayout),
    /// An in-memory cuckoo filter to import has a table Redis cuckoo
    /// filters do not keep (semi-sorted buckets, or the first format's XOR
    /// alternate-bucket map); the text says which.
    CuckooLayout(&'static str),
    /// Any other error the server or the client reported.
    Redis(RedisError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Param(e) => e.fmt(f),
            Error::GrowthFactor(s) => write!(
                f,
                "growth factor {s} is not one of {:?}",
                bloomlab_scalable::GROWTH_FACTORS
            ),
            Error::TighteningRatio(r) => write!(f, "tightening ratio {r} is not in (0, 1)"),
            Error::InvalidName(name) => write!(
                f,
                "invalid filter name {name:?}: it must be 1 to {} bytes and hold no '{{' or '}}'",
                crate::MAX_NAME_BYTES
            ),
            Error::ShardTooSmall {
                max_shard_bytes,
                needed,
            } => write!(
                f,
                "shards of {max_shard_bytes} bytes cannot hold this table: they need {needed} bytes or more"
            ),
            Error::Connection(e) => write!(f, "connection to Redis failed: {e}"),
            Error::WrongType { key } => {
                write!(f, "key {key:?} holds a value of the wrong Redis type")
            }
            Error::NotFound { name } => write!(f, "no filter named {name:?} in Redis"),
            Error::Exists { name } => write!(f, "a filter named {name:?} exists already"),
            Error::Incomplete { name } => write!(
                f,
                "filter {name:?} is not complete: it is being created, or its creator \
                 stopped part-way (create it again to finish)"
            ),
            Error::CorruptMetadata {
                key,
                field,
                value,
                reason,
            } => match value {
                Some(v) => write!(f, "metadata {key:?}: field {field} = {v:?} is {reason}"),
                None => write!(f, "metadata {key:?}: field {field} is {reason}"),
            },
            Error::OverLimit { name, bytes, limit } => write!(
                f,
                "filter {name:?} takes {bytes} bytes in Redis, over this client's limit of \
                 {limit} (Options::max_bytes)"
            ),
            Error::OutOfMemory { bytes } => write!(f, "could not allocate {bytes} bytes"),
            Error::Mismatch {
                name,
                field,
                existing,
                requested,
            } => write!(
                f,
                "filter {name:?} exists with {field} = {existing}, not the {requested} asked for"
            ),
            Error::ShardMissing { key } => write!(
                f,
                "shard {key:?} is missing or was recreated empty; the filter lost items"
            ),
            Error::NotPresent => f.write_str("the item is not in the filter; nothing was removed"),
            Error::Full => f.write_str(
                "the filter is full: the scalable filter cannot add another layer, or the \
                 cuckoo filter freed no slot within its relocation bound",
            ),
            Error::Layout(l) => write!(
                f,
                "the filter places its bits in the {l:?} layout; a filter kept in Redis places \
                 them as BlockLayout::Positions does (build it with that layout to import it)"
            ),
            Error::CuckooLayout(why) => {
                write!(f, "the cuckoo filter cannot be kept in Redis: {why}")
            }
            Error::Redis(e) => write!(f, "Redis error: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Param(e) => Some(e),
            Error::Connection(e) | Error::Redis(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ParamError> for Error {
    fn from(e: ParamError) -> Self {
        Error::Param(e)
    }
}

/// A client error, sorted: a refused, broken or timed-out connection is
/// [`Error::Connection`], anything else [`Error::Redis`]. So that
/// `client.get_connection()?` in a function returning this crate's `Error`
/// reports a refused connection as such.
impl From<RedisError> for Error {
    fn from(e: RedisError) -> Self {
        Error::from_redis(e)
    }
}

impl Error {
    /// Sorts a client error: a broken or refused connection from everything
    /// else.
    pub(crate) fn from_redis(e: RedisError) -> Self {
        if e.is_io_error()
            || e.is_connection_refusal()
            || e.is_connection_dropped()
            || e.is_timeout()
        {
            Error::Connection(e)
        } else {
            Error::Redis(e)
        }
    }
}

/// A batch that failed part-way, and what became of its items.
///
/// Items are named by their index in the batch. Those in
/// [`stored`](Self::stored) are in the filter (Redis confirmed them); those
/// in [`unknown`](Self::unknown) were sent but their replies were lost with
/// the connection, so they may or may not be stored; every other item was
/// not stored. On a single server over a blocking connection the replies are
/// read one by one, so only the items after the break are unknown; a Cluster
/// pipeline or an async connection returns all of a round trip's replies or
/// none, so there every item of the broken round trip is unknown. Inserting
/// the unknown ones again is harmless for the Bloom
/// and scalable filters; for the counting filter it would count them twice,
/// so check them with `contains` first.
pub struct BatchError {
    /// Indices of the items Redis confirmed stored.
    pub stored: Vec<usize>,
    /// Indices of the items whose fate is unknown.
    pub unknown: Vec<usize>,
    /// What went wrong.
    pub source: Box<Error>,
}

impl fmt::Debug for BatchError {
    // The index lists can hold a whole batch: shown as counts and ranges.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let span = |v: &[usize]| match (v.first(), v.last()) {
            (Some(a), Some(b)) => format!("{} items in {a}..={b}", v.len()),
            _ => "none".to_owned(),
        };
        f.debug_struct("BatchError")
            .field("stored", &span(&self.stored))
            .field("unknown", &span(&self.unknown))
            .field("source", &self.source)
            .finish()
    }
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "batch failed with {} items stored and {} unknown: {}",
            self.stored.len(),
            self.unknown.len(),
            self.source
        )
    }
}

impl std::error::Error for BatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}
