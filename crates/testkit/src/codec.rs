//! Stored forms: their bytes as hex, for value-stability tests, and decoding
//! refused for its parameters.

use bloomlab_core::{DecodeError, Persist};

/// `bytes` as lower-case hex, two digits a byte: how value-stability tests
/// pin an encoding.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether decoding `bytes` as an `F` is refused for its parameters
/// ([`DecodeError::InvalidParameters`]).
pub fn refuses_parameters<F: Persist>(bytes: &[u8]) -> bool {
    matches!(
        F::from_bytes(bytes),
        Err(DecodeError::InvalidParameters { .. })
    )
}
