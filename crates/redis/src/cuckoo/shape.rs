//! A cuckoo filter's shape: its geometry in shards, and the metadata
//! that describes it, written, read back and compared.

use std::collections::HashMap;

use bloomlab_core::hash::HashFunction;
use bloomlab_core::shards::Split;
use bloomlab_core::{DefaultHasher, ParamError};
use bloomlab_cuckoo::{
    BUCKET_SIZES, DEFAULT_MAX_RELOCATIONS, FINGERPRINT_BITS, MAX_BUCKETS, MAX_RELOCATIONS,
};

use super::{BUCKET_SIZE, KIND, MAX_SHARDS, PHI, corrupt};
use crate::error::Error;
use crate::layout::{Keys, REDIS_MAX_STRING};
use crate::meta::{self, FORMAT, MAX_ITEM_NAME, check_state, checksum, seal, state_sum};
use crate::ops::Stored;
use crate::table::{Options, check_design};

/// How the table is cut into shards, and where an item lives in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub(super) buckets: u64,
    pub(super) bucket_size: u32,
    pub(super) fingerprint_bits: u32,
    /// Buckets per shard, a multiple of 8 (the last shard may hold fewer).
    pub(super) shard_buckets: u64,
}

impl Geometry {
    /// The shards of at most `max_shard_bytes` bytes (guard included) of a
    /// table whose shape was checked: `b` in [`BUCKET_SIZES`], `f` in
    /// [`FINGERPRINT_BITS`], `1 ≤ buckets ≤ MAX_BUCKETS`.
    pub(super) fn new(buckets: u64, b: u32, f: u32, max_shard_bytes: u64) -> Result<Self, Error> {
        let bits = u64::from(b * f);
        // Eight buckets are a whole number of bytes, `bits` of them.
        let needed = bits + 1;
        if max_shard_bytes < needed {
            return Err(Error::ShardTooSmall {
                max_shard_bytes: usize::try_from(max_shard_bytes).unwrap_or(usize::MAX),
                needed: needed as usize,
            });
        }
        if max_shard_bytes > REDIS_MAX_STRING as u64 {
            return Err(ParamError::TooLarge {
                needed: u128::from(max_shard_bytes),
                limit: REDIS_MAX_STRING as u128,
            }
            .into());
        }
        // Cut in groups of eight buckets, `bits` bytes each: balanced, and
        // a whole number of bytes in every shard but the last.
        let Some(split) = Split::new(buckets.div_ceil(8), bits, max_shard_bytes) else {
            return Err(Error::ShardTooSmall {
                max_shard_bytes: usize::try_from(max_shard_bytes).unwrap_or(usize::MAX),
                needed: needed as usize,
            });
        };
        if split.shards > MAX_SHARDS {
            let per = (max_shard_bytes - 1) / bits * 8;
            return Err(ParamError::TooLarge {
                needed: (u128::from(buckets) * u128::from(bits)).div_ceil(8),
                limit: u128::from(MAX_SHARDS) * u128::from(per * bits / 8),
            }
            .into());
        }
        Ok(Self {
            buckets,
            bucket_size: b,
            fingerprint_bits: f,
            shard_buckets: split.units_per_shard * 8,
        })
    }

    pub(super) fn bucket_bits(&self) -> u64 {
        u64::from(self.bucket_size * self.fingerprint_bits)
    }

    pub(super) fn shards(&self) -> u64 {
        self.buckets.div_ceil(self.shard_buckets)
    }

    /// Bytes of shard `s` before its guard.
    pub(super) fn body_bytes(&self, s: u64) -> u64 {
        let n = self
            .shard_buckets
            .min(self.buckets - s * self.shard_buckets);
        (n * self.bucket_bits()).div_ceil(8)
    }

    /// Bytes the shards take in Redis, guards included.
    pub(crate) fn bytes(&self) -> u64 {
        (0..self.shards()).map(|s| self.body_bytes(s) + 1).sum()
    }

