//! The report: the scenario and its key numbers (the section), and every
//! guard's and stream's numbers (the appendix).

use super::*;

/// The guards of the section's table: none, the classic filter at two
/// rates, one that deletes, and one in Redis.
const KEY_GUARDS: [&str; 5] = [
    "none",
    "classic 1%",
    "classic 0.1%",
    "cuckoo 1%",
    "redis bloom 1%",
];

/// A number of queries per 1,000 (or µs), or "–" where the row did not run.
fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |v| format!("{v:.1}"))
}

/// Queries for absent ids per 1,000 requests of `guard` on `stream`.
fn absent_per_1000(rows: &[Row], guard: &str, stream: Stream) -> Option<f64> {
    find(rows, guard, stream).map(|r| r.per_1000(r.tally.db_not_found))
}

/// The rows where theory applies and the measured interval holds it, of
/// those where it applies.
fn theory_inside(rows: &[Row]) -> (usize, usize) {
    let applies: Vec<&Row> = rows
        .iter()
        .filter(|r| r.theory_applies() && r.guard.kind != Kind::None)
        .collect();
    let inside = applies.iter().filter(|r| r.theory_inside()).count();
    (inside, applies.len())
}

/// The uniform absent shares at which `guard`'s mean request beat no
/// guard's, their 95% intervals apart: "50%, 90%, 99%", or "none".
fn faster_than_none(rows: &[Row], guard: &str) -> String {
    let mean = |g: &str, a: f64| {
        let e = find(rows, g, uniform(a))?.mean;
        Some(e.interval.unwrap_or((e.value, e.value)))
    };
    let shares: Vec<String> = ABSENT_SHARES
        .iter()
        .filter(|&&a| {
            mean(guard, a)
                .zip(mean("none", a))
                .is_some_and(|(g, n)| g.1 < n.0)
        })
        .map(|&a| short_percent(a))
        .collect();
    if shares.is_empty() {
        "none".to_string()
    } else {
        shares.join(", ")
    }
}

/// A latency in µs, or "–" where the row has none.
fn micros_or_dash(e: Option<Estimate>) -> String {
    e.map_or_else(|| "–".into(), |e| micros(e.value))
}

/// A latency in µs with its interval over the runs: "23.6 (21.0–26.2)".
fn with_interval(e: &Estimate) -> String {
    match e.interval {
        Some((lo, hi)) => format!("{} ({}–{})", micros(e.value), micros(lo), micros(hi)),
        None => micros(e.value),
    }
}

