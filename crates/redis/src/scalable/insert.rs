//! [`Insert`]: a batch placed in the layers and written, or added one
//! script per item.

use std::collections::BTreeMap;

use redis::{Cmd, Value};

use super::{Found, Layers, Read, WRITE_ATTEMPTS};
use crate::conn::{Failed, Op, Replies};
use crate::error::{BatchError, Error};
use crate::layout::{self, Cell};
use crate::meta::MAX_COUNT;
use crate::ops::{evalsha, single};
use crate::scripts;

/// Where an [`Insert`] is.
enum Stage {
    /// Reading the pending items' blocks and the counts.
    Read(Option<Read>),
    /// Writing a plan made on what was read.
    Write(Option<Plan>),
    /// Opening layer `known` (the active one is full).
    Open,
    /// Adding the pending items one script each: the items sent, and each
    /// one's keys.
    EachItem(Vec<(usize, Vec<String>)>),
    /// Finished, or stopped by an error.
    Done,
}

/// A batch's items placed in the layers as read: the blocks they change,
/// and the answers, kept only once the write lands.
struct Plan {
    /// The items placed, in batch order, with their answers.
    placed: Vec<(usize, bool)>,
    /// The write's keys.
    keys: Vec<String>,
    /// The write, until sent.
    cmd: Option<Cmd>,
}

/// Inserts a batch, the way a batch of in-memory inserts would go: each
/// item added to the active layer unless a layer (or an earlier item of
/// the batch) already holds it, the next layer opened when the active one
/// is full. One round trip reads every item's block in every layer and the
/// counts; the client places the items; one script writes the changed
/// blocks if the counts have not moved meanwhile (another writer's insert
/// moves them), so that concurrent writers never overfill a layer. Moved:
/// read and place again; after [`WRITE_ATTEMPTS`] such rounds, the rest go
/// one script each.
pub(crate) struct Insert<'a> {
    layers: &'a mut Layers,
    hashes: Vec<u64>,
    pending: Vec<usize>,
    stage: Stage,
    attempts: u32,
    answers: Vec<Option<bool>>,
    /// Items whose write was sent but not answered.
    unknown: Vec<usize>,
    error: Option<Error>,
}

impl<'a> Insert<'a> {
    /// The insert of the items of `hashes`; `each`: one script per item
    /// from the start, as after [`WRITE_ATTEMPTS`] moved states.
    pub(crate) fn new(layers: &'a mut Layers, hashes: Vec<u64>, each: bool) -> Self {
        let n = hashes.len();
        Self {
            layers,
            hashes,
            pending: (0..n).collect(),
            stage: if each {
                Stage::EachItem(Vec::new())
            } else {
                Stage::Read(None)
            },
            attempts: if each { WRITE_ATTEMPTS } else { 0 },
            answers: vec![None; n],
            unknown: Vec::new(),
            error: None,
        }
    }

    /// Places the pending items on what `read` found, in batch order, until
    /// the active layer is full; the plan's write, or `None` when the first
    /// pending item needs a new layer.
    fn place(&mut self, read: &Read, found: &Found) -> Result<Option<Plan>, Error> {
        let per = read.layers as usize;
        let active = read.layers - 1;
        let table = self.layers.table(active)?;
        let bb = table.block_bytes();
        let capacity = self.layers.capacity(active)?;
        let count = found.before.count;
        // The active layer's reads the batch changes: their bytes with the
        // batch's bits, and the batch's bits alone.
        let mut changed: BTreeMap<usize, (Vec<u8>, Vec<u8>)> = BTreeMap::new();
        let mut placed = Vec::new();
        let mut added = 0;
        for (n, &i) in read.items.iter().enumerate() {
            let mut present = false;
            for j in 0..per {
                let cell = n * per + j;
                let t = self.layers.table(j as u32)?;
                let (r, off) = read.cells[cell];
                let block = match changed.get(&r) {
                    Some((bytes, _)) => &bytes[off..off + bb as usize],
                    None => found.block(read, cell, t.block_bytes()),
                };
                present |= t.all_set(&read.at[cell], block);
            }
            if !present {
                if count + added >= capacity {
                    break;
                }
                let cell = n * per + per - 1;
                let (r, off) = read.cells[cell];
                let (bytes, mask) = changed
                    .entry(r)
                    .or_insert_with(|| (found.bytes[r].clone(), vec![0; found.bytes[r].len()]));
                for &p in &read.at[cell].positions {
                    bytes[off + (p / 8) as usize] |= 1 << (p % 8);
                    mask[off + (p / 8) as usize] |= 1 << (p % 8);
                }
                added += 1;
            }
            placed.push((i, !present));
        }
        if placed.is_empty() {
            return Ok(None);
        }
        if found.before.inserts > MAX_COUNT - placed.len() as u64 {
            let why = "at the largest count Redis increments";
            return Err(self.layers.corrupt("inserts", found.before.inserts, why));
        }
        let shards = self.layers.shards(active);
        let mut keys = vec![self.layers.keys.meta(), self.layers.keys.scratch()];
        let mut args: Vec<Vec<u8>> = vec![
            found.before.text[0].clone().into(),
            added.to_string().into(),
            placed.len().to_string().into(),
            capacity.to_string().into(),
        ];
        // Per shard: its guard, then its changed reads: a span as a mask to
        // OR in, a block as its bytes before and after.
        let mut by_shard: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        for &r in changed.keys() {
            by_shard.entry(read.reads[r].shard).or_default().push(r);
        }
        for (s, writes) in by_shard {
            keys.push(shards.key(s));
            args.push(keys.len().to_string().into());
            args.push((table.guard_offset(s) / 8).to_string().into());
            args.push(writes.len().to_string().into());
            for r in writes {
                let (bytes, mask) = changed.remove(&r).unwrap_or_default();
                let range = read.reads[r];
                let offset = (range.first * bb).to_string().into();
                if range.dense {
                    args.extend([b"O".to_vec(), offset, mask]);
                } else {
                    args.extend([b"C".to_vec(), offset, found.bytes[r].clone(), bytes]);
                }
            }
        }
        let cmd = evalsha(&scripts::SCALABLE_WRITE, &keys, args);
        Ok(Some(Plan {
            placed,
            keys,
            cmd: Some(cmd),
        }))
    }

