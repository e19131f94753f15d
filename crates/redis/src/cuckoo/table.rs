//! [`CuckooTable`]: what a handle knows of a cuckoo filter, and the operations
//! on it as [`Op`]s.

use std::fmt;
use std::hash::Hash;
use std::ops::Range;

use bloomlab_core::hash::mix64;
use bloomlab_core::theory::cuckoo as theory;
use bloomlab_core::{DefaultHasher, ParamError};
use bloomlab_cuckoo::CuckooFilter;
use redis::{Cmd, Script, Value, cmd};

use super::{
    CHUNK, CuckooMeta, Geometry, INSERT, READ, REMOVE, SHARD_MISSING, SHARD_WRONGTYPE, STALE_META,
};
use crate::admin::Info;
use crate::conn::{Failed, Op, Replies};
use crate::error::{BatchError, Error};
use crate::layout::{self, Keys};
use crate::meta::{self, Kind, item_name};
use crate::ops::{self, Batches, Guarded, OneRound, Start, evalsha, single};
use crate::scripts;
use crate::table::Options;
use crate::variant::{Counted, Cuckoo, Inner, Portable, Removes, Variant};

/// One cuckoo filter in Redis, as a handle knows it; its operations are
/// [`Op`]s, run by the blocking and the async types alike.
#[derive(Debug, Clone)]
pub struct CuckooTable {
    pub(super) keys: Keys,
    pub(super) meta: CuckooMeta,
    pub(super) geometry: Geometry,
    pub(super) hasher: DefaultHasher,
}

impl CuckooTable {
    /// The `EVALSHA` of `script` on the items of `hashes`, after the
    /// geometry and `extra` arguments.
    fn call(&self, script: &Script, hashes: &[u64], extra: Option<u64>, seeds: bool) -> Cmd {
        let g = &self.geometry;
        let mut args: Vec<u64> = vec![
            g.buckets,
            u64::from(g.bucket_size),
            u64::from(g.fingerprint_bits),
            g.shard_buckets,
            self.meta.max_shard_bytes,
            u64::from(self.meta.max_relocations),
        ];
        args.extend(extra);
        for &h in hashes {
            let (fp, i1, i2) = g.locate(h);
            args.extend([fp, i1, i2]);
            if seeds {
                // Park–Miller's state: 1 ..= 2^31 − 2.
                args.push(1 + mix64(h) % 2_147_483_646);
            }
        }
        evalsha(script, &[self.keys.meta()], args)
    }

    /// A script's reply as integers, its errors typed: a shard by its key,
    /// stale metadata as corrupt.
    fn script_error(keys: &Keys, e: &redis::ServerError) -> Error {
        let detail = e.details().unwrap_or("");
        let shard = || layout::marked_index::<u64>(detail).map(|s| keys.shard(s));
        match (e.code(), shard()) {
            (SHARD_MISSING, Some(key)) => Error::ShardMissing { key },
            (SHARD_WRONGTYPE, Some(key)) => Error::WrongType { key },
            (STALE_META, _) => {
                let what = detail.split(" script:").next().unwrap_or(detail);
                let field = [
                    "count",
                    "state",
                    "buckets",
                    "bucket_size",
                    "fingerprint_bits",
                ]
                .into_iter()
                .find(|f| what.starts_with(&format!("{f} ")))
                .unwrap_or("max_shard_bytes");
                corrupt(&keys.meta(), field, None, what)
            }
            (code, _) if code == scripts::META_MISSING => Error::NotFound {
                name: keys.name().to_owned(),
            },
            _ => layout::server_error(&keys.meta(), e),
        }
    }

    /// The elements of a script's array reply: integers, or the error that
    /// stopped it (then the last).
    fn codes(keys: &Keys, reply: &Value) -> Result<(Vec<i64>, Option<Error>), Error> {
        let items = match reply {
            Value::ServerError(e) => return Err(Self::script_error(keys, e)),
            Value::Array(items) => items,
            _ => return Err(layout::unexpected(&keys.meta(), reply)),
        };
        let mut codes = Vec::with_capacity(items.len());
        for v in items {
            match v {
                Value::Int(c) => codes.push(*c),
                Value::ServerError(e) => return Ok((codes, Some(Self::script_error(keys, e)))),
                _ => return Err(layout::unexpected(&keys.meta(), reply)),
            }
        }
        Ok((codes, None))
    }

