//! Instructions per lookup of each bloomlab filter and of its peer, counted
//! by callgrind: a measure that, unlike time on a shared virtual machine,
//! comes out the same from one run to the next.
//!
//! ```text
//! cargo build --release -p bloomlab-benches --bin lookup-instructions
//! target/release/lookup-instructions [--items N] [--probes Q] [--only TEXT]
//! ```
//!
//! It starts itself under `valgrind --tool=callgrind` (which must be on the
//! `PATH`) once for each subject and stream. That child builds the subject
//! the way the `scale` bench does (default constructor for `N` items at 1%,
//! filled with the bench's members), draws `Q` hits or misses, and looks
//! them up one at a time with the bench's loop ([`harness::hits`]), with
//! callgrind counting only inside that loop (`--toggle-collect`). The table
//! printed gives each count divided by `Q`: the hash, the reads and tests,
//! and the loop's few instructions per key, which every row shares.
//!
//! Instructions are not time: past the cache, a lookup's reads set most of
//! its time (`benches/FINDINGS.md`, *Instructions per lookup*). The count
//! says what a lookup asks of the processor, and whether a change to the
//! code changed it, without the noise of a timing.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher as StdSip13;
use std::hash::BuildHasher;
use std::hint::black_box;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

use bloomlab::fuse::{BinaryFuseFilter, Shaped};
use bloomlab::prelude::{
    AtomicBloomFilter, BlockedBloomFilter, BlockedCountingBloomFilter, BloomFilter,
    CountingBloomFilter, CuckooFilter, ScalableBloomFilter,
};
use bloomlab::quotient::QuotientFilter;
use bloomlab_benches::big::{Progress, fill, hits_and_misses, member};
use bloomlab_benches::harness;
use bloomlab_core::{DefaultHasher, Lookup, Membership};
use bloomlab_lab::peers::{
    Cuckoofilter, Fastbloom, FastbloomAtomic, FastbloomRsCounting, Fuse8, Growable, Qfilter,
};
use clap::Parser;

const FPR: f64 = 0.01;

/// Each bloomlab filter beside the peer the goals judge it against, in the
/// `scale` bench's order; `None` for the hash alone, which has no peer.
const PAIRS: [(&str, Option<&str>); 12] = [
    ("hash alone (default hasher)", None),
    ("bloomlab::BloomFilter", Some("fastbloom::BloomFilter")),
    (
        "bloomlab::BlockedBloomFilter",
        Some("fastbloom::BloomFilter"),
    ),
    (
        "bloomlab::AtomicBloomFilter",
        Some("fastbloom::AtomicBloomFilter"),
    ),
    (
        "bloomlab::CountingBloomFilter",
        Some("fastbloom-rs::CountingBloomFilter"),
    ),
    (
        "bloomlab::BlockedCountingBloomFilter",
        Some("fastbloom-rs::CountingBloomFilter"),
    ),
    ("bloomlab::CuckooFilter", Some("cuckoofilter")),
    (
        "bloomlab::ScalableBloomFilter",
        Some("growable-bloom-filter"),
    ),
    ("bloomlab::BinaryFuseFilter", Some("xorf::BinaryFuse8")),
    (FUSE_8X3, Some("xorf::BinaryFuse8")),
    (FUSE_8X3_SHAPED, Some("xorf::BinaryFuse8")),
    ("bloomlab::QuotientFilter", Some("qfilter")),
];

/// The fuse filter in xorf's `BinaryFuse8` shape, the one issue 51's
/// goals judge ([`BinaryFuseFilter::from_keys`], the row above, lets the
/// size choose 3- or 4-wise).
const FUSE_8X3: &str = "bloomlab::BinaryFuseFilter (8-bit 3-wise)";

/// The same filter's lookups under its shape
/// ([`BinaryFuseFilter::shaped`]), as issue 51's goals time them.
const FUSE_8X3_SHAPED: &str = "bloomlab::BinaryFuseFilter (8-bit 3-wise, shaped)";

