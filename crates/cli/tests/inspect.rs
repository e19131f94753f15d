//! `bloomlab-cli inspect` as a user runs it: every Guava fixture (written by
//! the real Guava jar), a file of every bloomlab variant, and files that are
//! neither, or not files at all.

mod common;

// In a module named `inspect` so that `cargo test -p bloomlab-cli inspect`
// selects these tests.
mod inspect {
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output};

    use bloomlab::prelude::*;
    use bloomlab_core::codec::FORMAT_VERSION;
    use serde_json::Value;

    fn bloomlab_inspect(args: &[&Path]) -> Output {
        super::common::cli("inspect", args)
    }

    fn stderr(out: &Output) -> String {
        String::from_utf8_lossy(&out.stderr).into_owned()
    }

    fn succeeded(out: &Output, what: &str) -> String {
        assert!(out.status.success(), "{what}: {}", stderr(out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn json(file: &Path) -> Value {
        let out = bloomlab_inspect(&[Path::new("--json"), file]);
        let text = succeeded(&out, &file.display().to_string());
        serde_json::from_str(&text).expect("valid JSON")
    }

    /// A refused file: exit code 2, nothing on stdout, a message naming the
    /// file and containing `says`.
    fn refused(file: &Path, says: &str) {
        let name = file.display().to_string();
        let out = bloomlab_inspect(&[file]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(out.stdout.is_empty(), "{name}: {:?}", out.stdout);
        assert!(err.contains(says), "{name}: expected '{says}' in: {err}");
        assert!(err.starts_with("bloomlab-cli inspect: "), "{err}");
        assert!(err.contains(&name), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }

    fn fixtures() -> Vec<PathBuf> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../guava/tests/fixtures");
        let mut bins: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("the Guava fixtures")
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "bin"))
            .collect();
        bins.sort();
        bins
    }

    /// `f` holding the keys `0..n`.
    fn filled<F: Membership<u64>>(mut f: F, n: u64) -> F {
        for k in 0..n {
            f.insert(&k).unwrap();
        }
        f
    }

    fn f64_of_bits(hex: &Value) -> f64 {
        f64::from_bits(u64::from_str_radix(hex.as_str().expect("hex"), 16).expect("hex bits"))
    }

    #[test]
    fn every_guava_fixture_reports_what_guava_recorded() {
        let bins = fixtures();
        assert!(bins.len() >= 15, "{} fixtures", bins.len());
        for bin in &bins {
            let recorded: Value = serde_json::from_slice(
                &std::fs::read(bin.with_extension("json")).expect("the fixture's record"),
            )
            .expect("JSON");
            let bytes = std::fs::read(bin).expect("the fixture");
            let got = json(bin);
            let name = bin.display();
            assert_eq!(got["format"], "guava", "{name}");
            assert_eq!(got["bytes"], bytes.len() as u64, "{name}");
            // The header as Guava's writeTo lays it out: strategy ordinal,
            // k, a big-endian word count.
            let words = i32::from_be_bytes(bytes[2..6].try_into().unwrap());
            assert_eq!(got["parameters"]["bits"], 64 * words as u64, "{name}");
            assert_eq!(got["parameters"]["hashes"], u64::from(bytes[1]), "{name}");
            assert_eq!(
                got["parameters"]["strategy"], recorded["strategy"],
                "{name}"
            );
            // Guava's own expectedFpp() and approximateElementCount(), to the bit.
            assert_eq!(
                got["estimated_fpr"].as_f64().unwrap().to_bits(),
                f64_of_bits(&recorded["expected_fpp_bits"]).to_bits(),
                "{name}"
            );
            assert_eq!(
                got["estimate_count"].as_f64().unwrap(),
                recorded["approximate_element_count"].as_f64().unwrap(),
                "{name}"
            );
            assert!(got["len"].is_null(), "{name}: Guava records no count");
            let fill = got["fill_ratio"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&fill), "{name}: {fill}");
        }
    }

    #[test]
    fn text_output_names_the_variant_and_the_rate() {
        let bin = fixtures()
            .into_iter()
            .find(|p| p.ends_with("integer_n1000_p0.001.bin"))
            .expect("the document's filter");
        let out = bloomlab_inspect(&[&bin]);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        for want in [
            "Guava BloomFilter.writeTo stream",
            "bits = 14,400",
            "hashes = 10",
            "MURMUR128_MITZ_64",
            "about 1,009 from the table",
            "estimated rate 1.052e-3",
        ] {
            assert!(text.contains(want), "wanted {want:?} in\n{text}");
        }
    }

    #[test]
    fn a_full_table_is_said_to_hold_any_number() {
        let dir = tempfile::tempdir().unwrap();
        let mut full = BloomFilter::<u64>::builder(10, 0.5)
            .seed(1)
            .build()
            .unwrap();
        for k in 0..10_000u64 {
            let _ = full.insert(&k);
        }
        assert_eq!(full.fill_ratio(), 1.0);
        let path = file(dir.path(), "full.blmf", &full.to_bytes());
        let out = bloomlab_inspect(&[&path]);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("10,000 recorded; any number (every cell is taken) from the table"),
            "{text}"
        );
        // JSON has no infinity: the estimate is null, and the flag says why.
        let got = json(&path);
        assert!(got["estimate_count"].is_null(), "{got}");
        assert_eq!(got["estimate_unbounded"], true, "{got}");
        assert_eq!(got["len"], 10_000, "{got}");
        // A table with room left has a number, and no flag.
        let mut some = BloomFilter::<u64>::builder(1_000, 0.01)
            .seed(1)
            .build()
            .unwrap();
        some.insert(&7).unwrap();
        let got = json(&file(dir.path(), "some.blmf", &some.to_bytes()));
        assert!(
            got["estimate_count"].as_f64().is_some_and(f64::is_finite),
            "{got}"
        );
        assert_eq!(got["estimate_unbounded"], false, "{got}");
    }

    /// Writes `bytes` to a file in `dir` and returns its path.
    fn file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn assert_rate(got: &Value, want: f64, name: &str) {
        let rate = got["estimated_fpr"].as_f64().unwrap();
        assert_eq!(
            rate.to_bits(),
            want.to_bits(),
            "{name}: {rate} against {want}"
        );
    }

    #[test]
    fn every_bloomlab_variant() {
        let dir = tempfile::tempdir().unwrap();
        let (n, p) = (5_000u64, 0.01);
        let cap = n as usize;
        let classic = filled(BloomFilter::builder(cap, p).seed(1).build().unwrap(), n);
        let blocked = filled(
            BlockedBloomFilter::builder(cap, p).seed(2).build().unwrap(),
            n,
        );
        let atomic = filled(
            AtomicBloomFilter::builder(cap, p).seed(3).build().unwrap(),
            n,
        );
        let counting = CountingBloomFilter::builder(cap, p).seed(4).build();
        let mut counting = filled(counting.unwrap(), n);
        let scalable = ScalableBloomFilter::builder(cap / 10, p).seed(5).build();
        let scalable = filled(scalable.unwrap(), n);
        let mut cuckoo = filled(CuckooFilter::builder(cap, p).seed(6).build().unwrap(), n);
        let one_line = BlockedCountingBloomFilter::builder(cap, p).seed(7).build();
        let mut one_line = filled(one_line.unwrap(), n);
        // The layout of format versions 1 and 2: positions anywhere in the
        // block, which `sectors` = 1 tells apart.
        let positions = BlockedBloomFilter::builder(cap, p)
            .layout(bloomlab::classic::BlockLayout::Positions)
            .seed(8)
            .build();
        let positions = filled(positions.unwrap(), n);
        // Removes count: the recorded items are net of them.
        for k in 0..100u64 {
            counting.remove(&k).unwrap();
            cuckoo.remove(&k).unwrap();
        }

        let near = |got: &Value, want: f64, name: &str| {
            let est = got["estimate_count"].as_f64().unwrap();
            assert!(
                (est - want).abs() < 0.05 * want,
                "{name}: {est} against {want}"
            );
        };

        let got = json(&file(dir.path(), "classic.blmf", &classic.to_bytes()));
        assert_eq!(got["format"], "bloomlab");
        assert_eq!(got["variant"], "BloomFilter");
        assert_eq!(got["parameters"]["format_version"], FORMAT_VERSION);
        assert_eq!(got["parameters"]["bits"], classic.num_bits());
        assert_eq!(got["parameters"]["hashes"], classic.num_hashes());
        assert_eq!(got["len"], n);
        assert_eq!(got["fill_ratio"].as_f64().unwrap(), classic.fill_ratio());
        assert_rate(&got, classic.estimated_fpr(), "classic");
        near(&got, n as f64, "classic");

        let got = json(&file(dir.path(), "blocked.blmf", &blocked.to_bytes()));
        assert_eq!(got["variant"], "BlockedBloomFilter");
        assert_eq!(got["parameters"]["blocks"], blocked.num_blocks());
        assert_eq!(got["parameters"]["hashes"], blocked.num_hashes());
        assert_eq!(got["parameters"]["sectors"], 8);
        assert_eq!(got["len"], n);
        assert_rate(&got, blocked.estimated_fpr(), "blocked");
        near(&got, n as f64, "blocked");

        let got = json(&file(dir.path(), "positions.blmf", &positions.to_bytes()));
        assert_eq!(got["variant"], "BlockedBloomFilter");
        assert_eq!(got["parameters"]["sectors"], 1);
        assert_eq!(got["parameters"]["hashes"], positions.num_hashes());
        assert_rate(&got, positions.estimated_fpr(), "positions");
        near(&got, n as f64, "positions");

        for k in 0..100u64 {
            one_line.remove(&k).unwrap();
        }
        let got = json(&file(dir.path(), "one_line.blmf", &one_line.to_bytes()));
        assert_eq!(got["variant"], "BlockedCountingBloomFilter");
        assert_eq!(got["parameters"]["blocks"], one_line.num_blocks());
        assert_eq!(got["parameters"]["counters"], one_line.num_counters());
        assert_eq!(got["parameters"]["sectors"], 8);
        assert_eq!(got["len"], n - 100);
        assert_rate(&got, one_line.estimated_fpr(), "one-line counting");
        assert_eq!(
            got["estimate_count"].as_f64().unwrap(),
            one_line.estimate_count()
        );

        let got = json(&file(dir.path(), "atomic.blmf", &atomic.to_bytes()));
        assert_eq!(got["variant"], "AtomicBloomFilter");
        assert_eq!(got["parameters"]["bits"], atomic.num_bits());
        assert_eq!(got["len"], n);
        assert_rate(&got, atomic.estimated_fpr(), "atomic");

        let got = json(&file(dir.path(), "counting.blmf", &counting.to_bytes()));
        assert_eq!(got["variant"], "CountingBloomFilter");
        assert_eq!(got["parameters"]["counters"], counting.num_counters());
        assert_eq!(got["parameters"]["counter_bits"], counting.counter_width());
        assert_eq!(got["len"], n - 100);
        assert_rate(&got, counting.to_bloom().estimated_fpr(), "counting");
        near(&got, (n - 100) as f64, "counting");

        let got = json(&file(dir.path(), "scalable.blmf", &scalable.to_bytes()));
        assert_eq!(got["variant"], "ScalableBloomFilter");
        let layers = scalable.layers();
        assert!(layers.len() >= 3, "{} layers", layers.len());
        assert_eq!(got["parameters"]["layers"], layers.len());
        assert_eq!(got["parameters"]["capacity"], scalable.capacity());
        assert_eq!(got["len"], n);
        let pass_none: f64 = layers.iter().map(|l| 1.0 - l.estimated_fpr()).product();
        assert_rate(&got, 1.0 - pass_none, "scalable");
        assert!(got["estimated_fpr"].as_f64().unwrap() <= 0.01, "{got}");
        near(&got, n as f64, "scalable");

        let got = json(&file(dir.path(), "cuckoo.blmf", &cuckoo.to_bytes()));
        assert_eq!(got["variant"], "CuckooFilter");
        assert_eq!(got["parameters"]["buckets"], cuckoo.num_buckets());
        assert_eq!(got["parameters"]["bucket_size"], cuckoo.bucket_size());
        assert_eq!(
            got["parameters"]["fingerprint_bits"],
            cuckoo.fingerprint_bits()
        );
        assert_eq!(got["len"], n - 100);
        assert_eq!(got["estimate_count"].as_f64().unwrap(), (n - 100) as f64);
        assert_eq!(got["fill_ratio"].as_f64().unwrap(), cuckoo.fill_ratio());
        assert_rate(&got, cuckoo.estimated_fpr(), "cuckoo");
    }

    #[test]
    fn garbage_is_refused_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        refused(&file(d, "empty", b""), "it is empty");
        refused(&file(d, "text", b"hello, world"), "starts with 68 65 6c 6c");
        refused(&d.join("missing"), "cannot read");

        let filter = BloomFilter::<u64>::builder(100, 0.01)
            .seed(1)
            .build()
            .unwrap();
        let good = filter.to_bytes();
        refused(&file(d, "header", &good[..6]), "does not decode");
        refused(
            &file(d, "cut", &good[..good.len() - 1]),
            "(BloomFilter) that does not decode",
        );
        let mut flipped = good.clone();
        let last = flipped.len() - 10;
        flipped[last] ^= 1;
        refused(&file(d, "flipped", &flipped), "checksum");
        let mut newer = good.clone();
        newer[6] = 99;
        refused(&file(d, "newer", &newer), "variant tag 99");
        // A newer format version, sealed with a valid checksum as a newer
        // bloomlab would write it.
        let mut version = good[..good.len() - 4].to_vec();
        version[4] = 7;
        let crc = crc32fast::hash(&version);
        version.extend(crc.to_le_bytes());
        refused(&file(d, "version", &version), "format version 7");

        let guava = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../guava/tests/fixtures/integer_n1000_p0.001.bin"),
        )
        .unwrap();
        refused(
            &file(d, "guava_cut", &guava[..guava.len() - 3]),
            "truncated Guava filter",
        );
        let mut longer = guava.clone();
        longer.push(0);
        refused(
            &file(d, "guava_long", &longer),
            "bytes after the Guava filter",
        );
        let mut no_hashes = guava;
        no_hashes[1] = 0;
        refused(&file(d, "guava_k0", &no_hashes), "zero hash functions");
        // A Guava-looking header that declares two billion words in six bytes.
        refused(
            &file(d, "guava_huge", &[1, 3, 0x7f, 0xff, 0xff, 0xff]),
            "truncated Guava filter",
        );
    }

    /// A FIFO with no writer would make `open` wait forever: it is refused
    /// unopened (the run is killed, and the test fails, if it waits), as is
    /// a folder.
    #[test]
    fn what_is_not_a_regular_file_is_refused_unopened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success(), "mkfifo {fifo:?}");
        let mut child = Command::new(env!("CARGO_BIN_EXE_bloomlab-cli"))
            .arg("inspect")
            .arg(&fifo)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the bloomlab-cli binary runs");
        let started = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed().as_secs() >= 30 {
                child.kill().unwrap();
                panic!("inspect of a FIFO still waits after 30 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(out.stdout.is_empty());
        assert!(
            stderr(&out).contains("is a FIFO, not a regular file"),
            "{}",
            stderr(&out)
        );
        refused(dir.path(), "is a folder, not a regular file");
    }
}
