//! Sizes against the `xorf` crate's binary fuse filters, built from the
//! same keys: the paper's sizing gives both the same array, so the
//! 3-wise filter of each width must be within 1% of xorf's (xorf builds
//! 3-wise only), and the filter the rate picks never more than 1% larger.

use bloomlab_fuse::BinaryFuseFilter;
use xorf::{BinaryFuse8, BinaryFuse16};

/// Bits per key of xorf's 8- and 16-bit filters of `keys`.
fn xorf_bits(keys: &[u64]) -> [f64; 2] {
    let n = keys.len() as f64;
    let eight = BinaryFuse8::try_from(keys).unwrap();
    let sixteen = BinaryFuse16::try_from(keys).unwrap();
    [
        eight.fingerprints.len() as f64 * 8.0 / n,
        sixteen.fingerprints.len() as f64 * 16.0 / n,
    ]
}

/// Bits per key of bloomlab's `bits`-bit filter of `keys`, 3-wise or as
/// the rate `2^−bits` picks (`arity: None`).
fn bloomlab_bits(keys: &[u64], bits: u32, arity: Option<u32>) -> f64 {
    let builder = match arity {
        Some(arity) => BinaryFuseFilter::<u64>::builder_with_bits(bits).arity(arity),
        None => BinaryFuseFilter::<u64>::builder(0.5f64.powi(bits as i32)),
    };
    let f = builder.seed(keys.len() as u64).build(keys).unwrap();
    assert_eq!(f.fingerprint_bits(), bits);
    f.memory_bytes() as f64 * 8.0 / keys.len() as f64
}

#[test]
fn bits_per_key_within_one_percent_of_xorf() {
    for n in [10_000u64, 1_000_000] {
        // Distinct keys, as xorf requires.
        let keys: Vec<u64> = (0..n)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        for (bits, theirs) in [8, 16].into_iter().zip(xorf_bits(&keys)) {
            let three = bloomlab_bits(&keys, bits, Some(3));
            assert!(
                (three / theirs - 1.0).abs() <= 0.01,
                "{bits}-bit 3-wise, {n} keys: {three:.4} bits against xorf's {theirs:.4}"
            );
            let picked = bloomlab_bits(&keys, bits, None);
            assert!(
                picked <= theirs * 1.01,
                "{bits}-bit as the rate picks, {n} keys: {picked:.4} bits against xorf's {theirs:.4}"
            );
        }
    }
}
