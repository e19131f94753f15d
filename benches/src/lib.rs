//! Shared helpers for the benchmarks: seeded keys (the same ones the tests
//! and experiments draw, from `bloomlab-lab`), the measuring loops every
//! bench file uses ([`harness`]), the large-filter construction ([`big`]),
//! the lower bounds measured beside the filters ([`floor`]), every catalog
//! variant in one set of groups ([`catalog`]) and the report tool
//! ([`report`]).

pub mod big;
pub mod catalog;
pub mod floor;
pub mod harness;
pub mod report;

/// `n` member keys (top bit clear) from `seed`.
pub fn members(seed: u64, n: usize) -> Vec<u64> {
    bloomlab_lab::keys::members(seed, n)
}

/// `n` non-member keys (top bit set) from `seed`: never a member.
pub fn others(seed: u64, n: usize) -> Vec<u64> {
    bloomlab_lab::keys::probes(seed, n).collect()
}

/// `n` members and `n` non-members from one seed.
pub fn keys(seed: u64, n: usize) -> (Vec<u64>, Vec<u64>) {
    (members(seed, n), others(seed, n))
}
