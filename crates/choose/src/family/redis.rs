//! The filters of bloomlab-redis, sized for a workload without a Redis
//! client, and the memory Redis holds for them.
//!
//! A filter in Redis is a metadata hash and shard keys (see bloomlab-redis's
//! crate docs). The tables are sized exactly as its `create` sizes them: the
//! blocked sizing of bloomlab-core for the Bloom, counting and scalable
//! filters, the cuckoo crate's plan for the cuckoo filter, cut into shards
//! by [`Split`], which bloomlab-redis uses too. The constants of
//! bloomlab-redis that the sizing needs are repeated below; the tests of
//! this crate, which have bloomlab-redis as a dev-dependency, check that
//! they still agree with it.
//!
//! [`key_usage`] turns a shard's length into the bytes `MEMORY USAGE`
//! reports for it on Redis 7 with jemalloc, its default allocator; a test
//! compares the two on a real server.

use bloomlab::core::shards::{DEFAULT_MAX_BYTES, DEFAULT_MAX_SHARD_BYTES, Split};
use bloomlab::cuckoo::{FINGERPRINT_BITS, MAX_BUCKETS};
use bloomlab::theory::{blocked, cuckoo, scalable};

use super::super::numbers::{bytes, grouped, sci};
use super::super::workload::{Growth, Workload};
use super::{Offer, Supports};

/// Cells of one block, as `bloomlab_redis`'s blocked tables have them.
pub const BLOCK_CELLS: u32 = 512;

/// Slots per bucket of a `RedisCuckooFilter` (`bloomlab_redis::cuckoo::BUCKET_SIZE`).
pub const CUCKOO_BUCKET_SIZE: u32 = 4;

/// The most shards of a Bloom or counting filter (`bloomlab_redis::MAX_SHARDS`).
pub const MAX_SHARDS: u64 = 1 << 20;

/// The most shards of a cuckoo filter (`bloomlab_redis::cuckoo::MAX_SHARDS`).
pub const CUCKOO_MAX_SHARDS: u64 = 1 << 17;

/// The name the offers' code and figures use for the filter.
pub const NAME: &str = "filter";

/// Bytes of a Redis object header (`robj`): type, encoding, LRU bits,
/// reference count and a pointer.
const OBJECT_BYTES: u64 = 16;

/// Bytes of one entry of the key table (`dictEntry`: key, value and next
/// pointers), which `MEMORY USAGE` counts for every key in Redis 7.
const ENTRY_BYTES: u64 = 24;

/// The size jemalloc hands out for a request of `n` bytes: its size
/// classes on a 64-bit build with 16-byte quantum and 4 KiB pages, which
/// are 8, then multiples of 16 up to 128, then four classes to each
/// doubling (160, 192, 224, 256, 320, …), at every size.
pub fn jemalloc_size(n: u64) -> u64 {
    match n {
        0..=8 => 8,
        9..=128 => n.div_ceil(16) * 16,
        _ => {
            // The class spacing is a quarter of the power of two below n.
            let below = 63 - (n - 1).leading_zeros();
            let step = 1u64 << (below - 2);
            n.div_ceil(step).saturating_mul(step)
        }
    }
}

/// Bytes of the allocation of an `sds` string of `len` bytes: its header
/// (1, 3, 5 or 9 bytes, by the length it must record), the bytes and a
/// terminating zero, rounded to jemalloc's class.
fn sds_bytes(len: u64) -> u64 {
    let header = match len {
        0..32 => 1,
        32..256 => 3,
        256..65_536 => 5,
        _ => 9,
    };
    jemalloc_size(header + len + 1)
}

/// What `MEMORY USAGE key` reports on Redis 7 (jemalloc) for a string key
/// named `key` whose value is `len` bytes written by `SETRANGE` (as
/// bloomlab-redis creates its shards): the value's allocation, its object
/// header, the key's name and its entry in the key table.
pub fn key_usage(key: &str, len: u64) -> u64 {
    sds_bytes(len) + OBJECT_BYTES + sds_bytes(key.len() as u64) + ENTRY_BYTES
}

