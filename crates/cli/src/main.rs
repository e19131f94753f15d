//! `bloomlab-cli`: choose a filter for a workload, inspect a stored one.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;

/// Chooses an approximate-membership filter for a workload, and says what a
/// stored one holds.
#[derive(Debug, Parser)]
#[command(name = "bloomlab-cli", version, about)]
struct Cli {
    #[command(subcommand)]
    command: bloomlab_cli::Command,
}

fn main() -> ExitCode {
    bloomlab_cli::run(&Cli::parse().command, "bloomlab-cli")
}