/// The section: the scenario, the key table, what it shows, the rebuilt
/// static filter, the charts.
pub(super) fn body(rows: &[Row], rebuilt: &[RebuiltRow], n_rows: u64, requests: usize) -> String {
    let redis = rows.iter().any(|r| r.guard.needs_redis());
    let mut out = format!(
        "The documents' scenario: SQLite holding {n_rows} rows, behind {}, with a filter in \
         front that turns away the ids it proves absent. Streams of {requests} requests mix \
         present ids with absent ones; the attack is absent ids only. Each stream ran {RUNS} \
         times, each run with its own requests and filter (hash key). Every answer was \
         checked: {} wrong in {} requests.\n\n",
        if redis {
            "a Redis cache"
        } else {
            "an in-process LRU cache (no `redis-server` on PATH: the Redis guards did not run)"
        },
        rows.iter().map(|r| r.tally.wrong_answers).sum::<u64>(),
        rows.iter().map(|r| r.tally.requests).sum::<u64>()
    );
    out += &format!(
        "**At 90% absent ids, no guard sends {} queries per 1,000 requests to the database for \
         ids without a row; a 1% classic Bloom filter of {} KiB sends {}.**\n\n",
        num(absent_per_1000(rows, "none", uniform(0.9))),
        find(rows, "classic 1%", uniform(0.9)).map_or_else(
            || "–".into(),
            |r| format!("{:.1}", r.memory_bytes as f64 / 1024.0)
        ),
        num(absent_per_1000(rows, "classic 1%", uniform(0.9)))
    );
    let heads = [
        "guard",
        "bits/row",
        "absent-id queries per 1,000 requests, 90% absent",
        "attack: queries per 1,000 (theory)",
        "mean µs (95%), 90% absent",
        "p50 µs, 90% absent",
    ];
    let table = KEY_GUARDS.iter().filter_map(|&g| {
        let r90 = find(rows, g, uniform(0.9))?;
        let attack = find(rows, g, Stream::Attack)?;
        Some([
            g.to_string(),
            format!("{:.1}", r90.bits_per_row(n_rows)),
            num(absent_per_1000(rows, g, uniform(0.9))),
            format!(
                "{:.1} ({:.1})",
                1000.0 * attack.measured_fpr(),
                1000.0 * attack.expected_fpr
            ),
            with_interval(&r90.mean),
            micros_or_dash(r90.p50),
        ])
    });
    out.push_str(&markdown(&heads, table));
    let (inside, applies) = theory_inside(rows);
    let churn = |g: &str| num(absent_per_1000(rows, g, Stream::Churn));
    let p50 = |g: &str, s: Stream| find(rows, g, s)?.p50.map(|e| e.value / 1000.0);
    let equal = rows
        .iter()
        .filter(|r| r.tally.db_not_found == r.tally.false_positives)
        .count();
    out += &format!(
        "\nThe database's count of queries that found no row equals the guard's false \
         positives in {} of {} rows, and the measured rate's 95% interval holds theory \
         (`expected_fpr()`) in {inside} of {applies} rows (one in twenty may miss by chance). A \
         filter that cannot delete keeps deleted ids: in churn the classic filter sends {} \
         queries per 1,000 for deleted rows, as no guard ({}), while the cuckoo filter sends {}. \
         An in-process guard's look-up is lost in the noise of a cache round trip{}.\n\n",
        equal,
        rows.len(),
        churn("classic 1%"),
        churn("none"),
        churn("cuckoo 1%"),
        if redis {
            format!(
                "; a Redis guard adds a round trip to every request (median with no absent ids: \
                 {} µs with no guard, {} with the Redis Bloom filter)",
                num(p50("none", uniform(0.0))),
                num(p50("redis bloom 1%", uniform(0.0))),
            )
        } else {
            String::new()
        }
    );
    out += &rebuilt_summary(rebuilt);
    out.push_str(
        "![database queries for absent ids by absent share](guard_queries.svg)\n\n\
         ![latency percentiles per guard](guard_latency.svg)\n\n\
         Every stream, rebuild interval and percentile: the appendix; data: [`guard.csv`](guard.csv), [`guard_rebuilt.csv`](guard_rebuilt.csv).\n",
    );
    out
}

/// The rebuilt guards of `rows` with their rebuilds, in report order.
fn rebuilt_only(rows: &[RebuiltRow]) -> Vec<(&RebuiltRow, &Rebuilds)> {
    rows.iter()
        .filter_map(|r| r.rebuilds.as_ref().map(|b| (r, b)))
        .collect()
}

/// The rebuilt static filter in the section: its key numbers in one
/// paragraph, read from the rows of `guard_rebuilt.csv` (the report's
/// length is budgeted; the table is in the appendix).
fn rebuilt_summary(rows: &[RebuiltRow]) -> String {
    let rebuilt = rebuilt_only(rows);
    let Some(&(first, b)) = rebuilt.first() else {
        return String::new();
    };
    let classic = rows.iter().find(|r| r.row.guard.label == "classic 1%");
    format!(
        "**Rebuilt from SQLite every {} requests ({} rebuilds, {:.2} ms each), a \
         `BinaryFuseFilter` ({} bytes) plus a `BloomFilter` of new rows ({} bytes) sends {} \
         queries per 1,000 reads (no guard {}, classic 1% {}), {} wrong; {} new rows passed by \
         the small filter alone.**\n\n",
        first.every(),
        b.rebuilds,
        b.build_ms,
        b.static_bytes,
        b.delta_bytes,
        num(Some(first.queries_per_1000())),
        num(none_per_1000(rows)),
        num(classic.map(RebuiltRow::queries_per_1000)),
        rows.iter().map(|r| r.row.tally.wrong_answers).sum::<u64>(),
        first.row.tally.found_by_delta,
    )
}

