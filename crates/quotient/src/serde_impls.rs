//! `Serialize` and `Deserialize` (feature `serde`): a filter serializes as
//! the bytes of its binary envelope, key included, and deserializing checks
//! them as `from_bytes` does (see `bloomlab_core::serde_envelope`).

use crate::QuotientFilter;

bloomlab_core::impl_filter!(Serde for QuotientFilter<T, S>);