/// Bytes Redis holds for the shard keys of one table, as `MEMORY USAGE`
/// counts them: `body(s)` is shard `s`'s bytes before its guard byte.
fn shards_usage(shards: u64, key: impl Fn(u64) -> String, body: impl Fn(u64) -> u64) -> u64 {
    (0..shards).map(|s| key_usage(&key(s), body(s) + 1)).sum()
}

/// A blocked table in Redis: its blocks, hashes, shards, and the bytes
/// Redis holds for its shards.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Blocked {
    /// 512-cell blocks.
    pub blocks: u64,
    /// Cells per item, `k`.
    pub hashes: u32,
    /// Shard keys.
    pub shards: u64,
    /// The shards' bytes, guards included.
    pub bytes: u64,
    /// What `MEMORY USAGE` reports for the shards.
    pub usage: u64,
}

impl Blocked {
    /// The table `create` makes for `items` at `fpr` with cells of
    /// `cell_bits` bits (1 for a Bloom filter, 4 for counters), its shard
    /// `s` named `key(s)`.
    pub fn plan(
        items: u64,
        fpr: f64,
        cell_bits: u64,
        key: impl Fn(u64) -> String,
    ) -> Result<Self, String> {
        let (blocks, hashes) = blocked::size_for(BLOCK_CELLS, items, fpr)
            .map_err(|e| format!("cannot be sized: {e}"))?;
        let block_bytes = u64::from(BLOCK_CELLS) * cell_bits / 8;
        let split = Split::new(blocks, block_bytes, DEFAULT_MAX_SHARD_BYTES)
            .filter(|s| s.shards <= MAX_SHARDS)
            .ok_or_else(|| format!("{} blocks are more than its shards hold", grouped(blocks)))?;
        let body = |s: u64| {
            split
                .units_per_shard
                .min(blocks - s * split.units_per_shard)
                * block_bytes
        };
        Ok(Self {
            blocks,
            hashes,
            shards: split.shards,
            bytes: split.bytes(blocks * block_bytes),
            usage: shards_usage(split.shards, key, body),
        })
    }

    /// The rate holding `items`.
    pub fn fpr(&self, items: u64) -> f64 {
        blocked::fpr_exact(BLOCK_CELLS, self.blocks, items, self.hashes)
    }
}

/// The keys of a filter named [`NAME`]: `filter:0`, …
fn plain_key(s: u64) -> String {
    format!("{NAME}:{s}")
}

/// The keys of a filter named [`NAME`] that share its hash tag: `{filter}:0`, …
fn tagged_key(s: u64) -> String {
    format!("{{{NAME}}}:{s}")
}

/// What the figures count, for the report.
pub fn measure() -> String {
    format!(
        "memory in Redis: the filter's shard keys as `MEMORY USAGE` reports them on Redis 7 \
         with jemalloc (each shard's bytes and guard byte, rounded up to the allocator's size \
         class, and {} bytes a key for its object header, its entry in the key table and its \
         name), for a filter named \"{NAME}\"; its metadata hash adds under 1 kB; each replica \
         holds as much again",
        key_usage(&plain_key(0), 0) - sds_bytes(0)
    )
}

/// `create` for a type, with options when the filter is over the default limit.
fn construct(type_name: &str, w: &Workload, items: u64, bytes_needed: u64) -> String {
    let n = grouped(items).replace(',', "_");
    let fpr = format!("{:?}", w.fpr);
    if bytes_needed > DEFAULT_MAX_BYTES {
        format!(
            "{type_name}::create_with(conn, \"{NAME}\", {n}, {fpr}, Options::new().max_bytes({}))",
            grouped(bytes_needed).replace(',', "_")
        )
    } else {
        format!("{type_name}::create(conn, \"{NAME}\", {n}, {fpr})")
    }
}