    /// Bytes of the whole table without padding or guards.
    pub(super) fn table_bytes(&self) -> u64 {
        (u128::from(self.buckets) * u128::from(self.bucket_bits())).div_ceil(8) as u64
    }

    /// `(fingerprint, first bucket, second bucket)` of the item of 64-bit
    /// hash `hash`, as the in-memory table derives them: the fingerprint from
    /// the lower 32 bits scaled onto `1 ..= 2^f − 1`, the first bucket from
    /// the upper 32 by multiply-shift, the second `(h(fp) − i1) mod m`.
    pub(super) fn locate(&self, hash: u64) -> (u64, u64, u64) {
        let values = (1u64 << self.fingerprint_bits) - 1;
        let fp = 1 + ((u64::from(hash as u32) * values) >> 32);
        let i1 = ((hash >> 32) * self.buckets) >> 32;
        (fp, i1, self.other(i1, fp))
    }

    /// The other bucket of fingerprint `fp` stored in bucket `i`.
    pub(super) fn other(&self, i: u64, fp: u64) -> u64 {
        let m = self.buckets;
        let (mul, shift, add) = if m.is_multiple_of(2) {
            (m / 2, 1, 1)
        } else {
            (m, 0, 0)
        };
        let x = fp.wrapping_mul(PHI);
        let spread = u64::from((x ^ (x >> 32)) as u32);
        let h = (((spread * mul) >> 32) << shift) + add;
        if h >= i { h - i } else { h + m - i }
    }
}

/// A cuckoo filter's parameters, as its metadata hash holds them.
#[derive(Debug, Clone, PartialEq)]
pub struct CuckooMeta {
    /// The item type ([`item_name`](crate::meta::item_name)).
    pub(super) item: String,
    pub(super) buckets: u64,
    pub(super) bucket_size: u32,
    pub(super) fingerprint_bits: u32,
    pub(super) max_relocations: u32,
    pub(super) max_shard_bytes: u64,
    pub(super) hash: HashFunction,
    pub(super) key: [u64; 2],
    /// The items and rate it was sized for; `None` for an imported table.
    pub(super) design: Option<(u64, f64)>,
}

/// What the metadata holds besides the parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CuckooState {
    pub(super) ready: bool,
    pub(super) count: u64,
}

/// The fields `create` writes once, which the checksum covers.
const FIXED: [&str; 12] = [
    "format",
    "kind",
    "item",
    "buckets",
    "bucket_size",
    "fingerprint_bits",
    "max_relocations",
    "max_shard_bytes",
    "hash",
    "key",
    "items",
    "fpr",
];

impl CuckooMeta {
    /// The metadata of a new filter for `items` at `fpr`, sized as
    /// [`CuckooFilter::new`](bloomlab_cuckoo::CuckooFilter::new) sizes it ([`bloomlab_cuckoo::plan`]).
    pub(super) fn planned(
        items: usize,
        fpr: f64,
        options: &Options,
        item: String,
    ) -> Result<Self, Error> {
        check_design(items, fpr)?;
        let plan = bloomlab_cuckoo::plan(items as u64, fpr, BUCKET_SIZE)?;
        if plan.needed_bits > *FINGERPRINT_BITS.end() {
            // The in-memory filter's `FprUnreachable`: no width of at most
            // 32 bits reaches the rate.
            return Err(ParamError::InvalidFpr(fpr).into());
        }
        if plan.buckets > MAX_BUCKETS {
            return Err(ParamError::TooLarge {
                needed: plan.table_bytes,
                limit: u128::from(MAX_BUCKETS) * u128::from(plan.bits_per_bucket) / 8,
            }
            .into());
        }
        let hasher = options.hasher();
        Ok(Self {
            item,
            buckets: plan.buckets,
            bucket_size: BUCKET_SIZE,
            fingerprint_bits: plan.fingerprint_bits,
            max_relocations: DEFAULT_MAX_RELOCATIONS,
            max_shard_bytes: options.get_max_shard_bytes() as u64,
            hash: hasher.function(),
            key: hasher.key(),
            design: Some((items as u64, fpr)),
        })
    }

