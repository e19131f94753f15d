//! [`GuavaBloomFilter`]: Guava's `BloomFilter`, answer for answer.

use std::fmt;

use bloomlab_core::{Filter, InsertError, Membership};

use crate::error::{CreateError, IncompatibleError};
use crate::funnel::{Funnel, PrimitiveSink};
use crate::sizing::{optimal_num_of_bits, optimal_num_of_hash_functions, words_for_bits};
use crate::strategy::{Strategy, murmur3_128};

/// The false-positive probability of Guava's `create(funnel, n)`: 3%.
pub const DEFAULT_FPP: f64 = 0.03;

/// Guava's `com.google.common.hash.BloomFilter<T>`: the same bits, the same
/// answers, the same `writeTo` bytes.
///
/// `F` is the [`Funnel`] the Java side used; the filter holds
/// `F::Item`s (`i32` for [`IntegerFunnel`](crate::IntegerFunnel), `str`
/// for [`StringFunnel`](crate::StringFunnel)).
///
/// The bit array is `words` 64-bit words; bit `i` is bit `i & 63` of word
/// `i >> 6`, and the filter's bit size is always `64 * words`.
#[derive(Clone, PartialEq, Eq)]
pub struct GuavaBloomFilter<F> {
    pub(crate) words: Vec<u64>,
    /// 1..=255.
    pub(crate) num_hash_functions: u8,
    pub(crate) strategy: Strategy,
    pub(crate) funnel: F,
    /// Bits set: Guava's `bitCount()`, kept up to date.
    pub(crate) bit_count: u64,
}

impl<F: Funnel> GuavaBloomFilter<F> {
    /// `BloomFilter.create(funnel, expectedInsertions, fpp)`: Guava's sizing
    /// ([`sizing`](crate::sizing)) and its default strategy,
    /// [`Strategy::Murmur128Mitz64`].
    ///
    /// `expected_insertions` 0 is taken as 1, as Guava does.
    ///
    /// # Errors
    ///
    /// [`CreateError`] wherever Guava throws (a rate outside (0, 1), a
    /// sizing of zero bits, more than 2^31 - 1 words or 255 hash
    /// functions), or when the allocator refuses the bit array.
    pub fn create(funnel: F, expected_insertions: u64, fpp: f64) -> Result<Self, CreateError> {
        Self::create_with_strategy(funnel, expected_insertions, fpp, Strategy::Murmur128Mitz64)
    }

