//! The Lua scripts, loaded once per server and run by hash (`EVALSHA`).
//!
//! Each touches only the keys it is given, all in one slot: the metadata
//! hash alone, one shard, or the keys of one scalable filter, which share a
//! hash tag.

use std::sync::LazyLock;

use redis::Script;

/// The marker of a script's error for a shard whose guard byte is gone.
pub const SHARD_MISSING: &str = "BLOOMLAB_SHARD_MISSING";

/// The marker of a script's error for a filter whose metadata is gone.
pub const META_MISSING: &str = "BLOOMLAB_META_MISSING";

/// Creates the metadata hash from `ARGV` (field, value, ..) unless it
/// exists; returns `{created, HGETALL}`.
pub static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local created = 0
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV))
  created = 1
end
return {created, redis.call('HGETALL', KEYS[1])}
",
    )
});

/// ORs a mask into a shard: `KEYS[1]` the shard, `KEYS[2]` a scratch key in
/// its slot, `ARGV[1]` the guard's byte offset, `ARGV[2]` and `ARGV[3]` the
/// first and last byte the mask covers, `ARGV[4]` the mask. Returns the
/// shard's old bytes in that range; refuses, changing nothing, a shard whose
/// guard is gone.
pub static OR_MASK: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('GETRANGE', KEYS[1], ARGV[1], ARGV[1]) ~= '\165' then
  return redis.error_reply('BLOOMLAB_SHARD_MISSING')
end
local old = redis.call('GETRANGE', KEYS[1], ARGV[2], ARGV[3])
redis.call('SETRANGE', KEYS[2], ARGV[2], ARGV[4])
-- BITOP replaces its destination, time to live included: keep the shard's.
local ttl = redis.call('PTTL', KEYS[1])
redis.call('BITOP', 'OR', KEYS[1], KEYS[1], KEYS[2])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
redis.call('DEL', KEYS[2])
return old
",
    )
});

/// Removes one occurrence of an item from a counting shard: `KEYS[1]` the
/// shard, `ARGV[1]` the guard's bit offset, `ARGV[2..]` the item's counter
/// indexes. Returns 1, or 0 without changing anything when a counter proves
/// the item absent (zero, or lower than the times the item's cells fall on
/// it). Saturated counters (15) are never decremented.
pub static REMOVE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local get = {'GET', 'u8', ARGV[1]}
for i = 2, #ARGV do
  get[#get + 1] = 'GET'; get[#get + 1] = 'u4'; get[#get + 1] = '#' .. ARGV[i]
end
local v = redis.call('BITFIELD_RO', KEYS[1], unpack(get))
if v[1] ~= 165 then return redis.error_reply('BLOOMLAB_SHARD_MISSING') end
local left, dec = {}, {}
for i = 2, #ARGV do
  local c = ARGV[i]
  if left[c] == nil then left[c] = v[i] end
  if left[c] ~= 15 then
    if left[c] == 0 then return 0 end
    left[c] = left[c] - 1
    dec[#dec + 1] = 'INCRBY'; dec[#dec + 1] = 'u4'; dec[#dec + 1] = '#' .. c; dec[#dec + 1] = -1
  end
end
if #dec > 0 then redis.call('BITFIELD', KEYS[1], unpack(dec)) end
return 1
",
    )
});

/// The marker of a script's error for a shard of the wrong Redis type; the
/// index of the shard's key in `KEYS` follows it.
pub const WRONG_TYPE: &str = "BLOOMLAB_WRONGTYPE";

/// The marker of a script's error for a metadata field that is missing or
/// out of bounds; the field's name follows it.
pub const META_CORRUPT: &str = "BLOOMLAB_META_CORRUPT";

/// The Lua function `guard(j, at)` of the scripts that touch a scalable
/// filter's layers: raises [`WRONG_TYPE`] or [`SHARD_MISSING`] followed by
/// `j`, unless byte `at` of `KEYS[j]` is the guard
/// ([`layout::script_error`](crate::layout::script_error) reads the key's
/// index back). Raising stops the script before any write that follows it.
const GUARD_FN: &str = r"
local function guard(j, at)
  local g = redis.pcall('GETRANGE', KEYS[j], at, at)
  if type(g) == 'table' and g.err then
    error({err = 'BLOOMLAB_WRONGTYPE ' .. j})
  end
  if g ~= '\165' then error({err = 'BLOOMLAB_SHARD_MISSING ' .. j}) end