    pub(super) fn geometry(&self) -> Result<Geometry, Error> {
        Geometry::new(
            self.buckets,
            self.bucket_size,
            self.fingerprint_bits,
            self.max_shard_bytes,
        )
    }

    pub(super) fn hasher(&self) -> DefaultHasher {
        DefaultHasher::with_function(self.hash, self.key)
    }

    /// The fields a new filter's metadata hash is written with (`ready`
    /// 0), holding `count` fingerprints. The one place they are written:
    /// see [`parse`](Self::parse) for the reading.
    pub(super) fn fields(&self, count: u64) -> Vec<(&'static str, String)> {
        let mut f = meta::described(
            KIND,
            &self.item,
            [
                ("buckets", self.buckets.to_string()),
                ("bucket_size", self.bucket_size.to_string()),
                ("fingerprint_bits", self.fingerprint_bits.to_string()),
                ("max_relocations", self.max_relocations.to_string()),
                ("max_shard_bytes", self.max_shard_bytes.to_string()),
            ],
            (self.hash, self.key),
            self.design,
        );
        seal(&mut f, &FIXED);
        let sum = f.last().map(|(_, v)| v.clone()).unwrap_or_default();
        let count = count.to_string();
        f.push(("state", state_sum(&[&count, &sum])));
        f.push(("count", count));
        f.push(("ready", "0".to_owned()));
        f
    }

