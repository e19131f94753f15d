//! A table kept as several strings of bounded size ("shards"), each ending
//! with one guard byte: how many shards, how much each holds, and the bytes
//! of them all.
//!
//! bloomlab-redis keeps its tables this way, and `bloomlab choose` sizes a
//! filter in Redis without a Redis client: both read the arithmetic from
//! here, so the size the chooser prints is the size the filter writes.

/// The default cap on a shard's bytes, guard included: 1 MiB.
pub const DEFAULT_MAX_SHARD_BYTES: u64 = 1 << 20;

/// The default cap on the bytes a sharded filter may take, over all its
/// tables: 4 GiB. A client refuses to create or open a larger filter unless
/// it was given a higher cap.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 32;

/// A table of whole units cut into balanced shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    /// Shards.
    pub shards: u64,
    /// Units in every shard but the last, which may hold fewer.
    pub units_per_shard: u64,
}

impl Split {
    /// Cuts `units` units of `unit_bytes` bytes each into the fewest shards
    /// of at most `max_shard_bytes` bytes, guard byte included, with as many
    /// units in each as the last allows (every shard but the last holds
    /// `units_per_shard`).
    ///
    /// `None` when one unit and its guard do not fit a shard, or for zero
    /// units or unit bytes.
    ///
    /// ```
    /// use bloomlab_core::shards::{DEFAULT_MAX_SHARD_BYTES, Split};
    ///
    /// // 19,372 blocks of 64 bytes: 16,383 blocks fit 1 MiB with a guard.
    /// let split = Split::new(19_372, 64, DEFAULT_MAX_SHARD_BYTES).unwrap();
    /// assert_eq!(split, Split { shards: 2, units_per_shard: 9_686 });
    /// assert_eq!(split.bytes(19_372 * 64), 19_372 * 64 + 2);
    /// ```
    pub fn new(units: u64, unit_bytes: u64, max_shard_bytes: u64) -> Option<Self> {
        if units == 0 || unit_bytes == 0 {
            return None;
        }
        let per_shard = max_shard_bytes.checked_sub(1)? / unit_bytes;
        if per_shard == 0 {
            return None;
        }
        let shards = units.div_ceil(per_shard);
        Some(Self {
            shards,
            units_per_shard: units.div_ceil(shards),
        })
    }

    /// The bytes of all the shards of a table of `table_bytes` bytes: the
    /// table and one guard byte a shard.
    pub fn bytes(&self, table_bytes: u64) -> u64 {
        table_bytes.saturating_add(self.shards)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fewest_balanced_shards() {
        // Exactly full: 4 units of 10 bytes and a guard in 41 bytes.
        assert_eq!(
            Split::new(8, 10, 41),
            Some(Split {
                shards: 2,
                units_per_shard: 4
            })
        );
        // One more unit needs a third shard, and the three share the units.
        assert_eq!(
            Split::new(9, 10, 41),
            Some(Split {
                shards: 3,
                units_per_shard: 3
            })
        );
        // A guard needs its byte: 10 bytes hold no unit of 10.
        assert_eq!(Split::new(1, 10, 10), None);
        assert_eq!(Split::new(1, 10, 0), None);
        assert_eq!(Split::new(0, 10, 41), None);
        // Every shard within the cap, none empty, all units placed.
        for units in 1..200u64 {
            for cap in 11..60u64 {
                let s = Split::new(units, 10, cap).unwrap();
                assert!(s.units_per_shard * 10 < cap, "{units} {cap}");
                assert!(s.units_per_shard * s.shards >= units);
                assert!(s.units_per_shard * (s.shards - 1) < units);
                let per = (cap - 1) / 10;
                assert_eq!(s.shards, units.div_ceil(per));
            }
        }
    }
}
