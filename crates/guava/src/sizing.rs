//! Guava's sizing, in the order and precision Java evaluates it.
//!
//! Read from the bytecode of `com.google.common.hash.BloomFilter` in Debian's
//! `libguava-java` 31.1 (`javap -c -p`), and checked against that jar for
//! a grid of a few thousand `(n, fpp)` pairs (`tests/fixtures/sizing.txt`).
//! `create(funnel, n, fpp)` calls [`optimal_num_of_bits`] with `n` (0 taken
//! as 1), then [`optimal_num_of_hash_functions`] with that **unrounded**
//! bit count, and only then rounds the bits up to whole 64-bit words: the
//! filter's bit size is `words * 64`, which can be larger than the bits `k`
//! was chosen for.

/// `BloomFilter.optimalNumOfBits(n, p)`:
/// `(long) (-n * Math.log(p) / (Math.log(2) * Math.log(2)))`, with `p = 0`
/// taken as `Double.MIN_VALUE`.
///
/// The cast saturates and sends NaN to 0, as Java's `d2l` does.
///
/// ```
/// use bloomlab_guava::sizing::{optimal_num_of_bits, optimal_num_of_hash_functions};
///
/// // The numbers of Guava's create(integerFunnel, 1000, 0.001): 14377 bits
/// // (225 words, 14400 bits, once rounded) and 10 hash functions.
/// let m = optimal_num_of_bits(1000, 0.001);
/// assert_eq!(m, 14377);
/// assert_eq!(optimal_num_of_hash_functions(1000, m), 10);
/// ```
pub fn optimal_num_of_bits(n: u64, p: f64) -> u64 {
    let p = if p == 0.0 { f64::from_bits(1) } else { p };
    let ln2 = 2f64.ln();
    // Java negates the long first; `-(n as f64)` is the same double.
    let bits = -(n as f64) * p.ln() / (ln2 * ln2);
    // d2l: saturating, NaN to 0. A negative result (p > 1) is not a size.
    u64::try_from(bits as i64).unwrap_or(0)
}

/// `BloomFilter.optimalNumOfHashFunctions(n, m)`:
/// `Math.max(1, (int) Math.round((double) m / n * Math.log(2)))`.
///
/// `Math.round` rounds half up and saturates to a `long`, which `(int)` then
/// truncates to its low 32 bits; `max(1, ..)` makes the result at least 1.
/// Guava refuses a filter of more than 255 hash functions.
///
/// ```
/// use bloomlab_guava::sizing::optimal_num_of_hash_functions;
///
/// assert_eq!(optimal_num_of_hash_functions(100, 21), 1); // round(0.146) = 0, then max(1, 0)
/// assert_eq!(optimal_num_of_hash_functions(1, 10), 7);
/// ```
pub fn optimal_num_of_hash_functions(n: u64, m: u64) -> u32 {
    let k = (m as f64 / n as f64 * 2f64.ln()).round();
    // Math.round: saturating to a long, NaN to 0; then l2i keeps the low 32 bits.
    let k = k as i64 as i32;
    k.max(1).unsigned_abs()
}

/// The 64-bit words of Guava's bit array for `bits` bits:
/// `LongMath.divide(bits, 64, CEILING)`, which must fit an `int`
/// (`Ints.checkedCast`); `None` when it does not.
pub fn words_for_bits(bits: u64) -> Option<u32> {
    let words = bits.div_ceil(64);
    u32::try_from(words).ok().filter(|&w| w <= i32::MAX as u32)
}

/// The bytes [`write_to`](crate::GuavaBloomFilter::write_to) writes for a
/// filter of `words` words: Guava's 6-byte header (strategy, `k`, word
/// count), then 8 bytes a word.
///
/// ```
/// use bloomlab_guava::sizing::{optimal_num_of_bits, words_for_bits, written_bytes};
/// use bloomlab_guava::{GuavaBloomFilter, LongFunnel};
///
/// let words = words_for_bits(optimal_num_of_bits(1000, 0.001)).unwrap();
/// let filter = GuavaBloomFilter::create(LongFunnel, 1000, 0.001)?;
/// assert_eq!(written_bytes(words), filter.to_bytes().len() as u64);
/// assert_eq!(written_bytes(words), 1_806);
/// # Ok::<(), bloomlab_guava::CreateError>(())
/// ```
pub fn written_bytes(words: u32) -> u64 {
    crate::codec::HEADER as u64 + 8 * u64::from(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_000s_filter() {
        // Document 000 (shared/seeds/CLAIMS.md, E1) quotes m=14377 k=10 for
        // Guava's create(1000, 0.001).
        assert_eq!(optimal_num_of_bits(1000, 0.001), 14377);
        assert_eq!(optimal_num_of_hash_functions(1000, 14377), 10);
    }

    #[test]
    fn java_edge_cases() {
        assert_eq!(optimal_num_of_bits(1, 0.0), 1549); // as Double.MIN_VALUE: -ln = 744.44
        assert_eq!(optimal_num_of_bits(5, 0.99), 0);
        assert_eq!(optimal_num_of_bits(u64::MAX, 0.01), i64::MAX as u64);
        assert_eq!(optimal_num_of_hash_functions(0, 0), 1); // NaN rounds to 0
        assert_eq!(optimal_num_of_hash_functions(0, 5), 1); // +inf saturates, then (int) is -1
        // round(2^40 ln 2) = 762123384786, whose low 32 bits are 1914173394 (checked in Java).
        assert_eq!(optimal_num_of_hash_functions(1, 1 << 40), 1_914_173_394);
    }

    #[test]
    fn words_are_checked_ints() {
        // The bits of the most words `Ints.checkedCast` lets through.
        let most = i32::MAX as u64 * 64;
        for (bits, words) in [
            (0, Some(0)),
            (1, Some(1)),
            (64, Some(1)),
            (65, Some(2)),
            (most, Some(i32::MAX as u32)),
            (most + 1, None),
        ] {
            assert_eq!(words_for_bits(bits), words, "{bits} bits");
        }
    }
}