    /// Guava's package-private `create(funnel, expectedInsertions, fpp,
    /// strategy)`: [`create`](Self::create) with another strategy, to make
    /// filters that an old Guava (before 15) reads.
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create).
    pub fn create_with_strategy(
        funnel: F,
        expected_insertions: u64,
        fpp: f64,
        strategy: Strategy,
    ) -> Result<Self, CreateError> {
        if expected_insertions > i64::MAX as u64 {
            return Err(CreateError::TooManyInsertions(expected_insertions));
        }
        // Written so that NaN fails, as Guava's `fpp > 0.0` and `fpp < 1.0` do.
        if !(fpp > 0.0 && fpp < 1.0) {
            return Err(CreateError::InvalidFpp(fpp));
        }
        let n = expected_insertions.max(1);
        let bits = optimal_num_of_bits(n, fpp);
        // k is chosen for the unrounded bits, as Guava does.
        let k = optimal_num_of_hash_functions(n, bits);
        if bits == 0 {
            return Err(CreateError::NoBits);
        }
        let words = words_for_bits(bits).ok_or(CreateError::TooManyBits(bits))?;
        let k = u8::try_from(k).map_err(|_| CreateError::TooManyHashFunctions(k))?;
        let words = bloomlab_core::alloc::zeroed_words(words as usize)
            .map_err(|e| CreateError::OutOfMemory { bytes: e.bytes })?;
        Ok(Self {
            words,
            num_hash_functions: k,
            strategy,
            funnel,
            bit_count: 0,
        })
    }

    /// `put`: adds `item`; `true` if any bit changed, which is exactly when
    /// [`might_contain`](Self::might_contain) was `false` before.
    pub fn put(&mut self, item: &F::Item) -> bool {
        let hash = self.hash(item);
        let mut changed = false;
        for index in self.indexes(hash) {
            let (word, bit) = ((index >> 6) as usize, 1u64 << (index & 63));
            if self.words[word] & bit == 0 {
                self.words[word] |= bit;
                self.bit_count += 1;
                changed = true;
            }
        }
        changed
    }

    /// `mightContain`: `false` means `item` was never put; `true` means it
    /// probably was.
    pub fn might_contain(&self, item: &F::Item) -> bool {
        let hash = self.hash(item);
        self.indexes(hash)
            .all(|index| self.words[(index >> 6) as usize] & (1u64 << (index & 63)) != 0)
    }

    /// The `k` bit indexes [`put`](Self::put) sets for `item` and
    /// [`might_contain`](Self::might_contain) tests, in Guava's order
    /// (an index can repeat), each below [`bit_size`](Self::bit_size).
    ///
    /// ```
    /// use bloomlab_guava::{GuavaBloomFilter, IntegerFunnel};
    ///
    /// let mut filter = GuavaBloomFilter::create(IntegerFunnel, 1_000, 0.001)?;
    /// let indexes: Vec<u64> = filter.bit_indexes(&42).collect();
    /// assert_eq!(indexes.len(), 10);
    /// filter.put(&42);
    /// assert!(indexes.iter().all(|&i| filter.words()[(i >> 6) as usize] >> (i & 63) & 1 == 1));
    /// # Ok::<(), bloomlab_guava::CreateError>(())
    /// ```
    pub fn bit_indexes(&self, item: &F::Item) -> impl Iterator<Item = u64> + use<F> {
        self.indexes(self.hash(item))
    }

    fn hash(&self, item: &F::Item) -> (u64, u64) {
        let mut sink = PrimitiveSink::new();
        self.funnel.funnel(item, &mut sink);
        murmur3_128(sink.as_bytes())
    }
}

impl<F> GuavaBloomFilter<F> {
    fn indexes(&self, hash: (u64, u64)) -> crate::strategy::Indexes {
        self.strategy
            .indexes(hash, self.num_hash_functions(), self.bit_size())
    }

    /// `expectedFpp()`: `Math.pow(bitCount / bitSize, k)`, the chance that
    /// an item never put is reported present, given the bits set now.
    pub fn expected_fpp(&self) -> f64 {
        (self.bit_count as f64 / self.bit_size() as f64).powf(f64::from(self.num_hash_functions))
    }

    /// `approximateElementCount()`: the number of distinct items put,
    /// estimated from the bits set (Swamidass and Baldi, 2007) as
    /// `DoubleMath.roundToLong(-Math.log1p(-bitCount / bitSize) * bitSize / k, HALF_UP)`.
    ///
    /// When every bit is set the estimate is infinite: Guava throws
    /// `ArithmeticException`, and this returns `i64::MAX`.
    pub fn approximate_element_count(&self) -> u64 {
        let estimate = self.estimate_count();
        // HALF_UP rounds halves away from zero, as `round` does; the estimate
        // is never negative, and `as` saturates the infinite one.
        estimate.round() as i64 as u64
    }

    /// bloomlab's name for [`expected_fpp`](Self::expected_fpp): the rate
    /// from the table as it stands, as every bloomlab filter's
    /// `estimated_fpr`.
    pub fn estimated_fpr(&self) -> f64 {
        self.expected_fpp()
    }

    /// bloomlab's name for the estimate behind
    /// [`approximate_element_count`](Self::approximate_element_count),
    /// before Guava rounds it: the distinct items the bits set suggest, as
    /// every bloomlab filter's `estimate_count`. Infinite when every bit is
    /// set.
    pub fn estimate_count(&self) -> f64 {
        let bit_size = self.bit_size() as f64;
        let fraction = self.bit_count as f64 / bit_size;
        -(-fraction).ln_1p() * bit_size / f64::from(self.num_hash_functions)
    }

