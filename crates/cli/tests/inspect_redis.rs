//! `bloomlab-cli inspect --redis URL NAME` against a real `redis-server`,
//! on filters of every kind written by bloomlab-redis; and, in a build
//! without the feature `redis`, its refusal.

use std::process::Output;

mod common;

fn bloomlab_inspect(args: &[&str]) -> Output {
    common::cli("inspect", args)
}

#[cfg(not(feature = "redis"))]
#[test]
fn without_the_feature_redis_is_refused_with_the_way_to_get_it() {
    let out = bloomlab_inspect(&["--redis", "redis://127.0.0.1:1/", "users"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--features redis"), "{err}");
}

#[cfg(feature = "redis")]
mod with_redis {
    use super::bloomlab_inspect;

    use bloomlab::catalog::grouped;
    use bloomlab_redis::{
        Error, Info, Options, RedisBloomFilter, RedisCountingBloomFilter, RedisCuckooFilter,
        RedisScalableBloomFilter,
    };
    use bloomlab_testkit::keys::members;
    use bloomlab_testkit::redis_server::RedisServer;
    use serde_json::Value;

    fn connect(url: &str) -> redis::Connection {
        redis::Client::open(url).unwrap().get_connection().unwrap()
    }

    /// The JSON `inspect --redis --json` prints for `name`.
    fn inspected(url: &str, name: &str) -> Value {
        let out = bloomlab_inspect(&["--redis", url, name, "--json"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {err}");
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The report agrees with the filter's own `info()`.
    fn agrees(v: &Value, info: &Info, variant: &str) {
        assert_eq!(v["name"], info.name.as_str());
        assert_eq!(v["variant"], variant);
        assert_eq!(v["item"], info.item.as_str());
        assert_eq!(v["design_items"].as_u64(), info.design.map(|d| d.0));
        assert_eq!(v["design_fpr"].as_f64(), info.design.map(|d| d.1));
        assert_eq!(v["capacity"].as_u64(), info.capacity);
        assert_eq!(v["bytes"].as_u64(), Some(info.bytes));
        assert_eq!(v["shards"].as_u64(), Some(info.shards));
        assert_eq!(v["layers"].as_u64(), Some(u64::from(info.layers)));
        assert_eq!(v["len"].as_u64(), info.len);
        assert_eq!(v["estimate_count"].as_f64(), Some(info.estimate_count));
        assert_eq!(v["expected_fpr"].as_f64(), Some(info.expected_fpr));
        let fill = info.capacity.map(|c| info.estimate_count / c as f64);
        assert_eq!(v["load"].as_f64(), fill);
    }

    #[test]
    fn every_kind_is_read_as_its_own_info_says() {
        let server = RedisServer::start().unwrap();
        let url = server.url();
        let items = members(1, 30_000);
        let options = || Options::new().seed(7);

        let mut bloom =
            RedisBloomFilter::<u64, _>::create_with(connect(&url), "b", 100_000, 0.01, options())
                .unwrap();
        bloom.insert_batch(&items).unwrap();
        agrees(
            &inspected(&url, "b"),
            &bloom.info().unwrap(),
            "RedisBloomFilter",
        );

        let mut counting = RedisCountingBloomFilter::<u64, _>::create_with(
            connect(&url),
            "c",
            50_000,
            0.001,
            options(),
        )
        .unwrap();
        counting.insert_batch(&items[..10_000]).unwrap();
        let v = inspected(&url, "c");
        agrees(&v, &counting.info().unwrap(), "RedisCountingBloomFilter");

        let mut cuckoo =
            RedisCuckooFilter::<u64, _>::create_with(connect(&url), "k", 40_000, 0.01, options())
                .unwrap();
        cuckoo.insert_batch(&items).unwrap();
        let v = inspected(&url, "k");
        let cuckoo_info = cuckoo.info().unwrap();
        agrees(&v, &cuckoo_info, "RedisCuckooFilter");
        // A cuckoo filter counts its fingerprints exactly.
        assert_eq!(v["len"].as_u64(), Some(items.len() as u64));

        // A filter of strings, grown past its first layer.
        let mut scalable =
            RedisScalableBloomFilter::<str, _>::create(connect(&url), "s", 1_000, 0.01).unwrap();
        for i in 0..5_000 {
            scalable.insert(&format!("user:{i}")).unwrap();
        }
        let info = scalable.info().unwrap();
        assert!(info.layers > 1, "{info:?}");
        let v = inspected(&url, "s");
        agrees(&v, &info, "RedisScalableBloomFilter");
        assert_eq!(v["item"], "str");

        // The text form says the same.
        let out = bloomlab_inspect(&["--redis", &url, "k"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("RedisCuckooFilter of u64"), "{text}");
        assert!(text.contains("30,000 counted"), "{text}");
        let slots = grouped(cuckoo_info.capacity.unwrap());
        assert!(
            text.contains(&format!("capacity       {slots} slots")),
            "{text}"
        );
    }

    #[test]
    fn a_missing_or_damaged_filter_is_an_error() {
        let server = RedisServer::start().unwrap();
        let url = server.url();
        let refused = |name: &str, says: &str| {
            let out = bloomlab_inspect(&["--redis", &url, name]);
            assert_eq!(out.status.code(), Some(2), "{name}");
            assert!(out.stdout.is_empty());
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(says), "{name}: {err}");
        };
        refused(
            "nothing",
            &Error::NotFound {
                name: "nothing".into(),
            }
            .to_string(),
        );

        // A shard lost (as in a restart without persistence).
        RedisBloomFilter::<u64, _>::create(connect(&url), "lost", 1_000, 0.01).unwrap();
        let _: () = redis::cmd("DEL")
            .arg("lost:0")
            .query(&mut connect(&url))
            .unwrap();
        refused("lost", "lost:0");

        // Two filters of one name, one of each key form.
        RedisBloomFilter::<u64, _>::create(connect(&url), "twice", 1_000, 0.01).unwrap();
        RedisCuckooFilter::<u64, _>::create(connect(&url), "twice", 1_000, 0.01).unwrap();
        refused("twice", "one filter of this name");

        // No server there.
        let out = bloomlab_inspect(&["--redis", "redis://127.0.0.1:1/", "b"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("cannot connect"));
    }
}
