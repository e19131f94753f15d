//! [`RedisCuckooFilter`]: the in-memory [`CuckooFilter`]'s table, hashing
//! and answers, kept in Redis and changed by scripts.
//!
//! # Layout
//!
//! A filter `name` is a metadata hash `{name}:meta` and shard keys
//! `{name}:0`, `{name}:1`, … that all share the hash tag `{name}`, so that
//! one script can reach both buckets of an item, and every bucket a
//! relocation walks through, whatever shards they fall in. The filter
//! therefore lives on one Cluster node (one slot), as a scalable filter
//! does.
//!
//! The shards hold the in-memory table's bytes: the little-endian bytes of
//! [`CuckooFilter::table_words`], cut after a multiple of 8 buckets (so every
//! shard starts on a byte), each followed by the guard byte
//! [`GUARD`]. Bucket `i` is bits `i·b·f ..` of that stream,
//! slot `j` its bits `j·f .. (j+1)·f`, least significant bit first, so
//! [`export`](RedisCuckooFilter::export) and
//! [`import`](RedisCuckooFilter::import) are byte copies. Redis's `BITFIELD`
//! numbers bits from the most significant one, so the scripts read and write
//! slots with arithmetic on bytes instead.
//!
//! # Operations
//!
//! Every operation on items is one script (`EVALSHA`) per chunk of up to
//! [`CHUNK`] items, all chunks of a batch in one pipeline, so one round
//! trip. A script checks the metadata (it exists and still describes the
//! table this handle opened) and the guard of every shard before it reads
//! it, so a lost, truncated or retyped shard is an error, never an absent
//! answer. A lookup is a script too, not two plain reads: an insert by
//! another client may move a fingerprint from one of an item's buckets to
//! the other between two reads, and a script sees both buckets at one
//! instant.
//!
//! An insert that finds both buckets full walks as the in-memory filter
//! does (evict a random slot's fingerprint to its other bucket, at most
//! `max_relocations` times), but on a copy of the buckets it touches, held
//! in the script; only a walk that frees a slot is written back. So an
//! insert refused with [`Error::Full`] changed nothing. The walk's random
//! choices come from the item's hash (a Park–Miller generator seeded from
//! it), so they are the same in every run, though not the in-memory
//! filter's: a fingerprint may end in the other of its two buckets, which
//! changes no answer.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::LazyLock;

use bloomlab_core::hash::{HashFunction, mix64};
use bloomlab_core::theory::cuckoo as theory;
use bloomlab_core::{DefaultHasher, ParamError};
use bloomlab_cuckoo::{
    BUCKET_SIZES, CuckooFilter, DEFAULT_MAX_RELOCATIONS, FINGERPRINT_BITS, MAX_BUCKETS,
    MAX_RELOCATIONS,
};
use redis::{Cmd, Script, Value, cmd};

use crate::admin::{self, Info};
use crate::conn::{Connection, Failed, Op, Replies, drive};
use crate::error::{BatchError, Error};
use crate::layout::{self, GUARD, Keys, REDIS_MAX_STRING};
use crate::meta::{
    self, FORMAT, Kind, MAX_ITEM_NAME, check_state, checksum, item_name, seal, state_sum,
};
use crate::ops::{self, OneRound, Stage, evalsha, single};
use crate::scripts;
use crate::shared::{Shared, Source};
use crate::table::{Options, check_design, within};

/// Items per script call: a batch is cut into scripts of at most this many
/// items (all sent in one pipeline), so that no script holds the server for
/// long.
pub const CHUNK: usize = 1_000;

/// Slots per bucket of a filter [`RedisCuckooFilter::create`] sizes, as
/// [`CuckooFilter::new`] does.
pub const BUCKET_SIZE: u32 = 4;

/// The most shard keys a cuckoo filter may have: 128 GiB of table in the
/// default 1 MiB shards, room for the largest table the in-memory filter
/// builds (2^32 buckets of four 32-bit slots, 64 GiB). Every operation that
/// lists the shards (create, export, delete) makes one command per shard,
/// so their count is capped, whether it comes from the caller or from
/// Redis.
pub const MAX_SHARDS: u64 = 1 << 17;

/// Fibonacci hashing's multiplier, as the in-memory table's alternate-bucket
/// map uses it.
const PHI: u64 = 0x9e37_79b9_7f4a_7c15;

/// The `kind` field of a cuckoo filter's metadata.
const KIND: &str = "cuckoo";

/// Markers of the scripts' errors, each followed by a shard index or a
/// reason.
const SHARD_MISSING: &str = "BLOOMLAB_SHARD_MISSING";
const SHARD_WRONGTYPE: &str = "BLOOMLAB_SHARD_WRONGTYPE";
const STALE_META: &str = "BLOOMLAB_CUCKOO_META";

/// What every cuckoo script starts with: the geometry from `ARGV[1..6]`
/// (buckets, slots, fingerprint bits, buckets per shard, shard size,
/// relocation bound), the metadata checked against it, and the functions
/// that read and write slots through a cache of changed bytes.
const PRELUDE: &str = r"
local m, b, f, sb = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local maxr = tonumber(ARGV[6])
local meta = redis.call('HMGET', KEYS[1], 'count', 'buckets', 'bucket_size', 'fingerprint_bits',
  'max_shard_bytes', 'state', 'checksum')
if not meta[1] and redis.call('EXISTS', KEYS[1]) == 0 then
  error({err = 'BLOOMLAB_META_MISSING'})
end
local count = tonumber(meta[1])
if count == nil or count < 0 or count > m * b or count ~= math.floor(count) then
  error({err = 'BLOOMLAB_CUCKOO_META count is not a count of slots'})
end
local function state_of(c)
  return string.sub(redis.sha1hex(table.concat(c, ':')), 1, 16)
end
if not meta[6] or not meta[7] or state_of({meta[1], meta[7]}) ~= meta[6] then
  error({err = 'BLOOMLAB_CUCKOO_META state is not the checksum of the count: it was edited by hand'})
end
-- Adds `n` to the count, and its checksum with it.
local function add_count(n)
  local now = redis.call('HINCRBY', KEYS[1], 'count', n)
  redis.call('HSET', KEYS[1], 'state', state_of({redis.call('HGET', KEYS[1], 'count'), meta[7]}))
  return now
