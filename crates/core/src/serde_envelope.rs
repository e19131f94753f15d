//! Serde support (feature `serde`): every filter serializes as the bytes of
//! its binary envelope ([`Persist::to_bytes`]), so a filter in JSON, CBOR or
//! bincode is the same checksummed, versioned record as a filter in a file,
//! and deserializing checks it exactly as [`Persist::from_bytes`] does.
//!
//! The variant crates implement `Serialize` and `Deserialize` with
//! [`serialize`] and [`deserialize`] for their filters with the default
//! hasher (whose key the envelope stores), through
//! [`impl_filter!`](crate::impl_filter)`(Serde for …)`.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserializer, Serializer};

use crate::codec::Persist;

/// The `serde` this crate was built with, for the impls
/// [`impl_filter!`](crate::impl_filter) writes in other crates.
#[doc(hidden)]
pub use serde;

/// Serializes `filter` as the bytes of [`Persist::to_bytes`].
///
/// # Errors
///
/// Whatever the serializer reports.
pub fn serialize<P: Persist, S: Serializer>(filter: &P, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_bytes(&filter.to_bytes())
}

/// Reads a filter serialized by [`serialize`]: from bytes, or from a
/// sequence of byte values (as JSON stores bytes).
///
/// # Errors
///
/// The deserializer's error, carrying the [`DecodeError`](crate::DecodeError)
/// message when the bytes are not a valid filter.
pub fn deserialize<'de, P: Persist, D: Deserializer<'de>>(deserializer: D) -> Result<P, D::Error> {
    deserializer.deserialize_bytes(EnvelopeVisitor(PhantomData))
}

struct EnvelopeVisitor<P>(PhantomData<P>);

impl<'de, P: Persist> Visitor<'de> for EnvelopeVisitor<P> {
    type Value = P;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the bytes of a bloomlab filter")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<P, E> {
        P::from_bytes(bytes).map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<P, A::Error> {
        // A hint is only a hint: cap what it may reserve, and let the
        // vector grow with what actually arrives.
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
        while let Some(b) = seq.next_element::<u8>()? {
            bytes.push(b);
        }
        P::from_bytes(&bytes).map_err(de::Error::custom)
    }
}
