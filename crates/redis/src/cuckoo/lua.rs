//! The cuckoo filter's scripts: one prelude that checks the metadata and
//! reads and writes slots, and the lookup, insert and remove built on it.

use std::sync::LazyLock;

use redis::Script;

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
