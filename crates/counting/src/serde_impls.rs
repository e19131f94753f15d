//! `Serialize` and `Deserialize` (feature `serde`): a filter serializes as
//! the bytes of its binary envelope, key included, and deserializing checks
//! them as `from_bytes` does (see `bloomlab_core::serde_envelope`).

use bloomlab_core::DefaultHasher;

use bloomlab_core::serde_envelope::{deserialize, serialize};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::CountingBloomFilter;

impl<T: ?Sized> Serialize for CountingBloomFilter<T, DefaultHasher> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize(self, serializer)
    }
}

impl<'de, T: ?Sized> Deserialize<'de> for CountingBloomFilter<T, DefaultHasher> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize(deserializer)
    }
}
