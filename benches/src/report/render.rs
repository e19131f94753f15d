//! Markdown rendering of a [`Report`].

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use super::Report;
use super::compare::{self, Table};
use super::goals::{Outcome, Verdict};
use super::machine::Machine;

/// The whole `BENCH.md`: the run's identity, how to reproduce and read
/// it, the machine, the goals, one summary table per family, the stale
/// results and the findings. Every row is in `results/bench_rows.csv`
/// ([`super::csv::rows_csv`]), so the markdown keeps only the key rows.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let tables = compare::tables(&report.measurements);
    header(&mut out, report);
    machine(&mut out, &report.machine);
    goals(&mut out, &report.outcomes());
    families(&mut out, &tables);
    stale(&mut out, report);
    findings(&mut out, report);
    out
}

/// The run's first and last result times, when the files carry them.
pub fn run_dates(report: &Report) -> Option<(SystemTime, SystemTime)> {
    let dates = report.measurements.iter().filter_map(|m| m.modified);
    Some((dates.clone().min()?, dates.max()?))
}

fn header(out: &mut String, report: &Report) {
    let m = &report.machine;
    let unknown = || "unknown".to_owned();
    out.push_str("# bloomlab benchmarks\n\n");
    let date = match run_dates(report) {
        Some((old, new)) if format_utc(old) != format_utc(new) => {
            let (old, new) = (format_utc(old), format_utc(new));
            // The same day is said once: `2026-12-05 01:46–02:20 UTC`.
            match (old.split_once(' '), new.split_once(' ')) {
                (Some((day, from)), Some((same, to))) if day == same => {
                    format!("{day} {}–{to}", from.trim_end_matches(" UTC"))
                }
                _ => format!("{old} to {new}"),
            }
        }
        Some((_, new)) => format_utc(new),
        None => format!(
            "{} (the result files carry no date: the report's time)",
            format_utc(SystemTime::now())
        ),
    };
    let flags = if m.flags.is_empty() {
        "none found".to_owned()
    } else {
        m.flags.join(", ")
    };
    let chosen = if m.chosen.is_empty() {
        unknown()
    } else {
        m.chosen
            .iter()
            .map(|(what, code)| format!("{what} {code}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = write!(
        out,
        "**Run:** commit {}, {date}, {} benchmarks. **CPU:** {}, {} logical CPUs. \
         **Instruction sets:** `/proc/cpuinfo` flags {flags}; `bloomlab-core` chose {chosen} \
         (both read by `bench-report` when it wrote this file).\n\n\
         Every row, with its interval and ratios, is in `results/bench_rows.csv`; every run's \
         goals are in `results/bench_history.csv`.\n\n",
        report
            .commit
            .as_deref()
            .map_or_else(|| "unknown".to_owned(), |c| format!("`{c}`")),
        report.measurements.len(),
        m.cpu.clone().unwrap_or_else(unknown),
        m.cpus.map_or_else(unknown, |n| n.to_string()),
    );
    out.push_str(
        "## How to reproduce\n\n\
         ```sh\n\
         cargo bench -p bloomlab-benches\n\
         cargo run --release -p bloomlab-benches --bin bench-report\n\
         ```\n\n\
         ## How to read it\n\n\
         - **ns/op:** criterion's median per iteration over its `Throughput::Elements`; the \
         interval in the CSV is criterion's 95% bootstrap interval of that median.\n\
         - **Ratios:** a row's median over its reference's; below 1 is faster. The best peer \
         is the fastest row of the group and setting that is not bloomlab's.\n\
         - **In turns:** two loops alternate batches of 10,000 keys, both objects alive \
         (`harness::Turns`). Rows measured apart can move by a sixth between runs of the same \
         code, so a goal with such a pair is judged by it.\n\
         - **Floors:** the keyed hash plus the lines a lookup must read, measured in the same \
         run (`benches/src/floor.rs`). A ratio is below a floor only when its whole interval \
         is. A goal is out of reach when its target lies below its subject's floor.\n\n",
    );
}

fn machine(out: &mut String, m: &Machine) {
    let unknown = || "unknown".to_owned();
    let caches = if m.caches.is_empty() {
        unknown()
    } else {
        m.caches
            .iter()
            .map(|c| c.label())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let memory = m.memory_kib.map_or_else(unknown, |kib| {
        format!("{:.1} GiB", kib as f64 / (1024.0 * 1024.0))
    });
    let _ = write!(
        out,
        "## Machine\n\nCaches (cpu0): {caches}. Memory: {memory}. Kernel: {}. Compiler: {}.\n\n",
        m.kernel.clone().unwrap_or_else(unknown),
        m.rustc.clone().unwrap_or_else(unknown),
    );
}

/// The goals, one table per issue, newest issue first: each goal's ratio
/// in turns and apart, its target and verdict, and the target over the
/// subject's floor where the run measured it. Which rows a goal compares
/// is in `results/bench_history.csv`.
fn goals(out: &mut String, outcomes: &[Outcome]) {
    out.push_str("## Goals\n\n");
    let mut issues: Vec<u32> = outcomes.iter().map(|o| o.goal.issue).collect();
    issues.sort_unstable_by(|a, b| b.cmp(a));
    issues.dedup();
    for issue in issues {
        let outcomes: Vec<&Outcome> = outcomes.iter().filter(|o| o.goal.issue == issue).collect();
        let count = |want: fn(&Verdict) -> bool| {
            outcomes
                .iter()
                .filter(|o| !o.goal.informational && want(&o.verdict))
                .count()
        };
        let reach = outcomes.iter().any(|o| o.reach.is_some());
        let _ = write!(
            out,
            "### Issue {issue}\n\n{} met, {} not met ({} of them out of reach), {} not measured, \
             {} below their floor (informational rows not counted).\n\n\
             | goal | in turns | apart | target |{} verdict |\n\
             |---|--:|--:|--:|{}---|\n",
            count(|v| *v == Verdict::Met),
            count(|v| matches!(v, Verdict::NotMet | Verdict::OutOfReach)),
            count(|v| *v == Verdict::OutOfReach),
            count(|v| matches!(v, Verdict::NotMeasured(_))),
            count(|v| *v == Verdict::BelowFloor),
            if reach { " target over floor |" } else { "" },
            if reach { "--:|" } else { "" },
        );
        for o in outcomes {
            let g = &o.goal;
            let mut verdict = match &o.verdict {
                Verdict::Met => "met".to_owned(),
                Verdict::NotMet => "not met".to_owned(),
                Verdict::BelowFloor => "not judged: faster than its floor".to_owned(),
                Verdict::OutOfReach => o.reach.as_ref().map_or_else(
                    || "not met, out of reach".to_owned(),
                    |r| {
                        format!(
                            "not met, out of reach: the target is below `{}`",
                            escape(&r.floor)
                        )
                    },
                ),
                Verdict::NotMeasured(missing) => format!(
                    "not measured (missing {})",
                    missing
                        .iter()
                        .map(|id| format!("`{}`", escape(id)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            if g.informational {
                verdict.push_str(", informational");
            }
            let over_floor = if reach {
                let cell = o.reach.as_ref().map_or_else(
                    || "–".to_owned(),
                    |r| ratio(r.target_over_floor(g.max_ratio)),
                );
                format!(" {cell} |")
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | ≤ {} |{over_floor} {verdict} |",
                escape(&g.description),
                o.in_turns.map_or_else(|| "–".to_owned(), ratio),
                o.apart.map_or_else(|| "–".to_owned(), ratio),
                ratio(g.max_ratio),
            );
        }
        out.push('\n');
    }
}

/// Whether a table is one of its family's key rows: not the floors or the
/// rows timed in turns (the goals quote those), not the cuckoo layouts,
/// the 4 KiB-page repeats or the floors' sweep over table sizes.
pub fn is_key_table(table: &Table) -> bool {
    let setting = table.setting.as_deref().unwrap_or_default();
    !compare::is_floor_group(&table.group)
        && !compare::is_turns_group(&table.group)
        && table.group != "cuckoo/layout"
        && !setting.contains("4 KiB pages")
}

/// A bloomlab row that speaks for its filter with the default hash: not
/// the rows hashing with foldhash or SipHash-1-3.
fn is_default_ours(subject: &str) -> bool {
    compare::is_ours(subject)
        && ![compare::FOLDHASH_SUFFIX, compare::SIPHASH_SUFFIX]
            .iter()
            .any(|suffix| subject.ends_with(suffix))
}

/// One table per family: for each operation and setting, bloomlab's
/// fastest single row (default hash), its fastest batch row, the best peer
/// and the ratio of the single rows; then the rows below their floor.
fn families(out: &mut String, tables: &[Table]) {
    out.push_str(
        "## Results by family\n\n\
         Each line: bloomlab's fastest single row of an operation at one setting (default \
         hash), its fastest batch row, the fastest peer, and the ratio of the single rows, in \
         ns/op.\n\n",
    );
    let mut family: Option<&str> = None;
    for table in tables.iter().filter(|t| is_key_table(t)) {
        let this = table
            .group
            .split_once('/')
            .map_or(table.group.as_str(), |(f, _)| f);
        if family != Some(this) {
            family = Some(this);
            let _ = write!(
                out,
                "\n### {}\n\n\
                 | operation | setting | bloomlab | ns/op | batch | best peer | ns/op | ratio |\n\
                 |---|---|---|--:|--:|---|--:|--:|\n",
                escape(this)
            );
        }
        let fastest = |batch: bool| {
            table
                .rows
                .iter()
                .map(|r| &r.measurement)
                .filter(|m| is_default_ours(&m.subject))
                .filter(|m| m.subject.ends_with(compare::BATCH_SUFFIX) == batch)
                .min_by(|a, b| a.ns_per_op().total_cmp(&b.ns_per_op()))
        };
        let ours = fastest(false);
        let batch = fastest(true).map_or_else(|| "–".to_owned(), |m| ns(m.ns_per_op()));
        let peer = table.best_peer.map(|i| &table.rows[i].measurement);
        let name = |m: Option<&super::Measurement>| {
            m.map_or_else(
                || ("–".to_owned(), "–".to_owned()),
                |m| (format!("`{}`", escape(&m.subject)), ns(m.ns_per_op())),
            )
        };
        let ((our_name, our_ns), (peer_name, peer_ns)) = (name(ours), name(peer));
        let vs = ours
            .zip(peer)
            .and_then(|(o, p)| compare::ratio(o.ns_per_op(), p.ns_per_op()))
            .map_or_else(|| "–".to_owned(), ratio);
        let operation = table.group.split_once('/').map_or("", |(_, op)| op);
        let _ = writeln!(
            out,
            "| {} | {} | {our_name} | {our_ns} | {batch} | {peer_name} | {peer_ns} | {vs} |",
            escape(operation),
            table
                .setting
                .as_deref()
                .map_or_else(|| "–".to_owned(), escape),
        );
    }
    out.push('\n');
    let below = below_floor(tables);
    if !below.is_empty() {
        out.push_str(
            "Rows faster than the floor that bounds them (that floor is then no lower bound):\n\n",
        );
        for line in below {
            let _ = writeln!(out, "- {line}");
        }
        out.push('\n');
    }
}

/// The rows faster than the floor that bounds them, each as a line: by the
/// pair timed in turns when the run has it (its whole interval under 1),
/// else by the two rows measured apart. A filter at its floor measures on
/// either side of 1, so a ratio in turns whose interval holds 1 is not one.
pub fn below_floor(tables: &[Table]) -> Vec<String> {
    let mut lines = Vec::new();
    for table in tables {
        for row in &table.rows {
            let Some((floor, apart)) = row.vs_floor else {
                continue;
            };
            let (below, turns) = match row.vs_floor_in_turns {
                Some((median, upper)) => (upper < 1.0, format!(", {} in turns", ratio(median))),
                None => (apart < 1.0, String::new()),
            };
            if below {
                lines.push(format!(
                    "`{}` `{}` ({}): {} of `{}` apart{turns}",
                    escape(&table.group),
                    escape(&row.measurement.subject),
                    table.setting.as_deref().map_or("–", |s| s),
                    ratio(apart),
                    escape(floor),
                ));
            }
        }
    }
    lines
}

fn stale(out: &mut String, report: &Report) {
    if report.stale.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "## Stale results (left out)\n\nThese criterion folders were written more than {} minutes \
         before the newest result (renamed or removed benchmarks, or benchmarks not re-run); \
         they are in no table or goal.\n\n",
        report.stale_after.as_secs() / 60
    );
    for m in report.stale.iter().take(STALE_LISTED) {
        let when = m.modified.map_or_else(|| "unknown".to_owned(), format_utc);
        let setting = m
            .setting
            .as_deref()
            .map(|s| format!("/{}", escape(s)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "- `{}/{}{setting}`, written {when}",
            escape(&m.group),
            escape(&m.subject)
        );
    }
    if report.stale.len() > STALE_LISTED {
        let _ = writeln!(out, "- and {} more", report.stale.len() - STALE_LISTED);
    }
    out.push('\n');
}

/// How many stale results the report names; the rest are counted.
const STALE_LISTED: usize = 10;

fn findings(out: &mut String, report: &Report) {
    out.push_str("## Findings\n\n");
    match &report.findings {
        Some(text) => {
            out.push_str(expand(text, &report.measurements).trim_end());
            out.push('\n');
        }
        None => {
            let _ = writeln!(
                out,
                "No findings were written (`{}` is absent).",
                report.findings_path.display()
            );
        }
    }
}

/// The findings with every `{{group|subject|setting}}` replaced by that
/// row's median ns/op in this run (as the tables print it), so that a number
/// the findings quote from the tables has one source. A row not measured
/// reads `(not measured: group|subject|setting)`, in bold.
pub fn expand(text: &str, measurements: &[super::Measurement]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start..].find("}}") else {
            break;
        };
        out.push_str(&rest[..start]);
        let id = &rest[start + 2..start + len];
        let mut parts = id.splitn(3, '|').map(str::trim);
        let (group, subject, setting) = (parts.next(), parts.next(), parts.next());
        let found = group
            .zip(subject)
            .and_then(|(g, s)| compare::find_at(measurements, g, s, setting));
        match found {
            Some(m) => out.push_str(&ns(m.ns_per_op())),
            None => {
                let _ = write!(out, "**(not measured: {id})**");
            }
        }
        rest = &rest[start + len + 2..];
    }
    out.push_str(rest);
    out
}

/// Nanoseconds with three significant figures or more: `1234`, `31.5`, `2.47`.
pub fn ns(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// A ratio with two decimals.
pub fn ratio(x: f64) -> String {
    format!("{x:.2}")
}

/// `YYYY-MM-DD HH:MM UTC` for a time after 1970.
pub fn format_utc(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
/// `civil_from_days`, restricted to dates after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

/// Escapes the one character that breaks a markdown table cell.
fn escape(s: &str) -> String {
    s.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates_match_the_calendar() {
        let at = |secs| format_utc(UNIX_EPOCH + std::time::Duration::from_secs(secs));
        assert_eq!(at(0), "1970-01-01 00:00 UTC");
        assert_eq!(at(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(at(1_709_210_096), "2024-02-29 12:34 UTC");
        assert_eq!(at(4_102_444_799), "2099-12-31 23:59 UTC");
    }

    #[test]
    fn numbers_keep_three_significant_figures() {
        assert_eq!(ns(1234.4), "1234");
        assert_eq!(ns(31.46), "31.5");
        assert_eq!(ns(2.466), "2.47");
        assert_eq!(ratio(25.0 / 30.0), "0.83");
        assert_eq!(escape("a|b"), "a\\|b");
    }
}
