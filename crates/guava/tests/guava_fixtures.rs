//! bloomlab-guava against the real Guava: the fixtures in `tests/fixtures/`
//! are written by `GenerateFixtures.java` with Debian's `libguava-java`
//! (`generate.sh` regenerates them; `.ci/run` checks they are current).
//!
//! For every filter fixture: reading Guava's bytes gives Guava's
//! `mightContain` on every probe, `expectedFpp()` (to the bit) and
//! `approximateElementCount()`; building the filter here from the same
//! items gives the same `put` results and exactly Guava's bytes.

use std::borrow::Borrow;
use std::fs;
use std::path::{Path, PathBuf};

use bloomlab_core::Membership;
use bloomlab_guava::sizing::{optimal_num_of_bits, optimal_num_of_hash_functions};
use bloomlab_guava::{
    ByteArrayFunnel, Funnel, GuavaBloomFilter, IntegerFunnel, LongFunnel, Strategy, StringFunnel,
    UnencodedCharsFunnel, murmur3_128,
};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

// The items of GenerateFixtures.java's `item`, index for index.

/// `(int) (i * 2654435761L)`.
fn int_item(i: u64) -> i32 {
    (i as i64).wrapping_mul(2_654_435_761) as i32
}

/// `i * 0x9E3779B97F4A7C15L`.
fn long_item(i: u64) -> i64 {
    (i as i64).wrapping_mul(0x9E37_79B9_7F4A_7C15_u64 as i64)
}

/// `PREFIXES[i % 3] + i`.
fn string_item(i: u64) -> String {
    const PREFIXES: [&str; 3] = ["日本語-ß-😀", "user:", "Ωmega✓"];
    format!("{}{i}", PREFIXES[(i % 3) as usize])
}

/// `i % 37` bytes, `b[j] = (byte) ((i >>> (j % 4 * 8)) + j * 7)`.
fn bytes_item(i: u64) -> Vec<u8> {
    (0..i % 37)
        .map(|j| (i >> (j % 4 * 8)).wrapping_add(j * 7) as u8)
        .collect()
}

/// One `NAME.json` and its `NAME.bin`.
struct Fixture {
    name: String,
    json: Value,
    bytes: Vec<u8>,
}

