//! Reading a batch's blocks in every layer, and the batch lookup.

use std::collections::BTreeMap;
use std::hash::Hash;

use bloomlab_core::DefaultHasher;
use redis::{Cmd, Value, cmd};

use super::{COUNTS, Counts, Insert, Layers};
use crate::conn::{Op, Replies};
use crate::error::{BatchError, Error};
use crate::insert::MASK_BLOCKS_PER_ITEM;
use crate::layout::{self, Location};
use crate::ops::{self, Batches};

/// One read round of a batch: the counts, the blocks of some of its items
/// in every layer known, the guards of the shards they lie in, whether a
/// layer past those exists, and the counts again.
pub(super) struct Read {
    /// The batch indexes of the items read, in order.
    pub(super) items: Vec<usize>,
    /// The layers read.
    pub(super) layers: u32,
    /// Each item's location in each layer, `items.len() × layers`.
    pub(super) at: Vec<Location>,
    /// The data reads, in the order sent.
    pub(super) reads: Vec<Range>,
    /// Where each item's block in each layer is: (read, byte offset),
    /// `items.len() × layers`.
    pub(super) cells: Vec<(usize, usize)>,
    /// The (layer, shard) pairs whose guards were read.
    guards: Vec<(u32, u64)>,
}

/// One `GETRANGE` of blocks `first..=last` of a shard of a layer: a span
/// (`dense`) or one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Range {
    layer: u32,
    pub(super) shard: u64,
    pub(super) first: u64,
    last: u64,
    pub(super) dense: bool,
}

/// What a read round found: the blocks read, and the counts before and
/// after they were read.
pub(super) struct Found {
    /// The bytes of each of [`Read::reads`], checked for length.
    pub(super) bytes: Vec<Vec<u8>>,
    /// The counts read first: every write after them changes them, so a
    /// write planned on these blocks is sound while they stand.
    pub(super) before: Counts,
    /// The counts read last: a layer opened since the read shows here.
    after: Counts,
}

impl Found {
    /// The block of cell `cell` (an item in a layer) of `read`.
    pub(super) fn block<'a>(&'a self, read: &Read, cell: usize, block_bytes: u64) -> &'a [u8] {
        let (r, at) = read.cells[cell];
        &self.bytes[r][at..at + block_bytes as usize]
    }
}

impl Layers {
    /// The commands that read `items` (batch indexes into `hashes`) in the
    /// layers known. A shard whose part of the batch is dense (at most
    /// [`MASK_BLOCKS_PER_ITEM`] blocks of shard per item) is read as one
    /// span, and written as one mask; the others block by block.
    pub(super) fn read(
        &mut self,
        hashes: &[u64],
        items: Vec<usize>,
    ) -> Result<(Vec<Cmd>, Read), Error> {
        let layers = self.known;
        let counts = cmd("HMGET").arg(self.keys.meta()).arg(&COUNTS).take();
        let cells = items.len() * layers as usize;
        let mut at = Vec::with_capacity(cells);
        // The cells of each (layer, shard), in order.
        let mut by_shard: BTreeMap<(u32, u64), Vec<usize>> = BTreeMap::new();
        for &i in &items {
            for j in 0..layers {
                let a = self.table(j)?.locate(hashes[i]);
                by_shard.entry((j, a.shard)).or_default().push(at.len());
                at.push(a);
            }
        }
        let mut reads = Vec::with_capacity(cells);
        let mut where_ = vec![(0, 0); cells];
        for (&(layer, shard), part) in &by_shard {
            let bb = self.table(layer)?.block_bytes();
            let first = part.iter().map(|&c| at[c].block).min().unwrap_or(0);
            let last = part.iter().map(|&c| at[c].block).max().unwrap_or(0);
            let shard_blocks = self.table(layer)?.blocks_in(shard);
            if shard_blocks <= MASK_BLOCKS_PER_ITEM * part.len() as u64 {
                for &c in part {
                    where_[c] = (reads.len(), ((at[c].block - first) * bb) as usize);
                }
                reads.push(Range {
                    layer,
                    shard,
                    first,
                    last,
                    dense: true,
                });
            } else {
                // One read per block, in block order: items sharing a block
                // share its read, so that a batch sees its own earlier
                // items and writes the block once.
                let mut blocks: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
                for &c in part {
                    blocks.entry(at[c].block).or_default().push(c);
                }
                for (block, cells) in blocks {
                    for c in cells {
                        where_[c] = (reads.len(), 0);
                    }
                    reads.push(Range {
                        layer,
                        shard,
                        first: block,
                        last: block,
                        dense: false,
                    });
                }
            }
        }
        let mut cmds = Vec::with_capacity(reads.len() + by_shard.len() + 3);
        cmds.push(counts.clone());
        for r in &reads {
            let bb = self.table(r.layer)?.block_bytes();
            let key = self.shards(r.layer).key(r.shard);
            let c = cmd("GETRANGE")
                .arg(key)
                .arg(r.first * bb)
                .arg((r.last + 1) * bb - 1)
                .take();
            cmds.push(c);
        }
        for &(j, s) in by_shard.keys() {
            let key = self.shards(j).key(s);
            cmds.push(self.table(j)?.guard_read_cmd(&key, s));
        }
        // The layer past the known ones must not exist unless the count
        // read after it says so: read first, counted second.
        cmds.push(cmd("EXISTS").arg(self.shards(layers).key(0)).take());
        cmds.push(counts);
        let read = Read {
            items,
            layers,
            at,
            reads,
            cells: where_,
            guards: by_shard.into_keys().collect(),
        };
        Ok((cmds, read))
    }

