//! What the command-line tests share: running the built binary.

use std::ffi::OsStr;
use std::process::{Command, Output};

/// Runs `bloomlab-cli <command> <args…>` to its end.
pub fn cli<A: AsRef<OsStr>>(command: &str, args: &[A]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bloomlab-cli"))
        .arg(command)
        .args(args)
        .output()
        .expect("the bloomlab-cli binary runs")
}