end
";

/// The Lua functions of the scripts that change a scalable filter's
/// counts: `counts()` reads `layers`, `count`, `inserts`, `state` and
/// `checksum` from `KEYS[1]` and raises [`META_MISSING`] for a filter that
/// is gone, [`META_CORRUPT`] `state` unless `state` is the checksum of the
/// others ([`state_sum`](crate::meta::state_sum)); `restate()` writes the
/// checksum of the counts as they are now.
const COUNTS_FN: &str = r"
local function state_of(c)
  return string.sub(redis.sha1hex(table.concat(c, ':')), 1, 16)
end
local function counts()
  local c = redis.call('HMGET', KEYS[1], 'layers', 'count', 'inserts', 'state', 'checksum')
  if not (c[1] or c[2] or c[3] or c[4] or c[5]) then
    error({err = 'BLOOMLAB_META_MISSING'})
  end
  for i = 1, 5 do
    if not c[i] then error({err = 'BLOOMLAB_META_CORRUPT state'}) end
  end
  if state_of({c[1], c[2], c[3], c[5]}) ~= c[4] then
    error({err = 'BLOOMLAB_META_CORRUPT state'})
  end
  return c
end
local function restate()
  local c = redis.call('HMGET', KEYS[1], 'layers', 'count', 'inserts', 'checksum')
  redis.call('HSET', KEYS[1], 'state', state_of(c))
end
";

/// Writes a planned batch into a scalable filter's active layer, if the
/// plan still holds: the layer count is the one read, the items the plan
/// adds still fit the active layer, and every block written one by one
/// still holds the bytes read (spans are ORed in, so a change elsewhere in
/// them is kept). `KEYS[1]`: the metadata hash; `KEYS[2]`: a scratch key
/// in the filter's slot; `KEYS[3..]`: shards. `ARGV[1]`: `layers` as
/// read; `ARGV[2]`: the items added; `ARGV[3]`: the inserts (items added
/// and found present); `ARGV[4]`: the active layer's capacity; then per
/// shard: its index in `KEYS`, its guard's byte offset, the number of
/// writes, and each write: `O` with a byte offset and a mask to OR in, or
/// `C` with a byte offset, the bytes read and the bytes to write. Every
/// check comes before the first write. Returns 1 when written, 0 (changing
/// nothing) when the plan no longer holds.
pub static SCALABLE_WRITE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        r"{GUARD_FN}{COUNTS_FN}
local m = counts()
if m[1] ~= ARGV[1] then return 0 end
local count = tonumber(m[2])
if not count then return redis.error_reply('BLOOMLAB_META_CORRUPT count') end
if count + tonumber(ARGV[2]) > tonumber(ARGV[4]) then return 0 end
local writes, i = {{}}, 5
while i <= #ARGV do
  local j, n = tonumber(ARGV[i]), tonumber(ARGV[i + 2])
  guard(j, ARGV[i + 1])
  i = i + 3
  for _ = 1, n do
    if ARGV[i] == 'O' then
      writes[#writes + 1] = {{KEYS[j], 'O', ARGV[i + 1], ARGV[i + 2]}}
      i = i + 3
    else
      local old = ARGV[i + 2]
      local now = redis.call('GETRANGE', KEYS[j], ARGV[i + 1], ARGV[i + 1] + #old - 1)
      if now ~= old then return 0 end
      writes[#writes + 1] = {{KEYS[j], 'C', ARGV[i + 1], ARGV[i + 3]}}
      i = i + 4
    end
  end
end
for _, w in ipairs(writes) do
  if w[2] == 'O' then
    redis.call('SETRANGE', KEYS[2], w[3], w[4])
    -- BITOP replaces its destination, time to live included: keep it.
    local ttl = redis.call('PTTL', w[1])
    redis.call('BITOP', 'OR', w[1], w[1], KEYS[2])
    if ttl > 0 then redis.call('PEXPIRE', w[1], ttl) end
    redis.call('DEL', KEYS[2])
  else
    redis.call('SETRANGE', w[1], w[3], w[4])
  end
end
redis.call('HINCRBY', KEYS[1], 'count', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'inserts', ARGV[3])
restate()
return 1
"
    ))
});

