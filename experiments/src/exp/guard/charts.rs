//! The two charts: database queries by stream, and latency quantiles.

use super::*;

/// The uniform streams with `shares` absent, then the attack, each with
/// its label: the queries chart's categories and the appendix's columns.
pub(super) fn uniform_and_attack(shares: &[f64], attack: &str) -> Vec<(Stream, String)> {
    let uniform = shares
        .iter()
        .map(|&a| (uniform(a), format!("{} absent", short_percent(a))));
    uniform.chain([(Stream::Attack, attack.into())]).collect()
}

pub(super) fn guards_in(rows: &[Row]) -> Vec<Guard> {
    let mut out: Vec<Guard> = Vec::new();
    for r in rows {
        if !out.iter().any(|g| g.label == r.guard.label) {
            out.push(r.guard);
        }
    }
    out
}

pub(super) fn find<'a>(rows: &'a [Row], guard: &str, stream: Stream) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.guard.label == guard && r.stream == stream)
}

/// A series per guard, its points from the guard's row on each of
/// `streams` (by index) that ran.
fn series(
    rows: &[Row],
    streams: &[Stream],
    mut add: impl FnMut(&mut plot::Series, usize, &Row),
) -> Vec<plot::Series> {
    guards_in(rows)
        .iter()
        .map(|g| {
            let mut s = plot::Series {
                label: g.label.into(),
                ..plot::Series::default()
            };
            for (i, stream) in streams.iter().enumerate() {
                if let Some(r) = find(rows, g.label, *stream) {
                    add(&mut s, i, r);
                }
            }
            s
        })
        .collect()
}

pub(super) fn queries_chart(rows: &[Row]) -> plot::CategoryChart {
    let (streams, categories): (Vec<Stream>, Vec<String>) =
        uniform_and_attack(&ABSENT_SHARES[1..], "attack (100%)")
            .into_iter()
            .unzip();
    let series = series(rows, &streams, |s, c, r| {
        let share = r.tally.absent_requests as f64 / r.tally.requests.max(1) as f64;
        let (lo, hi) = r.interval().unwrap_or((0.0, 0.0));
        s.points.push((
            c,
            1000.0 * share * lo,
            r.per_1000(r.tally.db_not_found),
            1000.0 * share * hi,
        ));
        s.theory.push((c, r.theory_absent_per_1000()));
    });
    plot::CategoryChart {
        title: "Absent-id queries per 1,000 requests: markers measured (95%), lines theory".into(),
        x_label: "share of requests for ids without a row".into(),
        y_label: "queries per 1,000 requests (log scale)".into(),
        categories,
        series,
    }
}

pub(super) fn latency_chart(rows: &[Row]) -> plot::CategoryChart {
    let shares = [(0.0, "0%"), (0.9, "90%")];
    let mut categories = Vec::new();
    for (_, share) in shares {
        for q in ["mean", "p50", "p99"] {
            categories.push(format!("{q}, {share} absent"));
        }
    }
    let streams = shares.map(|(absent, _)| uniform(absent));
    let series = series(rows, &streams, |s, i, r| {
        for (j, e) in r.latencies().into_iter().take(3).enumerate() {
            let Some(e) = e else { continue };
            let us = |x: f64| x / 1000.0;
            let (lo, hi) = e.interval.unwrap_or((e.value, e.value));
            s.points.push((3 * i + j, us(lo), us(e.value), us(hi)));
        }
    });
    plot::CategoryChart {
        title: format!("Latency per request: the mean of {RUNS} runs, with its 95% interval"),
        x_label: "percentile, and share of requests for ids without a row".into(),
        y_label: "µs per request (log scale)".into(),
        categories,
        series,
    }
}
