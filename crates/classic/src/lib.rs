//! bloomlab-classic: being written.
