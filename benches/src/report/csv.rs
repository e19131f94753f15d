//! The two CSV files `bench-report` keeps beside `results/BENCH.md`:
//! every measured row of the run (`results/bench_rows.csv`, rewritten each
//! run) and every run's goals (`results/bench_history.csv`, one row per run
//! and goal, upserted).
//!
//! Both start with a header line; a field holding a comma, a quote or a
//! line break is quoted, with quotes doubled (RFC 4180). Times are UTC to
//! the minute, `2026-12-05T01:46Z`, so that the files sort by text.
//! `scripts/bench-history-backfill.py` writes the same columns from the
//! markdown of earlier runs.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use super::compare::Table;
use super::criterion::Unit;
use super::goals::{Outcome, Verdict};
use super::{ReportError, read_findings, write_file};

/// The columns of `results/bench_rows.csv`.
pub const ROWS_HEADER: [&str; 14] = [
    "run_start_utc",
    "run_end_utc",
    "commit",
    "group",
    "setting",
    "subject",
    "unit",
    "median",
    "ci_low",
    "ci_high",
    "ratio_to_best_peer",
    "floor",
    "ratio_to_floor",
    "ratio_to_floor_in_turns",
];

/// The columns of `results/bench_history.csv`.
pub const HISTORY_HEADER: [&str; 14] = [
    "run_start_utc",
    "run_end_utc",
    "commit",
    "issue",
    "goal",
    "subject",
    "reference",
    "setting",
    "ratio_in_turns",
    "ratio_apart",
    "target",
    "target_over_floor",
    "verdict",
    "informational",
];

/// Which run a file's rows come from: its first and last result's times
/// and the commit measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunId {
    /// When the first result was written, `YYYY-MM-DDTHH:MMZ`.
    pub start: String,
    /// When the last result was written, same form.
    pub end: String,
    /// The commit measured, `unknown` when git did not say.
    pub commit: String,
}

/// `YYYY-MM-DDTHH:MMZ` for a time after 1970.
pub fn timestamp(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    super::render::format_utc(UNIX_EPOCH + std::time::Duration::from_secs(secs))
        .replacen(' ', "T", 1)
        .replace(" UTC", "Z")
}

/// One CSV line (with its line break) of `fields`.
pub fn line<S: AsRef<str>>(fields: &[S]) -> String {
    let mut out = String::new();
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let field = field.as_ref();
        if field.contains([',', '"', '\n', '\r']) {
            let _ = write!(out, "\"{}\"", field.replace('"', "\"\""));
        } else {
            out.push_str(field);
        }
    }
    out.push('\n');
    out
}

/// The records of CSV `text`, header included; `None` when a quoted field
/// is not closed.
pub fn parse(text: &str) -> Option<Vec<Vec<String>>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    let mut any = false;
    while let Some(c) = chars.next() {
        any = true;
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
                any = false;
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return None;
    }
    if any {
        record.push(field);
        records.push(record);
    }
    Some(records)
}

/// A number in a CSV cell: three decimals, or empty when absent.
fn number(x: Option<f64>) -> String {
    x.map_or_else(String::new, |x| format!("{x:.3}"))
}

/// `results/bench_rows.csv` for one run: a line per row of every table
/// (floors and rows timed in turns included; stale results left out).
/// The unit is `ns/op` (`ns/byte`, `ns/bit`, `ns/iteration` where the
/// benchmark counts those) or, for a row timed in turns, `ratio`.
pub fn rows_csv(run: &RunId, tables: &[Table]) -> String {
    let mut out = line(&ROWS_HEADER);
    for table in tables {
        let turns = super::compare::is_turns_group(&table.group);
        for row in &table.rows {
            let m = &row.measurement;
            let (median, (low, high), unit) = if turns {
                (m.median_ns, (m.lower_ns, m.upper_ns), "ratio".to_owned())
            } else {
                let unit = match m.unit {
                    Unit::Elements(_) => "op",
                    other => other.noun(),
                };
                (m.ns_per_op(), m.ci_per_op(), format!("ns/{unit}"))
            };
            let floor = row.vs_floor.map(|(floor, _)| floor).unwrap_or_default();
            out.push_str(&line(&[
                run.start.as_str(),
                &run.end,
                &run.commit,
                &table.group,
                table.setting.as_deref().unwrap_or_default(),
                &m.subject,
                &unit,
                &number(Some(median)),
                &number(Some(low)),
                &number(Some(high)),
                &number(row.vs_best_peer),
                floor,
                &number(row.vs_floor.map(|(_, r)| r)),
                &number(row.vs_floor_in_turns.map(|(median, _)| median)),
            ]));
        }
    }
    out
}

