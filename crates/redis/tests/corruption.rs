//! Nothing read from Redis is trusted: every metadata field of every filter
//! kind set to hostile values (0, 1, −1, 2^63, 2^64 − 1, a non-integer,
//! empty, removed, and the values that once slipped through), and every key
//! deleted, truncated or retyped, gives a typed error (or, for a field
//! written back with the value it had, correct answers): never an inserted
//! item answered absent, never an abort, never an untyped error.
//!
//! Why a child process: an allocation sized from a stored value, or a loop
//! bounded by one, ends the whole process (SIGABRT, the OOM killer), which
//! no test inside it can observe. The parent re-executes this test binary
//! with [`CHILD`] set and `--exact corruption_child`, under
//! `ulimit -v` of 4 GiB as `no_abort.rs` does, and requires the child to
//! exit normally after printing the count of cases it checked.
#![cfg(unix)]

mod common;

use std::process::{Command, Stdio};

use bloomlab_redis::{
    BatchError, Error, Options, RedisBloomFilter, RedisCountingBloomFilter, RedisCuckooFilter,
    RedisScalableBloomFilter, ScalableOptions,
};
use bloomlab_testkit::keys::members;
use bloomlab_testkit::redis_server::RedisServer;
use common::connect;
use redis::Connection;

/// The environment variable that makes [`corruption_child`] run.
const CHILD: &str = "BLOOMLAB_REDIS_CORRUPTION_CHILD";

/// The line the child prints at the end: the cases it checked.
const DONE: &str = "CORRUPTION_CASES_CHECKED:";

/// The child's address-space cap, in KiB: 4 GiB.
const ADDRESS_SPACE_KIB: u64 = 4 << 20;

/// Items each filter holds when it is damaged.
const ITEMS: usize = 3_000;

#[test]
fn corrupted_state_is_a_typed_error_never_an_absent_answer_nor_an_abort() {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("/bin/sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(&exe)
        .args([
            "--exact",
            "corruption_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the child ended with {}: {stdout}\n{stderr}",
        out.status
    );
    let checked: usize = stdout
        .lines()
        .find_map(|l| l.split_once(DONE).map(|(_, n)| n.trim().parse().unwrap()))
        .unwrap_or_else(|| panic!("no count of cases: {stdout}"));
    eprintln!("{checked} corruption cases checked under a 4 GiB address space");
    // 4 kinds × (every field × 16 values + every key × 3 damages).
    assert!(checked > 900, "{checked} cases");
}

/// The cases, run only in the child the test above starts.
#[test]
fn corruption_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let server = RedisServer::start_with(&[("appendonly", "no")]).unwrap();
    let mut raw = connect(&server);
    let mut checked = 0;
    for kind in [Kind::Bloom, Kind::Counting, Kind::Scalable, Kind::Cuckoo] {
        checked += kind.run_all(&server, &mut raw);
    }
    println!("{DONE} {checked}");
}

/// The filter kinds under test.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Bloom,
    Counting,
    Scalable,
    Cuckoo,
}

/// The values every field is set to.
fn hostile_values() -> Vec<String> {
    let mut v: Vec<String> = [
        "0",
        "1",
        "-1",
        "2",
        "5",
        "64",
        "65",
        "0.5",
        "4294967295",
        "1000000000000",
        "9223372036854775808",
        "18446744073709551615",
        "x1",
        "",
    ]
    .map(String::from)
    .to_vec();
    v.push("0".repeat(32));
    v
}

/// How an operation on a damaged filter ended.
#[derive(Debug)]
enum Outcome {
    /// Every inserted item answered present.
    Sound,
    /// A typed error.
    Refused(String),
}

/// Fails the case unless `e` is a typed error: not the catch-all
/// [`Error::Redis`], nor a connection error (the server stays up).
fn typed(case: &str, e: &Error) -> Outcome {
    assert!(
        !matches!(e, Error::Redis(_) | Error::Connection(_)),
        "{case}: untyped error {e:?}"
    );
    Outcome::Refused(format!("{e:?}"))
}

fn typed_batch(case: &str, e: &BatchError) -> Outcome {
    typed(case, &e.source)
}

/// One filter of a kind, opened on the test's server, as the checks use it.
trait Subject: Sized {
    fn open(conn: Connection, name: &str) -> Result<Self, Error>;
    fn contains_batch(&mut self, items: &[u64]) -> Result<Vec<bool>, Error>;
    fn insert_batch(&mut self, items: &[u64]) -> Result<usize, BatchError>;
    fn estimate(&mut self) -> Result<f64, Error>;
}

