//! `bloomlab choose` as a user runs it: the answers, the JSON, and the
//! refusals of bad input.

mod common;

// In a module named `choose` so that `cargo test -p bloomlab-experiments choose`
// selects these tests along with the unit tests.
mod choose {
    use std::process::Output;

    use serde_json::Value;

    use crate::common::{self, stderr, stdout, succeeded};

    fn bloomlab_choose(args: &[&str]) -> Output {
        common::bloomlab(["choose"].iter().chain(args))
    }

    /// The report of a command line that must succeed.
    fn text(args: &[&str]) -> String {
        succeeded(&bloomlab_choose(args), &format!("{args:?}"))
    }

    fn json(args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.push("--json");
        serde_json::from_str(&text(&all)).expect("valid JSON")
    }

    /// The candidate `id` of a JSON report.
    fn candidate<'a>(report: &'a Value, id: &str) -> &'a Value {
        report["candidates"]
            .as_array()
            .expect("a list")
            .iter()
            .find(|c| c["id"] == id)
            .expect("the candidate is listed")
    }

    /// A refused command line: exit code 2, nothing on stdout, and a message
    /// on stderr that contains `says`.
    fn refused(args: &[&str], says: &str) {
        common::refused(&bloomlab_choose(args), &format!("{args:?}"), says);
    }

    /// [`refused`] for 1,000 items at 1% and `extra`.
    fn refused_with(extra: &[&str], says: &str) {
        refused(
            &[&["--items", "1000", "--fpr", "0.01"], extra].concat(),
            says,
        );
    }

    #[test]
    fn spam_filter_for_100_million_addresses() {
        // CLAIMS E5: one false alarm in 10,000, never deleted.
        let text = text(&["--items", "100,000,000", "--fpr", "1/10000"]);
        // A cuckoo table with 17-bit fingerprints is the smallest; the Bloom
        // filter the document needed, 246.2 MB with 10 hashes, is listed
        // after it.
        assert!(
            text.contains("Recommendation: Use CuckooFilter (b=4)"),
            "{text}"
        );
        assert!(text.contains("×4 f=17 "), "{text}");
        assert!(text.contains("246.2 MB"), "{text}");
        assert!(text.contains("m=1,969,760,768 k=10"), "{text}");
        // Every variant is in the table.
        for name in [
            "BloomFilter",
            "BlockedBloomFilter",
            "AtomicBloomFilter",
            "CountingBloomFilter (4-bit)",
            "CountingBloomFilter (8-bit)",
            "ScalableBloomFilter (s=2)",
            "ScalableBloomFilter (s=4)",
            "CuckooFilter (b=2)",
            "CuckooFilter (b=4)",
            "CuckooFilter (b=8)",
        ] {
            assert!(text.contains(name), "{name} missing from:\n{text}");
        }
    }

    #[test]
    fn json_has_a_stable_shape() {
        let report = json(&["--items", "10000", "--fpr", "0.001"]);
        assert_eq!(report["version"], 3);
        let keys = |v: &Value| -> Vec<String> {
            let mut k: Vec<String> = v.as_object().expect("an object").keys().cloned().collect();
            k.sort();
            k
        };
        assert_eq!(
            keys(&report),
            [
                "candidates",
                "lower_bound_bits_per_item",
                "recommendation",
                "space_crossover",
                "version",
                "workload"
            ]
        );
        assert_eq!(
            keys(&report["workload"]),
            [
                "concurrent",
                "deletes",
                "fpr",
                "growth",
                "items",
                "max_memory",
                "rebuilt"
            ]
        );
        let candidates = report["candidates"].as_array().expect("a list");
        let kinds = bloomlab_choose::candidates::Kind::all(&bloomlab::catalog::Catalog::standard());
        assert_eq!(candidates.len(), kinds.len());
        for (i, c) in candidates.iter().enumerate() {
            assert_eq!(
                keys(c),
                [
                    "construct",
                    "crate",
                    "figures",
                    "filter",
                    "id",
                    "notes",
                    "rank",
                    "reasons",
                    "rebuild",
                    "supports",
                    "verdict"
                ]
            );
            assert_eq!(c["rank"], i + 1);
            assert_eq!(
                keys(&c["figures"]),
                [
                    "bits_per_item",
                    "expected_fpr",
                    "initial_memory_bytes",
                    "items",
                    "lines_hit",
                    "lines_miss",
                    "memory_bytes",
                    "params"
                ]
            );
            assert_eq!(
                keys(&c["supports"]),
                ["concurrent_insert", "grow", "remove"]
            );
        }
        // CLAIMS E3: 10,000 users at 0.1%: a cuckoo table is the smallest;
        // the classic filter has 143,808 bits and k = 10.
        assert_eq!(report["recommendation"]["id"], "cuckoo-4");
        let top = &candidates[0];
        assert_eq!(top["id"], "cuckoo-4");
        assert_eq!(top["verdict"], "fits");
        let table = &top["figures"]["params"];
        assert!(table["table"].as_str().is_some_and(|t| t.contains(" f=")));
        assert_eq!(table["parameters"]["bucket_size"], 4);
        assert_eq!(table["parameters"]["semi_sorted"], 0);
        let classic = candidate(&report, "classic");
        assert_eq!(classic["verdict"], "fits");
        assert_eq!(classic["figures"]["memory_bytes"], 18_264);
        let table = &classic["figures"]["params"];
        assert_eq!(table["table"], "m=146,112 k=8");
        assert_eq!(table["parameters"]["bits"], 146_112);
        assert_eq!(table["parameters"]["hashes"], 8);
        assert!(
            top["figures"]["memory_bytes"].as_u64() < classic["figures"]["memory_bytes"].as_u64()
        );
    }

    #[test]
    fn guava_example_of_1000_integers() {
        // CLAIMS E1.
        let report = json(&["--items", "1000", "--fpr", "0.001"]);
        assert_eq!(report["recommendation"]["id"], "cuckoo-4");
        let classic = candidate(&report, "classic");
        // Guava's 14,377 bits with 10 hashes would round up to 225 words;
        // 8 hashes need 229.
        assert_eq!(classic["figures"]["memory_bytes"], 1_832);
    }

    #[test]
    fn workload_flags_change_the_answer() {
        let id = |args: &[&str]| json(args)["recommendation"]["id"].clone();
        let base = ["--items", "1e6", "--fpr", "0.01"];
        assert_eq!(id(&base), "classic");
        assert_eq!(id(&[&base[..], &["--concurrent"]].concat()), "atomic");
        assert_eq!(id(&[&base[..], &["--unknown-size"]].concat()), "scalable-2");
        let removes = id(&[&base[..], &["--deletes"]].concat());
        let removes = removes.as_str().expect("an id");
        assert!(
            removes.starts_with("cuckoo-") || removes.starts_with("counting-"),
            "{removes}"
        );
        // Growth to a known bound: the fixed filter sized for it is listed beside the scalable one.
        let report = json(&[&base[..], &["--grows-to", "4000000"]].concat());
        assert_eq!(report["workload"]["growth"]["kind"], "grows_to");
        assert_eq!(report["workload"]["growth"]["to"], 4_000_000);
        let scalable = candidate(&report, "scalable-2");
        assert_eq!(scalable["verdict"], "fits");
        assert!(
            scalable["figures"]["initial_memory_bytes"].as_u64()
                < scalable["figures"]["memory_bytes"].as_u64()
        );
    }

    /// Stdout of a run that found no filter: exit code 3, the report printed.
    fn unmet(args: &[&str]) -> String {
        let out = bloomlab_choose(args);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", stderr(&out));
        stdout(&out)
    }

    #[test]
    fn a_memory_limit_nothing_meets_is_an_answer_with_its_own_exit_code() {
        let text = unmet(&[
            "--items",
            "100000000",
            "--fpr",
            "1e-4",
            "--max-memory",
            "64MiB",
        ]);
        assert!(text.contains("No filter meets every requirement"), "{text}");
        assert!(text.contains("reaches"), "{text}");
        let args = [
            "--items",
            "1e8",
            "--fpr",
            "1e-4",
            "--max-memory",
            "64MiB",
            "--json",
        ];
        let report: Value = serde_json::from_str(&unmet(&args)).expect("valid JSON");
        assert_eq!(report["recommendation"]["id"], Value::Null);
        assert_eq!(report["workload"]["max_memory"], 64 << 20);
    }

    #[test]
    fn bad_rates_are_refused() {
        for p in ["0", "1", "1.5", "-0.1", "1/0"] {
            refused(&["--items", "1000", "--fpr", p], "--fpr must be a rate");
        }
        refused(&["--items", "1000", "--fpr", "NaN"], "not a rate");
        refused(&["--items", "1000", "--fpr", "often"], "not a rate");
    }

    #[test]
    fn bad_counts_are_refused() {
        for (items, says) in [
            ("0", "--items must be at least 1"),
            ("many", "not a number of items"),
            ("-5", "'-5': a number of items must not be negative"),
            ("1.5", "'1.5' is not a whole number of items"),
            ("1,5", "misplaced comma"),
            ("1e20", "more items than a 64-bit count holds"),
        ] {
            refused(&["--items", items, "--fpr", "0.01"], says);
        }
        refused_with(
            &["--grows-to", "-1e3"],
            "'-1e3': a number of items must not be negative",
        );
        refused_with(&["--grows-to", "10"], "below --items");
    }

    #[test]
    fn bad_flags_are_refused() {
        refused_with(&["--bogus"], "--bogus");
        refused(&["--fpr", "0.01"], "--items");
        refused(&["--items", "1000"], "--fpr");
        refused_with(
            &["--grows-to", "5000", "--unknown-size"],
            "cannot be used with",
        );
        refused_with(&["--max-memory", "12XB"], "unknown unit");
        refused_with(
            &["--max-memory", "0"],
            "--max-memory must be at least 1 byte",
        );
    }

    /// Issue 12, point 5: sizes are read exactly, and refused for what is
    /// wrong with them.
    #[test]
    fn memory_limits_are_exact() {
        for (given, bytes) in [
            ("4.1GB", 4_100_000_000u64),
            ("8.2GB", 8_200_000_000),
            ("1.005kB", 1_005),
            ("0.07GB", 70_000_000),
            ("1.5GiB", 1_610_612_736),
        ] {
            // Whether a filter fits (exit 0) or not (3), the limit is read exactly.
            let args = [
                "--items",
                "1000",
                "--fpr",
                "0.01",
                "--max-memory",
                given,
                "--json",
            ];
            let out = bloomlab_choose(&args);
            assert!(
                matches!(out.status.code(), Some(0 | 3)),
                "{given}: {}",
                stderr(&out)
            );
            let report: Value = serde_json::from_str(&stdout(&out)).expect("valid JSON");
            assert_eq!(report["workload"]["max_memory"], bytes, "{given}");
        }
        let out = bloomlab_choose(&[
            "--items",
            "1000",
            "--fpr",
            "0.01",
            "--max-memory",
            "1.005kB",
        ]);
        assert!(
            stdout(&out).contains("at most 1.0 kB (1,005 bytes)"),
            "{}",
            stdout(&out)
        );
        refused_with(
            &["--max-memory", "1.0000000000000000001GB"],
            "'1.0000000000000000001GB' is not a whole number of bytes: it is \
             1000000000.0000000001 bytes",
        );
        refused_with(
            &["--max-memory", "20000000TB"],
            "more bytes than a 64-bit count holds",
        );
    }

    #[test]
    fn a_negative_memory_limit_is_refused_for_its_value() {
        for value in ["-1", "-64MiB", "-0.5GB"] {
            refused(
                &["--items", "1000", "--fpr", "0.01", "--max-memory", value],
                &format!("'{value}': a size must not be negative"),
            );
        }
        let out = bloomlab_choose(&["--items", "1000", "--fpr", "0.01", "--max-memory", "-1"]);
        assert!(
            !stderr(&out).contains("unexpected argument"),
            "{}",
            stderr(&out)
        );
    }

    /// Issue 12, point 5: an internal overflow marker is never printed as
    /// a number of bytes.
    #[test]
    fn an_absurd_workload_prints_no_sentinel() {
        const U128_MAX: &str = "340282366920938463463374607431768211455";
        for workload in [
            &["--items", "1e19", "--fpr", "1e-300"][..],
            &[
                "--items",
                "18446744073709551615",
                "--fpr",
                "1e-300",
                "--deletes",
            ],
            &["--items", "1e19", "--fpr", "0.5", "--unknown-size"],
            &["--items", "1e19", "--fpr", "1e-300", "--max-memory", "1B"],
        ] {
            for json in [false, true] {
                let mut args = workload.to_vec();
                if json {
                    args.push("--json");
                }
                let out = bloomlab_choose(&args);
                let (text, err) = (stdout(&out), stderr(&out));
                assert!(
                    matches!(out.status.code(), Some(0 | 2 | 3)),
                    "{args:?}: {:?} {err}",
                    out.status
                );
                assert!(!err.contains("panicked"), "{args:?}: {err}");
                assert!(
                    !text.contains(U128_MAX) && !err.contains(U128_MAX),
                    "{args:?}: {text}{err}"
                );
                if out.status.code() == Some(3) {
                    assert!(
                        text.contains("No filter meets every requirement")
                            || text.contains("\"id\": null"),
                        "{args:?}: {text}"
                    );
                }
            }
        }
    }

    /// Issue 12, point 4: below about 4.5e-308 the fingerprint width the
    /// cuckoo rows need overflowed to u32::MAX and their rate printed NaN.
    /// Now the width is the true one (log2(2b) + 1,074 = 1,077 bits at
    /// b = 4 for 5e-324) and every rate is a number.
    #[test]
    fn subnormal_rates_give_true_fingerprint_widths_and_no_nan() {
        for rate in ["5e-324", "1e-310"] {
            let args = ["--items", "1000", "--fpr", rate];
            let out = bloomlab_choose(&args);
            let text = stdout(&out);
            assert!(out.status.success(), "{rate}: {}", stderr(&out));
            assert!(!text.contains("4294967295"), "{rate}: {text}");
            assert!(!text.contains("NaN"), "{rate}: {text}");
        }
        let text = stdout(&bloomlab_choose(&["--items", "1000", "--fpr", "5e-324"]));
        assert!(text.contains("f=1077"), "{text}");
    }

    /// Issue 52: rows removed from a table that keeps growing. The growing
    /// quotient filter is recommended, and its figures are those of the
    /// filter its constructor builds, filled with the million items.
    #[test]
    fn deletes_and_an_unknown_size_get_the_growing_quotient_filter() {
        use bloomlab::prelude::*;

        let args = [
            "--items",
            "1e6",
            "--fpr",
            "0.01",
            "--deletes",
            "--unknown-size",
        ];
        let report = json(&args);
        let id = report["recommendation"]["id"].as_str().expect("a pick");
        assert_eq!(id, "quotient-grow");
        let pick = candidate(&report, id);
        let figures = &pick["figures"];
        let mut f = QuotientFilter::<u64>::builder(1_000_000, 0.01)
            .growth(true)
            .seed(1)
            .build()
            .expect("a valid size");
        for i in 0..1_000_000u64 {
            f.insert(&i).expect("room for the planned items");
        }
        let params = &figures["params"]["parameters"];
        assert_eq!(params["quotient_bits"], u64::from(f.quotient_bits()));
        assert_eq!(params["remainder_bits"], u64::from(f.remainder_bits()));
        assert_eq!(figures["memory_bytes"], f.memory_bytes() as u64);
        let expected = figures["expected_fpr"].as_f64().expect("a rate");
        assert!((expected - f.expected_fpr()).abs() < 1e-12, "{expected}");
        assert!(text(&args).contains("Recommendation: Use QuotientFilter (growing)"));
    }

    /// Issue 12, point 2: the filter `choose` recommends for 10^12 items
    /// with deletes takes terabytes (the counting filter it recommended
    /// then, 4.9 TB, aborted the process before its constructor returned
    /// `OutOfMemory`); the report says so in bytes and in its text. Since
    /// issue 52 it is the quotient filter, of 2^40 slots.
    #[test]
    fn a_huge_recommendation_states_its_memory() {
        let args = ["--items", "1e12", "--fpr", "0.01", "--deletes"];
        let report = json(&args);
        let id = report["recommendation"]["id"]
            .as_str()
            .expect("a recommendation");
        assert_eq!(id, "quotient");
        let pick = candidate(&report, id);
        assert_eq!(pick["figures"]["memory_bytes"], 1_254_142_410_752u64);
        let said = report["recommendation"]["text"].as_str().expect("a text");
        assert!(said.contains("1.3 TB"), "{said}");
        let text = text(&args);
        assert!(
            text.contains("Recommendation: Use QuotientFilter"),
            "{text}"
        );
        assert!(text.contains("1.3 TB"), "{text}");
    }

    /// `bloomlab inspect` is bloomlab-cli's (whose tests cover it): the
    /// runner's binary hands it over, exit codes and all.
    #[test]
    fn inspect_is_the_light_tools() {
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../crates/guava/tests/fixtures/integer_n1000_p0.001.bin"
        );
        let out = common::bloomlab(["inspect", fixture]);
        assert!(succeeded(&out, fixture).contains("estimated rate 1.052e-3"));
        let missing = common::bloomlab(["inspect", "/nonexistent/filter"]);
        common::refused(&missing, "a missing file", "bloomlab inspect: cannot read");
    }
}
