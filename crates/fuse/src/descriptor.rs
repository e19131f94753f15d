//! The descriptor.

/// The descriptors.
pub fn descriptors() {}
