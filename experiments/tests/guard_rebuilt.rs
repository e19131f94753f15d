//! `bloomlab guard` at quick scale, its rebuilt static filter (issue 51):
//! a `BinaryFuseFilter` rebuilt from SQLite every R requests, with a
//! `BloomFilter` of the rows inserted since. No answer is wrong, the rows
//! inserted since the last build are found through the small filter (so
//! the test fails if it is dropped), and the rebuilds are as many as R
//! implies.

use bloomlab_lab::stats::clopper_pearson;

mod common;
use common::{cell, count, quick, read_csv, scratch};

/// The label of the rebuilt guard's rows.
const REBUILT: &str = "fuse + delta 1%";

/// Requests of the inserts stream per request of the other streams.
const INSERTS_LENGTH: u64 = 5;

#[test]
fn the_rebuilt_guard_finds_every_new_row_and_rebuilds_every_r_requests() {
    let dir = scratch("rebuilt");
    quick("guard", "51", &dir, &[]);
    let guard = read_csv(&dir.join("guard.csv"));
    let rows = read_csv(&dir.join("guard_rebuilt.csv"));

    // guard.csv is left to the other guards; its streams' length sets R
    // (each row adds up its runs' requests).
    assert!(guard.iter().all(|r| cell(r, "guard") != REBUILT));
    let requests = count(&guard[0], "requests") / count(&guard[0], "runs");
    let labels: Vec<&str> = rows.iter().map(|r| cell(r, "guard")).collect();
    assert_eq!(labels, ["none", "classic 1%", REBUILT, REBUILT, REBUILT]);
    let every: Vec<&str> = rows.iter().map(|r| cell(r, "rebuild_every")).collect();
    let (quarter, whole) = ((requests / 4).to_string(), requests.to_string());
    assert_eq!(every, ["-", "-", &quarter, &whole, "never"]);

    let new_rows = count(&rows[0], "new_row_requests");
    assert!(new_rows > 0);
    for r in &rows {
        let what = format!("{} / {}", cell(r, "guard"), cell(r, "rebuild_every"));
        // The same script for each guard: every answer right.
        assert_eq!(count(r, "wrong_answers"), 0, "{what}");
        assert_eq!(count(r, "new_row_requests"), new_rows, "{what}");
        let (reads, inserts) = (count(r, "requests"), count(r, "inserts"));
        assert_eq!(reads + inserts, INSERTS_LENGTH * requests, "{what}");
        assert_eq!(
            count(r, "rows_at_end"),
            count(r, "rows") + inserts,
            "{what}"
        );
        assert_eq!(
            count(r, "absent_db_queries"),
            count(r, "false_positives"),
            "{what}"
        );
    }

    let rebuilt: Vec<&Vec<(String, String)>> = rows[2..].iter().collect();
    let mut found_by_delta = Vec::new();
    let mut delta_bytes = Vec::new();
    for r in &rebuilt {
        let what = format!("rebuilt every {}", cell(r, "rebuild_every"));
        let ops = count(r, "requests") + count(r, "inserts");
        // A rebuild after every R requests, reads and inserts alike.
        let rebuilds = match cell(r, "rebuild_every") {
            "never" => 0,
            e => ops / e.parse::<u64>().expect("a number"),
        };
        assert_eq!(count(r, "rebuilds"), rebuilds, "{what}");
        assert_eq!(
            count(r, "memory_bytes"),
            count(r, "static_bytes") + count(r, "delta_bytes"),
            "{what}"
        );
        // Fewer database queries than with no guard.
        let saved: f64 = cell(r, "db_queries_saved_per_1000")
            .parse()
            .expect("a number");
        assert!(saved > 0.0, "{what}: {saved}");
        // Reads of rows inserted since the last build, which the static
        // filter would have answered absent: found through the delta.
        let by_delta = count(r, "found_by_delta");
        assert!(by_delta > 0 && by_delta <= new_rows, "{what}: {by_delta}");
        found_by_delta.push(by_delta);
        delta_bytes.push(count(r, "delta_bytes"));
    }
    // The longer the interval, the more new rows only the delta holds, and
    // the larger it is sized.
    assert!(
        found_by_delta.is_sorted_by(|a, b| a < b),
        "{found_by_delta:?}"
    );
    assert!(delta_bytes.is_sorted_by(|a, b| a < b), "{delta_bytes:?}");

    // Never rebuilt, the static filter holds no new row: it lets one
    // through only as a false positive, at 2^−8 (8-bit fingerprints at a
    // 1% target); every other read of a new row passes by the delta alone.
    let never = rebuilt[2];
    let by_static = new_rows - count(never, "found_by_delta");
    let (lo, hi) = clopper_pearson(by_static, new_rows, 0.999);
    assert!(
        (lo..=hi).contains(&(1.0 / 256.0)),
        "{by_static} of {new_rows} new rows passed the static filter: [{lo}, {hi}]"
    );
    let _ = std::fs::remove_dir_all(dir);
}
