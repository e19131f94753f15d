//! `bloomlab-cli choose` as a user runs it: its options and exit codes. The
//! answers themselves are bloomlab-choose's to test.

use std::process::Output;

use bloomlab::catalog::grouped;
use bloomlab_guava::{GuavaBloomFilter, LongFunnel};

mod common;

fn run(args: &[&str]) -> Output {
    common::cli("choose", args)
}

/// Stdout of a run that exits with `code`.
fn exits(code: i32, args: &[&str]) -> String {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

/// The recommendation paragraph, unwrapped.
fn recommendation(text: &str) -> String {
    let at = text.find("Recommendation: ").expect("a recommendation");
    text[at..].split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn choose_recommends_and_refuses() {
    let text = exits(0, &["--items", "1000", "--fpr", "0.01"]);
    assert!(text.contains("Recommendation: Use "), "{text}");
    let out = run(&["--items", "1000", "--fpr", "2"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("bloomlab-cli choose: "), "{err}");
}

#[test]
fn shared_answers_with_a_filter_in_redis() {
    let base = ["--items", "1e7", "--fpr", "1%", "--shared"];
    let text = recommendation(&exits(0, &base));
    assert!(
        text.starts_with("Recommendation: Use RedisBloomFilter (bloomlab-redis)"),
        "{text}"
    );
    assert!(text.contains("in Redis"), "{text}");
    // Removes: a filter in Redis that removes, with its caveats.
    let text = recommendation(&exits(0, &[&base[..], &["--deletes"]].concat()));
    assert!(text.contains("Use RedisCuckooFilter"), "{text}");
    assert!(text.contains("Caveats: inserts start failing"), "{text}");
    // No bound and removes: nothing fits, exit code 3, the report printed.
    let text = exits(3, &[&base[..], &["--deletes", "--unknown-size"]].concat());
    assert!(
        text.contains("No filter in Redis meets every requirement"),
        "{text}"
    );
    // The JSON states the bytes exactly.
    let json = exits(0, &[&base[..], &["--json"]].concat());
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["target"], "redis");
    assert!(v["offers"][0]["bytes"].as_u64().is_some(), "{json}");
}

#[test]
fn java_answers_with_guavas_filter_and_its_file() {
    for flag in ["--java", "--guava"] {
        let text = exits(0, &["--items", "1e6", "--fpr", "0.1%", flag]);
        let said = recommendation(&text);
        assert!(
            said.contains("Use GuavaBloomFilter (bloomlab-guava)"),
            "{said}"
        );
        // The exact size of the file Guava's filter writes.
        let filter = GuavaBloomFilter::create(LongFunnel, 1_000_000, 0.001).unwrap();
        let size = grouped(filter.to_bytes().len() as u64);
        assert!(
            said.contains(&format!("({size} bytes) in a file for Java")),
            "{said}"
        );
    }
    // Guava's filter cannot remove: exit code 3.
    exits(
        3,
        &["--items", "1e6", "--fpr", "0.1%", "--java", "--deletes"],
    );
}

#[test]
fn exit_codes() {
    // 0: a filter fits.
    exits(
        0,
        &["--items", "1e3", "--fpr", "1/1000", "--max-memory", "1e4"],
    );
    // 3: nothing fits the memory limit, in memory, in Redis or in a file.
    for target in [&[][..], &["--shared"], &["--java"]] {
        let args = [
            &["--items", "1e6", "--fpr", "0.01", "--max-memory", "1kB"][..],
            target,
        ]
        .concat();
        let text = exits(3, &args);
        assert!(text.contains("meets every requirement"), "{text}");
    }
    // 2: bad input, nothing on stdout.
    for bad in [
        &["--items", "1e6", "--fpr", "0.01", "--shared", "--java"][..],
        &["--items", "0", "--fpr", "0.01", "--shared"],
        &["--items", "1e6", "--fpr", "101%", "--java"],
        &["--items", "1e6", "--fpr", "0.01", "--max-memory", "1.5"],
    ] {
        let out = run(bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(out.stdout.is_empty(), "{bad:?}");
    }
}

#[test]
fn the_caveats_of_an_in_process_filter_are_in_its_recommendation() {
    let text = recommendation(&exits(0, &["--items", "1e6", "--fpr", "1%", "--deletes"]));
    assert!(text.contains("Use CuckooFilter"), "{text}");
    for said in [
        "inserts start failing (InsertError::Full)",
        "times (2b) fills both its buckets",
        "do not pair `insert_unique` with `remove`",
    ] {
        assert!(text.contains(said), "{said}: {text}");
    }
}
