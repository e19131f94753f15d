//! The report as text for a terminal (the JSON form is its serde derive).

use std::fmt::Write as _;

use super::Report;
use super::crossover::Span;
use super::decide::{Candidate, Rule, Verdict, lines};
use super::family::FamilyReport;
use super::numbers::{bytes, grouped, items, rate, sci};
use super::workload::{Growth, Workload};

/// Width the paragraphs are wrapped to.
const WIDTH: usize = 78;

/// The whole report: workload, ranked table, per-row reasons and caveats,
/// the space crossover, and the recommendation.
pub fn text(report: &Report) -> String {
    let mut out = String::new();
    let w = &report.workload;
    let _ = writeln!(out, "Workload: {}", describe(w));
    let _ = writeln!(
        out,
        "Any filter needs at least log2(1/ε) = {:.2} bits per item at this rate.",
        report.lower_bound_bits_per_item
    );
    out.push('\n');
    out.push_str(&table(&report.candidates));
    if report
        .candidates
        .iter()
        .any(|c| c.verdict == Verdict::FitsWithLock)
    {
        out.push_str(&wrap(
            "fits+lock: meets the workload once its inserts go through a lock (a Mutex, or an RwLock so that look-ups share it); inserts then take turns.",
            0,
        ));
    }
    out.push('\n');
    for c in &report.candidates {
        let mut items: Vec<String> = c.reasons.iter().map(|r| format!("no: {}", r.why)).collect();
        items.extend(c.notes.iter().cloned());
        if items.is_empty() {
            continue;
        }
        out.push_str(&wrap(
            &format!("{}. {}: {}", c.rank, c.filter, items.join("; ")),
            4,
        ));
    }
    if let Some(x) = &report.space_crossover {
        out.push('\n');
        let mut s = format!(
            "Space crossover at {}: a CuckooFilter takes less memory than a BloomFilter ",
            items(x.items)
        );
        if x.cuckoo_smaller.is_empty() {
            let _ = write!(
                s,
                "at no rate bloomlab-cuckoo builds (down to {}).",
                sci(x.cuckoo_floor)
            );
        } else {
            let spans: Vec<String> = x.spans.iter().map(span).collect();
            let _ = write!(
                s,
                "for rates {}, and more at every other rate: the crossover is {}, above which the BloomFilter is always smaller. (Below {} bloomlab-cuckoo cannot build a table: 32-bit fingerprints at most.)",
                and_list(&spans),
                sci(x.bloom_smaller_above),
                sci(x.cuckoo_floor)
            );
        }
        out.push_str(&wrap(&s, 0));
    }
    out.push('\n');
    out.push_str(&wrap(
        &format!("Recommendation: {}", report.recommendation.text),
        0,
    ));
    out
}

/// The report of `--shared` or `--java`: workload, offers, their reasons
/// and caveats, and the recommendation.
pub fn family_text(report: &FamilyReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Workload: {}", describe(&report.workload));
    out.push_str(&wrap(&format!("Figures: {}.", report.measure), 0));
    out.push('\n');
    let header = [
        "#",
        "filter",
        "parameters",
        "bytes",
        "bits/item",
        "expected FPR",
        "verdict",
    ];
    let right = [true, false, false, true, true, true, false];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|h| (*h).to_owned()).collect()];
    for o in &report.offers {
        rows.push(vec![
            o.rank.to_string(),
            o.filter.to_owned(),
            o.parameters.clone(),
            o.bytes.map(bytes).unwrap_or_default(),
            o.bits_per_item
                .map(|b| format!("{b:.2}"))
                .unwrap_or_default(),
            o.expected_fpr.map(sci).unwrap_or_default(),
            if o.fits { "fits" } else { "no" }.to_owned(),
        ]);
    }
    out.push_str(&aligned(&rows, &right));
    out.push('\n');
    for o in &report.offers {
        let mut said: Vec<String> = o.reasons.iter().map(|r| format!("no: {r}")).collect();
        said.extend(o.notes.iter().cloned());
        if !said.is_empty() {
            out.push_str(&wrap(
                &format!("{}. {}: {}", o.rank, o.filter, said.join("; ")),
                4,
            ));
        }
    }
    out.push('\n');
    out.push_str(&wrap(
        &format!("Recommendation: {}", report.recommendation.text),
        0,
    ));
    out
}

/// "from 7.48e-10 to 8.90e-4" or "from about 9.18e-4 to 2.39e-3 (but for
/// 2 narrow bands where the BloomFilter is up to 2.1% smaller)".
fn span(s: &Span) -> String {
    match s.exceptions {
        0 => format!("from {} to {}", sci(s.low), sci(s.high)),
        n => format!(
            "from about {} to {} (but for {} narrow band{} where the BloomFilter is up to {:.1}% smaller)",
            sci(s.low),
            sci(s.high),
            n,
            if n == 1 { "" } else { "s" },
            100.0 * s.bloom_saves_at_most
        ),
    }
}

