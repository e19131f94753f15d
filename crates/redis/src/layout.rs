//! Where an item's bits live: blocks, shard keys and offsets, and the
//! `BITFIELD` commands that read and write them.
//!
//! A table is `blocks` blocks of 512 cells (a cell is a bit, or a 4-bit
//! counter), cut into shard keys of at most `max_shard_bytes`: shard `s`
//! holds blocks `s * shard_blocks ..`, and after them one guard byte,
//! [`GUARD`], written when the filter is created. An item's block is
//! `reduce(hash, blocks)` and its cells in the block are
//! `BlockPositions::new(hash, 9).take(k)`, exactly as a
//! [`BlockedBloomFilter`](bloomlab_classic::BlockedBloomFilter) in the
//! [`Positions`](bloomlab_classic::BlockLayout::Positions) layout places its
//! bits, so both answer alike for the same hash key.
//!
//! Bit `p` of a block is stored at Redis bit offset `p ^ 7` of the block:
//! Redis numbers the bits of a byte from the most significant, the in-memory
//! table from the least, and the swap makes a shard's bytes equal to the
//! in-memory table's words written little-endian, so export and import are
//! byte copies.

use bloomlab_core::hash::{BlockPositions, reduce};
use bloomlab_core::shards::Split;
use redis::{Cmd, Value, cmd};

use crate::error::Error;

/// Cells in one block, as in
/// [`BLOCK_BITS`](bloomlab_classic::BLOCK_BITS).
pub const BLOCK_CELLS: u32 = bloomlab_classic::BLOCK_BITS;

/// `log2(BLOCK_CELLS)`.
const LOG2_BLOCK_CELLS: u32 = BLOCK_CELLS.trailing_zeros();

/// The value of the byte after a shard's blocks. Every command that touches
/// a shard reads it: a shard lost and recreated by a write reads 0 there.
pub const GUARD: u8 = 0xA5;

/// The default cap on a shard key's size: 1 MiB, small enough that no
/// command on it stalls the server and that a Cluster spreads a large filter
/// over its nodes.
pub const DEFAULT_MAX_SHARD_BYTES: usize = bloomlab_core::shards::DEFAULT_MAX_SHARD_BYTES as usize;

/// The longest filter name, in bytes: every command names a key built from
/// it, so a long name multiplies the bytes a batch sends.
pub const MAX_NAME_BYTES: usize = 256;

/// The most shard keys a table may have: 2^20, a table of 1 TiB in shards of
/// 1 MiB. Operations on a whole table (export, count) send a command per
/// shard.
pub const MAX_SHARDS: u64 = 1 << 20;

/// The largest string Redis stores.
pub const REDIS_MAX_STRING: usize = 512 << 20;

/// What a cell holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    /// One bit.
    Bit,
    /// A 4-bit saturating counter.
    Counter,
}

impl Cell {
    /// Bits of one cell.
    pub fn bits(self) -> u64 {
        match self {
            Cell::Bit => 1,
            Cell::Counter => 4,
        }
    }
}

/// The geometry of one table: checked once, then trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    /// Blocks in the table.
    pub blocks: u64,
    /// `k`, cells per item.
    pub hashes: u32,
    /// What a cell holds.
    pub cell: Cell,
    /// Blocks per shard (the last shard may hold fewer).
    pub shard_blocks: u64,
}

/// Where one item lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// Its shard.
    pub shard: u64,
    /// Its block in the shard.
    pub block: u64,
    /// Its `k` cells in the block, `0..512`.
    pub positions: Vec<u32>,
}

impl Location {
    /// The cells' offsets in the shard, as `BITFIELD` takes them: Redis bit
    /// offsets for bits (`p ^ 7`: see the module docs), counter indexes
    /// (`#i`) for counters.
    pub fn cells(&self, cell: Cell) -> impl Iterator<Item = u64> + '_ {
        let base = self.block * u64::from(BLOCK_CELLS);
        self.positions.iter().map(move |&p| match cell {
            Cell::Bit => base + u64::from(p ^ 7),
            Cell::Counter => base + u64::from(p),
        })
    }
}