/// The two streams, as the child's argument.
const STREAMS: [&str; 2] = ["hit", "miss"];

#[derive(Parser, Debug)]
#[command(about = "Count instructions per lookup of each filter and its peer, under callgrind")]
struct Args {
    /// Items each filter is built for and filled with.
    #[arg(long, default_value_t = 1_000_000)]
    items: u64,
    /// Lookups counted per subject and stream.
    #[arg(long, default_value_t = 100_000)]
    probes: usize,
    /// Count only the pairs whose bloomlab subject's name contains this
    /// (`--only Atomic`), to see quickly what a change to one lookup did.
    #[arg(long, value_name = "TEXT")]
    only: Option<String>,
    /// Run one subject's lookups (what the parent starts under callgrind).
    #[arg(long, num_args = 2, value_names = ["SUBJECT", "STREAM"], hide = true)]
    child: Option<Vec<String>>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match &args.child {
        Some(child) => run_child(&child[0], &child[1], args.items, args.probes).map(|_| ()),
        None => run_parent(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lookup-instructions: {e}");
            ExitCode::from(2)
        }
    }
}

/// Counts every subject and stream, each in its own callgrind run, and
/// prints the table.
fn run_parent(args: &Args) -> Result<(), String> {
    if args.probes == 0 || args.items == 0 {
        return Err("--items and --probes must be at least 1".into());
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    // Removed when dropped, whichever way this returns.
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a temporary folder: {e}"))?;
    // A peer that two subjects share (fastbloom, fastbloom-rs) is counted once.
    let mut counted: HashMap<(&str, &str), f64> = HashMap::new();
    let mut count = |subject: &'static str, stream: &'static str| -> Result<f64, String> {
        if let Some(&per_lookup) = counted.get(&(subject, stream)) {
            return Ok(per_lookup);
        }
        eprintln!("lookup-instructions: {subject}, {} …", plural(stream));
        // A file of its own for each run, so that no run can read another's.
        let out = dir.path().join(format!("callgrind.{}.out", counted.len()));
        let status = Command::new("valgrind")
            .arg("--tool=callgrind")
            .arg(format!("--callgrind-out-file={}", out.display()))
            .arg("--toggle-collect=*lookups_counted*")
            .arg(&exe)
            .args(["--items", &args.items.to_string()])
            .args(["--probes", &args.probes.to_string()])
            .args(["--child", subject, stream])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("cannot run valgrind (is it installed?): {e}"))?;
        if !status.success() {
            return Err(format!(
                "valgrind on {subject} ({}) failed: {status}",
                plural(stream)
            ));
        }
        let per_lookup = summary(&out)? as f64 / args.probes as f64;
        counted.insert((subject, stream), per_lookup);
        Ok(per_lookup)
    };
    let pairs: Vec<_> = PAIRS
        .into_iter()
        .filter(|(subject, _)| {
            args.only
                .as_ref()
                .is_none_or(|text| subject.contains(text.as_str()))
        })
        .collect();
    if pairs.is_empty() {
        let names: Vec<&str> = PAIRS.iter().map(|(subject, _)| *subject).collect();
        return Err(format!("--only matches none of {names:?}"));
    }
    let mut rows = Vec::new();
    for (subject, peer) in pairs {
        let ours = [count(subject, "hit")?, count(subject, "miss")?];
        let theirs = match peer {
            Some(peer) => Some((peer, [count(peer, "hit")?, count(peer, "miss")?])),
            None => None,
        };
        rows.push((subject, ours, theirs));
    }
    println!(
        "Instructions per lookup (callgrind), {} items at 1%, {} lookups each:\n",
        args.items, args.probes
    );
    println!("| subject | hit | miss | peer | peer's hit | peer's miss | hit ratio | miss ratio |");
    println!("|---|--:|--:|---|--:|--:|--:|--:|");
    for (subject, [hit, miss], theirs) in rows {
        match theirs {
            Some((peer, [peer_hit, peer_miss])) => println!(
                "| `{subject}` | {hit:.0} | {miss:.0} | `{peer}` | {peer_hit:.0} | {peer_miss:.0} | {:.2} | {:.2} |",
                hit / peer_hit,
                miss / peer_miss
            ),
            None => println!("| {subject} | {hit:.0} | {miss:.0} | – | – | – | – | – |"),
        }
    }
    Ok(())
}