    /// Reads the replies to [`read`](Self::read)'s commands.
    pub(super) fn found(&mut self, read: &Read, replies: Replies) -> Result<Found, Error> {
        let meta = self.keys.meta();
        let values = replies.map_err(|f| Error::from_redis(f.error))?;
        let data = read.reads.len();
        if values.len() != data + read.guards.len() + 3 {
            return Err(layout::unexpected(&meta, &Value::Array(values)));
        }
        let before = self.read_counts(&values[0])?;
        let (ranges, rest) = values[1..].split_at(data);
        let (guards, rest) = rest.split_at(read.guards.len());
        for (&(j, s), reply) in read.guards.iter().zip(guards) {
            let key = self.shards(j).key(s);
            self.table(j)?.guard_intact(&key, reply)?;
        }
        let mut bytes = Vec::with_capacity(data);
        for (r, reply) in read.reads.iter().zip(ranges) {
            let key = self.shards(r.layer).key(r.shard);
            let want = (r.last - r.first + 1) * self.table(r.layer)?.block_bytes();
            layout::check(&key, reply)?;
            match reply {
                Value::BulkString(b) if b.len() as u64 == want => bytes.push(b.clone()),
                Value::BulkString(_) | Value::Nil => return Err(Error::ShardMissing { key }),
                other => return Err(layout::unexpected(&key, other)),
            }
        }
        let next = self.shards(read.layers).key(0);
        layout::check(&next, &rest[0])?;
        let after = self.read_counts(&rest[1])?;
        let fewest = before.layers.min(after.layers);
        if fewest < read.layers || after.layers < before.layers {
            let why = format!("fewer than the {} layers seen before", read.layers);
            return Err(self.corrupt("layers", fewest, &why));
        }
        if after.layers == read.layers && rest[0] == Value::Int(1) {
            let why = format!("lower than the layers in Redis: {next:?} exists");
            return Err(self.corrupt("layers", after.layers, &why));
        }
        self.known = self.known.max(after.layers);
        Ok(Found {
            bytes,
            before,
            after,
        })
    }
}

impl Batches for Layers {
    fn hasher(&self) -> &DefaultHasher {
        &self.hasher
    }

    fn insert(&mut self, hashes: Vec<u64>) -> impl Op<Output = Vec<bool>, Error = BatchError> {
        Insert::new(self, hashes, false)
    }

    fn lookup(&mut self, hashes: Vec<u64>) -> impl Op<Output = Vec<bool>, Error = Error> {
        Lookup {
            pending: (0..hashes.len()).collect(),
            answers: vec![None; hashes.len()],
            layers: self,
            hashes,
            read: None,
            error: None,
        }
    }
}

impl Layers {
    /// Inserts `items` by one script each, which checks every layer and
    /// adds the item in the server: how many were added. The path an
    /// insert batch falls back to when other writers keep changing the
    /// blocks it writes.
    pub(crate) fn insert_one_by_one<Q: Hash>(
        &mut self,
        items: &[Q],
    ) -> impl Op<Output = usize, Error = BatchError> {
        let hashes = self.hashes(items);
        ops::then(Insert::new(self, hashes, true), ops::new_count)
    }
}

/// Looks up a batch: every layer's block of each item, read plainly; again
/// for the items not found when a layer opened meanwhile.
struct Lookup<'a> {
    layers: &'a mut Layers,
    hashes: Vec<u64>,
    pending: Vec<usize>,
    read: Option<Read>,
    answers: Vec<Option<bool>>,
    error: Option<Error>,
}

impl Op for Lookup<'_> {
    type Output = Vec<bool>;
    type Error = Error;

    fn commands(&mut self) -> Vec<Cmd> {
        if self.error.is_some() || self.pending.is_empty() {
            return Vec::new();
        }
        let items = std::mem::take(&mut self.pending);
        match self.layers.read(&self.hashes, items) {
            Ok((cmds, read)) => {
                self.read = Some(read);
                cmds
            }
            Err(e) => {
                self.error = Some(e);
                Vec::new()
            }
        }
    }

    fn absorb(&mut self, replies: Replies) -> Result<(), Error> {
        let Some(read) = self.read.take() else {
            return Ok(());
        };
        let found = self.layers.found(&read, replies)?;
        let grew = found.after.layers > read.layers;
        let per = read.layers as usize;
        for (n, &i) in read.items.iter().enumerate() {
            let mut present = false;
            for j in 0..per {
                let table = self.layers.table(j as u32)?;
                let cell = n * per + j;
                let block = found.block(&read, cell, table.block_bytes());
                present |= table.all_set(&read.at[cell], block);
            }
            if present || !grew {
                self.answers[i] = Some(present);
            } else {
                self.pending.push(i);
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<Vec<bool>, Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        Ok(self.answers.into_iter().map(|a| a == Some(true)).collect())
    }
}
