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
         - ns/op: criterion's median per iteration over its `Throughput::Elements`. A ratio is \
         a row's median over its reference's; below 1 is faster.\n\
         - In turns: two loops alternate batches of 10,000 keys, both objects alive \
         (`harness::Turns`). Rows measured apart move by up to a sixth between runs of the same \
         code.\n\
         - A floor: the keyed hash plus the lines a lookup must read, measured in the same run \
         (`benches/src/floor.rs`). A row is below its floor only when its whole interval is. A \
         goal is out of reach when its target lies below its subject's floor; a lookup goal of \
         issues 51 and 52 is then met within 1.1 times that floor (✓ at floor).\n\n",
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

/// The goals, one table per issue, newest issue first. A row is one
/// comparison (subject, reference, target); a column one operation at one
/// setting; a cell the ratio judged and the verdict. Each goal's words,
/// rows and both ratios are in `results/bench_history.csv`.
fn goals(out: &mut String, outcomes: &[Outcome]) {
    out.push_str(
        "## Goals\n\n\
         A cell is the subject's time over the reference's, in turns where the run has the pair, \
         else apart (†). ✓ met, ✗ not met. Informational rows are not counted. Each goal's \
         words, rows and both ratios are in `results/bench_history.csv`.\n\n",
    );
    let mut issues: Vec<u32> = outcomes.iter().map(|o| o.goal.issue).collect();
    issues.sort_unstable_by(|a, b| b.cmp(a));
    issues.dedup();
    for issue in issues {
        let outcomes: Vec<&Outcome> = outcomes.iter().filter(|o| o.goal.issue == issue).collect();
        let _ = writeln!(out, "### Issue {issue}\n\n{}.\n", tally(&outcomes));
        // An issue none of whose rows this run measured has no table.
        if outcomes
            .iter()
            .any(|o| !matches!(o.verdict, Verdict::NotMeasured(_)))
        {
            goal_table(out, &outcomes);
        }
    }
}

/// `34 of 38 met, 4 not met, …`: the counts of an issue's goals that are
/// not informational, naming only the verdicts that occur.
fn tally(outcomes: &[&Outcome]) -> String {
    let count = |want: fn(&Verdict) -> bool| {
        outcomes
            .iter()
            .filter(|o| !o.goal.informational && want(&o.verdict))
            .count()
    };
    let counted = outcomes.iter().filter(|o| !o.goal.informational).count();
    let mut tally = format!("{} of {counted} met", count(Verdict::is_met));
    for (n, what) in [
        (count(|v| *v == Verdict::MetAtFloor), "met at their floor"),
        (
            count(|v| matches!(v, Verdict::NotMet | Verdict::OutOfReach)),
            "not met",
        ),
        (count(|v| *v == Verdict::OutOfReach), "out of reach"),
        (
            count(|v| matches!(v, Verdict::NotMeasured(_))),
            "not measured",
        ),
        (count(|v| *v == Verdict::BelowFloor), "below their floor"),
    ] {
        if n > 0 {
            let _ = write!(tally, ", {n} {what}");
        }
    }
    tally
}

/// A filter's name without bloomlab's prefix.
fn short(subject: &str) -> &str {
    subject
        .strip_prefix(compare::OURS_PREFIX)
        .or_else(|| subject.strip_prefix("bloomlab "))
        .unwrap_or(subject)
}

