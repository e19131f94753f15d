//! Guava's `writeTo` / `readFrom` stream format.
//!
//! ```text
//! byte        strategy ordinal (0: MURMUR128_MITZ_32, 1: MURMUR128_MITZ_64)
//! byte        number of hash functions, unsigned (1..=255)
//! int         number of 64-bit words, big-endian (1..=2^31 - 1)
//! long * n    the words, big-endian
//! ```
//!
//! The funnel is not in the stream: the reader names it, as in Java.

use std::io::{self, Read, Write};

use crate::error::ReadError;
use crate::filter::{GuavaBloomFilter, count_ones};
use crate::strategy::Strategy;

/// Bytes before the words.
pub(crate) const HEADER: usize = 6;

/// Words read per step from a [`Read`]: the most allocated ahead of the
/// bytes that back them.
const CHUNK_WORDS: usize = 8192;

/// The parsed header: strategy, k, word count.
struct Header {
    strategy: Strategy,
    num_hash_functions: u8,
    words: usize,
}

impl Header {
    fn parse(bytes: [u8; HEADER]) -> Result<Self, ReadError> {
        let strategy =
            Strategy::from_ordinal(bytes[0]).ok_or(ReadError::UnknownStrategy(bytes[0]))?;
        let num_hash_functions = bytes[1];
        if num_hash_functions == 0 {
            return Err(ReadError::NoHashFunctions);
        }
        let words = i32::from_be_bytes([bytes[2], bytes[3], bytes[4], bytes[5]]);
        // Guava's LockFreeBitArray refuses zero bits; a negative count is
        // not a size.
        let words = match usize::try_from(words) {
            Ok(0) | Err(_) => return Err(ReadError::InvalidWordCount(words)),
            Ok(n) => n,
        };
        Ok(Self {
            strategy,
            num_hash_functions,
            words,
        })
    }

    fn total_bytes(&self) -> u64 {
        HEADER as u64 + 8 * self.words as u64
    }
}

impl<F> GuavaBloomFilter<F> {
    /// `writeTo`: the bytes Guava's `BloomFilter.readFrom` reads.
    ///
    /// # Errors
    ///
    /// Whatever `out` returns.
    pub fn write_to<W: Write>(&self, mut out: W) -> io::Result<()> {
        let mut header = [0u8; HEADER];
        header[0] = self.strategy.ordinal();
        header[1] = self.num_hash_functions;
        // At most i32::MAX words: checked by every constructor.
        header[2..].copy_from_slice(&(self.words.len() as u32).to_be_bytes());
        out.write_all(&header)?;
        let mut buf = Vec::with_capacity(CHUNK_WORDS.min(self.words.len()) * 8);
        for chunk in self.words.chunks(CHUNK_WORDS) {
            buf.clear();
            for word in chunk {
                buf.extend_from_slice(&word.to_be_bytes());
            }
            out.write_all(&buf)?;
        }
        Ok(())
    }