/// The shard keys of one table: a fixed filter's, or one layer's of a
/// scalable filter. Named when needed, so that no stored size makes the
/// client hold a list of names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shards {
    keys: Keys,
    layer: Option<u32>,
}

impl Shards {
    /// The shards of a fixed filter's table (`name:0`, `name:1`, ..).
    pub fn of(keys: &Keys) -> Self {
        Self {
            keys: keys.clone(),
            layer: None,
        }
    }

    /// The shards of layer `layer` (`{name}:layer:0`, ..).
    pub fn of_layer(keys: &Keys, layer: u32) -> Self {
        Self {
            keys: keys.clone(),
            layer: Some(layer),
        }
    }

    /// The key of shard `s`.
    pub fn key(&self, s: u64) -> String {
        match self.layer {
            None => self.keys.shard(s),
            Some(layer) => self.keys.layer_shard(layer, s),
        }
    }
}

/// The items of a batch located in a table whose shard keys are `shards`:
/// what the batch's commands and the reading of its replies both need.
#[derive(Debug, Clone)]
pub struct Located {
    /// The table.
    pub table: Table,
    /// Its shard keys.
    pub shards: Shards,
    /// Where each item lives, in batch order.
    pub at: Vec<Location>,
}

impl Located {
    /// Locates the items of `hashes` in `table`.
    pub fn new(table: Table, shards: Shards, hashes: &[u64]) -> Self {
        let at = hashes.iter().map(|&h| table.locate(h)).collect();
        Self { table, shards, at }
    }

    /// The key of shard `s`.
    pub fn key(&self, s: u64) -> String {
        self.shards.key(s)
    }
}

impl Table {
    /// A table of `blocks` blocks and `hashes` cells per item, cut into
    /// shards of at most `max_shard_bytes` bytes.
    pub fn new(
        blocks: u64,
        hashes: u32,
        cell: Cell,
        max_shard_bytes: usize,
    ) -> Result<Self, Error> {
        let block_bytes = u64::from(BLOCK_CELLS) * cell.bits() / 8;
        let needed = block_bytes as usize + 1;
        if max_shard_bytes < needed {
            return Err(Error::ShardTooSmall {
                max_shard_bytes,
                needed,
            });
        }
        if max_shard_bytes > REDIS_MAX_STRING {
            return Err(bloomlab_core::ParamError::TooLarge {
                needed: max_shard_bytes as u128,
                limit: REDIS_MAX_STRING as u128,
            }
            .into());
        }
        let too_small = || {
            let needed = blocks.div_ceil(MAX_SHARDS) * block_bytes + 1;
            Error::ShardTooSmall {
                max_shard_bytes,
                needed: usize::try_from(needed).unwrap_or(usize::MAX),
            }
        };
        // Balanced: every shard but the last holds `units_per_shard` blocks.
        let split =
            Split::new(blocks, block_bytes, max_shard_bytes as u64).ok_or_else(too_small)?;
        if split.shards > MAX_SHARDS {
            return Err(too_small());
        }
        Ok(Self {
            blocks,
            hashes,
            cell,
            shard_blocks: split.units_per_shard,
        })
    }

    /// Bytes of one block.
    pub fn block_bytes(&self) -> u64 {
        u64::from(BLOCK_CELLS) * self.cell.bits() / 8
    }

    /// Shard keys.
    pub fn shards(&self) -> u64 {
        self.blocks.div_ceil(self.shard_blocks)
    }

    /// Blocks in shard `s`.
    pub fn blocks_in(&self, s: u64) -> u64 {
        self.shard_blocks.min(self.blocks - s * self.shard_blocks)
    }

    /// Bytes of shard `s`'s blocks, before its guard.
    pub fn body_bytes(&self, s: u64) -> u64 {
        self.blocks_in(s) * self.block_bytes()
    }

    /// The Redis bit offset of shard `s`'s guard byte.
    pub fn guard_offset(&self, s: u64) -> u64 {
        self.body_bytes(s) * 8
    }

    /// Bytes of the table in Redis, guards included.
    pub fn bytes(&self) -> u64 {
        self.blocks * self.block_bytes() + self.shards()
    }

