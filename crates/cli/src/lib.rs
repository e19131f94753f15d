//! The light bloomlab command line: `choose` a filter for a workload, and
//! `inspect` a stored one, with the library crates and a command-line
//! parser only (no database, plotting or Redis client), so that
//! `cargo install --path crates/cli` is quick.
//!
//! The binary is `bloomlab-cli`; the experiment runner's `bloomlab` binary
//! (bloomlab-experiments) has the same two commands through [`Command`].
//!
//! ```no_run
//! use clap::Parser;
//!
//! #[derive(Parser)]
//! struct Cli {
//!     #[command(subcommand)]
//!     command: bloomlab_cli::Command,
//! }
//!
//! let cli = Cli::parse_from(["tool", "choose", "--items", "1000", "--fpr", "0.01"]);
//! let code = bloomlab_cli::run(&cli.command, "tool");
//! # let _ = code;
//! ```
#![forbid(unsafe_code)]

pub mod inspect;
#[cfg(feature = "redis")]
pub mod redis;

use std::path::PathBuf;
use std::process::ExitCode;

pub use bloomlab_choose::ChooseArgs;

/// The commands of this crate, as a clap subcommand enum: flatten it into a
/// program's own (`#[command(flatten)]`) to offer them.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Recommend a filter for a workload, from theory alone.
    ///
    /// Exit code 3 when no filter meets every requirement (the report,
    /// printed all the same, says what comes closest).
    Choose(ChooseArgs),
    /// Say what filter a file holds: a bloomlab file of any variant, or a
    /// Guava BloomFilter written with writeTo; with --redis, a filter kept
    /// in Redis by bloomlab-redis.
    ///
    /// Prints the variant, its parameters, how full it is, the items it
    /// recorded or holds by estimate, and the false-positive rate a probe
    /// sees now. Exit code 2, with the reason on stderr, for a file of
    /// neither format or anything that is not a regular file.
    Inspect(InspectArgs),
}

/// The arguments of `inspect`.
#[derive(Debug, Clone, clap::Args)]
pub struct InspectArgs {
    /// The file to read; with --redis, the name of the filter.
    #[arg(value_name = "FILE|NAME")]
    pub file: PathBuf,
    /// Look at the filter named NAME in the Redis server at URL
    /// (redis://host:port/), as bloomlab-redis keeps it, instead of a file.
    /// Needs a bloomlab-cli built with the feature `redis`.
    #[arg(long, value_name = "URL")]
    pub redis: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What `inspect` found, as text or, with `json`, as one JSON object.
fn show<T: serde::Serialize + std::fmt::Display>(
    found: &T,
    json: bool,
) -> Result<String, serde_json::Error> {
    if json {
        serde_json::to_string_pretty(found)
    } else {
        Ok(found.to_string())
    }
}

/// `inspect --redis url name`.
#[cfg(feature = "redis")]
fn inspect_redis(
    url: &str,
    name: &std::path::Path,
) -> Result<redis::RedisInspection, Box<dyn std::error::Error>> {
    let name = name.to_str().ok_or("a filter's name must be UTF-8")?;
    Ok(redis::inspect(
        url,
        name,
        bloomlab_core::shards::DEFAULT_MAX_BYTES,
    )?)
}

/// `inspect --redis` in a build without Redis: a refusal that says how to
/// get it.
#[cfg(not(feature = "redis"))]
fn inspect_redis(_url: &str, _name: &std::path::Path) -> Result<String, String> {
    Err(
        "this bloomlab-cli was built without Redis support: install it with \
         `cargo install bloomlab-cli --features redis` (from a checkout: \
         `cargo install --path crates/cli --features redis`)"
            .to_owned(),
    )
}

/// The exit code of a `choose` whose workload no filter meets.
pub const NOTHING_FITS: u8 = 3;

/// Runs `command`, printing to stdout; its errors go to stderr after
/// `program` and the command's name (`bloomlab inspect: …`). Exit code 2 for
/// input refused (a workload that makes no sense, a file that is not a
/// filter), 1 for output that cannot be written, 3 when `choose` finds no
/// filter that meets every requirement (its report is printed all the same).
pub fn run(command: &Command, program: &str) -> ExitCode {
    let fail = |name: &str, e: &dyn std::fmt::Display, code: u8| {
        eprintln!("{program} {name}: {e}");
        ExitCode::from(code)
    };
    match command {
        Command::Choose(args) => match bloomlab_choose::run(args) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(NOTHING_FITS),
            Err(e) => fail("choose", &e, 2),
        },
        Command::Inspect(InspectArgs { file, redis, json }) => {
            let shown = match redis {
                Some(url) => inspect_redis(url, file)
                    .map(|found| show(&found, *json))
                    .map_err(|e| e.to_string()),
                None => inspect::inspect(file)
                    .map(|found| show(&found, *json))
                    .map_err(|e| e.to_string()),
            };
            match shown {
                Ok(Ok(text)) => {
                    println!("{text}");
                    ExitCode::SUCCESS
                }
                Ok(Err(e)) => fail("inspect", &e, 1),
                Err(e) => fail("inspect", &e, 2),
            }
        }
    }
}