    /// Reads and checks a metadata hash: every field against the bounds
    /// `create` enforces, so nothing sized from it is unchecked. A filter of
    /// another kind is [`Error::Mismatch`]; anything else out of bounds is
    /// [`Error::CorruptMetadata`].
    pub(super) fn parse(
        keys: &Keys,
        hash: &HashMap<String, String>,
    ) -> Result<(Self, CuckooState), Error> {
        let meta_key = keys.meta();
        let bad = |field: &'static str, reason: String| {
            corrupt(
                &meta_key,
                field,
                hash.get(field).map(String::as_str),
                reason,
            )
        };
        let get = |field: &'static str| {
            hash.get(field)
                .map(String::as_str)
                .ok_or_else(|| bad(field, "missing".to_owned()))
        };
        let num = |field: &'static str, range: std::ops::RangeInclusive<u64>| {
            let text = get(field)?;
            text.parse::<u64>()
                .ok()
                .filter(|v| range.contains(v) && v.to_string() == text)
                .ok_or_else(|| {
                    bad(
                        field,
                        format!("not a number in {}..={}", range.start(), range.end()),
                    )
                })
        };
        match get("kind")? {
            KIND => {}
            other @ ("bloom" | "counting" | "scalable") => {
                return Err(Error::Mismatch {
                    name: keys.name().to_owned(),
                    field: "kind",
                    existing: other.to_owned(),
                    requested: KIND.to_owned(),
                });
            }
            _ => return Err(bad("kind", "not a kind of filter".to_owned())),
        }
        if get("format")? != FORMAT {
            return Err(bad("format", format!("not {FORMAT:?}")));
        }
        let stored = get("checksum")?;
        if stored != checksum(&FIXED, |f| hash.get(f).cloned()) {
            return Err(bad(
                "checksum",
                "not the checksum of the fixed fields: one was edited or lost".to_owned(),
            ));
        }
        let item = get("item")?;
        if item.is_empty() || item.len() > MAX_ITEM_NAME {
            return Err(bad(
                "item",
                format!("empty or longer than {MAX_ITEM_NAME} bytes"),
            ));
        }
        let function = meta::hash_named(get("hash")?)
            .ok_or_else(|| bad("hash", "not a known hash function".to_owned()))?;
        let hex = get("key")?;
        if hex.len() != 32 {
            return Err(bad("key", "not 32 hex digits".to_owned()));
        }
        // A key of 32 characters that are not all hex digits is refused
        // after the other fixed fields, where it is used.
        let key = meta::key_words(hex);
        let buckets = num("buckets", 1..=MAX_BUCKETS)?;
        let b = num("bucket_size", 0..=8)? as u32;
        if !BUCKET_SIZES.contains(&b) {
            return Err(bad("bucket_size", format!("not one of {BUCKET_SIZES:?}")));
        }
        let fp_bits = FINGERPRINT_BITS;
        let f = num(
            "fingerprint_bits",
            u64::from(*fp_bits.start())..=u64::from(*fp_bits.end()),
        )? as u32;
        let max_relocations = num("max_relocations", 0..=u64::from(MAX_RELOCATIONS))? as u32;
        let smallest = u64::from(b * f) + 1;
        let max_shard_bytes = num("max_shard_bytes", smallest..=REDIS_MAX_STRING as u64)?;
        let count = num("count", 0..=buckets * u64::from(b))?;
        check_state(&meta_key, hash, &["count", "checksum"])?;
        let ready = num("ready", 0..=1)? == 1;
        let design = match (hash.get("items"), hash.get("fpr")) {
            (None, None) => None,
            (Some(_), Some(p)) => {
                let items = num("items", 1..=u64::MAX)?;
                let fpr = p
                    .parse::<f64>()
                    .ok()
                    .filter(|p| *p > 0.0 && *p < 1.0)
                    .ok_or_else(|| bad("fpr", "not in (0, 1)".to_owned()))?;
                Some((items, fpr))
            }
            (None, Some(_)) => return Err(bad("items", "missing beside fpr".to_owned())),
            (Some(_), None) => return Err(bad("fpr", "missing beside items".to_owned())),
        };
        // Checked here, so that a shard size read from Redis is never
        // reported as the caller's.
        Geometry::new(buckets, b, f, max_shard_bytes)
            .map_err(|e| bad("max_shard_bytes", e.to_string()))?;
        let meta = Self {
            item: item.to_owned(),
            buckets,
            bucket_size: b,
            fingerprint_bits: f,
            max_relocations,
            max_shard_bytes,
            hash: function,
            key: key.ok_or_else(|| bad("key", "not 32 hex digits".to_owned()))?,
            design,
        };
        Ok((meta, CuckooState { ready, count }))
    }

    /// The first parameter in which `self` (in Redis) differs from `wanted`,
    /// as (field, existing, requested); the hash function and key only when
    /// `key_given` (a random key adopts the existing one).
    pub(super) fn differs(
        &self,
        wanted: &Self,
        key_given: bool,
    ) -> Option<(&'static str, String, String)> {
        let design = |m: &Self| m.design.map(|(n, p)| format!("{n} items at {p}"));
        let field = |name: &'static str, get: fn(&Self) -> String| (name, get(self), get(wanted));
        let mut pairs = vec![
            field("item", |m| m.item.clone()),
            field("buckets", |m| m.buckets.to_string()),
            field("bucket_size", |m| m.bucket_size.to_string()),
            field("fingerprint_bits", |m| m.fingerprint_bits.to_string()),
            field("max_relocations", |m| m.max_relocations.to_string()),
            field("max_shard_bytes", |m| m.max_shard_bytes.to_string()),
        ];
        if let (Some(a), Some(b)) = (design(self), design(wanted)) {
            pairs.insert(0, ("design", a, b));
        }
        if key_given {
            pairs.push(field("hash", |m| m.hash.name().to_owned()));
            pairs.push(field("key", |m| format!("{:x?}", m.key)));
        }
        pairs.into_iter().find(|(_, a, b)| a != b)
    }
}

impl Stored for CuckooMeta {
    type State = CuckooState;

    fn written(&self, count: u64) -> Vec<(&'static str, String)> {
        self.fields(count)
    }

    fn read(keys: &Keys, hash: &HashMap<String, String>) -> Result<(Self, CuckooState), Error> {
        CuckooMeta::parse(keys, hash)
    }

    fn ready(state: &CuckooState) -> bool {
        state.ready
    }

    fn differs(&self, wanted: &Self, key_given: bool) -> Option<(&'static str, String, String)> {
        CuckooMeta::differs(self, wanted, key_given)
    }
}