    /// [`write_to`](Self::write_to) into a new `Vec`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.serialized_size());
        // Writing to a Vec cannot fail.
        let _ = self.write_to(&mut bytes);
        bytes
    }

    /// The length of [`write_to`](Self::write_to)'s output: `6 + 8 * words`.
    pub fn serialized_size(&self) -> usize {
        HEADER + 8 * self.words.len()
    }

    /// `BloomFilter.readFrom(in, funnel)`: reads one filter from `input`,
    /// leaving whatever follows it unread.
    ///
    /// Memory grows with the bytes actually read, so a header that
    /// declares 2^31 words in front of a short input costs a few kilobytes
    /// before the error.
    ///
    /// # Errors
    ///
    /// [`ReadError`] for a strategy ordinal other than 0 or 1, zero hash
    /// functions, a word count below 1, input that ends early, or an I/O
    /// error of `input`.
    pub fn read_from<R: Read>(mut input: R, funnel: F) -> Result<Self, ReadError> {
        let mut header = [0u8; HEADER];
        let got = read_full(&mut input, &mut header)?;
        if got < HEADER {
            return Err(ReadError::Truncated {
                expected: HEADER as u64,
                found: got as u64,
            });
        }
        let header = Header::parse(header)?;
        let mut words: Vec<u64> = Vec::new();
        let mut buf = vec![0u8; CHUNK_WORDS.min(header.words) * 8];
        while words.len() < header.words {
            let want = (header.words - words.len()).min(CHUNK_WORDS) * 8;
            let got = read_full(&mut input, &mut buf[..want])?;
            if got < want {
                return Err(ReadError::Truncated {
                    expected: header.total_bytes(),
                    found: (HEADER + words.len() * 8 + got) as u64,
                });
            }
            words
                .try_reserve(want / 8)
                .map_err(|_| ReadError::OutOfMemory {
                    bytes: (words.len() * 8).saturating_add(want),
                })?;
            words.extend(buf[..want].chunks_exact(8).map(be_word));
        }
        Ok(Self::from_parts(header, words, funnel))
    }

    /// Reads a filter that is all of `bytes`.
    ///
    /// Nothing is allocated before the header's word count is checked
    /// against the bytes there are.
    ///
    /// # Errors
    ///
    /// As [`read_from`](Self::read_from), and
    /// [`ReadError::TrailingBytes`] when bytes follow the filter.
    ///
    /// ```
    /// use bloomlab_guava::{GuavaBloomFilter, LongFunnel, ReadError};
    ///
    /// // MURMUR128_MITZ_64, k = 3, 2^31 - 1 words declared, none there.
    /// let bytes = [1, 3, 0x7f, 0xff, 0xff, 0xff];
    /// let error = GuavaBloomFilter::from_bytes(&bytes, LongFunnel).unwrap_err();
    /// assert!(matches!(error, ReadError::Truncated { found: 6, .. }));
    /// ```
    pub fn from_bytes(bytes: &[u8], funnel: F) -> Result<Self, ReadError> {
        let Some((header, body)) = bytes.split_first_chunk::<HEADER>() else {
            return Err(ReadError::Truncated {
                expected: HEADER as u64,
                found: bytes.len() as u64,
            });
        };
        let header = Header::parse(*header)?;
        let available = body.len() / 8;
        if header.words > available {
            return Err(ReadError::Truncated {
                expected: header.total_bytes(),
                found: bytes.len() as u64,
            });
        }
        let (body, rest) = body.split_at(header.words * 8);
        if !rest.is_empty() {
            return Err(ReadError::TrailingBytes(rest.len()));
        }
        let mut words = Vec::new();
        words
            .try_reserve_exact(header.words)
            .map_err(|_| ReadError::OutOfMemory { bytes: body.len() })?;
        words.extend(body.chunks_exact(8).map(be_word));
        Ok(Self::from_parts(header, words, funnel))
    }

    fn from_parts(header: Header, words: Vec<u64>, funnel: F) -> Self {
        Self {
            bit_count: count_ones(&words),
            words,
            num_hash_functions: header.num_hash_functions,
            strategy: header.strategy,
            funnel,
        }
    }
}

fn be_word(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(bytes);
    u64::from_be_bytes(word)
}

/// Reads until `buf` is full or the input ends; the bytes read.
fn read_full<R: Read>(input: &mut R, buf: &mut [u8]) -> Result<usize, ReadError> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ReadError::Io(e)),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ByteArrayFunnel, IntegerFunnel};

    #[test]
    fn value_stability() {
        // create(integerFunnel, 1, 0.5) holding 7: one word, k = 1.
        let mut f = GuavaBloomFilter::create(IntegerFunnel, 1, 0.5).unwrap();
        f.put(&7);
        let bytes = f.to_bytes();
        assert_eq!(bytes.len(), f.serialized_size());
        assert_eq!(&bytes[..6], [1, 1, 0, 0, 0, 1]);
        assert_eq!(
            u64::from_be_bytes(bytes[6..].try_into().unwrap()).count_ones(),
            1
        );
        let back = GuavaBloomFilter::from_bytes(&bytes, IntegerFunnel).unwrap();
        assert_eq!(back, f);
        let streamed = GuavaBloomFilter::read_from(&bytes[..], IntegerFunnel).unwrap();
        assert_eq!(streamed, f);
    }

    #[test]
    fn bad_headers_are_typed_errors() {
        let read = |b: &[u8]| GuavaBloomFilter::from_bytes(b, ByteArrayFunnel).map(|_| ());
        assert!(matches!(
            read(&[2, 1, 0, 0, 0, 1]),
            Err(ReadError::UnknownStrategy(2))
        ));
        assert!(matches!(
            read(&[0xff, 1, 0, 0, 0, 1]),
            Err(ReadError::UnknownStrategy(0xff))
        ));
        assert!(matches!(
            read(&[1, 0, 0, 0, 0, 1]),
            Err(ReadError::NoHashFunctions)
        ));
        assert!(matches!(
            read(&[1, 1, 0, 0, 0, 0]),
            Err(ReadError::InvalidWordCount(0))
        ));
        assert!(matches!(
            read(&[1, 1, 0xff, 0xff, 0xff, 0xff]),
            Err(ReadError::InvalidWordCount(-1))
        ));
        assert!(matches!(
            read(&[1, 1, 0]),
            Err(ReadError::Truncated {
                expected: 6,
                found: 3
            })
        ));
        let mut ok = vec![1, 1, 0, 0, 0, 1];
        ok.extend([0; 8]);
        assert!(read(&ok).is_ok());
        ok.push(0);
        assert!(matches!(read(&ok), Err(ReadError::TrailingBytes(1))));
        // read_from leaves the trailing byte in the stream, as Guava does.
        let mut input = &ok[..];
        assert!(GuavaBloomFilter::read_from(&mut input, ByteArrayFunnel).is_ok());
        assert_eq!(input, [0]);
    }
}