/// One issue's goals as rows of comparisons and columns of operations at
/// a setting, then what the cells cannot hold: the floors of goals out of
/// reach and the rows of goals not measured.
fn goal_table(out: &mut String, outcomes: &[&Outcome]) {
    let column = |o: &Outcome| {
        let operation = o
            .goal
            .group
            .split_once('/')
            .map_or(o.goal.group, |(_, op)| op);
        let operation = operation.strip_prefix("lookup_").unwrap_or(operation);
        match o.goal.setting {
            Some(setting) => format!("{operation}, {setting}"),
            None => operation.to_owned(),
        }
    };
    let label = |o: &Outcome| {
        let g = &o.goal;
        let reference = if compare::is_floor_group(g.reference_group) {
            "its floor".to_owned()
        } else if g.reference == g.subject {
            format!(
                "itself at {}",
                g.reference_setting.map_or("another setting", |s| s)
            )
        } else {
            format!("`{}`", escape(short(g.reference)))
        };
        let note = if g.informational {
            ", informational"
        } else {
            ""
        };
        format!(
            "`{}` vs {reference}, ≤ {}{note}",
            escape(short(g.subject)),
            ratio(g.max_ratio)
        )
    };
    let mut columns: Vec<String> = Vec::new();
    let mut rows: Vec<(String, Vec<(String, &Outcome)>)> = Vec::new();
    for o in outcomes {
        let (c, l) = (column(o), label(o));
        if !columns.contains(&c) {
            columns.push(c.clone());
        }
        match rows.iter_mut().find(|(label, _)| *label == l) {
            Some((_, cells)) => cells.push((c, o)),
            None => rows.push((l, vec![(c, o)])),
        }
    }
    let _ = writeln!(
        out,
        "| goal | {} |\n|---|{}",
        columns
            .iter()
            .map(|c| escape(c))
            .collect::<Vec<_>>()
            .join(" | "),
        "--:|".repeat(columns.len())
    );
    let mut notes = Vec::new();
    let mut missing: Vec<&str> = Vec::new();
    for (label, cells) in &rows {
        let _ = write!(out, "| {label} |");
        for c in &columns {
            let cell = cells
                .iter()
                .find(|(column, _)| column == c)
                .map_or_else(String::new, |(_, o)| goal_cell(o, &mut notes));
            if let Some((_, o)) = cells.iter().find(|(column, _)| column == c)
                && let Verdict::NotMeasured(ids) = &o.verdict
            {
                for id in ids {
                    if !missing.contains(&id.as_str()) {
                        missing.push(id);
                    }
                }
            }
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    out.push('\n');
    if !missing.is_empty() {
        notes.push(format!(
            "Not measured: {}.",
            missing
                .iter()
                .map(|id| format!("`{}`", escape(id)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !notes.is_empty() {
        for note in notes {
            let _ = writeln!(out, "- {note}");
        }
        out.push('\n');
    }
}

/// A goal's cell: the ratio judged, † when measured apart, and the
/// verdict; the floor of a goal out of reach goes to `notes`.
fn goal_cell(o: &Outcome, notes: &mut Vec<String>) -> String {
    let g = &o.goal;
    let judged = match (o.in_turns, o.apart) {
        (Some(x), _) => ratio(x),
        (None, Some(x)) => format!("{}†", ratio(x)),
        (None, None) => "–".to_owned(),
    };
    match &o.verdict {
        Verdict::Met => format!("{judged} ✓"),
        Verdict::NotMet => format!("{judged} ✗"),
        Verdict::BelowFloor => format!("{judged} below floor"),
        Verdict::OutOfReach => {
            if let Some(r) = &o.reach {
                notes.push(format!(
                    "`{}` {}: out of reach, the target is {} of `{}`.",
                    escape(short(g.subject)),
                    escape(g.setting.unwrap_or_default()),
                    ratio(r.target_over_floor(g.max_ratio)),
                    escape(&r.floor)
                ));
            }
            format!("{judged} ✗ out of reach")
        }
        Verdict::MetAtFloor => {
            if let Some(r) = &o.reach {
                notes.push(format!(
                    "`{}` {}: the target is {} of `{}`, below it; the goal is then {} of \
                     that floor, and the lookup takes {}.",
                    escape(short(g.subject)),
                    escape(g.setting.unwrap_or_default()),
                    ratio(r.target_over_floor(g.max_ratio)),
                    escape(&r.floor),
                    ratio(g.at_floor.unwrap_or_default()),
                    ratio(r.subject)
                ));
            }
            format!("{judged} ✓ at floor")
        }
        Verdict::NotMeasured(_) => "not measured".to_owned(),
    }
}

/// Whether a table is one of its family's key rows: not the floors or the
/// rows timed in turns (the goals quote those), not the cuckoo layouts,
/// the 4 KiB-page repeats or 4 threads on this 2-core machine.
pub fn is_key_table(table: &Table) -> bool {
    let setting = table.setting.as_deref().unwrap_or_default();
    !compare::is_floor_group(&table.group)
        && !compare::is_turns_group(&table.group)
        && table.group != "cuckoo/layout"
        && !setting.contains("4 KiB pages")
        && !setting.contains("4 threads")
}

/// Suffixes of bloomlab rows whose filter hashes with another hash than
/// its default: foldhash, SipHash-1-3, `mix64`.
const OTHER_HASH_SUFFIXES: [&str; 3] = [
    compare::FOLDHASH_SUFFIX,
    compare::SIPHASH_SUFFIX,
    " (Mix64)",
];

/// A bloomlab row that speaks for its filter with the default hash.
fn is_default_ours(subject: &str) -> bool {
    compare::is_ours(subject)
        && !OTHER_HASH_SUFFIXES
            .iter()
            .any(|suffix| subject.ends_with(suffix))
}

/// One table per family: for each operation and setting, bloomlab's
/// fastest single row (default hash), the best peer and their ratio (the
/// batch rows are in the CSV); then the rows below their floor.
fn families(out: &mut String, tables: &[Table]) {
    out.push_str(
        "## Results by family\n\n\
         A line per operation and setting, in ns/op: bloomlab's fastest single row (default \
         hash), the best peer, and their ratio.\n",
    );
    let mut family: Option<&str> = None;
    for table in tables.iter().filter(|t| is_key_table(t)) {
        let (this, operation) = table
            .group
            .split_once('/')
            .unwrap_or((table.group.as_str(), ""));
        if family != Some(this) {
            family = Some(this);
            let _ = write!(
                out,
                "\n### {}\n\n\
                 | operation, setting | bloomlab | best peer | ratio |\n\
                 |---|---|---|--:|\n",
                escape(this)
            );
        }
        let ours = table
            .rows
            .iter()
            .map(|r| &r.measurement)
            .filter(|m| is_default_ours(&m.subject) && !m.subject.ends_with(compare::BATCH_SUFFIX))
            .min_by(|a, b| a.ns_per_op().total_cmp(&b.ns_per_op()));
        let peer = table.best_peer.map(|i| &table.rows[i].measurement);
        let cell = |m: Option<&super::Measurement>| {
            m.map_or_else(
                || "–".to_owned(),
                |m| format!("`{}` {}", escape(short(&m.subject)), ns(m.ns_per_op())),
            )
        };
        let vs = ours
            .zip(peer)
            .and_then(|(o, p)| compare::ratio(o.ns_per_op(), p.ns_per_op()))
            .map_or_else(|| "–".to_owned(), ratio);
        let operation = operation.strip_prefix("lookup_").unwrap_or(operation);
        let what = match (&table.setting, operation.is_empty()) {
            (Some(setting), true) => escape(setting),
            (Some(setting), false) => format!("{}, {}", escape(operation), escape(setting)),
            (None, _) => escape(operation),
        };
        let _ = writeln!(out, "| {what} | {} | {} | {vs} |", cell(ours), cell(peer));
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
