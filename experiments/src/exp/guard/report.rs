//! The report section: what was run, the results, and what they show.

use super::*;

pub(super) fn body(
    rows: &[Row],
    n_rows: u64,
    requests: usize,
    cache_note: &str,
    seconds: f64,
) -> String {
    let mut out = String::new();
    let uniform = |a: f64| Stream::Mixed {
        absent: a,
        zipf: false,
    };
    let q = |g: &str, s: Stream| find(rows, g, s).map(|r| r.per_1000(r.db_queries()));
    let qa = |g: &str, s: Stream| find(rows, g, s).map(|r| r.per_1000(r.tally.db_not_found));
    let num = |v: Option<f64>| v.map_or_else(|| "–".into(), |v| format!("{v:.1}"));
    let guards = guards_in(rows);

    // The answer first.
    let none90 = qa("none", uniform(0.9));
    let c90 = qa("classic 1%", uniform(0.9));
    let _ = writeln!(
        out,
        "**At 90% absent ids, no guard sends {} queries per 1,000 requests for ids that have no \
         row to the database; a 1% classic Bloom filter sends {} of them ({} saved), in {} KiB \
         for {n_rows} rows.** Every guard answered every request right: {} wrong answers in \
         {} requests, churn included.\n",
        num(none90),
        num(c90),
        num(none90.zip(c90).map(|(a, b)| a - b)),
        find(rows, "classic 1%", uniform(0.9)).map_or_else(
            || "–".into(),
            |r| format!("{:.0}", r.memory_bytes as f64 / 1024.0)
        ),
        rows.iter().map(|r| r.tally.wrong_answers).sum::<u64>(),
        rows.iter().map(|r| r.tally.requests).sum::<u64>(),
    );
    let _ = writeln!(
        out,
        "The stack: SQLite (bundled, WAL, on disk in a temporary folder of the output folder, \
         removed afterwards) holding {n_rows} rows keyed by id; as the cache, {cache_note}; in \
         front, each guard built for the {n_rows} ids and filled with them (memory: the filter's \
         tables; for the Redis filters their blocks and guard bytes, without Redis's per-key \
         overhead). Each stream is \
         {requests} requests, the same for every guard, through the path: the guard says \
         absent → not found; else cache `GET` → hit; else one query by primary key → a row is \
         cached with `SET … EX {TTL_SECONDS}` and returned, no row is answered not found. The \
         cache starts empty for every stream. Present ids are uniform over the rows or Zipf \
         (exponent {ZIPF_EXPONENT}); every absent id is a fresh one, so the guard's answers are \
         independent draws at its rate (a repeated absent id would repeat its answer). The \
         attack is absent ids only. In churn, each step deletes a random row (database, cache \
         entry, and the guard where it can delete), asks for it, and asks for a present row; \
         once {} rows are deleted each step also re-adds the row deleted longest ago \
         (database and guard). All {} guards × {} streams took {seconds:.1} s.\n",
        (requests / 20).max(1),
        guards.len(),
        Workload::all().len()
    );

    // Queries per 1,000 by absent share.
    let shares: Vec<(Stream, String)> = ABSENT_SHARES
        .iter()
        .map(|&a| (uniform(a), format!("{}% absent", a * 100.0)))
        .chain([(Stream::Attack, "attack".to_string())])
        .collect();
    let _ = writeln!(
        out,
        "### Database queries per 1,000 requests\n\nAll queries (for present ids: the cache's \
         cold misses; for absent ids: what the guard let through), uniform streams; in brackets \
         the absent-id queries saved against no guard.\n"
    );
    let _ = write!(out, "| guard | memory (bytes) | bits/row |");
    for (_, name) in &shares {
        let _ = write!(out, " {name} |");
    }
    let _ = writeln!(
        out,
        " churn |\n|---|---|---|{}---|",
        "---|".repeat(shares.len())
    );
    for g in &guards {
        let mem = find(rows, g.label, uniform(0.0)).map_or(0, |r| r.memory_bytes);
        let _ = write!(
            out,
            "| {} | {mem} | {:.2} |",
            g.label,
            mem as f64 * 8.0 / n_rows as f64
        );
        for (s, _) in &shares {
            let saved = qa("none", *s).zip(qa(g.label, *s)).map(|(a, b)| a - b);
            let _ = write!(out, " {} ({}) |", num(q(g.label, *s)), num(saved));
        }
        let _ = writeln!(out, " {} |", num(q(g.label, Stream::Churn)));
    }
    out.push('\n');
    let zipf0 = q(
        "none",
        Stream::Mixed {
            absent: 0.0,
            zipf: true,
        },
    );
    let _ = writeln!(
        out,
        "With Zipf-skewed present ids the cache serves the popular rows, so the present-id \
         queries fall (no guard at 0% absent: {} per 1,000 with Zipf, {} uniform); the \
         absent-id queries are the same story as above, since the guard sees each absent id \
         once (`guard.csv` has every row).\n",
        num(zipf0),
        num(q("none", uniform(0.0)))
    );

    // Theory.
    let applies: Vec<&Row> = rows
        .iter()
        .filter(|r| r.theory_applies() && r.guard.kind != Kind::None)
        .collect();
    let inside = applies
        .iter()
        .filter(|r| {
            r.interval()
                .is_some_and(|(lo, hi)| (lo..=hi).contains(&r.expected_fpr))
        })
        .count();
    let equal = rows
        .iter()
        .filter(|r| r.tally.db_not_found == r.tally.false_positives)
        .count();
    let _ = writeln!(
        out,
        "### False positives against `expected_fpr()`\n\nIn every one of the {} rows the \
         queries that found no row (counted at the database) equal the absent ids the guard \
         let through (counted at the guard): {equal} of {}. Against the rate theory predicts \
         for each filter at its load (`expected_fpr()`; for the Redis filters from their \
         estimated count), the measured rate's 95% Clopper–Pearson interval holds theory in \
         {inside} of {} rows where theory applies (about one row in twenty may miss by chance). \
         It does not apply to the classic, blocked and Redis Bloom filters in churn: a deleted \
         row's id stays in them, and they pass it every time.\n",
        rows.len(),
        rows.len(),
        applies.len()
    );
    let _ = writeln!(
        out,
        "| guard | stream | absent requests | false positives | measured | 95% low | 95% high | expected | inside |\n|---|---|---|---|---|---|---|---|---|"
    );
    for r in rows
        .iter()
        .filter(|r| r.guard.kind != Kind::None && r.workload.stream == Stream::Attack)
    {
        let (lo, hi) = r.interval().unwrap_or((f64::NAN, f64::NAN));
        let _ = writeln!(
            out,
            "| {} | attack | {} | {} | {} | {} | {} | {} | {} |",
            r.guard.label,
            r.tally.absent_requests,
            r.tally.false_positives,
            rate(r.measured_fpr()),
            rate(lo),
            rate(hi),
            rate(r.expected_fpr),
            if (lo..=hi).contains(&r.expected_fpr) {
                "yes"
            } else {
                "no"
            }
        );
    }
    out.push('\n');

    // The documents' rates.
    let _ = writeln!(
        out,
        "### The documents' rates: 3%, 1%, 0.1%\n\nThe classic filter at each rate, for {n_rows} \
         rows: what it costs in memory and what it lets through.\n\n| rate | memory (bytes) | \
         bits/row | absent-id queries per 1,000 at 90% absent | under attack | expected rate |\n\
         |---|---|---|---|---|---|"
    );
    for label in ["classic 3%", "classic 1%", "classic 0.1%"] {
        if let Some(r) = find(rows, label, uniform(0.9)) {
            let _ = writeln!(
                out,
                "| {} | {} | {:.2} | {} | {} | {} |",
                label.trim_start_matches("classic "),
                r.memory_bytes,
                r.memory_bytes as f64 * 8.0 / n_rows as f64,
                num(qa(label, uniform(0.9))),
                num(qa(label, Stream::Attack)),
                rate(r.expected_fpr)
            );
        }
    }
    let step = |from: &str, to: &str| -> String {
        let (Some(a), Some(b)) = (
            find(rows, from, Stream::Attack),
            find(rows, to, Stream::Attack),
        ) else {
            return "–".into();
        };
        format!(
            "from {} to {} costs {:.2} more bits per row (theory: log2({:.0})/ln 2 = {:.2}) \
             and saves {} absent-id queries per 1,000 requests under attack",
            from.trim_start_matches("classic "),
            to.trim_start_matches("classic "),
            (b.memory_bytes as f64 - a.memory_bytes as f64) * 8.0 / n_rows as f64,
            a.guard.fpr / b.guard.fpr,
            (a.guard.fpr / b.guard.fpr).log2() / std::f64::consts::LN_2,
            num(Some(
                a.per_1000(a.tally.db_not_found) - b.per_1000(b.tally.db_not_found)
            ))
        )
    };
    let removed = |label: &str| {
        find(rows, label, Stream::Attack).map_or_else(
            || "–".to_string(),
            |r| format!("{:.1}%", 100.0 * (1.0 - r.measured_fpr())),
        )
    };
    let _ = writeln!(
        out,
        "\nGoing {}; going {}. Each step down costs a fixed number of bits per row and buys \
         ever fewer queries. Under attack the three remove {}, {} and {} of the queries no \
         guard lets through: the choice between them is what the last few per 1,000 cost the \
         database against what the bits cost in memory.\n",
        step("classic 3%", "classic 1%"),
        step("classic 1%", "classic 0.1%"),
        removed("classic 3%"),
        removed("classic 1%"),
        removed("classic 0.1%"),
    );

    // When it stops paying.
    let lat = |g: &str, s: Stream| find(rows, g, s).map(|r| r.mean / 1000.0);
    let us = |v: Option<f64>| v.map_or_else(|| "–".into(), |v| format!("{v:.1}"));
    let _ = writeln!(
        out,
        "### When the filter stops paying\n\n- **No absent ids**: a guard saves nothing (0% \
         column) and every request pays its look-up: mean {} µs per request with no guard, {} \
         with the classic filter in process, {} with the Redis Bloom filter, whose look-up is \
         one more round trip.\n- **Absent ids**: each one the guard turns away skips a cache \
         round trip and a query; an in-process guard turns it away in well under a µs, a Redis \
         guard in one round trip (mean at 90% absent: {} µs with no guard, {} with the classic \
         filter, {} with the Redis Bloom filter).\n- **Deleted \
         rows**: a filter that cannot delete keeps every deleted id. In churn, where each \
         deleted row is asked for once, the classic filter lets all {} of those requests \
         through ({} queries per 1,000, as no guard's {}), while the counting and cuckoo \
         filters ({} and {}) stay at their rate; over time a classic guard's stale entries grow \
         until it is rebuilt.\n- **A known key**: the rates above hold for an attacker who \
         cannot compute the hash key; one who can crafts ids that all pass (see the \
         adversarial section).\n",
        us(lat("none", uniform(0.0))),
        us(lat("classic 1%", uniform(0.0))),
        us(lat("redis bloom 1%", uniform(0.0))),
        us(lat("none", uniform(0.9))),
        us(lat("classic 1%", uniform(0.9))),
        us(lat("redis bloom 1%", uniform(0.9))),
        find(rows, "classic 1%", Stream::Churn).map_or(0, |r| r.tally.absent_requests),
        num(qa("classic 1%", Stream::Churn)),
        num(qa("none", Stream::Churn)),
        num(qa("counting 1%", Stream::Churn)),
        num(qa("cuckoo 1%", Stream::Churn)),
    );
    let faster = |g: &str| {
        let shares: Vec<String> = ABSENT_SHARES
            .iter()
            .filter(|&&a| lat(g, uniform(a)) < lat("none", uniform(a)))
            .map(|a| format!("{}%", a * 100.0))
            .collect();
        if shares.is_empty() {
            "none".to_string()
        } else {
            shares.join(", ")
        }
    };
    let _ = writeln!(
        out,
        "In this run the mean request was faster than with no guard at these absent shares \
         (uniform): classic 1%: {}; Redis Bloom 1%: {}. In queries a guard pays as soon as \
         some ids are absent; in time, an in-process filter's look-up (tens of ns) is lost in \
         the noise of a cache round trip, while a Redis filter's round trip must be won back \
         by the round trips and queries it saves.\n",
        faster("classic 1%"),
        faster("redis bloom 1%")
    );
    let _ = writeln!(
        out,
        "![database queries for absent ids by absent share](guard_queries.svg)\n\n\
         Points: measured absent-id queries per 1,000 requests with the 95% interval of the \
         rate; lines: theory, 1000·a·ε for a filter of rate ε and 1000·a with no guard. Series \
         sit side by side within each share so that none hides another.\n\n\
         ![latency percentiles per guard](guard_latency.svg)\n\n\
         Latency is wall-clock time per request on a shared 2-core machine: indicative, and \
         the only columns of `guard.csv` that change from run to run.\n"
    );
    let _ = writeln!(
        out,
        "Data: [`guard.csv`](guard.csv). Latency (µs) per guard, uniform streams:\n"
    );
    let _ = writeln!(
        out,
        "| guard | p50 0% | p99 0% | p99.9 0% | p50 90% | p99 90% | p99.9 90% |\n|---|---|---|---|---|---|---|"
    );
    for g in &guards {
        let cell = |s: Stream| {
            find(rows, g.label, s).map_or_else(
                || "– | – | –".to_string(),
                |r| {
                    format!(
                        "{:.1} | {:.1} | {:.1}",
                        r.p50 as f64 / 1000.0,
                        r.p99 as f64 / 1000.0,
                        r.p999 as f64 / 1000.0
                    )
                },
            )
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            g.label,
            cell(uniform(0.0)),
            cell(uniform(0.9))
        );
    }
    out
}
