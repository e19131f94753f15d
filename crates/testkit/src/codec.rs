//! Stored forms: their bytes as hex, for value-stability tests, forged
//! files, and decoding refused for its parameters.

use bloomlab_core::codec::{Envelope, FORMAT_VERSION};
use bloomlab_core::hash::HashFunction;
use bloomlab_core::{DecodeError, DefaultHasher, Persist, Tag};

/// `bytes` as lower-case hex, two digits a byte: how value-stability tests
/// pin an encoding.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `filter` read back from its stored form, which must be `pinned` (as
/// [`hex`] writes it): a value-stability test's check of the bytes and
/// that they decode.
///
/// # Panics
///
/// When the stored form is not `pinned`, or does not decode.
pub fn read_pinned<F: Persist>(filter: &F, pinned: &str) -> F {
    let bytes = filter.to_bytes();
    assert_eq!(hex(&bytes), pinned, "the stored form changed");
    F::from_bytes(&bytes).expect("the pinned bytes decode")
}

/// The bytes written as hex by [`hex`].
///
/// # Panics
///
/// On an odd length or a character that is not a hex digit: a test's own
/// constant is wrong.
pub fn unhex(text: &str) -> Vec<u8> {
    assert!(text.len().is_multiple_of(2), "odd hex length");
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex digits"))
        .collect()
}

/// Whether decoding `bytes` as an `F` is refused for its parameters
/// ([`DecodeError::InvalidParameters`]).
pub fn refuses_parameters<F: Persist>(bytes: &[u8]) -> bool {
    matches!(
        F::from_bytes(bytes),
        Err(DecodeError::InvalidParameters { .. })
    )
}

/// Whether decoding an `F` refuses a file of the variant `other` (its
/// parameters and tables empty) as [`DecodeError::WrongVariant`], naming
/// the tag it found.
pub fn refuses_variant<F: Persist>(other: Tag) -> bool {
    let file = sealed(other, [0, 0], vec![], vec![]);
    matches!(
        F::from_bytes(&file),
        Err(DecodeError::WrongVariant { found, .. }) if found == other.id()
    )
}

/// The stored form of a filter of variant `tag` with hash key `key` (of
/// the current function), the
/// parameters `params` and the tables `payload`, sealed with the checksum
/// they need: how a test forges a file that is wrong in its parameters
/// alone.
pub fn sealed(tag: Tag, key: [u64; 2], params: Vec<u8>, payload: Vec<u8>) -> Vec<u8> {
    Envelope {
        version: FORMAT_VERSION,
        tag,
        hash: HashFunction::CURRENT,
        key,
        params,
        payload,
    }
    .encode()
}

/// The hasher of `.seed(seed)` under SipHash-1-3, the default function
/// before AES-128-CMAC: how the pinned files of the value-stability tests,
/// written before the change, were hashed. A filter made with it writes the
/// same bytes as then.
pub fn sip_seeded(seed: u64) -> DefaultHasher {
    DefaultHasher::from_seed_with(HashFunction::SipHash13, seed)
}

/// The hash function recorded in stored bytes: the high byte of the
/// version field.
pub fn stored_hash(bytes: &[u8]) -> Option<HashFunction> {
    bytes.get(5).and_then(|&id| HashFunction::from_id(id))
}