    /// The script that opens layer `known`, with every shard's guard.
    fn open_cmd(&mut self) -> Result<(Vec<String>, Cmd), Error> {
        let layer = self.layers.known;
        let table = self.layers.table(layer)?;
        let capacity = self.layers.capacity(layer - 1)?;
        let shards = self.layers.shards(layer);
        let mut keys = vec![self.layers.keys.meta()];
        keys.extend((0..table.shards()).map(|s| shards.key(s)));
        let mut args = vec![u64::from(layer), capacity];
        args.extend((0..table.shards()).map(|s| table.guard_offset(s)));
        let cmd = evalsha(&scripts::SCALABLE_OPEN, &keys, args);
        Ok((keys, cmd))
    }

    /// The one-item script's keys and call for the item of hash `hash`.
    fn each_cmd(&mut self, hash: u64) -> Result<(Vec<String>, Cmd), Error> {
        let layers = self.layers.known;
        let mut keys = vec![self.layers.keys.meta()];
        let mut args: Vec<u64> = vec![u64::from(layers), self.layers.capacity(layers - 1)?];
        for j in 0..layers {
            let table = self.layers.table(j)?;
            let at = table.locate(hash);
            keys.push(self.layers.shards(j).key(at.shard));
            args.push(table.guard_offset(at.shard) / 8);
            args.push(at.positions.len() as u64);
            args.extend(at.cells(Cell::Bit));
        }
        let cmd = evalsha(&scripts::SCALABLE_INSERT, &keys, args);
        Ok((keys, cmd))
    }

    fn stop(&mut self, e: Error) {
        self.error.get_or_insert(e);
        self.stage = Stage::Done;
    }
}

impl Op for Insert<'_> {
    type Output = Vec<bool>;
    type Error = BatchError;

    fn commands(&mut self) -> Vec<Cmd> {
        let made = match &mut self.stage {
            Stage::Done => return Vec::new(),
            _ if self.pending.is_empty() => {
                self.stage = Stage::Done;
                return Vec::new();
            }
            Stage::Read(_) => {
                let items = self.pending.clone();
                self.layers.read(&self.hashes, items).map(|(cmds, read)| {
                    self.stage = Stage::Read(Some(read));
                    cmds
                })
            }
            Stage::Write(plan) => Ok(plan
                .as_mut()
                .and_then(|p| p.cmd.take())
                .into_iter()
                .collect()),
            Stage::Open => self.open_cmd().map(|(_, c)| vec![c]),
            Stage::EachItem(_) => {
                let mut sent = Vec::with_capacity(self.pending.len());
                let mut cmds = Vec::with_capacity(self.pending.len());
                let mut made = Ok(());
                for i in self.pending.clone() {
                    match self.each_cmd(self.hashes[i]) {
                        Ok((keys, c)) => {
                            sent.push((i, keys));
                            cmds.push(c);
                        }
                        Err(e) => {
                            made = Err(e);
                            break;
                        }
                    }
                }
                self.stage = Stage::EachItem(sent);
                made.map(|()| cmds)
            }
        };
        made.unwrap_or_else(|e| {
            self.stop(e);
            Vec::new()
        })
    }

    fn absorb(&mut self, replies: Replies) -> Result<(), BatchError> {
        let stage = std::mem::replace(&mut self.stage, Stage::Done);
        let outcome = match stage {
            Stage::Read(Some(read)) => self.absorb_read(&read, replies),
            Stage::Write(Some(plan)) => self.absorb_write(plan, replies),
            Stage::Open => self.absorb_open(replies),
            Stage::EachItem(sent) => self.absorb_each(&sent, replies),
            Stage::Read(None) | Stage::Write(None) | Stage::Done => Ok(()),
        };
        if let Err(e) = outcome {
            self.stop(e);
        }
        Ok(())
    }

    fn finish(self) -> Result<Vec<bool>, BatchError> {
        match self.error {
            None if self.answers.iter().all(Option::is_some) => {
                Ok(self.answers.into_iter().map(|a| a == Some(true)).collect())
            }
            error => Err(BatchError {
                stored: (0..self.answers.len())
                    .filter(|&i| self.answers[i].is_some())
                    .collect(),
                unknown: self.unknown,
                source: Box::new(error.unwrap_or_else(|| {
                    layout::unexpected(self.layers.keys.meta().as_str(), &Value::Nil)
                })),
            }),
        }
    }
}

