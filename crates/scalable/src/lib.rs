//! bloomlab-scalable: being written (see the open issue).
#![forbid(unsafe_code)]