    /// The shard and cell offsets of the item of 64-bit hash `hash`.
    pub fn locate(&self, hash: u64) -> Location {
        let block = reduce(hash, self.blocks);
        Location {
            shard: block / self.shard_blocks,
            block: block % self.shard_blocks,
            positions: BlockPositions::new(hash, LOG2_BLOCK_CELLS)
                .take(self.hashes as usize)
                .collect(),
        }
    }

    /// The command that adds the item at `at` in shard key `key`, whose reply
    /// [`inserted`](Self::inserted) reads. A batch reads the guard of every
    /// shard it writes before its first write
    /// ([`guard_read_cmd`](Self::guard_read_cmd)).
    pub fn insert_cmd(&self, key: &str, at: &Location) -> Cmd {
        let k = at.positions.len();
        let mut c = Cmd::with_capacity(4 * k + 6, 20 * k + 64);
        c.arg("BITFIELD").arg(key);
        match self.cell {
            Cell::Bit => {
                for o in at.cells(self.cell) {
                    c.arg("SET").arg("u1").arg(o).arg(1);
                }
            }
            Cell::Counter => {
                c.arg("OVERFLOW").arg("SAT");
                for o in at.cells(self.cell) {
                    c.arg("INCRBY").arg("u4").arg(format!("#{o}")).arg(1);
                }
            }
        }
        c
    }

    /// The command that reads the block of the item at `at`: `GETRANGE` of
    /// its bytes, whose reply [`present`](Self::present) reads. Cheaper for
    /// the server than `BITFIELD_RO` and for the client to parse (one string
    /// instead of `k` integers); the shard's guard is read once per batch
    /// ([`guard_read_cmd`](Self::guard_read_cmd)).
    pub fn lookup_cmd(&self, key: &str, at: &Location) -> Cmd {
        let start = at.block * self.block_bytes();
        let mut c = Cmd::with_capacity(4, key.len() + 48);
        c.arg("GETRANGE")
            .arg(key)
            .arg(start)
            .arg(start + self.block_bytes() - 1);
        c
    }

    /// Whether every cell of the item at `at` is non-zero, from the reply to
    /// its [`lookup_cmd`](Self::lookup_cmd). A block shorter than it should
    /// be is a shard lost (or recreated short).
    pub fn present(&self, key: &str, at: &Location, reply: &Value) -> Result<bool, Error> {
        check(key, reply)?;
        let bytes = match reply {
            Value::BulkString(b) => b.as_slice(),
            Value::Nil => &[],
            _ => return Err(unexpected(key, reply)),
        };
        if bytes.len() as u64 != self.block_bytes() {
            return Err(Error::ShardMissing {
                key: key.to_owned(),
            });
        }
        Ok(self.all_set(at, bytes))
    }

    /// Whether every cell of the item at `at` is non-zero in `block`, the
    /// bytes `GETRANGE` returned for its block; bytes past the end of a
    /// shorter string (a shard written lazily, only up to its last write)
    /// are zero.
    pub fn all_set(&self, at: &Location, block: &[u8]) -> bool {
        // Bit p is bit p % 8 of byte p / 8 (stored at Redis offset p ^ 7);
        // counter p is the high nibble of byte p / 2 when p is even.
        let byte = |i: u32| block.get(i as usize).copied().unwrap_or(0);
        at.positions.iter().all(|&p| match self.cell {
            Cell::Bit => byte(p / 8) >> (p % 8) & 1 == 1,
            Cell::Counter => byte(p / 2) >> (4 * (1 - p % 2)) & 0x0f != 0,
        })
    }

    /// The command that reads shard `s`'s guard byte, whose reply
    /// [`guard_intact`](Self::guard_intact) checks.
    pub fn guard_read_cmd(&self, key: &str, s: u64) -> Cmd {
        let at = self.guard_offset(s) / 8;
        let mut c = cmd("GETRANGE");
        c.arg(key).arg(at).arg(at);
        c
    }

    /// Checks the reply to [`guard_read_cmd`](Self::guard_read_cmd).
    pub fn guard_intact(&self, key: &str, reply: &Value) -> Result<(), Error> {
        check(key, reply)?;
        match reply {
            Value::BulkString(b) if b.as_slice() == [GUARD] => Ok(()),
            Value::BulkString(_) | Value::Nil => Err(Error::ShardMissing {
                key: key.to_owned(),
            }),
            _ => Err(unexpected(key, reply)),
        }
    }