/// A stream's name as its lookups are counted: "hits", "misses".
fn plural(stream: &str) -> String {
    match stream {
        "miss" => "misses".to_string(),
        other => format!("{other}s"),
    }
}

/// The events counted in a callgrind output file: its `summary:` line
/// (`totals:` in files that have no summary).
fn summary(path: &Path) -> Result<u64, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_summary(&text).ok_or_else(|| format!("no event total in {}", path.display()))
}

/// The first number of the `summary:` line of callgrind's output, else of
/// its `totals:` line.
fn parse_summary(text: &str) -> Option<u64> {
    let line = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
    };
    line("summary:").or_else(|| line("totals:"))
}

/// Builds `subject` for `items`, fills it, and looks up `probes` keys of
/// `stream` inside the loop callgrind counts; returns how many it reported
/// present.
fn run_child(subject: &str, stream: &str, items: u64, probes: usize) -> Result<usize, String> {
    let (hits, misses) = hits_and_misses(items);
    let keys = match stream {
        "hit" => hits,
        "miss" => misses,
        other => return Err(format!("unknown stream {other:?}: one of {STREAMS:?}")),
    };
    // Repeated as needed, so that any count of probes can be asked for.
    let keys: Vec<u64> = keys.iter().copied().cycle().take(probes).collect();
    let n = items as usize;
    let found = match subject {
        "hash alone (default hasher)" => {
            let hasher = DefaultHasher::random();
            lookups_counted_hash(&hasher, &keys)
        }
        "bloomlab::BloomFilter" => counted(items, built(BloomFilter::<u64>::new(n, FPR))?, &keys),
        "bloomlab::BlockedBloomFilter" => {
            counted(items, built(BlockedBloomFilter::<u64>::new(n, FPR))?, &keys)
        }
        "bloomlab::AtomicBloomFilter" => {
            counted(items, built(AtomicBloomFilter::<u64>::new(n, FPR))?, &keys)
        }
        "bloomlab::CountingBloomFilter" => counted(
            items,
            built(CountingBloomFilter::<u64>::new(n, FPR))?,
            &keys,
        ),
        "bloomlab::BlockedCountingBloomFilter" => counted(
            items,
            built(BlockedCountingBloomFilter::<u64>::new(n, FPR))?,
            &keys,
        ),
        "bloomlab::CuckooFilter" => counted(items, built(CuckooFilter::<u64>::new(n, FPR))?, &keys),
        "bloomlab::ScalableBloomFilter" => counted(
            items,
            built(ScalableBloomFilter::<u64>::new(n, FPR))?,
            &keys,
        ),
        "bloomlab::BinaryFuseFilter" => {
            let f = built(BinaryFuseFilter::<u64>::from_keys(&all_members(items), FPR))?;
            lookups_counted(&f, &keys)
        }
        FUSE_8X3 => lookups_counted(&fuse_8x3(items)?, &keys),
        FUSE_8X3_SHAPED => {
            let f = fuse_8x3(items)?;
            lookups_counted_shaped(f.shaped().ok_or("8-bit 3-wise")?, &keys)
        }
        "xorf::BinaryFuse8" => {
            let f = built(Fuse8::new(&all_members(items), DefaultHasher::random()))?;
            lookups_counted(&f, &keys)
        }
        "bloomlab::QuotientFilter" => {
            counted(items, built(QuotientFilter::<u64>::new(n, FPR))?, &keys)
        }
        "qfilter" => counted(
            items,
            built(Qfilter::new(items, FPR, DefaultHasher::random()))?,
            &keys,
        ),
        "fastbloom::BloomFilter" => counted(items, Fastbloom::with_default_hasher(n, FPR), &keys),
        "fastbloom::AtomicBloomFilter" => {
            counted(items, FastbloomAtomic::with_default_hasher(n, FPR), &keys)
        }
        "fastbloom-rs::CountingBloomFilter" => {
            counted(items, FastbloomRsCounting::new(items, FPR), &keys)
        }
        "cuckoofilter" => counted(items, Cuckoofilter::<StdSip13>::with_capacity(n), &keys),
        "growable-bloom-filter" => counted(items, Growable::with_defaults(items, FPR), &keys),
        other => return Err(format!("unknown subject {other:?}")),
    };
    println!(
        "{subject}: {found} of {probes} {} reported present",
        plural(stream)
    );
    Ok(found)
}