impl Fixture {
    fn u64(&self, key: &str) -> u64 {
        self.json[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{}: no integer {key}", self.name))
    }

    fn str(&self, key: &str) -> &str {
        self.json[key]
            .as_str()
            .unwrap_or_else(|| panic!("{}: no string {key}", self.name))
    }

    /// A double Java wrote as `Double.toString` (under `key`) and as its raw
    /// bits (under `key_bits`); both must name the same double.
    fn f64(&self, key: &str) -> f64 {
        let bits = u64::from_str_radix(self.str(&format!("{key}_bits")), 16).unwrap();
        let value = f64::from_bits(bits);
        let printed: f64 = self.str(key).parse().unwrap();
        assert_eq!(
            printed.to_bits(),
            bits,
            "{}: {key} printed != bits",
            self.name
        );
        value
    }

    fn strategy(&self) -> Strategy {
        match self.str("strategy") {
            "MURMUR128_MITZ_64" => Strategy::Murmur128Mitz64,
            "MURMUR128_MITZ_32" => Strategy::Murmur128Mitz32,
            other => panic!("{}: strategy {other}", self.name),
        }
    }
}

fn load_fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    for entry in fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let json: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
            let bytes = fs::read(path.with_extension("bin")).unwrap();
            let name = json["name"].as_str().unwrap().to_owned();
            out.push(Fixture { name, json, bytes });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Checks one fixture with `funnel` and the items `item(i)`.
fn check<F, I>(fx: &Fixture, funnel: F, item: impl Fn(u64) -> I)
where
    F: Funnel + PartialEq + Clone,
    I: Borrow<F::Item>,
{
    let name = &fx.name;
    let strategy = fx.strategy();

    // Read Guava's bytes, whole and as a stream.
    let read = GuavaBloomFilter::from_bytes(&fx.bytes, funnel.clone())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let streamed = GuavaBloomFilter::read_from(&fx.bytes[..], funnel.clone()).unwrap();
    assert!(read == streamed, "{name}: read_from != from_bytes");
    assert_eq!(read.strategy(), strategy, "{name}");
    assert_eq!(read.to_bytes(), fx.bytes, "{name}: read then written");

    // mightContain on every probe.
    let inserted = fx.u64("inserted");
    let members = fx.u64("member_probes");
    let probes = (0..members)
        .map(|j| j * 7919 % inserted.max(1))
        .chain((0..fx.u64("other_probes")).map(|j| inserted + j));
    let answers = fx.str("might_contain").as_bytes();
    let mut count = 0;
    for (p, index) in probes.enumerate() {
        let want = answers[p] == b'1';
        let item = item(index);
        assert_eq!(
            read.might_contain(item.borrow()),
            want,
            "{name}: probe {p} (item {index})"
        );
        assert_eq!(
            Membership::contains(&read, item.borrow()),
            want,
            "{name}: probe {p}"
        );
        count += 1;
    }
    assert_eq!(count, answers.len(), "{name}: probe count");

    // Guava's estimates, exactly.
    assert_eq!(
        read.expected_fpp().to_bits(),
        fx.f64("expected_fpp").to_bits(),
        "{name}: expected_fpp {} vs Guava's {}",
        read.expected_fpp(),
        fx.str("expected_fpp"),
    );
    assert_eq!(
        read.approximate_element_count(),
        fx.u64("approximate_element_count"),
        "{name}: approximate_element_count"
    );

    // Build it here from the same items: Guava's put answers and bytes.
    let n = fx.u64("expected_insertions");
    let fpp = fx.f64("fpp");
    let create =
        || GuavaBloomFilter::create_with_strategy(funnel.clone(), n, fpp, strategy).unwrap();
    let mut built = create();
    let mut put_true = 0;
    match fx.str("build") {
        "put" => {
            for i in 0..inserted {
                put_true += u64::from(built.put(item(i).borrow()));
            }
        }
        "put_all_halves" => {
            let mut odds = create();
            for i in 0..inserted {
                let half = if i % 2 == 0 { &mut built } else { &mut odds };
                put_true += u64::from(half.put(item(i).borrow()));
            }
            built.put_all(&odds).unwrap();
        }
        other => panic!("{name}: build {other}"),
    }
    assert_eq!(
        put_true,
        fx.u64("put_returned_true"),
        "{name}: puts that changed bits"
    );
    assert!(built == read, "{name}: built != Guava's");
    assert!(
        built.to_bytes() == fx.bytes,
        "{name}: built bytes != Guava's"
    );
}

#[test]
fn every_fixture_matches_guava() {
    let all = load_fixtures();
    let names: Vec<&str> = all.iter().map(|f| f.name.as_str()).collect();
    // Guard against an empty or half-written folder passing vacuously.
    assert!(all.len() >= 15, "fixtures: {names:?}");
    for fx in &all {
        match fx.str("funnel") {
            "integer" => check(fx, IntegerFunnel, int_item),
            "long" => check(fx, LongFunnel, long_item),
            "string_utf8" => check(fx, StringFunnel, string_item),
            "unencoded_chars" => check(fx, UnencodedCharsFunnel, string_item),
            "byte_array" => check(fx, ByteArrayFunnel, bytes_item),
            other => panic!("{}: funnel {other}", fx.name),
        }
    }
    for funnel in [
        "integer",
        "long",
        "string_utf8",
        "unencoded_chars",
        "byte_array",
    ] {
        assert!(
            all.iter().any(|f| f.str("funnel") == funnel),
            "no {funnel} fixture"
        );
    }
    assert!(
        all.iter()
            .any(|f| f.strategy() == Strategy::Murmur128Mitz32)
    );
}

/// `tests/fixtures/sizing.txt`: Guava's `optimalNumOfBits`,
/// `optimalNumOfHashFunctions` and `create` over a grid and 2000 random
/// `(n, fpp)` pairs.
#[test]
fn sizing_matches_guava() {
    let text = fs::read_to_string(fixtures().join("sizing.txt")).unwrap();
    let mut lines = 0;
    let mut created = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        let n: u64 = f[0].parse().unwrap();
        let p = f64::from_bits(u64::from_str_radix(f[1], 16).unwrap());
        let m: u64 = f[2].parse().unwrap();
        let k: u32 = f[3].parse().unwrap();
        assert_eq!(optimal_num_of_bits(n, p), m, "optimalNumOfBits({n}, {p:e})");
        assert_eq!(
            optimal_num_of_hash_functions(n, m),
            k,
            "optimalNumOfHashFunctions({n}, {m})"
        );
        match (f[4], f[5]) {
            ("-", "-") => {}
            ("error", "error") => {
                assert!(
                    GuavaBloomFilter::create(IntegerFunnel, n, p).is_err(),
                    "create({n}, {p:e})"
                );
                created += 1;
            }
            (words, k) => {
                let filter = GuavaBloomFilter::create(IntegerFunnel, n, p)
                    .unwrap_or_else(|e| panic!("create({n}, {p:e}): {e}"));
                assert_eq!(
                    filter.bit_size() / 64,
                    words.parse::<u64>().unwrap(),
                    "create({n}, {p:e})"
                );
                assert_eq!(
                    filter.num_hash_functions(),
                    k.parse::<u32>().unwrap(),
                    "create({n}, {p:e})"
                );
                created += 1;
            }
        }
        lines += 1;
    }
    assert!(
        lines > 2000 && created > 1000,
        "{lines} lines, {created} created"
    );
}

/// `tests/fixtures/murmur3.txt`: `Hashing.murmur3_128().hashBytes(b)` for
/// every length 0..=80, so every tail length and block count.
#[test]
fn murmur3_matches_guava() {
    let text = fs::read_to_string(fixtures().join("murmur3.txt")).unwrap();
    let mut lines = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (len, hex) = line.split_once(' ').unwrap();
        let len: usize = len.parse().unwrap();
        let bytes: Vec<u8> = (0..len).map(|j| (len * 13 + j * 101) as u8).collect();
        let (h1, h2) = murmur3_128(&bytes);
        let ours: String = h1
            .to_le_bytes()
            .iter()
            .chain(&h2.to_le_bytes())
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(ours, hex, "length {len}");
        lines += 1;
    }
    assert_eq!(lines, 81);
}