end
-- {field, its HMGET index, its ARGV index}
for _, c in ipairs({{'buckets', 2, 1}, {'bucket_size', 3, 2}, {'fingerprint_bits', 4, 3},
    {'max_shard_bytes', 5, 5}}) do
  if meta[c[2]] ~= ARGV[c[3]] then
    error({err = 'BLOOMLAB_CUCKOO_META ' .. c[1] .. ' changed since this handle opened the filter'})
  end
end
local prefix = string.sub(KEYS[1], 1, -6)
local bits, full = b * f, 2 ^ f
local checked, dirty = {}, {}
local function key(s) return prefix .. ':' .. s end
local function guard(s)
  if checked[s] then return end
  local at = math.ceil(math.min(sb, m - s * sb) * bits / 8)
  local g = redis.pcall('GETRANGE', key(s), at, at)
  if type(g) == 'table' then
    if g.err and string.find(g.err, 'WRONGTYPE', 1, true) then
      error({err = 'BLOOMLAB_SHARD_WRONGTYPE ' .. s})
    end
    error(g)
  end
  if g ~= '\165' then error({err = 'BLOOMLAB_SHARD_MISSING ' .. s}) end
  checked[s] = true
end
-- Both buckets' shards are checked before anything else, so that a damaged
-- shard is an error even when the other bucket would answer.
local function guards(i1, i2)
  guard(math.floor(i1 / sb))
  guard(math.floor(i2 / sb))
end
local function load(i)
  local s = math.floor(i / sb)
  local bit0 = (i - s * sb) * bits
  local first, last = math.floor(bit0 / 8), math.floor((bit0 + bits - 1) / 8)
  guard(s)
  local bytes = {string.byte(redis.call('GETRANGE', key(s), first, last), 1, -1)}
  local d = dirty[s]
  if d then
    for x = first, last do
      if d[x] ~= nil then bytes[x - first + 1] = d[x] end
    end
  end
  return s, first, bit0 % 8, bytes
end
local function slot(bytes, o)
  local acc, mul = 0, 1
  for x = math.floor(o / 8), math.floor((o + f - 1) / 8) do
    acc = acc + bytes[x + 1] * mul
    mul = mul * 256
  end
  return math.floor(acc / 2 ^ (o % 8)) % full
end
local function set_slot(bytes, o, v)
  local lo, hi = math.floor(o / 8), math.floor((o + f - 1) / 8)
  local acc, mul = 0, 1
  for x = lo, hi do
    acc = acc + bytes[x + 1] * mul
    mul = mul * 256
  end
  local sh = 2 ^ (o % 8)
  local old = math.floor(acc / sh) % full
  acc = acc + (v - old) * sh
  for x = lo, hi do
    bytes[x + 1] = acc % 256
    acc = math.floor(acc / 256)
  end
  return old
end
local function store(s, first, bytes)
  local d = dirty[s]
  if not d then d = {}; dirty[s] = d end
  for x = 1, #bytes do d[first + x - 1] = bytes[x] end
end
-- The slots of bucket i, decoded in one pass over its bytes.
local function slots(i)
  local _, _, shift, bytes = load(i)
  local v, k = {}, 2
  local acc, mul = math.floor(bytes[1] / 2 ^ shift), 2 ^ (8 - shift)
  for j = 1, b do
    while mul < full do
      acc = acc + bytes[k] * mul
      mul = mul * 256
      k = k + 1
    end
    v[j] = acc % full
    acc = math.floor(acc / full)
    mul = mul / full
  end
  return v
end
local function matches(v, fp)
  local n = 0
  for j = 1, b do
    if v[j] == fp then n = n + 1 end
  end
  return n
end
local function replace(i, old, new)
  local s, first, shift, bytes = load(i)
  for j = 0, b - 1 do
    if slot(bytes, shift + j * f) == old then
      set_slot(bytes, shift + j * f, new)
      store(s, first, bytes)
      return true
    end
  end
  return false
end
local function commit()
  for s, d in pairs(dirty) do
    local offs = {}
    for x in pairs(d) do offs[#offs + 1] = x end
    table.sort(offs)
    local k = 1
    while k <= #offs do
      local start, run = offs[k], {}
      while k <= #offs and offs[k] == start + #run do
        run[#run + 1] = string.char(d[offs[k]])
        k = k + 1
      end
      redis.call('SETRANGE', key(s), start, table.concat(run))
    end
  end
  dirty = {}
end
";

/// Counts the fingerprints matching each item: `ARGV[7..]` holds
/// `fingerprint, first bucket, second bucket` per item. Returns one count
/// per item (the second bucket counted only when it differs).
pub(crate) static READ: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        r"{PRELUDE}
local out = {{}}
for a = 7, #ARGV, 3 do
  local fp, i1, i2 = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  guards(i1, i2)
  local n = matches(slots(i1), fp)
  if i2 ~= i1 then n = n + matches(slots(i2), fp) end
  out[#out + 1] = n
end
return out
"
    ))
});

/// Stores items: `ARGV[7]` is 1 to store only items not reported present
/// (`CF.ADDNX`), then `fingerprint, first bucket, second bucket, walk seed`
/// per item. Returns a code per item: 1 stored and new, 2 stored and
/// present before, 0 present and not stored (unique), −1 no slot freed
/// within the relocation bound (nothing changed). An error stops the
/// script: its reply then ends with the error, the items before it done.
pub(crate) static INSERT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        r"{PRELUDE}
local P = {{31765, 32586, 31161, 40503}}
local even = m % 2 == 0
local hmul = even and m / 2 or m
local hb0, hb1 = hmul % 65536, math.floor(hmul / 65536)
-- The in-memory table's (h(fp) - i) mod m, in 16-bit limbs: a double holds
-- 53 bits, the products need 64.
local function other(i, fp)
  local a0, a1 = fp % 65536, math.floor(fp / 65536)
  local l, carry = {{}}, 0
  for k = 1, 4 do
    local v = carry + a0 * P[k]
    if k > 1 then v = v + a1 * P[k - 1] end
    l[k] = v % 65536
    carry = math.floor(v / 65536)
  end
  local s0, s1 = bit.bxor(l[1], l[3]), bit.bxor(l[2], l[4])
  local mid = s1 * hb0 + s0 * hb1
  local high = s1 * hb1 + math.floor((mid * 65536 + s0 * hb0) / 4294967296)
  local h = high
  if even then h = 2 * high + 1 end
  local d = h - i
  if d < 0 then d = d + m end
  return d