impl Insert<'_> {
    fn absorb_read(&mut self, read: &Read, replies: Replies) -> Result<(), Error> {
        let found = self.layers.found(read, replies)?;
        if found.before.layers > read.layers {
            // Another writer opened a layer: read the new one too.
            self.stage = Stage::Read(None);
            return Ok(());
        }
        self.stage = match self.place(read, &found)? {
            Some(plan) => Stage::Write(Some(plan)),
            None => Stage::Open,
        };
        Ok(())
    }

    fn absorb_write(&mut self, plan: Plan, replies: Replies) -> Result<(), Error> {
        let reply = match replies {
            Ok(mut v) if v.len() == 1 => v.remove(0),
            Ok(v) => return Err(layout::unexpected(&plan.keys[0], &Value::Array(v))),
            Err(f) => {
                // The write may or may not have landed.
                self.unknown.extend(plan.placed.iter().map(|&(i, _)| i));
                return Err(Error::from_redis(f.error));
            }
        };
        layout::script_error(&plan.keys, &reply)?;
        match reply {
            Value::Int(1) => {
                for &(i, new) in &plan.placed {
                    self.answers[i] = Some(new);
                }
                let done = plan.placed.len();
                self.pending.drain(..done);
                self.stage = Stage::Read(None);
            }
            Value::Int(0) => {
                self.attempts += 1;
                self.stage = if self.attempts >= WRITE_ATTEMPTS {
                    Stage::EachItem(Vec::new())
                } else {
                    Stage::Read(None)
                };
            }
            other => return Err(layout::unexpected(&plan.keys[0], &other)),
        }
        Ok(())
    }

    fn absorb_open(&mut self, replies: Replies) -> Result<(), Error> {
        let (keys, _) = self.open_cmd()?;
        let reply = single(replies)?;
        layout::script_error(&keys, &reply)?;
        match reply {
            Value::Int(n) => self.layers.saw(n)?,
            other => return Err(layout::unexpected(&keys[0], &other)),
        }
        self.stage = if self.attempts >= WRITE_ATTEMPTS {
            Stage::EachItem(Vec::new())
        } else {
            Stage::Read(None)
        };
        Ok(())
    }

    fn absorb_each(
        &mut self,
        sent: &[(usize, Vec<String>)],
        replies: Replies,
    ) -> Result<(), Error> {
        let meta = self.layers.keys.meta();
        let (values, lost) = match replies {
            Ok(v) => (v, None),
            Err(Failed { replies, error }) => (replies, Some(Error::from_redis(error))),
        };
        let mut again = Vec::new();
        let mut open = false;
        for ((i, keys), v) in sent.iter().zip(&values) {
            let i = *i;
            layout::script_error(keys, v)?;
            match *layout::int_array(&meta, v)?.as_slice() {
                [status @ (0 | 1), layers] => {
                    self.layers.saw(layers)?;
                    self.answers[i] = Some(status == 1);
                }
                [code @ (-1 | -2), layers] => {
                    self.layers.saw(layers)?;
                    open |= code == -2;
                    again.push(i);
                }
                _ => return Err(layout::unexpected(&meta, v)),
            }
        }
        if let Some(e) = lost {
            self.unknown
                .extend(sent[values.len()..].iter().map(|(i, _)| *i));
            return Err(e);
        }
        self.pending = again;
        self.stage = if open {
            Stage::Open
        } else {
            Stage::EachItem(Vec::new())
        };
        Ok(())
    }
}