/// "a", "a and b", "a, b and c".
fn and_list(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The workload in one sentence.
pub fn describe(w: &Workload) -> String {
    let size = match w.growth {
        Growth::Fixed => items(w.items),
        Growth::GrowsTo { to } => format!("{} growing to {}", items(w.items), grouped(to)),
        Growth::Unknown => format!("{} to start (no upper bound),", items(w.items)),
    };
    // The limit as given, to the byte, beside its rounded reading.
    let limit = w.max_memory.map_or("no memory limit".to_owned(), |b| {
        if b < 1_000 {
            format!("at most {}", bytes(b))
        } else {
            format!("at most {} ({} bytes)", bytes(b), grouped(b))
        }
    });
    format!(
        "{size} at a false-positive rate of {}; {}; {}; {limit}.",
        rate(w.fpr),
        if w.deletes {
            "items removed"
        } else {
            "never removed"
        },
        if w.concurrent {
            "many threads insert"
        } else {
            "one writer"
        },
    )
}

/// The ranked table, columns aligned.
fn table(candidates: &[Candidate]) -> String {
    let header = [
        "#",
        "filter",
        "parameters",
        "memory",
        "bits/item",
        "expected FPR",
        "lines miss/hit",
        "also",
        "verdict",
    ];
    // Right-aligned columns hold numbers.
    let right = [true, false, false, true, true, true, true, false, false];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|h| (*h).to_owned()).collect()];
    for c in candidates {
        let (params, memory, bpi, fpr, cost) = match &c.figures {
            Some(f) => (
                f.params.short(),
                bytes(f.memory_bytes),
                format!("{:.2}", f.bits_per_item),
                sci(f.expected_fpr),
                if f.lines_miss == f.lines_hit {
                    lines(f.lines_hit)
                } else {
                    format!("{}/{}", lines(f.lines_miss), lines(f.lines_hit))
                },
            ),
            None => Default::default(),
        };
        let mut also = Vec::new();
        if c.supports.remove {
            also.push("remove");
        }
        if c.supports.grow {
            also.push("grow");
        }
        if c.supports.concurrent_insert {
            also.push("threads");
        }
        rows.push(vec![
            c.rank.to_string(),
            c.filter.clone(),
            params,
            memory,
            bpi,
            fpr,
            cost,
            if also.is_empty() {
                "-".to_owned()
            } else {
                also.join(",")
            },
            verdict(c),
        ]);
    }
    aligned(&rows, &right)
}

/// `rows` in columns, each as wide as its widest cell; `right[i]` aligns
/// column `i` to the right.
fn aligned(rows: &[Vec<String>], right: &[bool]) -> String {
    let widths: Vec<usize> = (0..right.len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                let pad = widths[i] - cell.chars().count();
                if right[i] {
                    format!("{}{cell}", " ".repeat(pad))
                } else {
                    format!("{cell}{}", " ".repeat(pad))
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// `fits`, `fits+lock`, or `no (deletes, size)`.
fn verdict(c: &Candidate) -> String {
    match c.verdict {
        Verdict::Fits => "fits".to_owned(),
        Verdict::FitsWithLock => "fits+lock".to_owned(),
        Verdict::DoesNotFit => {
            let mut rules: Vec<&str> = Vec::new();
            for r in &c.reasons {
                let name = match r.rule {
                    Rule::Buildable => "unbuildable",
                    Rule::Inserts => "inserts",
                    Rule::Deletes => "deletes",
                    Rule::UnknownSize => "size",
                    Rule::MaxMemory => "memory",
                };
                if !rules.contains(&name) {
                    rules.push(name);
                }
            }
            format!("no ({})", rules.join(", "))
        }
    }
}

/// `s` wrapped at [`WIDTH`], continuation lines indented by `indent`.
fn wrap(s: &str, indent: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in s.split(' ') {
        let len = line.chars().count();
        if len > indent && len + 1 + word.chars().count() > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = " ".repeat(indent);
        }
        if !line.trim().is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_every_word_and_the_width() {
        let s = "one two three four five six seven eight nine ten ".repeat(10);
        let wrapped = wrap(s.trim(), 4);
        assert!(
            wrapped.lines().all(|l| l.chars().count() <= WIDTH),
            "{wrapped}"
        );
        assert!(wrapped.lines().skip(1).all(|l| l.starts_with("    ")));
        let words: Vec<&str> = wrapped.split_whitespace().collect();
        assert_eq!(words.len(), 100);
    }
}
