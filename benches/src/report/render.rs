//! Markdown rendering of a [`Report`].

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use super::Report;
use super::compare::{self, FLOOR_PREFIX, Table};
use super::criterion::Unit;
use super::goals::{Outcome, Verdict};
use super::machine::Machine;

/// The whole `BENCH.md`.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    header(&mut out, report);
    machine(&mut out, &report.machine);
    results(&mut out, &compare::tables(&report.measurements));
    goals(&mut out, &report.outcomes());
    stale(&mut out, report);
    findings(&mut out, report);
    out
}

fn header(out: &mut String, report: &Report) {
    let dates = report.measurements.iter().filter_map(|m| m.modified);
    let newest = dates.clone().max();
    let oldest = dates.min();
    out.push_str("# bloomlab benchmarks\n\n");
    out.push_str(
        "Measured with `cargo bench -p bloomlab-benches`, then written by \
         `cargo run --release -p bloomlab-benches --bin bench-report`.\n\n",
    );
    let _ = writeln!(
        out,
        "- Results: {} benchmarks read from `{}`.",
        report.measurements.len(),
        report.criterion_dir.display()
    );
    match (oldest, newest) {
        (Some(old), Some(new)) if format_utc(old) != format_utc(new) => {
            let _ = writeln!(
                out,
                "- Date: results written from {} to {}.",
                format_utc(old),
                format_utc(new)
            );
        }
        (_, Some(new)) => {
            let _ = writeln!(out, "- Date: results written {}.", format_utc(new));
        }
        _ => {
            let _ = writeln!(
                out,
                "- Date: report written {} (the result files carry no date).",
                format_utc(SystemTime::now())
            );
        }
    }
    let _ = writeln!(
        out,
        "- Commit: {}.",
        report
            .commit
            .as_deref()
            .map_or_else(|| "unknown".to_owned(), |c| format!("`{c}`"))
    );
    out.push_str(
        "- ns/op: criterion's median time per iteration divided by the iteration's \
         `Throughput::Elements` count; the 95% CI is criterion's bootstrap interval of that \
         median, divided the same way.\n\
         - Ratios: this row's median over the reference's (below 1 is faster). The best peer is \
         the fastest row of the same group and setting that is neither bloomlab's \
         (`bloomlab::…`) nor a static reference (`xorf::BinaryFuse8`).\n\
         - Timed in turns (`scale/turns_hit`, `scale/turns_miss`, `scale/turns_mixed`, \
         `big/turns_hit`, `big/turns_miss`): each row times two loops alternately, one batch of 10,000 keys \
         each, both objects alive, and its value is the first loop's time over the second's \
         (`bloomlab_benches::harness::Turns`: criterion's median of ten samples, and its \
         interval). Rows measured apart can differ by a sixth on this virtual machine with \
         nothing changed; a ratio taken in turns has the same moments on both sides. The \
         one-line filters are timed so against the floors over their own tables at every \
         size, and every filter against its peer where both tables fit 4 MiB of cache \
         together or neither fits 16 MiB alone (every pair at 20M items; at 1M items, where \
         rows measured apart moved by up to eleven times between runs of the same code, all \
         but the counting pairs): between the two, the filter that touches more \
         lines in a turn evicts more of the other's table. A goal with such a row is \
         judged by it; the ratio of the two rows measured \
         apart is shown beside it. Against a floor, a ratio counts as below it only when its \
         whole interval is: a filter at its floor measures on either side of 1. The \
         filters whose hits read k positions anywhere in their table, and their \
         peers, are also timed against the floor of such a hit over that filter's table (`floor: \
         hash + k lines over …`), and the one-line filters' peers against those filters' \
         one-line floors: a goal's *target over floor* is its target times its reference's \
         ratio to that floor.\n\
         - Floors (`big/floor`, `scale/floor`): lower bounds measured in the same run over a \
         table as large as the smallest filter's of the setting (a larger table is no faster, so \
         the bound holds for every filter of the setting; `benches/src/floor.rs`): the keyed \
         hash of each \
         key (the filters' default, AES-128-CMAC) plus one random line read per key, one key at a time (`floor: hash + 1 line, one \
         lookup at a time`; a loop of independent lookups overlaps its reads just as this does) \
         or hashed a chunk ahead (`floor: hash + 1 line, batched`, as `contains_batch` does), and \
         three lines per key for the filters whose first round reads three \
         (`BloomFilter`, `AtomicBloomFilter`, `CountingBloomFilter`). The rows of the two \
         one-line filters, the blocked Bloom filter and the one-line counting filter, are \
         divided by the two one-line loops over that filter's own table, hashing with its \
         hasher, so that each key reads the very line its lookup reads (`floor: hash + 1 line \
         over the blocked filter's own table`, `floor: hash + 1 line over the one-line \
         counting table itself`): on this virtual machine two tables of the same size \
         read at speeds up to a sixth apart, with the same code, so only a floor over the same \
         memory bounds the one-line lookup closely, and the counting filter's four-bit \
         counters make its table the largest of the setting. Every bloomlab row of a \
         family with floors is divided by the floor that bounds it; a ratio below 1 would mean \
         the floor is not one, and is marked, except where the pair was also timed in turns: \
         that ratio is shown beside it (`in turns`) and decides the mark. The dependent chain's latency is shown beside the \
         floors for reference; a loop of independent lookups beats it, so nothing is judged \
         against it. So is the one-line loop with `mix64` for the hash (`reference: mix64 + 1 \
         line`): it does less than any filter here, and shows what the hash's instructions cost \
         once the reads miss the cache. The `scale` rows named `(foldhash)` are bloomlab \
         filters hashing with foldhash in place of their default hash, and those named \
         `(SipHash-1-3)` the same filters keyed with SipHash-1-3, their default before \
         AES-128-CMAC (`benches/scale.rs`): they show what another hash does, no floor bounds \
         them, and no goal judges them.\n\n",
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
    let rows = [
        ("CPU", m.cpu.clone().unwrap_or_else(unknown)),
        (
            "Logical CPUs",
            m.cpus.map_or_else(unknown, |n| n.to_string()),
        ),
        ("Caches (cpu0)", caches),
        (
            "Memory",
            m.memory_kib.map_or_else(unknown, |kib| {
                format!("{:.1} GiB", kib as f64 / (1024.0 * 1024.0))
            }),
        ),
        ("Kernel", m.kernel.clone().unwrap_or_else(unknown)),
        ("Compiler", m.rustc.clone().unwrap_or_else(unknown)),
    ];
    out.push_str("## Machine\n\n| | |\n|---|---|\n");
    for (name, value) in rows {
        let _ = writeln!(out, "| {name} | {} |", escape(&value));
    }
    out.push('\n');
}

fn results(out: &mut String, tables: &[Table]) {
    out.push_str("## Results\n\n");
    for table in tables {
        let _ = write!(out, "### `{}`", escape(&table.group));
        if let Some(setting) = &table.setting {
            let _ = write!(out, " ({})", escape(setting));
        }
        if compare::is_turns_group(&table.group) {
            turns_table(out, table);
            continue;
        }
        out.push_str("\n\n| subject | median ns/op | 95% CI (ns/op) | ratio vs best peer |");
        if table.has_floor {
            out.push_str(" ratio vs floor |");
        }
        out.push_str("\n|---|--:|--:|--:|");
        if table.has_floor {
            out.push_str("--:|");
        }
        out.push('\n');
        for (i, row) in table.rows.iter().enumerate() {
            let m = &row.measurement;
            let (lo, hi) = m.ci_per_op();
            let mut subject = format!("`{}`", escape(&m.subject));
            if m.unit == Unit::Iteration || matches!(m.unit, Unit::Bytes(_) | Unit::Bits(_)) {
                let _ = write!(subject, " (per {})", m.unit.noun());
            }
            if table.best_peer == Some(i) {
                subject.push_str(" **best peer**");
            }
            let cells = interval(ns, [m.ns_per_op(), lo, hi]);
            let vs_best_peer = row.vs_best_peer.map_or_else(|| "–".to_owned(), ratio);
            let _ = write!(out, "| {subject} | {cells} | {vs_best_peer} |");
            if table.has_floor {
                let cell = row.vs_floor.map_or_else(
                    || "–".to_owned(),
                    |(floor, r)| floor_cell(floor, r, row.vs_floor_in_turns),
                );
                let _ = write!(out, " {cell} |");
            }
            out.push('\n');
        }
        out.push('\n');
        if compare::is_floor_group(&table.group) {
            continue;
        }
        match table.best_peer.map(|i| &table.rows[i].measurement) {
            Some(best) => {
                let _ = writeln!(
                    out,
                    "Best peer: `{}`, {} ns/op.\n",
                    escape(&best.subject),
                    ns(best.ns_per_op())
                );
            }
            None => out.push_str("No peer measured in this group.\n\n"),
        }
    }
}

/// The ratio-vs-floor cell of a time table: the ratio of the two rows
/// measured apart, and the pair's ratio timed in turns when there is one.
/// Marked below its floor when the ratio in turns is (its whole interval
/// under 1), or, without one, when the ratio apart is.
fn floor_cell(floor: &str, apart: f64, in_turns: Option<(f64, f64)>) -> String {
    match in_turns {
        Some((median, upper)) => {
            let mark = if upper < 1.0 {
                " **below its floor in turns: not a lower bound**"
            } else {
                ""
            };
            format!(
                "{} (`{floor}`; in turns {}){mark}",
                ratio(apart),
                ratio(median)
            )
        }
        None => {
            let mark = if apart < 1.0 {
                " **below its floor: not a lower bound**"
            } else {
                ""
            };
            format!("{} (`{floor}`){mark}", ratio(apart))
        }
    }
}

/// A table of rows timed in turns: each row's median ratio and its
/// interval; below 1 against a floor is marked as in the time tables.
fn turns_table(out: &mut String, table: &Table) {
    out.push_str(
        "\n\n| pair, timed in turns | median ratio | 95% CI |\n\
         |---|--:|--:|\n",
    );
    for row in &table.rows {
        let m = &row.measurement;
        let against_floor = m
            .subject
            .split_once(" vs ")
            .is_some_and(|(_, reference)| reference.starts_with(FLOOR_PREFIX));
        let mark = match (against_floor, m.median_ns < 1.0, m.upper_ns < 1.0) {
            (true, _, true) => " **below its floor: not a lower bound**",
            (true, true, false) => " (at its floor: the interval holds 1)",
            _ => "",
        };
        let cells = interval(ratio, [m.median_ns, m.lower_ns, m.upper_ns]);
        let _ = writeln!(out, "| `{}`{mark} | {cells} |", escape(&m.subject));
    }
    out.push('\n');
}

fn goals(out: &mut String, outcomes: &[Outcome]) {
    out.push_str(
        "## Goals\n\n\
         A goal is out of reach when its target, as a fraction of the reference's time, is below \
         a floor of its subject: the reference was timed in turns against the hash and the lines \
         that every such lookup of the subject reads, over the subject's own table, and the \
         target times that ratio (at the upper end of its interval), the column *target over \
         floor*, is under 1.\n\n",
    );
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
        let _ = write!(
            out,
            "### Issue {issue}\n\n{} met, {} not met ({} of them out of reach), {} not measured, \
             {} below their floor (informational rows not counted).\n\n\
             | goal | subject | reference | setting | ratio in turns | ratio apart | target | \
             target over floor | verdict |\n\
             |---|---|---|---|--:|--:|--:|--:|---|\n",
            count(|v| *v == Verdict::Met),
            count(|v| matches!(v, Verdict::NotMet | Verdict::OutOfReach)),
            count(|v| *v == Verdict::OutOfReach),
            count(|v| matches!(v, Verdict::NotMeasured(_))),
            count(|v| *v == Verdict::BelowFloor),
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
            let _ = writeln!(
                out,
                "| {} | `{}` `{}` | `{}` `{}` | {} | {} | {} | ≤ {} | {} | {verdict} |",
                escape(&g.description),
                escape(g.group),
                escape(g.subject),
                escape(g.reference_group),
                escape(g.reference),
                g.setting.map_or_else(|| "–".to_owned(), escape),
                o.in_turns.map_or_else(|| "–".to_owned(), ratio),
                o.apart.map_or_else(|| "–".to_owned(), ratio),
                ratio(g.max_ratio),
                o.reach.as_ref().map_or_else(
                    || "–".to_owned(),
                    |r| ratio(r.target_over_floor(g.max_ratio))
                ),
            );
        }
        out.push('\n');
    }
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
    for m in &report.stale {
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
    out.push('\n');
}

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

/// A median and its interval as two table cells, `median | low – high`,
/// each number written by `format`.
fn interval(format: fn(f64) -> String, [median, low, high]: [f64; 3]) -> String {
    format!("{} | {} – {}", format(median), format(low), format(high))
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