/// Opens layer `ARGV[1]` of a scalable filter (whose `layers` must then be
/// `ARGV[1]`, and whose active layer must be full: `count` at least
/// `ARGV[2]`): writes the guard of each of its shards `KEYS[2..]` at the
/// bit offsets `ARGV[3..]`, creating them zeroed at full size, then counts
/// the layer. A shard that exists already is a metadata `layers` that was
/// lowered by hand: refused. The new shards take the metadata's time to
/// live, if it has one. Returns the layer count after the call.
pub static SCALABLE_OPEN: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        r"{COUNTS_FN}
local m = counts()
local layers = m[1]
if layers ~= ARGV[1] then return tonumber(layers) end
local count = tonumber(m[2])
if not count then return redis.error_reply('BLOOMLAB_META_CORRUPT count') end
if count < tonumber(ARGV[2]) then return tonumber(layers) end
for j = 2, #KEYS do
  if redis.call('EXISTS', KEYS[j]) == 1 then
    return redis.error_reply('BLOOMLAB_META_CORRUPT layers')
  end
end
local ttl = redis.call('PTTL', KEYS[1])
for j = 2, #KEYS do
  redis.call('BITFIELD', KEYS[j], 'SET', 'u8', ARGV[j + 1], 165)
  if ttl > 0 then redis.call('PEXPIRE', KEYS[j], ttl) end
end
redis.call('HSET', KEYS[1], 'layers', tonumber(layers) + 1, 'count', 0)
restate()
return tonumber(layers) + 1
"
    ))
});

/// Adds one item to a scalable filter unless a layer holds it: the path a
/// batch falls back to when other writers keep moving the state under
/// [`SCALABLE_WRITE`]. `KEYS`: the metadata hash, then the item's shard in
/// each layer. `ARGV[1]`: the layers the caller knows; `ARGV[2]`: the
/// active layer's capacity; then per layer its guard's byte offset, `k`,
/// and its `k` bit offsets. Returns `{-1, layers}` when the caller's count
/// is stale, `{-2, layers}` when the active layer is full (open the next
/// with [`SCALABLE_OPEN`]), `{0, layers}` when the item was present, `{1,
/// layers}` when it was added.
pub static SCALABLE_INSERT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        r"{GUARD_FN}{COUNTS_FN}
local m = counts()
local layers = tonumber(m[1])
if layers ~= tonumber(ARGV[1]) then return {{-1, layers}} end
local count = tonumber(m[2])
if not count then return redis.error_reply('BLOOMLAB_META_CORRUPT count') end
local cells, at = {{}}, 3
while at <= #ARGV do
  local k = tonumber(ARGV[at + 1])
  cells[#cells + 1] = {{ARGV[at], at + 2, k}}
  at = at + 2 + k
end
for j = 1, layers do
  guard(j + 1, cells[j][1])
end
local function ops(j, op)
  local first, k, list = cells[j][2], cells[j][3], {{}}
  for i = 0, k - 1 do
    list[#list + 1] = op; list[#list + 1] = 'u1'; list[#list + 1] = ARGV[first + i]
    if op == 'SET' then list[#list + 1] = 1 end
  end
  return list
end
for j = 1, layers do
  local present = true
  for _, bit in ipairs(redis.call('BITFIELD_RO', KEYS[j + 1], unpack(ops(j, 'GET')))) do
    if bit == 0 then present = false; break end
  end
  if present then
    redis.call('HINCRBY', KEYS[1], 'inserts', 1)
    restate()
    return {{0, layers}}
  end
end
if count >= tonumber(ARGV[2]) then return {{-2, layers}} end
redis.call('BITFIELD', KEYS[layers + 1], unpack(ops(layers, 'SET')))
redis.call('HINCRBY', KEYS[1], 'count', 1)
redis.call('HINCRBY', KEYS[1], 'inserts', 1)
restate()
return {{1, layers}}
"
    ))
});

/// Every script, for loading after a server forgot them.
pub fn all() -> [&'static Script; 9] {
    use crate::cuckoo;
    [
        &CREATE,
        &OR_MASK,
        &REMOVE,
        &SCALABLE_WRITE,
        &SCALABLE_OPEN,
        &SCALABLE_INSERT,
        &cuckoo::READ,
        &cuckoo::INSERT,
        &cuckoo::REMOVE,
    ]
}
