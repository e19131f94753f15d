//! Seeded random keys.
//!
//! Members have the top bit clear and probes have it set, so a probe is never
//! a member whatever the seeds: every probe reported present is a false positive.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The one seeded generator every test and experiment uses (ChaCha8: its
/// output is stable across platforms and versions of `rand_chacha`).
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// `n` member keys (top bit clear) from `seed`; duplicates are as rare as
/// random 63-bit collisions.
pub fn members(seed: u64, n: usize) -> Vec<u64> {
    let mut r = rng(seed);
    (0..n).map(|_| r.random::<u64>() >> 1).collect()
}

/// `n` probe keys (top bit set) from `seed`: never a member.
pub fn probes(seed: u64, n: usize) -> impl Iterator<Item = u64> {
    let mut r = rng(seed ^ 0x5eed_0f9b_0be5);
    (0..n).map(move |_| r.random::<u64>() | (1 << 63))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_and_probes_are_disjoint_and_stable() {
        let m = members(1, 1000);
        assert!(m.iter().all(|k| k >> 63 == 0));
        assert!(probes(1, 1000).all(|k| k >> 63 == 1));
        assert_eq!(m, members(1, 1000));
        assert_ne!(m, members(2, 1000));
    }
}