    /// Counts the stored fingerprints matching each item of `hashes`.
    pub(crate) fn counts(
        &self,
        hashes: &[u64],
    ) -> impl Op<Output = Vec<u32>, Error = Error> + use<> {
        let cmds: Vec<Cmd> = hashes
            .chunks(CHUNK)
            .map(|c| self.call(&READ, c, None, false))
            .collect();
        let (keys, n) = (self.keys.clone(), hashes.len());
        OneRound::new(cmds, move |replies: Replies| {
            let values = replies.map_err(|f| Error::from_redis(f.error))?;
            let mut out = Vec::with_capacity(n);
            for v in &values {
                let (codes, error) = Self::codes(&keys, v)?;
                if let Some(e) = error {
                    return Err(e);
                }
                out.extend(
                    codes
                        .into_iter()
                        .map(|c| c.clamp(0, i64::from(u32::MAX)) as u32),
                );
            }
            if out.len() != n {
                return Err(layout::unexpected(&keys.meta(), &Value::Array(values)));
            }
            Ok(out)
        })
    }

    /// Stores the items of `hashes` (only those not reported present when
    /// `unique`); the answers say which were not reported present before
    /// and were stored.
    pub(crate) fn inserts(
        &self,
        hashes: &[u64],
        unique: bool,
    ) -> impl Op<Output = Vec<bool>, Error = BatchError> + use<> {
        let ranges: Vec<Range<usize>> = (0..hashes.len())
            .step_by(CHUNK)
            .map(|s| s..(s + CHUNK).min(hashes.len()))
            .collect();
        let cmds: Vec<Cmd> = ranges
            .iter()
            .map(|r| self.call(&INSERT, &hashes[r.clone()], Some(u64::from(unique)), true))
            .collect();
        let (keys, n) = (self.keys.clone(), hashes.len());
        OneRound::new(cmds, move |replies: Replies| {
            let (values, lost) = match replies {
                Ok(v) => (v, None),
                Err(Failed { replies, error }) => (replies, Some(Error::from_redis(error))),
            };
            let mut answers: Vec<Option<bool>> = vec![None; n];
            let (mut error, mut unknown) = (lost, Vec::new());
            for (k, range) in ranges.into_iter().enumerate() {
                let Some(v) = values.get(k) else {
                    unknown.extend(range);
                    continue;
                };
                match Self::codes(&keys, v) {
                    Ok((codes, stopped)) if codes.len() <= range.len() => {
                        for (i, c) in range.zip(codes) {
                            match c {
                                1 => answers[i] = Some(true),
                                0 | 2 => answers[i] = Some(false),
                                -1 => {
                                    error.get_or_insert(Error::Full);
                                }
                                _ => {
                                    error.get_or_insert(layout::unexpected(&keys.meta(), v));
                                }
                            }
                        }
                        if let Some(e) = stopped {
                            error.get_or_insert(e);
                        }
                    }
                    Ok(_) => {
                        error.get_or_insert(layout::unexpected(&keys.meta(), v));
                        unknown.extend(range);
                    }
                    Err(e) => {
                        error.get_or_insert(e);
                    }
                }
            }
            match error {
                None => Ok(answers.into_iter().map(Option::unwrap_or_default).collect()),
                Some(source) => Err(BatchError {
                    stored: (0..n).filter(|&i| answers[i].is_some()).collect(),
                    unknown,
                    source: Box::new(source),
                }),
            }
        })
    }

    /// Stores `item` only if it is not reported present (`CF.ADDNX`):
    /// whether it was stored.
    pub(crate) fn insert_unique<Q: Hash + ?Sized>(
        &self,
        item: &Q,
    ) -> impl Op<Output = bool, Error = Error> + use<Q> {
        ops::one(self.inserts(&[self.hash(item)], true))
    }

    /// How many stored fingerprints match `item`.
    pub(crate) fn count<Q: Hash + ?Sized>(
        &self,
        item: &Q,
    ) -> impl Op<Output = usize, Error = Error> + use<Q> {
        ops::then(self.counts(&[self.hash(item)]), |counts| {
            Ok(counts.first().copied().unwrap_or(0) as usize)
        })
    }

    /// The rate theory gives the table holding `len` fingerprints.
    pub(crate) fn fpr_at(&self, len: u64) -> f64 {
        let capacity = self.capacity() as f64;
        theory::fpr(
            self.geometry.fingerprint_bits,
            self.geometry.bucket_size,
            len as f64 / capacity,
        )
    }