/// A verdict as the history writes it: `met`, `not met`, `out of reach`,
/// `met at floor`, `not measured` or `below floor`.
pub fn verdict_word(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::Met => "met",
        Verdict::NotMet => "not met",
        Verdict::OutOfReach => "out of reach",
        Verdict::MetAtFloor => "met at floor",
        Verdict::NotMeasured(_) => "not measured",
        Verdict::BelowFloor => "below floor",
    }
}

/// The history's lines (no header) for one run's goals.
pub fn history_lines(run: &RunId, outcomes: &[Outcome]) -> Vec<Vec<String>> {
    outcomes
        .iter()
        .map(|o| {
            let g = &o.goal;
            let id = |group: &str, subject: &str, setting: Option<&str>| match setting {
                Some(setting) => format!("{group}/{subject}/{setting}"),
                None => format!("{group}/{subject}"),
            };
            vec![
                run.start.clone(),
                run.end.clone(),
                run.commit.clone(),
                g.issue.to_string(),
                g.description.clone(),
                id(g.group, g.subject, None),
                id(g.reference_group, g.reference, g.reference_setting),
                g.setting.unwrap_or_default().to_owned(),
                number(o.in_turns),
                number(o.apart),
                number(Some(g.max_ratio)),
                number(o.reach.as_ref().map(|r| r.target_over_floor(g.max_ratio))),
                verdict_word(&o.verdict).to_owned(),
                g.informational.to_string(),
            ]
        })
        .collect()
}

/// Upserts one run's lines into the history at `path`: the lines of the
/// same run (same start and commit) are replaced, other runs kept, and the
/// runs sorted by start time (each run's goals in the order given).
pub fn upsert_history(path: &Path, run: &RunId, lines: &[Vec<String>]) -> Result<(), ReportError> {
    let old = read_findings(path)?.unwrap_or_default();
    let malformed = || ReportError::Csv {
        path: path.to_path_buf(),
        expected: "the header of results/bench_history.csv and closed quotes",
    };
    let mut records = parse(&old).ok_or_else(malformed)?;
    if !records.is_empty() {
        if records[0] != HISTORY_HEADER {
            return Err(malformed());
        }
        records.remove(0);
    }
    records.retain(|r| !(r.first() == Some(&run.start) && r.get(2) == Some(&run.commit)));
    records.extend(lines.iter().cloned());
    // A stable sort keeps each run's goals in order.
    records.sort_by(|a, b| a.first().cmp(&b.first()));
    let mut out = line(&HISTORY_HEADER);
    for record in &records {
        out.push_str(&line(record));
    }
    write_file(path, &out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_with_commas_and_quotes_round_trip() {
        let fields = ["plain", "a, b", "say \"hi\"", "", "two\nlines"];
        let text = format!("{}{}", line(&fields), line(&["x", "y"]));
        assert_eq!(
            line(&fields),
            "plain,\"a, b\",\"say \"\"hi\"\"\",,\"two\nlines\"\n"
        );
        let parsed = parse(&text).expect("closed quotes");
        assert_eq!(parsed, [fields.to_vec(), vec!["x", "y"]]);
        // A last line without its line break is still a record.
        assert_eq!(parse("a,b").expect("valid"), [["a", "b"]]);
        assert_eq!(parse("\"open"), None);
    }

    #[test]
    fn timestamps_are_iso_minutes() {
        let t = UNIX_EPOCH + std::time::Duration::from_secs(1_709_210_096);
        assert_eq!(timestamp(t), "2024-02-29T12:34Z");
    }
}
