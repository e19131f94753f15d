//! The summary at the top of REPORT.md: which filter for which workload,
//! the key numbers, and every claim of the source documents with its
//! verdict — drawn from the CSV files in the output folder after the run, so
//! a partial run (`reproduce --only`) summarises the sections it kept too.
//! A file that is missing or lacks a column leaves its line out.

use std::collections::HashMap;
use std::path::Path;

use bloomlab_choose::{Growth, Workload, choose};

use crate::table::Table;

/// A CSV file's rows, each by column name; `None` if it cannot be read.
type Rows = Vec<HashMap<String, String>>;

fn read(dir: &Path, name: &str) -> Option<Rows> {
    let text = std::fs::read_to_string(dir.join(name)).ok()?;
    Table::from_csv(&text).map(|t| t.records())
}

/// A rate cell (`9.6300e-3`) to three significant digits (`9.63e-3`); a
/// cell that is not a number as it is.
fn short(rate: &str) -> String {
    rate.parse::<f64>()
        .map_or_else(|_| rate.to_owned(), |x| format!("{x:.2e}"))
}

/// The cell `col` of `row`, or `""`.
fn cell<'a>(row: &'a HashMap<String, String>, col: &str) -> &'a str {
    row.get(col).map_or("", String::as_str)
}

/// Whether the cell `col` of `row` says `yes`.
fn flag(row: &HashMap<String, String>, col: &str) -> bool {
    cell(row, col) == "yes"
}