    pub(crate) fn capacity(&self) -> u64 {
        self.geometry.buckets * u64::from(self.geometry.bucket_size)
    }
}

/// The one place this module builds [`Error::CorruptMetadata`]: `field` of
/// the metadata hash `key`, whose stored text is `value` (if known), is
/// wrong for `reason`. (The crate's metadata errors are being reworked to
/// carry the field and value apart; only this function then changes.)
pub(super) fn corrupt(
    key: &str,
    field: &'static str,
    value: Option<&str>,
    reason: impl Into<String>,
) -> Error {
    Error::CorruptMetadata {
        key: key.to_owned(),
        field,
        value: value.map(|v| v.chars().take(64).collect()),
        reason: reason.into(),
    }
}

/// An allocation the allocator refused, as the crate reports sizes past
/// what the machine holds.
pub(super) fn too_large_u128(bytes: u128) -> Error {
    ParamError::TooLarge {
        needed: bytes,
        limit: isize::MAX as u128,
    }
    .into()
}

impl Batches for CuckooTable {
    fn hasher(&self) -> &DefaultHasher {
        &self.hasher
    }

    fn insert(&mut self, hashes: Vec<u64>) -> impl Op<Output = Vec<bool>, Error = BatchError> {
        self.inserts(&hashes, false)
    }

    fn lookup(&mut self, hashes: Vec<u64>) -> impl Op<Output = Vec<bool>, Error = Error> {
        ops::then(self.counts(&hashes), |counts| {
            Ok(counts.iter().map(|&c| c > 0).collect())
        })
    }
}

/// The cuckoo filter: its keys under the hash tag `{name}`.
impl Variant for Cuckoo {
    type Inner = CuckooTable;
    type Meta = CuckooMeta;
    type Options = Options;
    const NAME: &'static str = "RedisCuckooFilter";

    /// Sized as `CuckooFilter::new(items, fpr)`.
    fn plan(
        item: String,
        items: usize,
        fpr: f64,
        options: &Options,
    ) -> Result<(CuckooMeta, u64), Error> {
        let wanted = CuckooMeta::planned(items, fpr, options, item)?;
        let bytes = wanted.geometry()?.bytes();
        Ok((wanted, bytes))
    }

    fn table_options(options: &Options) -> &Options {
        options
    }

    fn keys(name: &str) -> Result<Keys, Error> {
        Keys::tagged(name)
    }

    fn from_meta(
        keys: Keys,
        meta: CuckooMeta,
        item: &str,
        max_bytes: u64,
    ) -> Result<CuckooTable, Error> {
        let geometry = meta
            .geometry()
            .map_err(|e| corrupt(&keys.meta(), "max_shard_bytes", None, e.to_string()))?;
        meta::same(keys.name(), "item", meta.item.clone(), item.to_owned())?;
        meta::fits(keys.name(), geometry.bytes(), max_bytes)?;
        Ok(CuckooTable {
            hasher: meta.hasher(),
            keys,
            meta,
            geometry,
        })
    }
}

/// The cuckoo filter, to and from a plain [`CuckooFilter`].
impl Portable for Cuckoo {
    type Memory<T: ?Sized> = CuckooFilter<T>;

    fn image<T: ?Sized>(
        filter: &CuckooFilter<T>,
        max_shard_bytes: usize,
    ) -> Result<Start<CuckooMeta>, Error> {
        if filter.is_semi_sorted() {
            return Err(Error::CuckooLayout(
                "its buckets are semi-sorted; Redis keeps plain buckets \
                 (build it with .semi_sorted(false))",
            ));
        }
        if filter.has_xor_map() {
            return Err(Error::CuckooLayout(
                "it uses the first format's XOR alternate-bucket map, which Redis \
                 filters do not use",
            ));
        }
        let meta = CuckooMeta {
            item: item_name::<T>(),
            buckets: filter.num_buckets(),
            bucket_size: filter.bucket_size(),
            fingerprint_bits: filter.fingerprint_bits(),
            max_relocations: filter.max_relocations(),
            max_shard_bytes: max_shard_bytes as u64,
            hash: filter.hasher().function(),
            key: filter.hasher().key(),
            design: None,
        };
        let g = meta.geometry()?;
        let shards = ops::shard_images(
            filter.table_words(),
            (0..g.shards()).map(|s| g.body_bytes(s)),
        )?;
        Ok(Start::Import(meta, shards, filter.len() as u64))
    }