/// The rebuilt static filter in the appendix: what the rows of
/// `guard_rebuilt.csv` show, in a paragraph and a table, every number read
/// from them.
pub(super) fn rebuilt_appendix(rows: &[RebuiltRow], n_rows: u64, requests: usize) -> String {
    let rebuilt = rebuilt_only(rows);
    let Some(&(first, b)) = rebuilt.first() else {
        return String::new();
    };
    let none = none_per_1000(rows);
    let classic = rows.iter().find(|r| r.row.guard.label == "classic 1%");
    let sum = |f: fn(&Tally) -> u64| rows.iter().map(|r| f(&r.row.tally)).sum::<u64>();
    let never = rebuilt.iter().find(|(_, b)| b.every.is_none());
    let mut out = format!(
        "\n**A static filter rebuilt from the database.** A `BinaryFuseFilter` of every id in \
         SQLite (one `SELECT id FROM rows`, timed with the construction), rebuilt after every R \
         requests, and beside it a `BloomFilter` of the rows inserted since its last build, \
         sized for the rows expected between two builds; both at a {} target, and a request \
         passes if either part lets it through. Their stream: {} requests, of which {} insert a \
         new row (into SQLite and the guard's small filter; a classic filter takes it \
         directly), and of the reads {} ask for fresh absent ids and {} for rows inserted \
         earlier in the stream (the others for the {n_rows} loaded rows). At each rebuild the \
         static part is built anew from SQLite and the small filter cleared. Every answer was \
         checked: {} wrong in {} reads over the {} guards. Each guard saw {} reads of new rows; \
         rebuilt every {}, {} of them passed by the small filter alone{}, each of which the \
         static filter by itself would have answered absent.\n\n",
        short_percent(first.row.guard.fpr),
        first.row.tally.requests + first.row.tally.inserts,
        short_percent(INSERT_SHARE),
        short_percent(INSERTS_ABSENT),
        short_percent(INSERTS_NEW),
        sum(|t| t.wrong_answers),
        sum(|t| t.requests),
        rows.len(),
        first.row.tally.new_row_requests,
        first.every(),
        first.row.tally.found_by_delta,
        never.map_or_else(String::new, |(r, _)| format!(
            " (never rebuilt: {})",
            r.row.tally.found_by_delta
        )),
    );
    let ops = first.row.tally.requests + first.row.tally.inserts;
    out += &format!(
        "**Rebuilt every {} requests ({} rebuilds of {:.2} ms each, {:.2} µs per request \
         amortized), the guard of {} + {} bytes sends {} database queries per 1,000 reads: {} \
         fewer than no guard ({}); the classic {} filter of {} bytes sends {}.**\n\n",
        first.every(),
        b.rebuilds,
        b.build_ms,
        b.rebuilds as f64 * b.build_ms * 1e3 / ops.max(1) as f64,
        b.static_bytes,
        b.delta_bytes,
        num(Some(first.queries_per_1000())),
        num(none.map(|n| n - first.queries_per_1000())),
        num(none),
        short_percent(first.row.guard.fpr),
        classic.map_or_else(|| "–".into(), |c| c.row.memory_bytes.to_string()),
        num(classic.map(RebuiltRow::queries_per_1000)),
    );
    let heads = [
        "guard",
        "rebuilt every",
        "rebuilds",
        "ms per build (SELECT)",
        "static + delta bytes",
        "bits/row at end",
        "queries per 1,000 reads (saved)",
        "absent ids passed: measured (expected)",
        "reads of new rows (passed by the delta)",
        "wrong answers",
    ];
    let table = rows.iter().map(|r| {
        let (row, t) = (&r.row, &r.row.tally);
        let saved = none.map(|n| n - r.queries_per_1000());
        let part = |f: fn(&Rebuilds) -> String| r.rebuilds.as_ref().map_or("-".into(), f);
        [
            row.guard.label.to_string(),
            r.every(),
            part(|b| b.rebuilds.to_string()),
            part(|b| format!("{:.2} ({:.2})", b.build_ms, b.select_ms)),
            r.rebuilds.map_or_else(
                || row.memory_bytes.to_string(),
                |b| format!("{} + {}", b.static_bytes, b.delta_bytes),
            ),
            format!("{:.2}", r.bits_per_row_at_end(n_rows)),
            format!("{} ({})", num(Some(r.queries_per_1000())), num(saved)),
            format!(
                "{:.2}% ({:.2}%)",
                100.0 * row.measured_fpr(),
                100.0 * row.expected_fpr
            ),
            if r.rebuilds.is_some() {
                format!("{} ({})", t.new_row_requests, t.found_by_delta)
            } else {
                t.new_row_requests.to_string()
            },
            t.wrong_answers.to_string(),
        ]
    });
    out.push_str(&markdown(&heads, table));
    let every = |i: usize| {
        rebuilt
            .get(i)
            .map_or_else(|| "–".into(), |(r, _)| r.every())
    };
    out += &format!(
        "\nR is a quarter of the other streams' {requests} requests ({}), all of them ({}), or \
         never{}. A rebuild reads and hashes every row ({:.2} ms per build rebuilt every {}, of \
         which {:.2} ms the `SELECT`): its cost grows with the table, not with the rows \
         inserted, and the smaller R, the smaller the small filter. ",
        every(0),
        every(1),
        never.map_or_else(String::new, |(r, b)| format!(
            " (its small filter then sized for the whole stream's new rows, {} of them: {} \
             bytes)",
            r.row.tally.inserts, b.delta_bytes
        )),
        b.build_ms,
        first.every(),
        b.select_ms,
    );
    let static_bits = b.static_bytes as f64 * 8.0 / b.static_keys.max(1) as f64;
    out += &format!(
        "The static part alone passes an absent id at 2^−{} = {:.2}% (the narrowest \
         fingerprint below the target), in {static_bits:.2} bits per row it holds ({:.3} slots \
         per row{})",
        b.fingerprint_bits,
        100.0 * b.static_fpr,
        static_bits / f64::from(b.fingerprint_bits),
        if static_bits / f64::from(b.fingerprint_bits) > 1.1 {
            "; the construction needs fewer, down to 1.075, only for larger sets"
        } else {
            ""
        },
    );
    match classic {
        Some(c) => {
            let classic_bits = c.row.memory_bytes as f64 * 8.0 / n_rows as f64;
            out += &format!(
                "; the classic filter, sized for the {n_rows} loaded rows, takes {classic_bits:.2} \
                 bits per loaded row. Rebuilt every {}, the guard is thus {} per row than the \
                 classic filter, and passed {:.2}% of absent ids to its {:.2}% (theory: {:.2}% \
                 on average over the stream, {} its {} target as inserts filled it past the rows \
                 it was sized for).\n\n",
                first.every(),
                if static_bits < classic_bits {
                    "smaller"
                } else {
                    "larger"
                },
                100.0 * first.row.measured_fpr(),
                100.0 * c.row.measured_fpr(),
                100.0 * c.row.expected_fpr,
                if c.row.expected_fpr > c.row.guard.fpr {
                    "above"
                } else {
                    "not above"
                },
                short_percent(c.row.guard.fpr),
            );
        }
        None => out.push_str(".\n\n"),
    }
    out
}