end
local state = 1
local function draw()
  state = (state * 48271) % 2147483647
  return state
end
local added = 0
local function insert(a, unique)
  local fp, i1, i2 = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  state = tonumber(ARGV[a + 3])
  dirty = {{}}
  guards(i1, i2)
  local v1, v2 = slots(i1), slots(i2)
  local present = matches(v1, fp) > 0 or matches(v2, fp) > 0
  if unique and present then return 0 end
  -- Nothing is written yet: a bucket with an empty slot still has it.
  local stored = (matches(v1, 0) > 0 and replace(i1, 0, fp))
    or (matches(v2, 0) > 0 and replace(i2, 0, fp))
  if not stored then
    local i = i2
    if draw() % 2 == 0 then i = i1 end
    local carried = fp
    for _ = 1, maxr do
      local s, first, shift, bytes = load(i)
      carried = set_slot(bytes, shift + (draw() % b) * f, carried)
      store(s, first, bytes)
      i = other(i, carried)
      if replace(i, 0, carried) then
        stored = true
        break
      end
    end
  end
  if not stored then
    dirty = {{}}
    return -1
  end
  commit()
  added = added + 1
  if present then return 2 end
  return 1
end
local unique, out = ARGV[7] == '1', {{}}
for a = 8, #ARGV, 4 do
  local ok, code = pcall(insert, a, unique)
  if not ok then
    if type(code) ~= 'table' then code = {{err = tostring(code)}} end
    out[#out + 1] = code
    break
  end
  out[#out + 1] = code
end
-- Once for the script: every item before an error was committed and counted.
if added > 0 then add_count(added) end
return out
"
    ))
});

/// Removes one fingerprint of an item: `ARGV[7..9]` its fingerprint and
/// buckets. Returns 1, or 0 changing nothing when neither bucket holds it.
pub(crate) static REMOVE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        r"{PRELUDE}
local fp, i1, i2 = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
guards(i1, i2)
if replace(i1, fp, 0) or replace(i2, fp, 0) then
  commit()
  add_count(-1)
  return 1
end
return 0
"
    ))
});

/// How the table is cut into shards, and where an item lives in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Geometry {
    buckets: u64,
    bucket_size: u32,
    fingerprint_bits: u32,
    /// Buckets per shard, a multiple of 8 (the last shard may hold fewer).
    shard_buckets: u64,
}

