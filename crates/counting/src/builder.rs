//! Building a counting filter: its size, counter width, hash key and memory limit.

use std::hash::BuildHasher;

use bloomlab_core::alloc::packed_words;
use bloomlab_core::builder::Settings;
use bloomlab_core::hash::Scheme;
use bloomlab_core::theory::classic;
#[cfg(doc)]
use bloomlab_core::theory::classic::MAX_HASHES;
use bloomlab_core::{DefaultHasher, ParamError, check_hashes};

use crate::counters::{Counters, WIDTHS, words_for};
use crate::error::{BuildError, Invalid};
use crate::filter::CountingBloomFilter;

/// The counter width a filter gets unless told otherwise: 4 bits, which Fan
/// et al. show saturates with probability about `1.37e-15 · m` at design load.
pub const DEFAULT_WIDTH: u32 = 4;

/// How the table is sized.
#[derive(Debug, Clone, Copy)]
enum Size {
    /// From the items expected and the target rate, by theory.
    Target { items: usize, fpr: f64 },
    /// Exactly this many counters and hashes.
    Exact { counters: u64, hashes: u32 },
}

/// Configures a [`CountingBloomFilter`]: made by
/// [`CountingBloomFilter::builder`] or
/// [`CountingBloomFilter::builder_with_counters`].
///
/// ```
/// use bloomlab_counting::{BuildError, CountingBloomFilter, Invalid};
///
/// let f = CountingBloomFilter::<u64>::builder(1_000, 0.01).seed(7).counter_width(8).build()?;
/// assert_eq!(f.counter_width(), 8);
/// assert_eq!(f.counter_max(), 255);
/// assert!(matches!(
///     CountingBloomFilter::<u64>::builder(1_000, 0.01).counter_width(3).build(),
///     Err(BuildError::Variant(Invalid::UnsupportedWidth(3)))
/// ));
/// # Ok::<(), BuildError>(())
/// ```
#[must_use = "a builder does nothing until build() is called"]
pub struct Builder<T: ?Sized, S = DefaultHasher>(Settings<T, Options, S>);

/// What a [`Builder`] sets beside the hasher.
#[derive(Debug, Clone, Copy)]
struct Options {
    size: Size,
    width: u32,
    max_bytes: Option<usize>,
    /// Sizes by `smallest_size_for` instead of `size_for`.
    smallest: bool,
}

bloomlab_core::impl_builder!(Builder);

impl<T: ?Sized> Builder<T, DefaultHasher> {
    pub(crate) fn target(items: usize, fpr: f64) -> Self {
        Self::with_size(Size::Target { items, fpr })
    }

    pub(crate) fn exact(counters: u64, hashes: u32) -> Self {
        Self::with_size(Size::Exact { counters, hashes })
    }

    fn with_size(size: Size) -> Self {
        Self(Settings::new(Options {
            size,
            width: DEFAULT_WIDTH,
            max_bytes: None,
            smallest: false,
        }))
    }

    /// Derives the hash key from `seed` ([`DefaultHasher::from_seed`]) instead
    /// of drawing it at random: for reproducible tests and experiments, never
    /// for a filter that guards a service against crafted input.
    pub fn seed(self, seed: u64) -> Self {
        Self(self.0.seed(seed))
    }
}

impl<T: ?Sized, S> Builder<T, S> {
    /// Hashes items with `hasher` instead of the keyed default.
    pub fn hasher<S2: BuildHasher>(self, hasher: S2) -> Builder<T, S2> {
        Builder(self.0.hasher(hasher))
    }

    /// Bits per counter: 4 (the default), 8 or 16. Any other width makes
    /// [`build`](Builder::build) fail with [`Invalid::UnsupportedWidth`](crate::Invalid::UnsupportedWidth).
    pub fn counter_width(mut self, bits: u32) -> Self {
        self.0.width = bits;
        self
    }

    /// Fails the build with [`ParamError::TooLarge`] if the counters would
    /// take more than `bytes`.
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.0.max_bytes = Some(bytes);
        self
    }

    /// Sized from items and a rate, takes the fewest counters that keep the
    /// rate ([`classic::smallest_size_for`]) instead of the default's fewer
    /// hashes over up to 1/32 more counters ([`classic::size_for`]).
    ///
    /// ```
    /// use bloomlab_counting::CountingBloomFilter;
    ///
    /// let f = CountingBloomFilter::<u64>::builder(10_000, 0.01).smallest_table().build()?;
    /// assert_eq!(f.num_hashes(), 7);
    /// assert_eq!(CountingBloomFilter::<u64>::new(10_000, 0.01)?.num_hashes(), 5);
    /// # Ok::<(), bloomlab_counting::BuildError>(())
    /// ```
    pub fn smallest_table(mut self) -> Self {
        self.0.smallest = true;
        self
    }

    /// Builds the empty filter.
    ///
    /// # Errors
    ///
    /// [`Invalid::UnsupportedWidth`](crate::Invalid::UnsupportedWidth) for a width other than 4, 8 or 16;
    /// [`BuildError::Param`] for a rate outside (0, 1), zero items, zero
    /// counters, zero or more than [`MAX_HASHES`](bloomlab_core::theory::classic::MAX_HASHES) hashes, or a table larger
    /// than [`max_bytes`](Builder::max_bytes) (or than the platform can hold);
    /// [`BuildError::OutOfMemory`] if the allocator refuses the table (which
    /// is zeroed lazily: pages are committed only as counters are written).
    pub fn build(self) -> Result<CountingBloomFilter<T, S>, BuildError> {
        let (options, hasher) = self.0.into_parts();
        if !WIDTHS.contains(&options.width) {
            return Err(BuildError::Variant(Invalid::UnsupportedWidth(
                options.width,
            )));
        }
        let (counters, hashes) = match options.size {
            Size::Target { items, fpr } if options.smallest => {
                classic::smallest_size_for(items as u64, fpr)?
            }
            Size::Target { items, fpr } => classic::size_for(items as u64, fpr)?,
            Size::Exact { counters, hashes } => {
                if counters == 0 {
                    return Err(ParamError::ZeroBits.into());
                }
                check_hashes(hashes)?;
                (counters, hashes)
            }
        };
        let limit = byte_limit(options.max_bytes);
        let words = words_for(counters, options.width).and_then(|w| usize::try_from(w).ok());
        let words = match words {
            Some(w) if (w as u128) * 8 <= limit => w,
            _ => {
                let needed = packed_words(counters, u64::from(options.width)) * 8;
                return Err(ParamError::TooLarge { needed, limit }.into());
            }
        };
        Ok(CountingBloomFilter::from_parts(
            Counters::zeroed(counters, options.width, words)?,
            hashes,
            0,
            hasher,
            Scheme::CURRENT,
        ))
    }
}

/// The most bytes a table may take: `max_bytes` when set, and never more
/// than the platform can address (`isize::MAX`).
pub(crate) fn byte_limit(max_bytes: Option<usize>) -> u128 {
    max_bytes
        .map_or(isize::MAX as u128, |b| b as u128)
        .min(isize::MAX as u128)
}
