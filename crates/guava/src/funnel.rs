//! Funnels: how an item becomes the bytes Guava hashes.
//!
//! Guava hashes an item by letting a `Funnel` write it into a
//! `PrimitiveSink`; MurmurHash3 then sees the bytes in the order they were
//! put. Multi-byte primitives go in little-endian (`putInt(1)` is
//! `01 00 00 00`), whatever the platform. A filter gives Guava's answers
//! only with the funnel the Java side used: [`IntegerFunnel`] for
//! `Funnels.integerFunnel()`, and so on.

/// Guava's `PrimitiveSink`, collecting the bytes an item funnels to.
///
/// A [`Funnel`] of your own calls the methods its Java counterpart calls, in
/// the same order, and hashes alike. A Java funnel
/// `into.putLong(user.id).putString(user.name, UTF_8)` is:
///
/// ```
/// use bloomlab_guava::{Funnel, PrimitiveSink};
///
/// struct User {
///     id: i64,
///     name: String,
/// }
///
/// #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
/// struct UserFunnel;
///
/// impl Funnel for UserFunnel {
///     type Item = User;
///     fn funnel(&self, user: &User, into: &mut PrimitiveSink) {
///         into.put_long(user.id).put_string(&user.name);
///     }
/// }
///
/// let mut sink = PrimitiveSink::new();
/// UserFunnel.funnel(&User { id: 1, name: "ß".into() }, &mut sink);
/// assert_eq!(sink.as_bytes(), [1, 0, 0, 0, 0, 0, 0, 0, 0xc3, 0x9f]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrimitiveSink {
    bytes: Vec<u8>,
}

impl PrimitiveSink {
    /// An empty sink.
    pub fn new() -> Self {
        Self::default()
    }

    /// The bytes put so far: what MurmurHash3 hashes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Forgets the bytes put so far, keeping the buffer.
    pub fn clear(&mut self) {
        self.bytes.clear();
    }

    /// `putByte`: one byte.
    pub fn put_byte(&mut self, b: i8) -> &mut Self {
        self.bytes.extend_from_slice(&b.to_le_bytes());
        self
    }

    /// `putBytes`: the bytes as they are.
    pub fn put_bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.bytes.extend_from_slice(bytes);
        self
    }

    /// `putShort`: two bytes, little-endian.
    pub fn put_short(&mut self, v: i16) -> &mut Self {
        self.put_bytes(&v.to_le_bytes())
    }

    /// `putInt`: four bytes, little-endian.
    pub fn put_int(&mut self, v: i32) -> &mut Self {
        self.put_bytes(&v.to_le_bytes())
    }

    /// `putLong`: eight bytes, little-endian.
    pub fn put_long(&mut self, v: i64) -> &mut Self {
        self.put_bytes(&v.to_le_bytes())
    }

    /// `putFloat`: the raw IEEE bits (`floatToRawIntBits`), as `putInt`.
    pub fn put_float(&mut self, v: f32) -> &mut Self {
        self.put_bytes(&v.to_bits().to_le_bytes())
    }

    /// `putDouble`: the raw IEEE bits (`doubleToRawLongBits`), as `putLong`.
    pub fn put_double(&mut self, v: f64) -> &mut Self {
        self.put_bytes(&v.to_bits().to_le_bytes())
    }

    /// `putBoolean`: one byte, 1 or 0.
    pub fn put_boolean(&mut self, v: bool) -> &mut Self {
        self.put_bytes(&[u8::from(v)])
    }

    /// `putChar`: one UTF-16 code unit, two bytes little-endian.
    pub fn put_char(&mut self, unit: u16) -> &mut Self {
        self.put_bytes(&unit.to_le_bytes())
    }

    /// `putUnencodedChars`: the string's UTF-16 code units, each as `putChar`.
    pub fn put_unencoded_chars(&mut self, s: &str) -> &mut Self {
        for unit in s.encode_utf16() {
            self.put_char(unit);
        }
        self
    }

    /// `putString(s, UTF_8)`: the string's UTF-8 bytes.
    ///
    /// Guava encodes with `String.getBytes(UTF_8)`, which writes `?` for an
    /// unpaired surrogate; a Rust `str` cannot hold one, so the two agree on
    /// every string both can represent.
    pub fn put_string(&mut self, s: &str) -> &mut Self {
        self.put_bytes(s.as_bytes())
    }
}