    /// Guava's `isCompatible`: whether [`put_all`](Self::put_all) would
    /// accept `other`.
    pub fn is_compatible(&self, other: &Self) -> bool
    where
        F: PartialEq,
    {
        self.check_compatible(other).is_ok()
    }

    /// `putAll`: adds every item of `other` (a bitwise OR), so that this
    /// filter answers as if it had been given both filters' items.
    ///
    /// # Errors
    ///
    /// [`IncompatibleError`], changing nothing, unless both filters have the
    /// same number of hash functions, bit size, strategy and an equal funnel
    /// (Guava's rule, checked in that order).
    pub fn put_all(&mut self, other: &Self) -> Result<(), IncompatibleError>
    where
        F: PartialEq,
    {
        self.check_compatible(other)?;
        for (ours, theirs) in self.words.iter_mut().zip(&other.words) {
            *ours |= theirs;
        }
        self.bit_count = count_ones(&self.words);
        Ok(())
    }

    fn check_compatible(&self, other: &Self) -> Result<(), IncompatibleError>
    where
        F: PartialEq,
    {
        if self.num_hash_functions != other.num_hash_functions {
            return Err(IncompatibleError::NumHashFunctions(
                self.num_hash_functions(),
                other.num_hash_functions(),
            ));
        }
        if self.bit_size() != other.bit_size() {
            return Err(IncompatibleError::BitSize(
                self.bit_size(),
                other.bit_size(),
            ));
        }
        if self.strategy != other.strategy {
            return Err(IncompatibleError::Strategy(self.strategy, other.strategy));
        }
        if self.funnel != other.funnel {
            return Err(IncompatibleError::Funnel);
        }
        Ok(())
    }

    /// Bits in the array: 64 times the number of words.
    pub fn bit_size(&self) -> u64 {
        self.words.len() as u64 * 64
    }

    /// Bits set (Guava's package-private `bitCount()`).
    pub fn bit_count(&self) -> u64 {
        self.bit_count
    }

    /// Bit indexes per item, `k` (1 to 255).
    pub fn num_hash_functions(&self) -> u32 {
        u32::from(self.num_hash_functions)
    }

    /// How items become bit indexes.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The funnel items go through.
    pub fn funnel(&self) -> &F {
        &self.funnel
    }

    /// The bit array: bit `i` is bit `i & 63` of word `i >> 6`.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Unsets every bit; the size, `k`, strategy and funnel stay.
    pub fn clear(&mut self) {
        self.words.fill(0);
        self.bit_count = 0;
    }
}

pub(crate) fn count_ones(words: &[u64]) -> u64 {
    words.iter().map(|w| u64::from(w.count_ones())).sum()
}

impl<F: fmt::Debug> fmt::Debug for GuavaBloomFilter<F> {
    // The words stay out: a filter can be megabytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GuavaBloomFilter")
            .field("strategy", &self.strategy)
            .field("num_hash_functions", &self.num_hash_functions)
            .field("bit_size", &self.bit_size())
            .field("bit_count", &self.bit_count)
            .field("funnel", &self.funnel)
            .finish()
    }
}

/// `len` is [`approximate_element_count`](GuavaBloomFilter::approximate_element_count)
/// (saturated to `usize`): a Guava filter keeps no count of its puts, and a
/// filter read from a file has only its bits.
impl<F> Filter for GuavaBloomFilter<F> {
    fn len(&self) -> usize {
        usize::try_from(self.approximate_element_count()).unwrap_or(usize::MAX)
    }

    fn is_empty(&self) -> bool {
        self.bit_count == 0
    }

    fn memory_bytes(&self) -> usize {
        self.words.len() * 8
    }

    fn expected_fpr(&self) -> f64 {
        self.expected_fpp()
    }

    fn clear(&mut self) {
        GuavaBloomFilter::clear(self);
    }
}