macro_rules! subject {
    ($t:ty, $estimate:ident) => {
        impl Subject for $t {
            fn open(conn: Connection, name: &str) -> Result<Self, Error> {
                <$t>::open(conn, name)
            }
            fn contains_batch(&mut self, items: &[u64]) -> Result<Vec<bool>, Error> {
                <$t>::contains_batch(self, items)
            }
            fn insert_batch(&mut self, items: &[u64]) -> Result<usize, BatchError> {
                <$t>::insert_batch(self, items)
            }
            fn estimate(&mut self) -> Result<f64, Error> {
                <$t>::$estimate(self)
            }
        }
    };
}

subject!(RedisBloomFilter<u64, Connection>, estimate_count);
subject!(RedisCountingBloomFilter<u64, Connection>, estimate_count);
subject!(RedisScalableBloomFilter<u64, Connection>, estimate_count);
subject!(RedisCuckooFilter<u64, Connection>, expected_fpr);

/// Opens the damaged filter and uses it: every answer for an inserted item
/// is present, or the operation is refused with a typed error.
fn exercise<F: Subject>(server: &RedisServer, name: &str, case: &str, items: &[u64]) -> Outcome {
    let mut f = match F::open(connect(server), name) {
        Ok(f) => f,
        Err(e) => return typed(case, &e),
    };
    let check = |f: &mut F, items: &[u64]| match f.contains_batch(items) {
        Ok(answers) => {
            let absent = answers.iter().filter(|&&a| !a).count();
            assert_eq!(absent, 0, "{case}: {absent} inserted items answered absent");
            Outcome::Sound
        }
        Err(e) => typed(case, &e),
    };
    if let Outcome::Refused(e) = check(&mut f, items) {
        return Outcome::Refused(e);
    }
    if let Err(e) = f.estimate() {
        return typed(case, &e);
    }
    let more = members(7_777, 200);
    if let Err(e) = f.insert_batch(&more) {
        return typed_batch(case, &e);
    }
    let all: Vec<u64> = items.iter().chain(&more).copied().collect();
    check(&mut f, &all)
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Bloom => "b",
            Kind::Counting => "c",
            Kind::Scalable => "s",
            Kind::Cuckoo => "k",
        }
    }

    fn meta(self) -> String {
        match self {
            Kind::Scalable => "{s}:meta".to_owned(),
            Kind::Cuckoo => "{k}:meta".to_owned(),
            _ => format!("{}:meta", self.name()),
        }
    }

    /// Creates the filter and fills it: shards of 1 KiB, so that each
    /// table has several, and a scalable filter grown to three layers.
    fn create(self, server: &RedisServer, items: &[u64]) {
        let options = Options::new().seed(3).max_shard_bytes(1 << 10);
        match self {
            Kind::Bloom => {
                let mut f = RedisBloomFilter::<u64, _>::create_with(
                    connect(server),
                    "b",
                    ITEMS,
                    0.01,
                    options,
                )
                .unwrap();
                f.insert_batch(items).unwrap();
            }
            Kind::Counting => {
                let mut f = RedisCountingBloomFilter::<u64, _>::create_with(
                    connect(server),
                    "c",
                    ITEMS,
                    0.01,
                    options,
                )
                .unwrap();
                f.insert_batch(items).unwrap();
            }
            Kind::Scalable => {
                let options = ScalableOptions::new().seed(3).max_shard_bytes(1 << 10);
                let mut f = common::scalable(connect(server), "s", ITEMS / 6, options);
                f.insert_batch(items).unwrap();
                assert_eq!(f.num_layers().unwrap(), 3);
            }
            Kind::Cuckoo => {
                let mut f = RedisCuckooFilter::<u64, _>::create_with(
                    connect(server),
                    "k",
                    ITEMS * 2,
                    0.01,
                    options,
                )
                .unwrap();
                f.insert_batch(items).unwrap();
            }
        }
    }

    fn exercise(self, server: &RedisServer, case: &str, items: &[u64]) -> Outcome {
        match self {
            Kind::Bloom => exercise::<RedisBloomFilter<u64, Connection>>(server, "b", case, items),
            Kind::Counting => {
                exercise::<RedisCountingBloomFilter<u64, Connection>>(server, "c", case, items)
            }
            Kind::Scalable => {
                exercise::<RedisScalableBloomFilter<u64, Connection>>(server, "s", case, items)
            }
            Kind::Cuckoo => {
                exercise::<RedisCuckooFilter<u64, Connection>>(server, "k", case, items)
            }
        }
    }

    /// Every case of this kind: the filter is built once, saved with
    /// `DUMP`, and restored before each case.
    fn run_all(self, server: &RedisServer, raw: &mut Connection) -> usize {
        let items = members(40 + self as u64, ITEMS);
        redis::cmd("FLUSHALL").exec(raw).unwrap();
        self.create(server, &items);
        let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(raw).unwrap();
        let saved: Vec<(String, Vec<u8>)> = keys
            .iter()
            .map(|k| (k.clone(), redis::cmd("DUMP").arg(k).query(raw).unwrap()))
            .collect();
        let restore = |raw: &mut Connection| {
            redis::cmd("FLUSHALL").exec(raw).unwrap();
            for (k, dump) in &saved {
                redis::cmd("RESTORE")
                    .arg(k)
                    .arg(0)
                    .arg(dump)
                    .exec(raw)
                    .unwrap();
            }
        };
        // The filter as built answers soundly.
        assert!(matches!(
            self.exercise(server, "intact", &items),
            Outcome::Sound
        ));
        restore(raw);
        let meta = self.meta();
        let fields: Vec<String> = redis::cmd("HKEYS").arg(&meta).query(raw).unwrap();
        let mut checked = 0;
        let mut refused = 0;
        for field in &fields {
            let original: String = redis::cmd("HGET").arg(&meta).arg(field).query(raw).unwrap();
            let mut edits: Vec<Option<String>> = hostile_values().into_iter().map(Some).collect();
            edits.push(None);
            for value in edits {
                restore(raw);
                let case = format!("{self:?} {meta} {field} = {value:?}");
                match &value {
                    Some(v) => redis::cmd("HSET").arg(&meta).arg(field).arg(v).exec(raw),
                    None => redis::cmd("HDEL").arg(&meta).arg(field).exec(raw),
                }
                .unwrap();
                let outcome = self.exercise(server, &case, &items);
                // Every change is caught: a field `create` writes once by
                // its checksum or its bounds, a count the filter keeps by
                // the checksum of the counts (`state`), `ready` by its
                // bounds. Only writing back the value it had changes
                // nothing.
                if value.as_ref() != Some(&original) {
                    assert!(
                        matches!(outcome, Outcome::Refused(_)),
                        "{case}: the edit went unnoticed"
                    );
                }
                refused += usize::from(matches!(outcome, Outcome::Refused(_)));
                checked += 1;
            }
        }
        for key in keys.iter().filter(|k| !k.ends_with(":or")) {
            for damage in ["delete", "truncate", "retype"] {
                restore(raw);
                let case = format!("{self:?} {key} {damage}");
                let kind: String = redis::cmd("TYPE").arg(key).query(raw).unwrap();
                match damage {
                    "delete" => redis::cmd("DEL").arg(key).exec(raw).unwrap(),
                    "truncate" if kind == "string" => {
                        let len: usize = redis::cmd("STRLEN").arg(key).query(raw).unwrap();
                        let head: Vec<u8> = redis::cmd("GETRANGE")
                            .arg(key)
                            .arg(0)
                            .arg(len / 2)
                            .query(raw)
                            .unwrap();
                        redis::cmd("SET").arg(key).arg(head).exec(raw).unwrap();
                    }
                    "truncate" => {
                        // A hash loses its last field.
                        let f: Vec<String> = redis::cmd("HKEYS").arg(key).query(raw).unwrap();
                        redis::cmd("HDEL").arg(key).arg(f.last()).exec(raw).unwrap();
                    }
                    _ => {
                        redis::cmd("DEL").arg(key).exec(raw).unwrap();
                        redis::cmd("RPUSH").arg(key).arg("x").exec(raw).unwrap();
                    }
                }
                // A damaged key is always refused: every key holds items
                // or the parameters that find them.
                match self.exercise(server, &case, &items) {
                    Outcome::Refused(e) if damage == "retype" && !key.ends_with(":meta") => {
                        assert!(e.contains("WrongType"), "{case}: {e}");
                        assert!(e.contains(key.as_str()), "{case}: names {e}");
                    }
                    Outcome::Refused(_) => {}
                    Outcome::Sound => panic!("{case}: the damage went unnoticed"),
                }
                checked += 1;
            }
        }
        eprintln!("{self:?}: {checked} cases, {refused} field edits refused");
        checked
    }
}
