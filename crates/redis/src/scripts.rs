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
redis.call('BITOP', 'OR', KEYS[1], KEYS[1], KEYS[2])
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

/// The part of the insert script that reads the layers' cells from
/// `ARGV[3..]`: per layer, `k` then its `k` bit offsets. `cells[j]` is
/// `{first argument, k}` of layer `j - 1`, whose shard is `KEYS[j + 1]`.
const LAYER_CELLS: &str = r"
local layers = tonumber(redis.call('HGET', KEYS[1], 'layers'))
if not layers then return redis.error_reply('BLOOMLAB_META_MISSING') end
if layers ~= tonumber(ARGV[1]) then return {-1, layers} end
local cells, at = {}, 3
while at <= #ARGV do
  local k = tonumber(ARGV[at])
  cells[#cells + 1] = {at + 1, k}
  at = at + 1 + k
end
local function present(j)
  local first, k = cells[j][1], cells[j][2]
  local get = {}
  for i = 0, k - 1 do
    get[#get + 1] = 'GET'; get[#get + 1] = 'u1'; get[#get + 1] = ARGV[first + i]
  end
  for _, bit in ipairs(redis.call('BITFIELD_RO', KEYS[j + 1], unpack(get))) do
    if bit == 0 then return false end
  end
  return true
end
for j = 1, layers do
  if present(j) then
    redis.call('HINCRBY', KEYS[1], 'inserts', 1)
    return {0, layers}
  end
end
";

/// Adds an item to a scalable filter unless a layer already holds it,
/// opening the next layer when the active one is at capacity. `KEYS`: the
/// metadata hash, then the item's shard in each layer and in the next one;
/// `ARGV[1]`: the layers the caller knows, `ARGV[2]`: the active layer's
/// capacity; then the cells of every layer and of the next one. Returns
/// `{-1, layers}` when the caller's count is stale, `{0, layers}` when the
/// item was present, `{1, layers}` when it was added.
pub static SCALABLE_INSERT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        r"{LAYER_CELLS}
local target = layers
if tonumber(redis.call('HGET', KEYS[1], 'count')) >= tonumber(ARGV[2]) then
  target = layers + 1
  redis.call('HSET', KEYS[1], 'layers', target, 'count', 0)
end
local first, k = cells[target][1], cells[target][2]
local set = {{}}
for i = 0, k - 1 do
  set[#set + 1] = 'SET'; set[#set + 1] = 'u1'; set[#set + 1] = ARGV[first + i]; set[#set + 1] = 1
end
redis.call('BITFIELD', KEYS[target + 1], unpack(set))
redis.call('HINCRBY', KEYS[1], 'count', 1)
redis.call('HINCRBY', KEYS[1], 'inserts', 1)
return {{1, target}}
"
    ))
});

/// Every script, for loading after a server forgot them.
pub fn all() -> [&'static Script; 7] {
    use crate::cuckoo;
    [
        &CREATE,
        &OR_MASK,
        &REMOVE,
        &SCALABLE_INSERT,
        &cuckoo::READ,
        &cuckoo::INSERT,
        &cuckoo::REMOVE,
    ]
}