/// The offers for a filter in Redis.
pub fn offers(w: &Workload) -> Vec<Offer> {
    let peak = w.peak_items();
    vec![
        blocked_offer(w, peak, false),
        blocked_offer(w, peak, true),
        cuckoo_offer(w, peak),
        scalable_offer(w),
    ]
}

fn blocked_offer(w: &Workload, peak: u64, counters: bool) -> Offer {
    let (id, type_name, cell_bits) = if counters {
        ("redis-counting", "RedisCountingBloomFilter", 4)
    } else {
        ("redis-bloom", "RedisBloomFilter", 1)
    };
    let mut offer = Offer::new(
        id,
        type_name,
        "bloomlab-redis",
        Supports {
            remove: counters,
            grow: false,
            concurrent_insert: true,
        },
    );
    match Blocked::plan(peak, w.fpr, cell_bits, plain_key) {
        Ok(t) => {
            offer.construct = construct(type_name, w, peak, t.bytes);
            offer.parameters = format!(
                "blocks={} k={} shards={}",
                grouped(t.blocks),
                t.hashes,
                t.shards
            );
            offer.set_figures(t.usage, t.fpr(peak), peak);
            offer.beyond = Some(format!(
                "past {} items its rate climbs, to {} at twice as many",
                grouped(peak),
                sci(t.fpr(peak.saturating_mul(2)))
            ));
            if counters && w.deletes {
                offer.caveats.push(
                    "remove only keys that were added: `remove` of a key never added answers Ok \
                     whenever the filter reports it present (a false positive) and decrements \
                     counters that kept keys need, which then answer absent; 4-bit counters \
                     stick at 15 and are never decremented again"
                        .to_owned(),
                );
            }
        }
        Err(why) => offer.reasons.push(why),
    }
    offer
}

fn cuckoo_offer(w: &Workload, peak: u64) -> Offer {
    let type_name = "RedisCuckooFilter";
    let mut offer = Offer::new(
        "redis-cuckoo",
        type_name,
        "bloomlab-redis",
        Supports {
            remove: true,
            grow: false,
            concurrent_insert: true,
        },
    );
    let plan = match bloomlab::cuckoo::plan(peak, w.fpr, CUCKOO_BUCKET_SIZE) {
        Ok(plan) => plan,
        Err(e) => {
            offer.reasons.push(format!("cannot be sized: {e}"));
            return offer;
        }
    };
    let f = plan.fingerprint_bits;
    if plan.needed_bits > *FINGERPRINT_BITS.end() {
        offer.reasons.push(format!(
            "this rate needs {}-bit fingerprints; bloomlab-cuckoo stores at most {}",
            plan.needed_bits,
            FINGERPRINT_BITS.end()
        ));
        return offer;
    }
    if plan.buckets > MAX_BUCKETS {
        offer.reasons.push(format!(
            "{} buckets; bloomlab-cuckoo addresses at most 2^32",
            grouped(plan.buckets)
        ));
        return offer;
    }
    // Groups of eight buckets are whole bytes: `b·f` of them.
    let bucket_bits = u64::from(CUCKOO_BUCKET_SIZE * f);
    let groups = plan.buckets.div_ceil(8);
    let Some(split) = Split::new(groups, bucket_bits, DEFAULT_MAX_SHARD_BYTES)
        .filter(|s| s.shards <= CUCKOO_MAX_SHARDS)
    else {
        offer.reasons.push(format!(
            "{} buckets are more than its shards hold",
            grouped(plan.buckets)
        ));
        return offer;
    };
    let per = split.units_per_shard * 8;
    let body = |s: u64| (per.min(plan.buckets - s * per) * bucket_bits).div_ceil(8);
    let table_bytes = (plan.buckets * bucket_bits).div_ceil(8);
    let usage = shards_usage(split.shards, tagged_key, body);
    let slots = plan.buckets * u64::from(CUCKOO_BUCKET_SIZE);
    let load = peak as f64 / slots as f64;
    offer.construct = construct(type_name, w, peak, split.bytes(table_bytes));
    offer.parameters = format!(
        "buckets={} b={CUCKOO_BUCKET_SIZE} f={f} shards={}",
        grouped(plan.buckets),
        split.shards
    );
    offer.set_figures(usage, cuckoo::fpr(f, CUCKOO_BUCKET_SIZE, load), peak);
    if let Some(max) = cuckoo::max_load(CUCKOO_BUCKET_SIZE) {
        let fails_near = (slots as f64 * max) as u64;
        let text = format!(
            "inserts start failing (Error::Full) near {:.0}% of its {} slots, about {} items: \
             {:.1}% above the {} planned; `insert` stores a copy each time, so one key inserted \
             {} times fills its two buckets and its next insert fails",
            100.0 * max,
            grouped(slots),
            grouped(fails_near),
            100.0 * (fails_near as f64 / peak as f64 - 1.0),
            grouped(peak),
            2 * CUCKOO_BUCKET_SIZE
        );
        offer.beyond = Some(text.clone());
        offer.caveats.push(text);
    }
    if w.deletes {
        offer.caveats.push(
            "remove only keys that were added, once per insert; do not pair `insert_unique` with \
             `remove`: `insert_unique` skips a key that shares a stored fingerprint, and removing \
             either key then takes the one fingerprint away, so the other, still live, answers \
             absent"
                .to_owned(),
        );
    }
    offer
}