/// The filter a constructor returned, or its error as text.
fn built<F, E: std::fmt::Display>(made: Result<F, E>) -> Result<F, String> {
    made.map_err(|e| format!("cannot build the filter: {e}"))
}

/// `f` filled with the bench's `items` members, then its lookups of `keys`
/// counted.
fn counted<F: Membership<u64>>(items: u64, mut f: F, keys: &[u64]) -> usize {
    let mut progress = Progress::new("lookup-instructions", "fill".to_string(), items);
    fill(&mut progress, items, |chunk| {
        // A refusal shows as fewer hits reported.
        let _ = f.insert_batch(chunk);
    });
    progress.finish(f.memory_bytes());
    lookups_counted(&f, keys)
}

/// The 8-bit 3-wise fuse filter of the bench's `items` members.
fn fuse_8x3(items: u64) -> Result<BinaryFuseFilter<u64>, String> {
    built(
        BinaryFuseFilter::<u64>::builder_with_bits(8)
            .arity(3)
            .build(all_members(items)),
    )
}

/// The bench's `items` members, for a filter built from its keys.
fn all_members(items: u64) -> Vec<u64> {
    (0..items).map(member).collect()
}

/// The loop callgrind counts (`--toggle-collect=*lookups_counted*`): the
/// `scale` bench's single lookups.
#[inline(never)]
fn lookups_counted<F: Lookup<u64>>(f: &F, keys: &[u64]) -> usize {
    harness::hits(f, black_box(keys))
}

/// [`lookups_counted`] under the fuse filter's shape.
#[inline(never)]
fn lookups_counted_shaped(f: Shaped<'_, u64, DefaultHasher, u8, 3>, keys: &[u64]) -> usize {
    black_box(keys).iter().filter(|k| f.contains(*k)).count()
}

/// The hash alone over `keys`, in the same kind of loop.
#[inline(never)]
fn lookups_counted_hash(hasher: &DefaultHasher, keys: &[u64]) -> usize {
    black_box(keys)
        .iter()
        .filter(|k| hasher.hash_one(*k) & 1 == 1)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_line_is_the_count_and_totals_stand_in_for_it() {
        let file = "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nsummary: 20900061\n\ntotals: 20900061\n";
        assert_eq!(parse_summary(file), Some(20_900_061));
        assert_eq!(parse_summary("events: Ir\ntotals: 42\n"), Some(42));
        assert_eq!(parse_summary("events: Ir\n"), None);
        assert_eq!(parse_summary("summary: many\n"), None);
    }

    #[test]
    fn every_subject_and_peer_can_be_built_by_the_child() {
        for (subject, peer) in PAIRS {
            for name in std::iter::once(subject).chain(peer) {
                let found = run_child(name, "hit", 2_000, 100).unwrap();
                // A bloomlab filter finds every member it was filled with.
                // (A full peer table may refuse some, and the hash alone
                // counts odd hashes.)
                if name.starts_with("bloomlab::") {
                    assert_eq!(found, 100, "{name}");
                }
            }
        }
        assert!(run_child("no such filter", "hit", 10, 1).is_err());
        assert!(run_child("bloomlab::BloomFilter", "mixed", 10, 1).is_err());
    }
}
