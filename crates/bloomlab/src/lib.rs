//! The bloomlab facade.
