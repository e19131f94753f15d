//! Creating, opening and importing a cuckoo filter: the [`CuckooSetup`]
//! operation.

use redis::{Cmd, Value, cmd};

use super::{Cuckoo, CuckooMeta, Geometry, corrupt};
use crate::conn::{Op, Replies};
use crate::error::Error;
use crate::layout::{self, GUARD, Keys};
use crate::ops::{self, Stage, evalsha, single};
use crate::scripts;

/// How a [`CuckooSetup`] starts.
#[derive(Debug)]
pub(super) enum Start {
    /// Open a filter of this item type, of at most this many bytes.
    Open(String, u64),
    /// Create unless it exists; whether the key was the caller's choice.
    Create(CuckooMeta, bool),
    /// Create with these shard bytes (guards included) holding this many
    /// fingerprints; refuse if it exists.
    Import(CuckooMeta, Vec<Vec<u8>>, u64),
}

/// Creates or opens a cuckoo filter: the metadata (atomically, by the
/// shared `CREATE` script), then, while it is not marked ready, every
/// shard at its full length with its guard (or its imported bytes), then
/// the mark.
pub(super) struct CuckooSetup {
    pub(super) keys: Keys,
    pub(super) start: Start,
    pub(super) stage: Stage,
    pub(super) found: Option<(CuckooMeta, Geometry)>,
}

impl Op for CuckooSetup {
    type Output = Cuckoo;
    type Error = Error;

    fn commands(&mut self) -> Vec<Cmd> {
        let meta = self.keys.meta();
        match self.stage {
            Stage::Meta => match &self.start {
                Start::Open(..) => vec![cmd("HGETALL").arg(&meta).take()],
                Start::Create(wanted, _) | Start::Import(wanted, _, _) => {
                    let count = match &self.start {
                        Start::Import(_, _, count) => *count,
                        _ => 0,
                    };
                    let fields: Vec<String> = wanted
                        .fields(count)
                        .into_iter()
                        .flat_map(|(k, v)| [k.to_owned(), v])
                        .collect();
                    vec![evalsha(&scripts::CREATE, &[meta], fields)]
                }
            },
            Stage::Shards => {
                let Some((_, g)) = &self.found else {
                    return Vec::new();
                };
                (0..g.shards())
                    .map(|s| match &self.start {
                        Start::Import(_, bytes, _) => cmd("SET")
                            .arg(self.keys.shard(s))
                            .arg(bytes.get(s as usize).map_or(&[][..], Vec::as_slice))
                            .take(),
                        _ => cmd("SETRANGE")
                            .arg(self.keys.shard(s))
                            .arg(g.body_bytes(s))
                            .arg(&[GUARD][..])
                            .take(),
                    })
                    .collect()
            }
            Stage::Ready => vec![cmd("HSET").arg(&meta).arg("ready").arg(1).take()],
            Stage::Done => Vec::new(),
        }
    }

    fn absorb(&mut self, replies: Replies) -> Result<(), Error> {
        let meta_key = self.keys.meta();
        let name = || self.keys.name().to_owned();
        match self.stage {
            Stage::Meta => {
                let reply = single(replies)?;
                let (created, hash) = match &self.start {
                    Start::Open(..) => (false, ops::read_hash(&meta_key, &reply)?),
                    _ => {
                        layout::check(&meta_key, &reply)?;
                        match &reply {
                            Value::Array(v) if v.len() == 2 => {
                                (v[0] == Value::Int(1), ops::read_hash(&meta_key, &v[1])?)
                            }
                            _ => return Err(layout::unexpected(&meta_key, &reply)),
                        }
                    }
                };
                let hash = hash.ok_or_else(|| Error::NotFound { name: name() })?;
                let (found, state) = CuckooMeta::parse(&self.keys, &hash)?;
                let geometry = found
                    .geometry()
                    .map_err(|e| corrupt(&meta_key, "max_shard_bytes", None, e.to_string()))?;
                match &self.start {
                    Start::Create(wanted, key_given) => {
                        if let Some((field, existing, requested)) =
                            found.differs(wanted, *key_given)
                        {
                            return Err(Error::Mismatch {
                                name: name(),
                                field,
                                existing,
                                requested,
                            });
                        }
                    }
                    Start::Import(..) if !created => return Err(Error::Exists { name: name() }),
                    Start::Open(item, _) if *item != found.item => {
                        return Err(Error::Mismatch {
                            name: name(),
                            field: "item",
                            existing: found.item.clone(),
                            requested: item.clone(),
                        });
                    }
                    Start::Open(_, limit) if geometry.bytes() > *limit => {
                        return Err(Error::OverLimit {
                            name: name(),
                            bytes: geometry.bytes(),
                            limit: *limit,
                        });
                    }
                    Start::Open(..) if !state.ready => {
                        return Err(Error::Incomplete { name: name() });
                    }
                    _ => {}
                }
                self.stage = if state.ready {
                    Stage::Done
                } else {
                    Stage::Shards
                };
                self.found = Some((found, geometry));
            }
            Stage::Shards => {
                let values = replies.map_err(|f| Error::from_redis(f.error))?;
                for (s, v) in values.iter().enumerate() {
                    layout::check(&self.keys.shard(s as u64), v)?;
                }
                self.stage = Stage::Ready;
            }
            Stage::Ready => {
                layout::check(&meta_key, &single(replies)?)?;
                self.stage = Stage::Done;
            }
            Stage::Done => {}
        }
        Ok(())
    }

    fn finish(self) -> Result<Cuckoo, Error> {
        let (meta, geometry) = self.found.ok_or(Error::NotFound {
            name: self.keys.name().to_owned(),
        })?;
        Ok(Cuckoo {
            hasher: meta.hasher(),
            keys: self.keys,
            meta,
            geometry,
        })
    }
}
