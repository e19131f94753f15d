//! Inserting a batch into a blocked table, shard by shard, in the cheaper of
//! two ways:
//!
//! - **item by item**: one `BITFIELD key SET u1 o 1 …` per item, after one
//!   read of the shard's guard byte. Each command names its `k` bits, four
//!   arguments a bit, and argument handling dominates: about 3 µs of client
//!   and server CPU per item (`results/BENCH.md`).
//! - **as one mask** (bits only, not counters): the items' bits ORed into the
//!   shard by one script (`SETRANGE` of the mask into a scratch key in the
//!   shard's slot, `BITOP OR`, `DEL`), which first returns the old bytes of
//!   the blocks the batch touches, so the client answers "was it new" item by
//!   item, in batch order, exactly as the in-memory filter does. Its cost
//!   follows the shard's size, not the items: the span moves twice as bulk
//!   bytes and `BITOP` runs over the whole shard, about 0.3 µs per block of
//!   the shard on loopback (`results/BENCH.md`).
//!
//! A shard goes as one mask when it holds at most [`MASK_BLOCKS_PER_ITEM`]
//! blocks per item of the batch that falls in it. A single insert, or a
//! batch spread thin over a large filter, goes item by item.

use std::collections::BTreeMap;

use redis::{Cmd, Value};

use crate::conn::{Failed, Op, Replies};
use crate::error::{BatchError, Error};
use crate::layout::{self, Cell, Located, Location, Table};
use crate::ops::{OneRound, evalsha};
use crate::scripts;

/// The most blocks of shard per item for which a shard's part of a batch
/// goes as one mask. Measured on loopback, an item costs about 3 µs bit by
/// bit and a shard about 0.3 µs per block as a mask, so the mask is cheaper
/// up to about 10 blocks an item; 4 leaves room for links where moving bytes
/// costs more.
pub const MASK_BLOCKS_PER_ITEM: u64 = 4;

/// How one shard's items go.
enum Part {
    /// Guard read, then one `BITFIELD` per item.
    Each { shard: usize, items: Vec<usize> },
    /// One script: the old bytes of blocks `first..=last`.
    Mask {
        shard: usize,
        items: Vec<usize>,
        first: u64,
        last: u64,
    },
}

impl Part {
    fn replies(&self) -> usize {
        match self {
            Part::Each { items, .. } => 1 + items.len(),
            Part::Mask { .. } => 1,
        }
    }
}

/// Inserts the located items; the answers say which were new, in order.
pub fn insert(batch: Located) -> impl Op<Output = Vec<bool>, Error = BatchError> + use<> {
    let Located { table, at, .. } = &batch;
    let mut by_shard: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, a) in at.iter().enumerate() {
        by_shard.entry(a.shard as usize).or_default().push(i);
    }
    let parts: Vec<Part> = by_shard
        .into_iter()
        .map(|(shard, items)| {
            let first = items.iter().map(|&i| at[i].block).min().unwrap_or(0);
            let last = items.iter().map(|&i| at[i].block).max().unwrap_or(0);
            let shard_blocks = table.blocks_in(shard as u64);
            if table.cell == Cell::Bit && shard_blocks <= MASK_BLOCKS_PER_ITEM * items.len() as u64
            {
                Part::Mask {
                    shard,
                    items,
                    first,
                    last,
                }
            } else {
                Part::Each { shard, items }
            }
        })
        .collect();
    let cmds = parts
        .iter()
        .flat_map(|part| commands(&batch, part))
        .collect();
    OneRound::new(cmds, move |replies: Replies| read(&batch, &parts, replies))
}

fn commands(batch: &Located, part: &Part) -> Vec<Cmd> {
    let Located { table, shards, at } = batch;
    match part {
        Part::Each { shard, items } => {
            let key = &shards.key(*shard as u64);
            std::iter::once(table.guard_read_cmd(key, *shard as u64))
                .chain(items.iter().map(|&i| table.insert_cmd(key, &at[i])))
                .collect()
        }
        Part::Mask {
            shard,
            items,
            first,
            last,
        } => {
            let bb = table.block_bytes();
            let mut mask = vec![0u8; ((last - first + 1) * bb) as usize];
            for &i in items {
                let base = ((at[i].block - first) * bb) as usize;
                for &p in &at[i].positions {
                    mask[base + (p / 8) as usize] |= 1 << (p % 8);
                }
            }
            let key = shards.key(*shard as u64);
            // `{key}` hashes to the slot of `key`, which holds no braces.
            let scratch = format!("{{{key}}}:or");
            let guard = table.guard_offset(*shard as u64) / 8;
            let range = (first * bb, (last + 1) * bb - 1);
            let args = (guard, range.0, range.1, mask);
            vec![evalsha(&scripts::OR_MASK, &[key, scratch], args)]
        }
    }
}