    fn to_memory<T: ?Sized>(
        table: &CuckooTable,
        words: Vec<u64>,
    ) -> Result<CuckooFilter<T>, Error> {
        CuckooFilter::from_table_words(
            table.geometry.buckets,
            table.geometry.bucket_size,
            table.geometry.fingerprint_bits,
            &words,
            table.meta.max_relocations,
            table.hasher.clone(),
        )
        .map_err(|e| match e {
            bloomlab_core::DecodeError::OutOfMemory { bytes } => too_large_u128(bytes),
            e => corrupt(
                &table.keys.meta(),
                "buckets",
                None,
                format!("not the shape of the table in the shards: {e}"),
            ),
        })
    }
}

impl Removes for Cuckoo {
    /// One fingerprint of the item, by script (`CF.DEL`).
    fn remove(table: &mut CuckooTable, hash: u64) -> impl Op<Output = (), Error = Error> {
        let (fp, i1, i2) = table.geometry.locate(hash);
        let mut c = table.call(&REMOVE, &[], None, false);
        c.arg(fp).arg(i1).arg(i2);
        let keys = table.keys.clone();
        OneRound::new(vec![c], move |replies: Replies| match single(replies)? {
            Value::Int(1) => Ok(()),
            Value::Int(0) => Err(Error::NotPresent),
            Value::ServerError(e) => Err(CuckooTable::script_error(&keys, &e)),
            other => Err(layout::unexpected(&keys.meta(), &other)),
        })
    }
}

impl Counted for Cuckoo {
    /// Fingerprints stored, as the scripts counted them; the metadata is
    /// read and checked again.
    fn len(table: &mut CuckooTable) -> impl Op<Output = u64, Error = Error> {
        let keys = table.keys.clone();
        let meta = table.meta.clone();
        OneRound::new(
            vec![cmd("HGETALL").arg(keys.meta()).take()],
            move |r: Replies| {
                let hash = ops::read_hash(&keys.meta(), &single(r)?)?.ok_or(Error::NotFound {
                    name: keys.name().to_owned(),
                })?;
                let (now, state) = CuckooMeta::parse(&keys, &hash)?;
                if now != meta {
                    return Err(corrupt(
                        &keys.meta(),
                        "buckets",
                        None,
                        "changed: the metadata no longer describes the table this handle opened",
                    ));
                }
                Ok(state.count)
            },
        )
    }
}

impl Inner for CuckooTable {
    fn keys(&self) -> &Keys {
        &self.keys
    }

    fn parameters(&self, d: &mut fmt::DebugStruct<'_, '_>) {
        d.field("num_buckets", &self.geometry.buckets)
            .field("bucket_size", &self.geometry.bucket_size)
            .field("fingerprint_bits", &self.geometry.fingerprint_bits)
            .field("max_relocations", &self.meta.max_relocations)
            .field("shards", &self.geometry.shards());
    }

    /// The rate at the count the scripts keep ([`len`](crate::variant::Counted::len)).
    fn expected_fpr(&mut self) -> impl Op<Output = f64, Error = Error> {
        let this = self.clone();
        ops::then(Cuckoo::len(self), move |len| Ok(this.fpr_at(len)))
    }

    /// What the filter is and holds: its parameters and its count.
    fn info(&mut self) -> impl Op<Output = Info, Error = Error> {
        let this = self.clone();
        ops::then(Cuckoo::len(self), move |len| {
            Ok(Info {
                name: this.keys.name().to_owned(),
                kind: Kind::Cuckoo,
                item: this.meta.item.clone(),
                design: this.meta.design,
                capacity: Some(this.capacity()),
                bytes: this.geometry.bytes(),
                shards: this.geometry.shards(),
                layers: 1,
                growth_factor: None,
                len: Some(len),
                estimate_count: len as f64,
                expected_fpr: this.fpr_at(len),
            })
        })
    }
}

impl Guarded for CuckooTable {
    fn num_shards(&self) -> u64 {
        self.geometry.shards()
    }

    fn shard_key(&self, s: u64) -> String {
        self.keys.shard(s)
    }

    fn body_bytes(&self, s: u64) -> u64 {
        self.geometry.body_bytes(s)
    }
}