impl Geometry {
    /// The shards of at most `max_shard_bytes` bytes (guard included) of a
    /// table whose shape was checked: `b` in [`BUCKET_SIZES`], `f` in
    /// [`FINGERPRINT_BITS`], `1 ≤ buckets ≤ MAX_BUCKETS`.
    fn new(buckets: u64, b: u32, f: u32, max_shard_bytes: u64) -> Result<Self, Error> {
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
        let per = (max_shard_bytes - 1) / bits * 8;
        let shards = buckets.div_ceil(per);
        if shards > MAX_SHARDS {
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
            // Balanced, and still at most `per`, a multiple of 8.
            shard_buckets: buckets.div_ceil(shards).div_ceil(8) * 8,
        })
    }

    fn bucket_bits(&self) -> u64 {
        u64::from(self.bucket_size * self.fingerprint_bits)
    }

    fn shards(&self) -> u64 {
        self.buckets.div_ceil(self.shard_buckets)
    }

    /// Bytes of shard `s` before its guard.
    fn body_bytes(&self, s: u64) -> u64 {
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
    fn table_bytes(&self) -> u64 {
        (u128::from(self.buckets) * u128::from(self.bucket_bits())).div_ceil(8) as u64
    }

    /// `(fingerprint, first bucket, second bucket)` of the item of 64-bit
    /// hash `hash`, as the in-memory table derives them: the fingerprint from
    /// the lower 32 bits scaled onto `1 ..= 2^f − 1`, the first bucket from
    /// the upper 32 by multiply-shift, the second `(h(fp) − i1) mod m`.
    fn locate(&self, hash: u64) -> (u64, u64, u64) {
        let values = (1u64 << self.fingerprint_bits) - 1;
        let fp = 1 + ((u64::from(hash as u32) * values) >> 32);
        let i1 = ((hash >> 32) * self.buckets) >> 32;
        (fp, i1, self.other(i1, fp))
    }

    /// The other bucket of fingerprint `fp` stored in bucket `i`.
    fn other(&self, i: u64, fp: u64) -> u64 {
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
pub(crate) struct CuckooMeta {
    /// The item type ([`item_name`]).
    item: String,
    buckets: u64,
    bucket_size: u32,
    fingerprint_bits: u32,
    max_relocations: u32,
    max_shard_bytes: u64,
    hash: HashFunction,
    key: [u64; 2],
    /// The items and rate it was sized for; `None` for an imported table.
    design: Option<(u64, f64)>,
}

/// What the metadata holds besides the parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct CuckooState {
    ready: bool,
    count: u64,
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
    /// [`CuckooFilter::new`] sizes it ([`bloomlab_cuckoo::plan`]).
    fn planned(items: usize, fpr: f64, options: &Options, item: String) -> Result<Self, Error> {
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

    fn geometry(&self) -> Result<Geometry, Error> {
        Geometry::new(
            self.buckets,
            self.bucket_size,
            self.fingerprint_bits,
            self.max_shard_bytes,
        )
    }

    fn hasher(&self) -> DefaultHasher {
        DefaultHasher::with_function(self.hash, self.key)
    }

    /// The fields a new filter's metadata hash is written with (`ready`
    /// 0), holding `count` fingerprints. The one place they are written:
    /// see [`parse`](Self::parse) for the reading.
    fn fields(&self, count: u64) -> Vec<(&'static str, String)> {
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
    fn parse(keys: &Keys, hash: &HashMap<String, String>) -> Result<(Self, CuckooState), Error> {
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
    fn differs(&self, wanted: &Self, key_given: bool) -> Option<(&'static str, String, String)> {
        let design = |m: &Self| m.design.map(|(n, p)| format!("{n} items at {p}"));
        let mut pairs = vec![
            ("item", self.item.clone(), wanted.item.clone()),
            (
                "buckets",
                self.buckets.to_string(),
                wanted.buckets.to_string(),
            ),
            (
                "bucket_size",
                self.bucket_size.to_string(),
                wanted.bucket_size.to_string(),
            ),
            (
                "fingerprint_bits",
                self.fingerprint_bits.to_string(),
                wanted.fingerprint_bits.to_string(),
            ),
            (
                "max_relocations",
                self.max_relocations.to_string(),
                wanted.max_relocations.to_string(),
            ),
            (
                "max_shard_bytes",
                self.max_shard_bytes.to_string(),
                wanted.max_shard_bytes.to_string(),
            ),
        ];
        if let (Some(a), Some(b)) = (design(self), design(wanted)) {
            pairs.insert(0, ("design", a, b));
        }
        if key_given {
            pairs.push((
                "hash",
                self.hash.name().to_owned(),
                wanted.hash.name().to_owned(),
            ));
            pairs.push((
                "key",
                format!("{:x?}", self.key),
                format!("{:x?}", wanted.key),
            ));
        }
        pairs.into_iter().find(|(_, a, b)| a != b)
    }
}

/// How a [`CuckooSetup`] starts.
#[derive(Debug)]
enum Start {
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
struct CuckooSetup {
    keys: Keys,
    start: Start,
    stage: Stage,
    found: Option<(CuckooMeta, Geometry)>,
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

/// One cuckoo filter in Redis, as a handle knows it; its operations are
/// [`Op`]s, run by the blocking and the async types alike.
#[derive(Debug, Clone)]
pub(crate) struct Cuckoo {
    keys: Keys,
    meta: CuckooMeta,
    geometry: Geometry,
    hasher: DefaultHasher,
}

impl Cuckoo {
    /// The op that creates filter `name` sized as `CuckooFilter::new(items,
    /// fpr)` (or opens it if it exists with the same parameters); the
    /// parameters are checked before any command is sent.
    pub(crate) fn create(
        name: &str,
        item: String,
        items: usize,
        fpr: f64,
        options: &Options,
    ) -> Result<impl Op<Output = Self, Error = Error> + use<>, Error> {
        let keys = Keys::tagged(name)?;
        let wanted = CuckooMeta::planned(items, fpr, options, item)?;
        within(wanted.geometry()?.bytes(), options.get_max_bytes())?;
        let start = Start::Create(wanted, options.get_seed().is_some());
        Ok(Self::setup(keys, start))
    }

    /// The op that opens the existing filter `name` of items `item`, if it
    /// takes at most `max_bytes`.
    pub(crate) fn open(
        name: &str,
        item: String,
        max_bytes: u64,
    ) -> Result<impl Op<Output = Self, Error = Error> + use<>, Error> {
        Ok(Self::setup(
            Keys::tagged(name)?,
            Start::Open(item, max_bytes),
        ))
    }

    /// The op that copies `filter` into Redis as the new filter `name`.
    pub(crate) fn import<T: ?Sized>(
        name: &str,
        filter: &CuckooFilter<T>,
        max_shard_bytes: usize,
    ) -> Result<impl Op<Output = Self, Error = Error> + use<T>, Error> {
        let keys = Keys::tagged(name)?;
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
        let words = filter.table_words();
        let shard_bytes = g.shard_buckets * g.bucket_bits() / 8;
        let mut shards = Vec::new();
        for s in 0..g.shards() {
            let start = s * shard_bytes;
            let body = g.body_bytes(s);
            let mut bytes = Vec::new();
            bytes
                .try_reserve_exact(body as usize + 1)
                .map_err(|_| too_large(body + 1))?;
            bytes.extend((start..start + body).map(|k| {
                let w = words.get((k / 8) as usize).copied().unwrap_or(0);
                (w >> (8 * (k % 8))) as u8
            }));
            bytes.push(GUARD);
            shards.push(bytes);
        }
        let count = filter.len() as u64;
        Ok(Self::setup(keys, Start::Import(meta, shards, count)))
    }

    fn setup(keys: Keys, start: Start) -> impl Op<Output = Self, Error = Error> + use<> {
        CuckooSetup {
            keys,
            start,
            stage: Stage::Meta,
            found: None,
        }
    }

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
        let shard = || {
            detail
                .split_whitespace()
                .next()
                .and_then(|s| s.parse::<u64>().ok())
                .map(|s| keys.shard(s))
        };
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

    /// Removes one fingerprint of the item of hash `hash`.
    pub(crate) fn remove(&self, hash: u64) -> impl Op<Output = (), Error = Error> + use<> {
        let (fp, i1, i2) = self.geometry.locate(hash);
        let mut c = self.call(&REMOVE, &[], None, false);
        c.arg(fp).arg(i1).arg(i2);
        let keys = self.keys.clone();
        OneRound::new(vec![c], move |replies: Replies| match single(replies)? {
            Value::Int(1) => Ok(()),
            Value::Int(0) => Err(Error::NotPresent),
            Value::ServerError(e) => Err(Self::script_error(&keys, &e)),
            other => Err(layout::unexpected(&keys.meta(), &other)),
        })
    }

    /// Fingerprints stored, as the scripts counted them; the metadata is
    /// read and checked again.
    pub(crate) fn len(&self) -> impl Op<Output = u64, Error = Error> + use<> {
        let keys = self.keys.clone();
        let meta = self.meta.clone();
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

    /// Every key of the filter, metadata first.
    pub(crate) fn all_keys(&self) -> Vec<String> {
        let mut keys = vec![self.keys.meta()];
        keys.extend((0..self.geometry.shards()).map(|s| self.keys.shard(s)));
        keys
    }

    /// Deletes the metadata, then every shard.
    pub(crate) fn delete(&self) -> impl Op<Output = (), Error = Error> + use<> {
        ops::delete(self.all_keys())
    }

    /// What the filter is and holds: its parameters and its count.
    pub(crate) fn info(&self) -> impl Op<Output = Info, Error = Error> + use<> {
        let this = self.clone();
        ops::then(self.len(), move |len| {
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
                expected_fpr: this.expected_fpr(len),
            })
        })
    }

    /// Reads the table back as the in-memory table's words, checking every
    /// shard's length and guard.
    pub(crate) fn export_words(&self) -> impl Op<Output = Vec<u64>, Error = Error> + use<> {
        let g = self.geometry;
        let names = (0..g.shards()).map(|s| self.keys.shard(s)).collect();
        let bodies = (0..g.shards()).map(|s| g.body_bytes(s)).collect();
        ops::then(ops::read_shards(names, bodies), |bytes| {
            Ok(ops::words_of(bytes))
        })
    }

    /// The in-memory filter of `words` read back from this one.
    pub(crate) fn to_filter<T: ?Sized>(&self, words: &[u64]) -> Result<CuckooFilter<T>, Error> {
        CuckooFilter::from_table_words(
            self.geometry.buckets,
            self.geometry.bucket_size,
            self.geometry.fingerprint_bits,
            words,
            self.meta.max_relocations,
            self.hasher.clone(),
        )
        .map_err(|e| match e {
            bloomlab_core::DecodeError::OutOfMemory { bytes } => too_large_u128(bytes),
            e => corrupt(
                &self.keys.meta(),
                "buckets",
                None,
                format!("not the shape of the table in the shards: {e}"),
            ),
        })
    }

    pub(crate) fn hash<Q: Hash + ?Sized>(&self, item: &Q) -> u64 {
        self.hasher.hash_one(item)
    }

    pub(crate) fn hashes<Q: Hash>(&self, items: &[Q]) -> Vec<u64> {
        items.iter().map(|i| self.hash(i)).collect()
    }

    pub(crate) fn describe(&self, f: &mut fmt::Formatter<'_>, type_name: &str) -> fmt::Result {
        f.debug_struct(type_name)
            .field("name", &self.keys.name())
            .field("num_buckets", &self.geometry.buckets)
            .field("bucket_size", &self.geometry.bucket_size)
            .field("fingerprint_bits", &self.geometry.fingerprint_bits)
            .field("max_relocations", &self.meta.max_relocations)
            .field("shards", &self.geometry.shards())
            .finish()
    }

    pub(crate) fn expected_fpr(&self, len: u64) -> f64 {
        let capacity = self.capacity() as f64;
        theory::fpr(
            self.geometry.fingerprint_bits,
            self.geometry.bucket_size,
            len as f64 / capacity,
        )
    }

    pub(crate) fn name(&self) -> &str {
        self.keys.name()
    }

    pub(crate) fn capacity(&self) -> u64 {
        self.geometry.buckets * u64::from(self.geometry.bucket_size)
    }
}

/// The one place this module builds [`Error::CorruptMetadata`]: `field` of
/// the metadata hash `key`, whose stored text is `value` (if known), is
/// wrong for `reason`. (The crate's metadata errors are being reworked to
/// carry the field and value apart; only this function then changes.)
fn corrupt(
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
fn too_large(bytes: u64) -> Error {
    too_large_u128(u128::from(bytes))
}

fn too_large_u128(bytes: u128) -> Error {
    ParamError::TooLarge {
        needed: bytes,
        limit: isize::MAX as u128,
    }
    .into()
}

/// A cuckoo filter kept in Redis: [`CuckooFilter`]'s sizing, hashing and
/// answers, shared by every process that opens it, and RedisBloom's
/// `CF.ADD`, `CF.ADDNX`, `CF.EXISTS`, `CF.DEL` and `CF.COUNT` on stock Redis
/// (no module).
///
/// - [`create`](Self::create)`(conn, name, n, ε)` sizes the table as
///   [`CuckooFilter::new`]`(n, ε)` does (4-slot buckets, the same bucket
///   count and fingerprint width, plain buckets), and a filter created and
///   an in-memory one built with the same seed give the same answer for
///   every item, as long as neither has refused an insert.
/// - [`insert`](Self::insert) stores a copy each time it is called, as the
///   in-memory `insert` does: an item inserted twice takes two removes to
///   forget, and an item can be stored at most `2b` = 8 times.
///   [`insert_unique`](Self::insert_unique) stores it only if it is not
///   reported present (`CF.ADDNX`).
/// - Inserts fail with [`Error::Full`] once the table is past the load it
///   was planned for (94% of the slots for the `n` items of `create`): an
///   insert that frees no slot within [`max_relocations`](Self::max_relocations)
///   moves is refused, and nothing already stored is lost or moved.
/// - [`remove`](Self::remove) deletes one fingerprint equal to the item's.
///   Removing an item that was never inserted but is reported present (a
///   false positive) removes another item's fingerprint, which may then be
///   reported absent: remove only what you inserted.
///
/// The keys share the hash tag `{name}`: on a Cluster the filter lives on
/// one node. See the [module docs](crate::cuckoo) for the layout and the
/// scripts.
///
/// ```
/// use bloomlab_cuckoo::CuckooFilter;
/// use bloomlab_redis::{Error, Options, RedisCuckooFilter};
///
/// # let server = bloomlab_testkit::redis_server::RedisServer::start()?;
/// # let url = server.url();
/// // let url = "redis://127.0.0.1/";
/// let client = redis::Client::open(url)?;
/// let options = Options::new().seed(7);
/// let mut seen =
///     RedisCuckooFilter::<u64, _>::create_with(client.get_connection()?, "seen", 10_000, 0.01, options)?;
/// // Sized as CuckooFilter::new(10_000, 0.01): 2,660 buckets of four 10-bit slots.
/// assert_eq!((seen.num_buckets(), seen.bucket_size(), seen.fingerprint_bits()), (2_660, 4, 10));
/// assert!(seen.insert(&42)?);
/// assert!(!seen.insert(&42)?, "stored again: a second copy");
/// assert_eq!(seen.count(&42)?, 2);
/// assert!(!seen.insert_unique(&42)?, "present: not stored");
/// assert_eq!(seen.insert_batch(&[1, 2, 3])?, 3);
/// assert_eq!(seen.contains_batch(&[1, 4, 42])?, [true, false, true]);
/// seen.remove(&42)?;
/// seen.remove(&42)?;
/// assert!(matches!(seen.remove(&42), Err(Error::NotPresent)));
/// assert_eq!(seen.len()?, 3);
///
/// // The same answers in memory, from a copy or from the same seed.
/// let copy: CuckooFilter<u64> = seen.export()?;
/// let mut same = CuckooFilter::<u64>::builder(10_000, 0.01).seed(7).build()?;
/// same.insert_batch(&[1, 2, 3])?;
/// for probe in 0..1_000u64 {
///     assert_eq!(copy.contains(&probe), same.contains(&probe));
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RedisCuckooFilter<T: ?Sized, C> {
    conn: C,
    inner: Cuckoo,
    item: PhantomData<fn(&T)>,
}

/// A handle on the same filter over a clone of the connection.
impl<T: ?Sized, C: Clone> Clone for RedisCuckooFilter<T, C> {
    fn clone(&self) -> Self {
        self.on(self.conn.clone())
    }
}

impl<T: ?Sized, C> RedisCuckooFilter<T, C> {
    /// The same filter over `conn`, with no round trip (as
    /// [`RedisBloomFilter::on`](crate::RedisBlockedFilter::on)).
    pub fn on<C2>(&self, conn: C2) -> RedisCuckooFilter<T, C2> {
        RedisCuckooFilter {
            conn,
            inner: self.inner.clone(),
            item: PhantomData,
        }
    }
}

/// Lookups and inserts of a filter shared among threads: each takes a
/// connection from the source for its one round trip.
impl<T: ?Sized, S: Source> RedisCuckooFilter<T, Shared<S>> {
    /// [`insert`](RedisCuckooFilter::insert) on a connection of the source.
    ///
    /// # Errors
    ///
    /// As `insert`, and [`Error::Connection`] when the source has no
    /// connection to give.
    pub fn insert(&self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        let op = self.inner.inserts(&[self.inner.hash(item)], false);
        drive(&mut self.conn.connection()?, op)
            .map(|v| v.first().copied().unwrap_or(false))
            .map_err(|e| *e.source)
    }

    /// [`contains`](RedisCuckooFilter::contains) on a connection of the
    /// source.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert), but never [`Error::Full`].
    pub fn contains<Q: ?Sized + Hash>(&self, item: &Q) -> Result<bool, Error>
    where
        T: Borrow<Q>,
    {
        let op = self.inner.counts(&[self.inner.hash(item)]);
        let counts = drive(&mut self.conn.connection()?, op)?;
        Ok(counts.first().is_some_and(|&c| c > 0))
    }

    /// [`insert_batch`](RedisCuckooFilter::insert_batch) on a connection of
    /// the source.
    ///
    /// # Errors
    ///
    /// As `insert_batch`; nothing is stored when the source has no
    /// connection to give.
    pub fn insert_batch(&self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        let op = self.inner.inserts(&self.inner.hashes(items), false);
        drive(&mut self.conn.batch_connection()?, op).map(|v| v.iter().filter(|&&n| n).count())
    }

    /// [`contains_batch`](RedisCuckooFilter::contains_batch) on a
    /// connection of the source.
    ///
    /// # Errors
    ///
    /// As [`contains`](Self::contains).
    pub fn contains_batch<Q: Hash>(&self, items: &[Q]) -> Result<Vec<bool>, Error>
    where
        T: Borrow<Q>,
    {
        let op = self.inner.counts(&self.inner.hashes(items));
        let counts = drive(&mut self.conn.connection()?, op)?;
        Ok(counts.iter().map(|&c| c > 0).collect())
    }
}

impl<T: ?Sized, C> fmt::Debug for RedisCuckooFilter<T, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.describe(f, "RedisCuckooFilter")
    }
}

impl<T: ?Sized, C: Connection> RedisCuckooFilter<T, C> {
    /// Creates the filter `name` for `expected_items` items at rate `fpr`,
    /// sized as [`CuckooFilter::new`] sizes it, with a random key and 1 MiB
    /// shards; or opens it if it exists with the same parameters (one
    /// script writes the metadata, so concurrent creators agree).
    ///
    /// # Errors
    ///
    /// [`Error::Param`] for a rate outside (0, 1) or one no fingerprint of
    /// at most 32 bits reaches, zero items, or a table past 2^32 buckets;
    /// [`Error::InvalidName`]; [`Error::Mismatch`] if `name` holds another
    /// filter or one with other parameters; connection errors.
    pub fn create(conn: C, name: &str, expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::create_with(conn, name, expected_items, fpr, Options::new())
    }

    /// [`create`](Self::create) with a seed (the in-memory filter's
    /// `.seed(seed)` key) or a shard size.
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create), and [`Error::ShardTooSmall`] for shards
    /// that cannot hold 8 buckets and a guard.
    pub fn create_with(
        conn: C,
        name: &str,
        expected_items: usize,
        fpr: f64,
        options: Options,
    ) -> Result<Self, Error> {
        let item = item_name::<T>();
        Self::start(
            conn,
            Cuckoo::create(name, item, expected_items, fpr, &options)?,
        )
    }

    /// Opens the existing filter `name`, if it takes at most
    /// [`DEFAULT_MAX_BYTES`](crate::DEFAULT_MAX_BYTES); every metadata field
    /// is checked against its checksum and the bounds `create` enforces.
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`], [`Error::Incomplete`], [`Error::Mismatch`] for
    /// another kind of filter or another item type than `T`,
    /// [`Error::CorruptMetadata`], [`Error::OverLimit`],
    /// [`Error::WrongType`], connection errors.
    pub fn open(conn: C, name: &str) -> Result<Self, Error> {
        Self::open_with(conn, name, Options::new())
    }

    /// [`open`](Self::open), accepting a filter of up to
    /// [`options.get_max_bytes()`](Options::max_bytes) bytes.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    pub fn open_with(conn: C, name: &str, options: Options) -> Result<Self, Error> {
        let item = item_name::<T>();
        Self::start(conn, Cuckoo::open(name, item, options.get_max_bytes())?)
    }

    /// Copies an in-memory filter into Redis as the new filter `name`: its
    /// table's bytes, hash key and relocation bound, so it answers as
    /// `filter` does. The table must be plain (not semi-sorted).
    ///
    /// # Errors
    ///
    /// [`Error::CuckooLayout`] for a semi-sorted table or the first
    /// format's XOR map (nothing is written); [`Error::Exists`] if `name`
    /// is taken; [`Error::ShardTooSmall`]; connection errors (the filter is
    /// then left incomplete, and `open` refuses it until it is deleted).
    pub fn import(
        conn: C,
        name: &str,
        filter: &CuckooFilter<T>,
        max_shard_bytes: usize,
    ) -> Result<Self, Error> {
        Self::start(conn, Cuckoo::import(name, filter, max_shard_bytes)?)
    }

    fn start(mut conn: C, op: impl Op<Output = Cuckoo, Error = Error>) -> Result<Self, Error> {
        let inner = drive(&mut conn, op)?;
        Ok(Self {
            conn,
            inner,
            item: PhantomData,
        })
    }

    /// Stores `item` (another copy if it is present); `true` if it was not
    /// reported present before.
    ///
    /// # Errors
    ///
    /// [`Error::Full`] when no slot could be freed within
    /// [`max_relocations`](Self::max_relocations) moves: nothing was stored
    /// and nothing was lost. [`Error::ShardMissing`], [`Error::WrongType`]
    /// for a damaged shard, [`Error::NotFound`] if the filter was deleted,
    /// [`Error::CorruptMetadata`], connection errors.
    pub fn insert(&mut self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        let op = self.inner.inserts(&[self.inner.hash(item)], false);
        drive(&mut self.conn, op)
            .map(|v| v.first().copied().unwrap_or(false))
            .map_err(|e| *e.source)
    }

    /// Stores `item` only if it is not reported present (`CF.ADDNX`);
    /// `true` if it was stored.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    pub fn insert_unique(&mut self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        let op = self.inner.inserts(&[self.inner.hash(item)], true);
        drive(&mut self.conn, op)
            .map(|v| v.first().copied().unwrap_or(false))
            .map_err(|e| *e.source)
    }

    /// `false`: `item` was never inserted (or removed as often); `true`:
    /// probably present.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert), but never [`Error::Full`].
    pub fn contains<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<bool, Error>
    where
        T: Borrow<Q>,
    {
        Ok(self.count(item)? > 0)
    }

    /// How many stored fingerprints match `item` (`CF.COUNT`): the times it
    /// was stored, plus any other item's equal fingerprint in its buckets.
    ///
    /// # Errors
    ///
    /// As [`contains`](Self::contains).
    pub fn count<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<usize, Error>
    where
        T: Borrow<Q>,
    {
        let op = self.inner.counts(&[self.inner.hash(item)]);
        Ok(drive(&mut self.conn, op)?.first().copied().unwrap_or(0) as usize)
    }

    /// Removes one copy of `item` (`CF.DEL`).
    ///
    /// # Errors
    ///
    /// [`Error::NotPresent`] when neither of its buckets holds its
    /// fingerprint (nothing changed); as [`contains`](Self::contains).
    pub fn remove<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<(), Error>
    where
        T: Borrow<Q>,
    {
        let op = self.inner.remove(self.inner.hash(item));
        drive(&mut self.conn, op)
    }

    /// Stores every item, as [`insert`](Self::insert) would, in one
    /// pipeline of scripts (one round trip); returns how many were not
    /// reported present before.
    ///
    /// # Errors
    ///
    /// A [`BatchError`] naming the items stored; every item was tried, so
    /// an item refused with [`Error::Full`] (the `source` of the first
    /// failure) does not stop the ones after it.
    pub fn insert_batch(&mut self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        let op = self.inner.inserts(&self.inner.hashes(items), false);
        drive(&mut self.conn, op).map(|v| v.iter().filter(|&&new| new).count())
    }

    /// Looks every item up in one pipeline of scripts (one round trip).
    ///
    /// # Errors
    ///
    /// As [`contains`](Self::contains).
    pub fn contains_batch<Q: Hash>(&mut self, items: &[Q]) -> Result<Vec<bool>, Error>
    where
        T: Borrow<Q>,
    {
        let op = self.inner.counts(&self.inner.hashes(items));
        Ok(drive(&mut self.conn, op)?.iter().map(|&c| c > 0).collect())
    }

    /// Fingerprints stored: successful inserts minus successful removes,
    /// counted exactly by the scripts in the metadata.
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`], [`Error::CorruptMetadata`] (the metadata changed
    /// since `open`), connection errors.
    pub fn len(&mut self) -> Result<u64, Error> {
        drive(&mut self.conn, self.inner.len())
    }

    /// Whether no fingerprint is stored.
    ///
    /// # Errors
    ///
    /// As [`len`](Self::len).
    pub fn is_empty(&mut self) -> Result<bool, Error> {
        Ok(self.len()? == 0)
    }

    /// The rate theory predicts at the present load, as
    /// [`CuckooFilter::expected_fpr`].
    ///
    /// # Errors
    ///
    /// As [`len`](Self::len).
    pub fn expected_fpr(&mut self) -> Result<f64, Error> {
        let len = self.len()?;
        Ok(self.inner.expected_fpr(len))
    }

    /// Copies the filter into memory: the same table, key and relocation
    /// bound, so it answers exactly as this one does; its `len` is the
    /// count of occupied slots.
    ///
    /// # Errors
    ///
    /// [`Error::ShardMissing`] for a shard of the wrong length or without
    /// its guard, [`Error::WrongType`], [`Error::Param`] if the table cannot
    /// be allocated, connection errors.
    pub fn export(&mut self) -> Result<CuckooFilter<T>, Error> {
        let words = drive(&mut self.conn, self.inner.export_words())?;
        self.inner.to_filter(&words)
    }

    /// Deletes every key of the filter, metadata first.
    ///
    /// # Errors
    ///
    /// Connection errors.
    pub fn delete(&mut self) -> Result<(), Error> {
        drive(&mut self.conn, self.inner.delete())
    }

    /// What the filter is and holds (RedisBloom's `CF.INFO`): slots,
    /// bytes, shards, the fingerprints stored and the rate they give. One
    /// round trip.
    ///
    /// # Errors
    ///
    /// As [`len`](Self::len).
    pub fn info(&mut self) -> Result<Info, Error> {
        drive(&mut self.conn, self.inner.info())
    }

    /// Gives every key of the filter `ttl` to live (Redisson's `expire`),
    /// rounded up to a millisecond.
    ///
    /// # Errors
    ///
    /// Connection errors; [`Error::NotFound`] or [`Error::ShardMissing`] if
    /// a key is gone.
    pub fn expire(&mut self, ttl: std::time::Duration) -> Result<(), Error> {
        let op = admin::expire(self.name().to_owned(), self.inner.all_keys(), Some(ttl));
        drive(&mut self.conn, op)
    }

    /// The least time to live of the filter's keys, `None` when they have
    /// none.
    ///
    /// # Errors
    ///
    /// As [`expire`](Self::expire).
    pub fn ttl(&mut self) -> Result<Option<std::time::Duration>, Error> {
        let op = admin::ttl(self.name().to_owned(), self.inner.all_keys());
        drive(&mut self.conn, op)
    }

    /// Removes every key's time to live.
    ///
    /// # Errors
    ///
    /// Connection errors.
    pub fn persist(&mut self) -> Result<(), Error> {
        let op = admin::expire(self.name().to_owned(), self.inner.all_keys(), None);
        drive(&mut self.conn, op)
    }
}

impl<T: ?Sized, C> RedisCuckooFilter<T, C> {
    /// The filter's name.
    pub fn name(&self) -> &str {
        self.inner.name()
    }

    /// Buckets in the table.
    pub fn num_buckets(&self) -> u64 {
        self.inner.geometry.buckets
    }

    /// Slots per bucket (`b`).
    pub fn bucket_size(&self) -> u32 {
        self.inner.geometry.bucket_size
    }

    /// Bits per fingerprint (`f`).
    pub fn fingerprint_bits(&self) -> u32 {
        self.inner.geometry.fingerprint_bits
    }

    /// Slots in the table.
    pub fn capacity(&self) -> u64 {
        self.inner.capacity()
    }

    /// The most fingerprints one insert may move before it gives up.
    pub fn max_relocations(&self) -> u32 {
        self.inner.meta.max_relocations
    }

    /// Shard keys.
    pub fn num_shards(&self) -> u64 {
        self.inner.geometry.shards()
    }

    /// The key of shard `s`.
    pub fn shard_key(&self, s: u64) -> String {
        self.inner.keys.shard(s)
    }

    /// The metadata hash's key.
    pub fn meta_key(&self) -> String {
        self.inner.keys.meta()
    }

    /// Bytes of the table in Redis, guards included.
    pub fn memory_bytes(&self) -> u64 {
        self.inner.geometry.table_bytes() + self.num_shards()
    }

    /// The hasher items go through.
    pub fn hasher(&self) -> &DefaultHasher {
        &self.inner.hasher
    }

    /// The connection, to run other commands on it.
    pub fn connection_mut(&mut self) -> &mut C {
        &mut self.conn
    }

    /// Gives the connection back.
    pub fn into_connection(self) -> C {
        self.conn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_the_in_memory_filters() {
        for (items, fpr) in [(1_000usize, 0.01), (100_000, 0.001), (3, 0.2)] {
            let cf = CuckooFilter::<u64>::builder(items, fpr)
                .seed(5)
                .build()
                .unwrap();
            let meta =
                CuckooMeta::planned(items, fpr, &Options::new().seed(5), "u64".into()).unwrap();
            let g = meta.geometry().unwrap();
            assert_eq!(
                (g.buckets, g.fingerprint_bits),
                (cf.num_buckets(), cf.fingerprint_bits())
            );
            for item in 0..2_000u64 {
                let (fp, i1, i2) = g.locate(meta.hasher().hash_one(item));
                assert_eq!((i1, i2), cf.candidate_buckets(&item));
                assert_eq!(g.other(i2, fp), i1);
                assert!(fp >= 1 && fp < 1 << g.fingerprint_bits);
            }
        }
    }

    #[test]
    fn shards_start_on_bytes_and_hold_whole_buckets() {
        // 13-bit fingerprints: a bucket is 52 bits, 8 buckets 52 bytes.
        let g = Geometry::new(1_002, 4, 13, 53 * 10).unwrap();
        assert_eq!(g.shard_buckets % 8, 0);
        assert!(g.shard_buckets * 52 / 8 < 53 * 10);
        let total: u64 = (0..g.shards()).map(|s| g.body_bytes(s)).sum();
        assert_eq!(total, g.table_bytes());
        assert_eq!(g.table_bytes(), (1_002u64 * 52).div_ceil(8));
        assert!(matches!(
            Geometry::new(8, 4, 13, 52),
            Err(Error::ShardTooSmall { needed: 53, .. })
        ));
        assert_eq!(Geometry::new(8, 4, 13, 53).unwrap().shards(), 1);
        // 2^32 buckets in shards of 8: past the cap on shard keys.
        assert!(matches!(
            Geometry::new(MAX_BUCKETS, 4, 13, 53),
            Err(Error::Param(ParamError::TooLarge { .. }))
        ));
        let most = Geometry::new(MAX_BUCKETS, 4, 32, 1 << 20).unwrap();
        assert!(most.shards() <= MAX_SHARDS);
    }

    #[test]
    fn metadata_reads_back_and_every_bound_is_checked() {
        let keys = Keys::tagged("m").unwrap();
        let meta = CuckooMeta::planned(1_000, 0.01, &Options::new().seed(1), "u64".into()).unwrap();
        let hash: HashMap<String, String> = meta
            .fields(0)
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        let (back, state) = CuckooMeta::parse(&keys, &hash).unwrap();
        assert_eq!((back, state), (meta, CuckooState::default()));
        let bad = [
            ("buckets", "0"),
            ("buckets", "4294967297"),
            ("buckets", "-1"),
            ("bucket_size", "3"),
            ("fingerprint_bits", "33"),
            ("fingerprint_bits", "3"),
            ("max_relocations", "65537"),
            ("max_shard_bytes", "40"),
            ("max_shard_bytes", "536870913"),
            ("count", "1000000"),
            ("count", "x"),
            ("count", ""),
            ("ready", "2"),
            ("key", "00"),
            ("key", "+0000000000000000000000000000000"),
            ("format", "bloomlab-redis/1"),
            ("hash", "md5"),
            ("fpr", "1.5"),
            ("items", "0"),
            ("kind", "quotient"),
        ];
        for (field, value) in bad {
            let mut h = hash.clone();
            h.insert(field.to_owned(), value.to_owned());
            let e = CuckooMeta::parse(&keys, &h);
            assert!(
                matches!(e, Err(Error::CorruptMetadata { .. })),
                "{field} = {value:?}: {e:?}"
            );
        }
        let mut h = hash.clone();
        h.insert("kind".into(), "bloom".into());
        assert!(matches!(
            CuckooMeta::parse(&keys, &h),
            Err(Error::Mismatch { field: "kind", .. })
        ));
        h.remove("items");
        h.insert("kind".into(), KIND.into());
        assert!(CuckooMeta::parse(&keys, &h).is_err(), "fpr without items");
    }
}