    /// Whether an insert was new, from its reply (the cells' old values,
    /// or new ones for counters): a bit was 0, or a counter went from 0 to 1.
    pub fn inserted(&self, key: &str, reply: &Value) -> Result<bool, Error> {
        check(key, reply)?;
        let new_value = match self.cell {
            Cell::Bit => 0,
            Cell::Counter => 1,
        };
        match reply {
            Value::Array(cells) if cells.len() == self.hashes as usize => {
                let mut new = false;
                for c in cells {
                    match c {
                        Value::Int(v) => new |= *v == new_value,
                        _ => return Err(unexpected(key, reply)),
                    }
                }
                Ok(new)
            }
            _ => Err(unexpected(key, reply)),
        }
    }
}

/// The integers of an array reply, or the error the reply carries.
pub fn int_array(key: &str, reply: &Value) -> Result<Vec<i64>, Error> {
    check(key, reply)?;
    match reply {
        Value::Array(items) => items
            .iter()
            .map(|v| match v {
                Value::Int(i) => Ok(*i),
                _ => Err(unexpected(key, reply)),
            })
            .collect(),
        _ => Err(unexpected(key, reply)),
    }
}

/// The error a reply carries, typed: `WRONGTYPE` names the key.
pub fn check(key: &str, reply: &Value) -> Result<(), Error> {
    match reply {
        Value::ServerError(e) => Err(server_error(key, e)),
        _ => Ok(()),
    }
}

/// A server's error reply for a command on `key`, typed.
pub fn server_error(key: &str, e: &redis::ServerError) -> Error {
    // A script's `error_reply` marker arrives as the error's code; an error
    // raised by a command inside a script keeps its own code in front.
    let says = |marker: &str| e.code() == marker || e.details().is_some_and(|d| d.contains(marker));
    if says("WRONGTYPE") {
        Error::WrongType {
            key: key.to_owned(),
        }
    } else if says(crate::scripts::SHARD_MISSING) {
        Error::ShardMissing {
            key: key.to_owned(),
        }
    } else if says(crate::scripts::META_MISSING) {
        Error::NotFound {
            name: key.to_owned(),
        }
    } else {
        Error::Redis(e.clone().into())
    }
}

/// The number a script's error names after its marker: `error({err =
/// 'MARKER n'})` arrives with `n` first in the details (Redis may append
/// where in the script it was raised).
pub fn marked_index<N: std::str::FromStr>(detail: &str) -> Option<N> {
    detail.split_whitespace().next()?.parse().ok()
}

/// The error a script's reply carries, typed: a guard's error names the
/// key (of `keys`, the script's `KEYS`) it found wrong, a `BLOOMLAB_META_*`
/// error the metadata key `keys[0]`.
pub fn script_error(keys: &[String], reply: &Value) -> Result<(), Error> {
    let Value::ServerError(e) = reply else {
        return Ok(());
    };
    let meta = keys.first().map_or("", String::as_str);
    let code = e.code();
    let detail = e.details().unwrap_or("");
    let key_at = || {
        marked_index::<usize>(detail)
            .and_then(|j| keys.get(j.checked_sub(1)?))
            .cloned()
            .unwrap_or_else(|| meta.to_owned())
    };
    Err(match code {
        crate::scripts::WRONG_TYPE => Error::WrongType { key: key_at() },
        crate::scripts::SHARD_MISSING => Error::ShardMissing { key: key_at() },
        crate::scripts::META_CORRUPT => {
            let field = detail.split_whitespace().next().unwrap_or("");
            let (field, reason) = match field {
                "count" => ("count", "missing or not an integer"),
                "state" => (
                    "state",
                    "missing, or not the checksum of the counts: one was edited by hand",
                ),
                _ => ("layers", "lower than the layers that exist in Redis"),
            };
            Error::CorruptMetadata {
                key: meta.to_owned(),
                field,
                value: None,
                reason: reason.to_owned(),
            }
        }
        _ => server_error(meta, e),
    })
}