/// A GitHub-style anchor for a `## ` heading.
pub fn anchor(title: &str) -> String {
    title
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The summary, for the report's `sections` (experiment name and heading, in
/// report order), from the CSV files in `dir`.
pub fn compose(dir: &Path, sections: &[(String, String)]) -> String {
    let link = |name: &str, text: &str| {
        sections.iter().find(|(n, _)| n == name).map_or_else(
            || text.to_owned(),
            |(_, t)| format!("[{text}](#{})", anchor(t)),
        )
    };
    let mut out = format!("{}\n\n## Summary\n\n", crate::report::identity(dir));
    let tradeoff = read(dir, "tradeoff.csv").unwrap_or_default();
    out.push_str(&which_filter(
        &tradeoff,
        &link("tradeoff", "trade-off table"),
    ));
    out.push_str(&key_numbers(dir, &tradeoff, &link));
    if let Some(seeds) = read(dir, "seeds_claims.csv") {
        out.push_str(&claims(&seeds, &link("seeds", "the claims section")));
    }
    out += "Long per-row tables: [APPENDIX.md](APPENDIX.md); every number: the CSV files \
            beside this report.\n\n";
    out
}

/// The chooser's pick for seven workloads of one million items, with what
/// this run measured of the pick at the same target rate.
fn which_filter(tradeoff: &Rows, table_link: &str) -> String {
    let n = 1_000_000;
    let fixed = Workload::fixed(n, 0.01);
    let workloads = [
        ("a fixed set, 1%", fixed),
        ("a fixed set, 0.01%", Workload::fixed(n, 0.0001)),
        (
            "items are removed, 1%",
            Workload {
                deletes: true,
                ..fixed
            },
        ),
        (
            "size unknown in advance, 1%",
            Workload {
                growth: Growth::Unknown,
                ..fixed
            },
        ),
        (
            "items are removed, size unknown, 1%",
            Workload {
                deletes: true,
                growth: Growth::Unknown,
                ..fixed
            },
        ),
        (
            "built at once, rebuilt when it changes, 1%",
            Workload::rebuilt(n, 0.01),
        ),
        (
            "many threads insert, 1%",
            Workload {
                concurrent: true,
                ..fixed
            },
        ),
    ];
    let mut out = format!(
        "**Which filter.** What `bloomlab choose` recommends for one million items, and what \
         this run measured of that filter at the same rate ({table_link}, built for \
         {} items in {} keyed instances; a filter that grows, grown tenfold from a tenth of \
         them):\n\n\
         | workload | use | bits/item | lines per look-up | measured rate (95%; ✓ theory inside) |\n\
         |---|---|---|---|---|\n",
        tradeoff.first().map_or("–", |r| cell(r, "items")),
        tradeoff.first().map_or("–", |r| cell(r, "instances"))
    );
    for (what, w) in workloads {
        let report = choose(&w);
        let Some(pick) = report
            .candidates
            .iter()
            .find(|c| Some(&c.id) == report.recommendation.id.as_ref())
        else {
            out += &format!("| {what} | nothing fits | | | |\n");
            continue;
        };
        let id = pick.kind.variant.id;
        let row = tradeoff
            .iter()
            .find(|r| cell(r, "variant") == id && cell(r, "target_fpr").parse() == Ok(w.fpr));
        let measured = row.map_or_else(
            || "–".to_owned(),
            |r| {
                let holds = flag(r, "theory_in_instance_ci95");
                let [rate, lo, hi] = ["measured_fpr", "instance_ci95_low", "instance_ci95_high"]
                    .map(|col| short(cell(r, col)));
                format!("{rate} ({lo}–{hi}) {}", if holds { "✓" } else { "✗" })
            },
        );
        // The built filter's own figures, as the trade-off table measured
        // them (a growing filter's after it has grown), else the chooser's.
        let number = |col: &str| row.and_then(|r| cell(r, col).parse::<f64>().ok());
        let (bits, lines) = pick.figures.as_ref().map_or((f64::NAN, f64::NAN), |f| {
            (
                number("bits_per_item_measured").unwrap_or(f.bits_per_item),
                number("lookup_lines").unwrap_or(f.lines_miss),
            )
        });
        out += &format!(
            "| {what} | `{}` | {bits:.2} | {lines:.1} | {measured} |\n",
            pick.filter
        );
    }
    out.push('\n');
    out
}

/// One line each: space, accuracy, speed, the guard.
fn key_numbers(dir: &Path, tradeoff: &Rows, link: &dyn Fn(&str, &str) -> String) -> String {
    let mut lines = Vec::new();
    // The smallest table at each rate, against the lower bound log2(1/p).
    let mut targets: Vec<&str> = Vec::new();
    for r in tradeoff {
        if !targets.contains(&cell(r, "target_fpr")) {
            targets.push(cell(r, "target_fpr"));
        }
    }
    let smallest: Vec<String> = targets
        .iter()
        .filter_map(|t| {
            let best = tradeoff
                .iter()
                .filter(|r| cell(r, "target_fpr") == *t)
                .filter_map(|r| Some((cell(r, "bits_per_item_measured").parse::<f64>().ok()?, r)))
                .min_by(|a, b| a.0.total_cmp(&b.0))?;
            let p: f64 = t.parse().ok()?;
            Some(format!(
                "{t}: `{}` at {:.2} bits per item ({:.0}% above the bound {:.2})",
                cell(best.1, "variant"),
                best.0,
                100.0 * (best.0 / -p.log2() - 1.0),
                -p.log2()
            ))
        })
        .collect();
    if !smallest.is_empty() {
        lines.push(format!(
            "Smallest table built at each rate — {} ({}).",
            smallest.join("; "),
            link("space", "space")
        ));
    }
    if let Some(fpr) = read(dir, "fpr.csv") {
        let powered: Vec<_> = fpr
            .iter()
            .filter(|r| cell(r, "underpowered") == "no")
            .collect();
        // The interval over instances where the file has it, else the pooled one.
        let column = match powered
            .first()
            .is_some_and(|r| r.contains_key("theory_in_instance_ci95"))
        {
            true => ("theory_in_instance_ci95", "t interval over instances"),
            false => ("theory_in_ci95", "pooled interval"),
        };
        let n = powered.len() as u64;
        let missed = powered.iter().filter(|r| !flag(r, column.0)).count() as u64;
        lines.push(format!(
            "Theory's rate is outside the 95% {} in {missed} of {n} rows expecting 100 false \
             positives or more; chance expects {:.1} (binomial P of as many or more: {:.2}) ({}).",
            column.1,
            n as f64 * 0.05,
            crate::exp::fpr::spread::misses_p_value(missed, n),
            link("fpr", "rate against theory")
        ));
    }
    if let Some(guard) = read(dir, "guard.csv") {
        // The Redis cache's rows, or the in-process cache's where Redis did
        // not run: an absent key misses either cache, so the database sees
        // the same queries.
        let attack_with = |cache: &str| -> Vec<&HashMap<String, String>> {
            guard
                .iter()
                .filter(|r| cell(r, "workload") == "attack" && cell(r, "cache") == cache)
                .collect()
        };
        let mut attack = attack_with("redis");
        if attack.is_empty() {
            attack = attack_with("lru");
        }
        let none = attack.iter().find(|r| cell(r, "guard") == "none");
        let one = attack.iter().find(|r| cell(r, "guard") == "classic 1%");
        if let (Some(none), Some(one)) = (none, one) {
            let per_1000 = |r: &HashMap<_, _>, col| cell(r, col).parse().unwrap_or(f64::NAN);
            lines.push(format!(
                "Under a flood of absent keys, SQLite answered {:.0} of every 1,000 requests with \
                 no filter and {:.1} with a 1% `BloomFilter` in front (theory {:.1}) ({}).",
                per_1000(none, "absent_db_queries_per_1000"),
                per_1000(one, "absent_db_queries_per_1000"),
                per_1000(one, "theory_absent_db_queries_per_1000"),
                link("guard", "guard")
            ));
        }
    }
    if lines.is_empty() {
        return String::new();
    }
    let items: String = lines.iter().map(|l| format!("- {l}\n")).collect();
    format!("**Key numbers.**\n\n{items}\n")
}

/// How a claim's verdict ranks: 0 holds, 1 holds within chance, 2 does not
/// hold (wholly or in part).
fn severity(verdict: &str) -> usize {
    let v = verdict.to_lowercase();
    if v.contains("does not") || v.contains("wrong") {
        2
    } else if v.contains("within chance") {
        1
    } else {
        0
    }
}

/// Every claim id, grouped by verdict (`seeds_claims.csv`: one row a claim).
fn claims(seeds: &Rows, section: &str) -> String {
    let mut out = format!(
        "**The documents' claims** (`shared/seeds/CLAIMS.md`; each claim's verdict and key \
         number in {section}):\n\n| verdict | claims |\n|---|---|\n"
    );
    let groups = [
        "holds",
        "holds within chance (outside the 95% interval, inside 99.9%)",
        "does not hold, wholly or in part",
    ];
    for (s, name) in groups.iter().enumerate() {
        let listed: Vec<String> = seeds
            .iter()
            .filter(|r| severity(cell(r, "verdict")) == s)
            .map(|r| {
                let (id, verdict) = (cell(r, "id"), cell(r, "verdict"));
                // A claim tested on a table smaller than the document's says
                // so where its verdict is read.
                let scaled = if verdict.contains("not 2^30") {
                    " (on a scaled-down table)"
                } else {
                    ""
                };
                match verdict.to_lowercase().contains("wrong") {
                    true => format!("**{id}{scaled}: wrong**"),
                    false => format!("{id}{scaled}"),
                }
            })
            .collect();
        if !listed.is_empty() {
            out += &format!("| {name} | {} |\n", listed.join(", "));
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_follow_github() {
        assert_eq!(anchor("The trade-off table"), "the-trade-off-table");
        assert_eq!(
            anchor(crate::exp::growth::TITLE),
            "growth-filters-that-grow-from-1-to-1000-their-initial-capacity"
        );
    }

    #[test]
    fn the_guard_line_uses_the_redis_cache_or_else_the_in_process_one() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let header = "guard,cache,workload,absent_db_queries_per_1000,\
                      theory_absent_db_queries_per_1000\n";
        let link = |_: &str, text: &str| text.to_owned();
        let line = |csv: &str| {
            std::fs::write(dir.path().join("guard.csv"), format!("{header}{csv}"))
                .expect("writable");
            key_numbers(dir.path(), &Vec::new(), &link)
        };
        // Without Redis, the in-process cache's rows.
        let lru = "none,lru,attack,1000.0,1000.0\nclassic 1%,lru,attack,8.8,10.0\n\
                   classic 1%,lru,uniform 50% absent,4.1,5.0\n";
        let text = line(lru);
        let expected = "answered 1000 of every 1,000 requests with no filter and 8.8 \
                        with a 1% `BloomFilter` in front (theory 10.0)";
        assert!(text.contains(expected), "{text}");
        // With Redis, its rows, whatever the in-process ones say.
        let both =
            format!("{lru}none,redis,attack,999.0,1000.0\nclassic 1%,redis,attack,9.1,10.0\n");
        assert!(
            line(&both).contains("answered 999 of every 1,000 requests with no filter and 9.1")
        );
        // No attack rows: no line.
        assert!(!line("classic 1%,lru,uniform 50% absent,4.1,5.0\n").contains("flood"));
    }

    #[test]
    fn claims_are_grouped_by_verdict() {
        let row = |id: &str, verdict: &str| -> HashMap<String, String> {
            [("id", id), ("verdict", verdict)]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect()
        };
        let seeds = vec![
            row("T1", "holds"),
            row("E4", "rate holds within chance; '99% sure' does not hold"),
            row("E5", "**WRONG**: rate bound does not hold (memory holds)"),
            row("H1", "holds within chance on addresses"),
            row(
                "E6",
                "002's hash does not hold (tested on 2^24 bits; not 2^30)",
            ),
        ];
        let text = claims(&seeds, "x");
        assert!(text.contains("| holds | T1 |"), "{text}");
        assert!(text.contains("inside 99.9%) | H1 |"), "{text}");
        let failed = "| does not hold, wholly or in part | E4, **E5: wrong**, E6 (on a scaled-down \
                      table) |";
        assert!(text.contains(failed), "{text}");
    }
}