fn scalable_offer(w: &Workload) -> Offer {
    let type_name = "RedisScalableBloomFilter";
    let mut offer = Offer::new(
        "redis-scalable",
        type_name,
        "bloomlab-redis",
        Supports {
            remove: false,
            grow: true,
            concurrent_insert: true,
        },
    );
    let (growth, tightening) = (
        bloomlab::scalable::DEFAULT_GROWTH_FACTOR,
        bloomlab::scalable::DEFAULT_TIGHTENING_RATIO,
    );
    // The layers that hold the peak: one for a fixed set, none past the
    // first for an unknown growth (only the start is known).
    let layers = match w.growth {
        Growth::GrowsTo { to } => match scalable::layers_for(w.items, growth, to) {
            Ok(l) => l,
            Err(e) => {
                offer.reasons.push(format!("cannot be sized: {e}"));
                return offer;
            }
        },
        Growth::Fixed | Growth::Unknown => 1,
    };
    let (mut usage, mut stored, mut rates) = (0u64, 0u64, Vec::new());
    // Items not yet placed in a layer: each layer takes up to its capacity.
    let mut left = w.peak_items();
    for i in 0..layers {
        let capacity = u32::try_from(i)
            .ok()
            .and_then(|i| scalable::layer_capacity(w.items, growth, i));
        let (Ok(i), Some(capacity)) = (u32::try_from(i), capacity) else {
            offer
                .reasons
                .push("cannot be sized: the layers' capacities overflow".to_owned());
            return offer;
        };
        let rate = scalable::layer_fpr(w.fpr, tightening, i);
        let key = |s: u64| format!("{{{NAME}}}:{i}:{s}");
        match Blocked::plan(capacity, rate, 1, key) {
            Ok(t) => {
                usage = usage.saturating_add(t.usage);
                stored = stored.saturating_add(t.bytes);
                let held = left.min(capacity);
                left -= held;
                rates.push(t.fpr(held));
            }
            Err(why) => {
                offer.reasons.push(why);
                return offer;
            }
        }
    }
    offer.construct = construct(type_name, w, w.items, stored);
    offer.parameters = format!("layers={layers} growth={growth} r={tightening}");
    offer.set_figures(usage, scalable::compound_fpr(rates), w.peak_items());
    if matches!(w.growth, Growth::Unknown) {
        offer.notes.push(format!(
            "the figure is its first layer, for {} items; each layer it opens is {}× larger, at a \
             tighter rate",
            grouped(w.items),
            growth
        ));
    }
    if usage > 0 {
        offer.notes.push(format!(
            "its layers share the hash tag {{{NAME}}}: on a Cluster the whole filter, {}, lives \
             on one node",
            bytes(usage)
        ));
    }
    offer
}