/// A reply of the wrong shape.
pub fn unexpected(key: &str, reply: &Value) -> Error {
    Error::Redis(redis::RedisError::from((
        redis::ErrorKind::UnexpectedReturnType,
        "unexpected reply",
        format!("for key {key:?}: {reply:?}"),
    )))
}

/// The keys of one filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    name: String,
    prefix: String,
}

impl Keys {
    /// Keys that spread over the Cluster's slots (`name:meta`, `name:0`, ..).
    pub fn spread(name: &str) -> Result<Self, Error> {
        Self::with_prefix(name, name.to_owned())
    }

    /// Keys that share one hash tag (`{name}:meta`, `{name}:0:0`, ..), so
    /// that one script can touch them all.
    pub fn tagged(name: &str) -> Result<Self, Error> {
        Self::with_prefix(name, format!("{{{name}}}"))
    }

    fn with_prefix(name: &str, prefix: String) -> Result<Self, Error> {
        if name.is_empty() || name.len() > MAX_NAME_BYTES || name.contains(['{', '}']) {
            return Err(Error::InvalidName(name.chars().take(64).collect()));
        }
        Ok(Self {
            name: name.to_owned(),
            prefix,
        })
    }

    /// The filter's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The metadata hash.
    pub fn meta(&self) -> String {
        format!("{}:meta", self.prefix)
    }

    /// A scratch key in the slot of the filter's keys: a tagged filter's
    /// scripts write masks there before they OR them into a shard.
    pub fn scratch(&self) -> String {
        format!("{}:or", self.prefix)
    }

    /// Shard `s` of the filter's one table.
    pub fn shard(&self, s: u64) -> String {
        format!("{}:{s}", self.prefix)
    }

    /// Shard `s` of layer `layer`.
    pub fn layer_shard(&self, layer: u32, s: u64) -> String {
        format!("{}:{layer}:{s}", self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_balanced_and_bounded() {
        let t = Table::new(1000, 7, Cell::Bit, 64 * 300 + 1).unwrap();
        assert_eq!((t.shards(), t.shard_blocks), (4, 250));
        assert_eq!(t.blocks_in(3), 250);
        let t = Table::new(1001, 7, Cell::Bit, 64 * 300 + 1).unwrap();
        assert_eq!((t.shards(), t.shard_blocks, t.blocks_in(3)), (4, 251, 248));
        assert!(t.shard_blocks * t.block_bytes() < 64 * 300 + 1);
        let c = Table::new(10, 7, Cell::Counter, DEFAULT_MAX_SHARD_BYTES).unwrap();
        assert_eq!(
            (c.shards(), c.block_bytes(), c.guard_offset(0)),
            (1, 256, 20_480)
        );
        assert!(matches!(
            Table::new(10, 7, Cell::Bit, 64),
            Err(Error::ShardTooSmall { needed: 65, .. })
        ));
    }

    #[test]
    fn cells_match_the_in_memory_bit_order() {
        // Redis bit offset o is bit 7 - o % 8 of byte o / 8; the in-memory
        // table keeps bit p at bit p % 8 of little-endian byte p / 8.
        let t = Table::new(3, 5, Cell::Bit, DEFAULT_MAX_SHARD_BYTES).unwrap();
        for hash in [1u64, 99, u64::MAX] {
            let at = t.locate(hash);
            let block = reduce(hash, 3);
            for (o, p) in at.cells(Cell::Bit).zip(BlockPositions::new(hash, 9)) {
                let (byte, bit_from_msb) = (o / 8, o % 8);
                let p = u64::from(p) + block * 512;
                assert_eq!((byte, 7 - bit_from_msb), (p / 8, p % 8));
            }
        }
    }

    #[test]
    fn names_that_would_move_slots_are_refused() {
        let long = "n".repeat(MAX_NAME_BYTES + 1);
        assert!(Keys::spread(&long[1..]).is_ok());
        for bad in ["", "a{b", "}x", "{t}", &long] {
            assert!(matches!(Keys::spread(bad), Err(Error::InvalidName(_))));
        }
        let k = Keys::tagged("users").unwrap();
        assert_eq!(
            (k.meta(), k.layer_shard(2, 5)),
            ("{users}:meta".into(), "{users}:2:5".into())
        );
        assert_eq!(Keys::spread("users").unwrap().shard(3), "users:3");
    }
}