/// Reads the replies part by part. Items whose replies arrived and say so
/// are stored; those whose replies were lost are unknown.
fn read(batch: &Located, parts: &[Part], replies: Replies) -> Result<Vec<bool>, BatchError> {
    let Located { table, shards, at } = batch;
    let (values, lost) = match replies {
        Ok(v) => (v, None),
        Err(Failed { replies, error }) => (replies, Some(Error::from_redis(error))),
    };
    let mut answers: Vec<Option<bool>> = vec![None; at.len()];
    let mut unknown = Vec::new();
    let mut first_error = None;
    let mut next = 0;
    for part in parts {
        let got = &values[next.min(values.len())..(next + part.replies()).min(values.len())];
        next += part.replies();
        let items = match part {
            Part::Each { items, .. } | Part::Mask { items, .. } => items,
        };
        if got.len() < part.replies() {
            // The connection broke before this part's replies: an item whose
            // reply arrived is stored, the others may or may not be.
            if let Part::Each { shard, .. } = part {
                let guard_ok = got
                    .first()
                    .is_some_and(|g| table.guard_intact(&shards.key(*shard as u64), g).is_ok());
                for (&i, v) in items.iter().zip(got.iter().skip(1)) {
                    if guard_ok {
                        answers[i] = table.inserted(&shards.key(*shard as u64), v).ok();
                    }
                }
            }
            unknown.extend(items.iter().copied().filter(|&i| answers[i].is_none()));
            continue;
        }
        let outcome = match part {
            Part::Each { shard, items } => {
                read_each(table, &shards.key(*shard as u64), items, got, &mut answers)
            }
            Part::Mask {
                shard,
                items,
                first,
                ..
            } => read_mask(
                table,
                &shards.key(*shard as u64),
                at,
                items,
                *first,
                &got[0],
                &mut answers,
            ),
        };
        if let Err(e) = outcome {
            first_error.get_or_insert(e);
        }
    }
    match first_error.or(lost) {
        None if answers.iter().all(Option::is_some) => {
            Ok(answers.into_iter().map(Option::unwrap_or_default).collect())
        }
        source => Err(BatchError {
            stored: (0..at.len()).filter(|&i| answers[i].is_some()).collect(),
            unknown,
            source: Box::new(
                source.unwrap_or_else(|| layout::unexpected("", &Value::Array(Vec::new()))),
            ),
        }),
    }
}

/// One shard's guard reply, then one `BITFIELD` reply per item. A lost
/// shard's writes landed in a recreated key: its items are not stored.
fn read_each(
    table: &Table,
    key: &str,
    items: &[usize],
    got: &[Value],
    answers: &mut [Option<bool>],
) -> Result<(), Error> {
    table.guard_intact(key, &got[0])?;
    let mut first = None;
    for (&i, v) in items.iter().zip(&got[1..]) {
        match table.inserted(key, v) {
            Ok(new) => answers[i] = Some(new),
            Err(e) => {
                first.get_or_insert(e);
            }
        }
    }
    first.map_or(Ok(()), Err)
}

/// The old bytes of the blocks `first..` the script ORed the mask into: the
/// items' answers, replayed in batch order on those bytes.
fn read_mask(
    table: &Table,
    key: &str,
    at: &[Location],
    items: &[usize],
    first: u64,
    reply: &Value,
    answers: &mut [Option<bool>],
) -> Result<(), Error> {
    layout::check(key, reply)?;
    let Value::BulkString(old) = reply else {
        return Err(layout::unexpected(key, reply));
    };
    let bb = table.block_bytes();
    let mut bytes = old.clone();
    for &i in items {
        let base = ((at[i].block - first) * bb) as usize;
        let block = bytes
            .get_mut(base..base + bb as usize)
            .ok_or_else(|| Error::ShardMissing {
                key: key.to_owned(),
            })?;
        let mut new = false;
        for &p in &at[i].positions {
            let (byte, bit) = ((p / 8) as usize, 1u8 << (p % 8));
            new |= block[byte] & bit == 0;
            block[byte] |= bit;
        }
        answers[i] = Some(new);
    }
    Ok(())
}