/// Guava's `Funnel<T>`: writes an item into a [`PrimitiveSink`].
///
/// Two filters can be merged ([`put_all`](crate::GuavaBloomFilter::put_all))
/// only if their funnels are equal, as Guava asks `funnel.equals(other)`.
pub trait Funnel {
    /// What the funnel takes: `i32` for [`IntegerFunnel`], `str` for
    /// [`StringFunnel`].
    type Item: ?Sized;

    /// Puts `item` into `into`, in the order the Java funnel does.
    fn funnel(&self, item: &Self::Item, into: &mut PrimitiveSink);
}

/// `Funnels.integerFunnel()`: an `int` as `putInt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct IntegerFunnel;

impl Funnel for IntegerFunnel {
    type Item = i32;
    fn funnel(&self, item: &i32, into: &mut PrimitiveSink) {
        into.put_int(*item);
    }
}

/// `Funnels.longFunnel()`: a `long` as `putLong`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LongFunnel;

impl Funnel for LongFunnel {
    type Item = i64;
    fn funnel(&self, item: &i64, into: &mut PrimitiveSink) {
        into.put_long(*item);
    }
}

/// `Funnels.stringFunnel(StandardCharsets.UTF_8)`: the UTF-8 bytes.
///
/// Other charsets are not offered: a Java filter built with
/// `stringFunnel(UTF_16LE)`, say, needs a funnel of your own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct StringFunnel;

impl Funnel for StringFunnel {
    type Item = str;
    fn funnel(&self, item: &str, into: &mut PrimitiveSink) {
        into.put_string(item);
    }
}

/// `Funnels.unencodedCharsFunnel()`: the UTF-16 code units (Java `char`s),
/// two bytes each, little-endian.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct UnencodedCharsFunnel;

impl Funnel for UnencodedCharsFunnel {
    type Item = str;
    fn funnel(&self, item: &str, into: &mut PrimitiveSink) {
        into.put_unencoded_chars(item);
    }
}

/// `Funnels.byteArrayFunnel()`: the bytes as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ByteArrayFunnel;

impl Funnel for ByteArrayFunnel {
    type Item = [u8];
    fn funnel(&self, item: &[u8], into: &mut PrimitiveSink) {
        into.put_bytes(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes<F: Funnel>(funnel: F, item: &F::Item) -> Vec<u8> {
        let mut sink = PrimitiveSink::new();
        funnel.funnel(item, &mut sink);
        sink.as_bytes().to_vec()
    }

    #[test]
    fn funnels_write_guavas_bytes() {
        assert_eq!(bytes(IntegerFunnel, &-2), [0xfe, 0xff, 0xff, 0xff]);
        assert_eq!(bytes(LongFunnel, &0x0102), [2, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(bytes(StringFunnel, "ß"), [0xc3, 0x9f]);
        // U+1F600 is the surrogate pair D83D DE00.
        assert_eq!(
            bytes(UnencodedCharsFunnel, "aß😀"),
            [0x61, 0, 0xdf, 0, 0x3d, 0xd8, 0x00, 0xde]
        );
        assert_eq!(bytes(ByteArrayFunnel, &[9, 8][..]), [9, 8]);
    }

    #[test]
    fn sink_primitives_are_little_endian() {
        let mut sink = PrimitiveSink::new();
        sink.put_byte(-1)
            .put_short(0x0102)
            .put_boolean(true)
            .put_float(1.0)
            .put_double(-0.0);
        assert_eq!(
            sink.as_bytes(),
            [0xff, 2, 1, 1, 0, 0, 0x80, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0x80]
        );
        sink.clear();
        assert!(sink.as_bytes().is_empty());
    }
}