/// `insert` is [`put`](GuavaBloomFilter::put) (it never fails) and
/// `contains` is [`might_contain`](GuavaBloomFilter::might_contain).
impl<F: Funnel> Membership<F::Item> for GuavaBloomFilter<F> {
    fn insert(&mut self, item: &F::Item) -> Result<bool, InsertError> {
        Ok(self.put(item))
    }

    fn contains(&self, item: &F::Item) -> bool {
        self.might_contain(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{IntegerFunnel, LongFunnel, StringFunnel};

    #[test]
    fn create_checks_what_guava_checks() {
        let create = |n, p| GuavaBloomFilter::create(IntegerFunnel, n, p).map(|f| f.bit_size());
        assert_eq!(create(1000, 0.001), Ok(14400));
        assert_eq!(create(0, 0.03), create(1, 0.03));
        assert_eq!(create(1, 0.0), Err(CreateError::InvalidFpp(0.0)));
        assert_eq!(create(1, 1.0), Err(CreateError::InvalidFpp(1.0)));
        assert!(matches!(
            create(1, f64::NAN),
            Err(CreateError::InvalidFpp(_))
        ));
        assert_eq!(create(1, 0.99), Err(CreateError::NoBits));
        assert_eq!(
            create(u64::MAX, 0.5),
            Err(CreateError::TooManyInsertions(u64::MAX))
        );
        assert_eq!(
            create(1 << 40, 0.01),
            Err(CreateError::TooManyBits(optimal_num_of_bits(1 << 40, 0.01)))
        );
        assert!(matches!(
            create(10, 1e-300),
            Err(CreateError::TooManyHashFunctions(997))
        ));
    }

    #[test]
    fn put_reports_change_and_membership_agrees() {
        let mut f = GuavaBloomFilter::create(StringFunnel, 100, 0.01).unwrap();
        assert!(f.is_empty());
        assert!(f.put("日本語"));
        assert!(!f.put("日本語"));
        assert!(f.might_contain("日本語"));
        assert_eq!(f.bit_count(), u64::from(f.num_hash_functions()));
        assert_eq!(f.approximate_element_count(), 1);
        assert_eq!(Membership::insert(&mut f, "x"), Ok(true));
        assert!(Membership::contains(&f, "x"));
        assert_eq!(Filter::len(&f), 2);
        Filter::clear(&mut f);
        assert!(!f.might_contain("x") && f.bit_count() == 0);
    }

    #[test]
    fn put_all_follows_guavas_rule() {
        let mut a = GuavaBloomFilter::create(LongFunnel, 1000, 0.01).unwrap();
        let mut b = a.clone();
        a.put(&1);
        b.put(&-2);
        a.put_all(&b).unwrap();
        assert!(a.might_contain(&1) && a.might_contain(&-2));
        assert_eq!(a.bit_count(), count_ones(a.words()));

        let other_k = GuavaBloomFilter::create(LongFunnel, 1000, 0.001).unwrap();
        assert!(matches!(
            a.put_all(&other_k),
            Err(IncompatibleError::NumHashFunctions(7, 10))
        ));
        let other_size = GuavaBloomFilter::create(LongFunnel, 2000, 0.01).unwrap();
        assert!(matches!(
            a.put_all(&other_size),
            Err(IncompatibleError::BitSize(..))
        ));
        let other_strategy = GuavaBloomFilter::create_with_strategy(
            LongFunnel,
            1000,
            0.01,
            Strategy::Murmur128Mitz32,
        )
        .unwrap();
        assert!(!a.is_compatible(&other_strategy));
        assert!(a.is_compatible(&b));
    }

    #[test]
    fn a_full_filter_saturates_the_count() {
        let mut f = GuavaBloomFilter::create(IntegerFunnel, 1, 0.5).unwrap();
        for i in 0..10_000 {
            f.put(&i);
        }
        assert_eq!(f.bit_count(), 64);
        assert_eq!(f.expected_fpp(), 1.0);
        assert_eq!(f.approximate_element_count(), i64::MAX as u64);
    }
}