/// The appendix: the stack, then every guard's queries, rates and latency.
pub(super) fn appendix(
    rows: &[Row],
    n_rows: u64,
    requests: usize,
    cache_note: &str,
    seconds: f64,
) -> String {
    let q = |g: &str, s: Stream| find(rows, g, s).map(|r| r.per_1000(r.db_queries()));
    let qa = |g: &str, s: Stream| absent_per_1000(rows, g, s);
    let guards = guards_in(rows);
    let mut out = format!(
        "**The stack.** SQLite (bundled, WAL, on disk in a temporary folder, removed \
         afterwards) with {n_rows} rows keyed by id; as the cache, {cache_note}; in front, each \
         guard built for the {n_rows} ids and filled with them (memory: the filter's tables; for \
         the Redis filters their blocks and guard bytes, without Redis's per-key overhead). A \
         request asks the guard (absent → not found), then the cache (`GET`), then the database \
         by primary key; a row found is cached with `SET … EX {TTL_SECONDS}`, a missing row is \
         not. The cache starts empty for each stream of {requests} requests. Present ids are \
         uniform or Zipf ({ZIPF_EXPONENT}); absent ids are fresh, so the guard's answers are \
         independent draws at its rate. In churn each step deletes a random row (database, \
         cache and, where it can, guard), asks for it and for a present row; after {} deletes \
         each step also re-adds the oldest deleted row. {} guards × {} streams took \
         {seconds:.1} s.\n\n",
        (requests / 20).max(1),
        guards.len(),
        Stream::all().len()
    );

    // Queries per 1,000 by absent share.
    let shares = uniform_and_attack(&ABSENT_SHARES, "attack");
    out.push_str(
        "**Database queries per 1,000 requests**, uniform streams: present ids' cold cache \
         misses and the absent ids the guard let through; in brackets the absent-id queries \
         saved against no guard.\n\n",
    );
    let mut heads = ["guard", "memory (bytes)", "bits/row"]
        .map(String::from)
        .to_vec();
    heads.extend(shares.iter().map(|(_, name)| name.clone()));
    heads.push("churn".into());
    let table = guards.iter().map(|g| {
        let mem = find(rows, g.label, uniform(0.0)).map_or(0, |r| r.memory_bytes);
        let bits = mem as f64 * 8.0 / n_rows as f64;
        let mut cells = vec![g.label.to_string(), mem.to_string(), format!("{bits:.2}")];
        cells.extend(shares.iter().map(|&(s, _)| {
            let saved = qa("none", s).zip(qa(g.label, s)).map(|(a, b)| a - b);
            format!("{} ({})", num(q(g.label, s)), num(saved))
        }));
        cells.push(num(q(g.label, Stream::Churn)));
        cells
    });
    out.push_str(&markdown(&heads, table));
    let zipf0 = q(
        "none",
        Stream::Mixed {
            absent: 0.0,
            zipf: true,
        },
    );
    out += &format!(
        "\nWith Zipf-skewed ids the cache serves the popular rows (no guard at 0% absent: {} \
         per 1,000 with Zipf, {} uniform); absent ids fare as above (`guard.csv` has every \
         row).\n\n",
        num(zipf0),
        num(q("none", uniform(0.0)))
    );

    // False positives against theory.
    let (inside, applies) = theory_inside(rows);
    out += &format!(
        "**False positives under attack against `expected_fpr()`** (for the Redis filters \
         from their estimated count). Over all streams theory is inside the 95% interval in \
         {inside} of {applies} rows where it applies; it does not apply to the filters that \
         cannot delete in churn, which pass every deleted id.\n\n"
    );
    let heads = [
        "guard",
        "absent requests",
        "false positives",
        "measured",
        "95% low",
        "95% high",
        "expected",
        "inside",
    ];
    let table = rows
        .iter()
        .filter(|r| r.guard.kind != Kind::None && r.stream == Stream::Attack)
        .map(|r| {
            let (fp, absent) = (r.tally.false_positives, r.tally.absent_requests);
            let mut cells = vec![r.guard.label.to_string(), absent.to_string()];
            cells.extend(against_theory(fp, absent, r.expected_fpr));
            cells
        });
    out.push_str(&markdown(&heads, table));

    // The documents' rates.
    out.push_str(
        "\n**The documents' rates, 3%, 1% and 0.1%**, classic filter: each step down costs a \
         fixed number of bits per row (log2 of the ratio / ln 2) and saves ever fewer queries.\n\n",
    );
    let heads = [
        "rate",
        "memory (bytes)",
        "bits/row",
        "absent-id queries per 1,000 at 90% absent",
        "under attack",
        "share removed under attack",
        "expected rate",
    ];
    let table = ["classic 3%", "classic 1%", "classic 0.1%"].map(|label| {
        let r = find(rows, label, uniform(0.9))?;
        let a = find(rows, label, Stream::Attack)?;
        Some([
            label.trim_start_matches("classic ").to_string(),
            r.memory_bytes.to_string(),
            format!("{:.2}", r.bits_per_row(n_rows)),
            num(qa(label, uniform(0.9))),
            num(qa(label, Stream::Attack)),
            format!("{:.1}%", 100.0 * (1.0 - a.measured_fpr())),
            rate(r.expected_fpr),
        ])
    });
    out.push_str(&markdown(&heads, table.into_iter().flatten()));

    // Latency.
    out += &format!(
        "\n**Latency** (µs per request, uniform streams): wall-clock on a shared 2-core machine, \
         indicative, and the only columns of `guard.csv` that change between runs. The mean \
         request beat no guard's, the runs' 95% intervals apart, at these absent shares: classic \
         1%: {}; Redis Bloom 1%: {}. A quantile is shown where each run has at least {TAIL} \
         requests beyond it (p99.9 needs {}).\n\n",
        faster_than_none(rows, "classic 1%"),
        faster_than_none(rows, "redis bloom 1%"),
        TAIL * 1000.0
    );
    let mut heads = vec!["guard".to_string()];
    for share in ["0%", "90%"] {
        heads.extend(["mean", "p50", "p99", "p99.9"].map(|q| format!("{q} {share}")));
    }
    let table = guards.iter().map(|g| {
        let mut cells = vec![g.label.to_string()];
        for s in [uniform(0.0), uniform(0.9)] {
            let latencies = find(rows, g.label, s).map_or([None; 4], Row::latencies);
            cells.extend(latencies.map(micros_or_dash));
        }
        cells
    });
    out.push_str(&markdown(&heads, table));
    out.push_str(
        "\nThe queries chart: measured absent-id queries per 1,000 requests with the 95% \
         interval of the rate; lines: theory, 1000·a·ε for a filter of rate ε and 1000·a with \
         no guard.\n",
    );
    out
}
