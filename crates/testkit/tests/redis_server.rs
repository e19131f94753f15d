//! The Redis harness against real `redis-server` processes.

use std::io;

use bloomlab_testkit::redis_server::{RedisCluster, RedisServer, Reply, key_slot};

fn ok() -> Reply {
    Reply::Simple("OK".into())
}

#[test]
fn key_slot_matches_the_cluster_specification() {
    // CRC16-XMODEM's check value: "123456789" hashes to 0x31C3 = 12739 < 16384.
    assert_eq!(key_slot(b"123456789"), 12739);
    assert_eq!(key_slot(b"foo"), 12182);
    assert_eq!(
        key_slot(b"{user1000}.following"),
        key_slot(b"{user1000}.followers")
    );
    assert_eq!(key_slot(b"{user1000}.following"), key_slot(b"user1000"));
    // Only the first `{` opens a tag; an empty or unclosed one hashes the whole
    // key. The numbers are redis-server 7.0's CLUSTER KEYSLOT.
    assert_eq!(key_slot(b"foo{{bar}}zap"), key_slot(b"{bar"));
    assert_eq!(key_slot(b"foo{{bar}}zap"), 4015);
    assert_eq!(key_slot(b"foo{}{bar}"), 8363);
    assert_eq!(key_slot(b"foo{bar"), 15278);
    assert_eq!(key_slot(b"{}"), 15257);
}

#[test]
fn a_key_survives_shutdown_save_and_restart() -> io::Result<()> {
    let mut server = RedisServer::start()?;
    let port = server.port();
    assert_eq!(server.url(), format!("redis://127.0.0.1:{port}/"));
    assert_eq!(server.command(&["SET", "kept", "yes"])?, ok());

    server.shutdown_save()?;
    assert!(!server.is_running());
    assert!(server.dir().join("dump.rdb").exists());
    server.restart()?;

    assert_eq!(server.port(), port);
    assert_eq!(server.command(&["GET", "kept"])?.as_str(), Some("yes"));
    assert_eq!(server.command(&["GET", "never-set"])?, Reply::Bulk(None));
    Ok(())
}

#[test]
fn kill_is_idempotent_and_the_aof_outlives_it() -> io::Result<()> {
    let mut server = RedisServer::start()?;
    assert_eq!(server.command(&["SET", "logged", "1"])?, ok());

    server.kill();
    assert!(!server.is_running());
    assert!(server.command(&["PING"]).is_err());
    server.kill();
    assert!(server.shutdown_save().is_err());

    // No snapshot was taken: the key comes back from the append-only file.
    server.restart()?;
    assert_eq!(server.command(&["GET", "logged"])?.as_str(), Some("1"));
    Ok(())
}

#[test]
fn extra_config_overrides_the_defaults() -> io::Result<()> {
    let server = RedisServer::start_with(&[("appendonly", "no"), ("save", "")])?;
    let config = server.command(&["CONFIG", "GET", "appendonly"])?;
    let values: Vec<_> = config
        .as_array()
        .unwrap_or_default()
        .iter()
        .map(Reply::as_str)
        .collect();
    assert_eq!(values, [Some("appendonly"), Some("no")]);
    let save = server.command(&["CONFIG", "GET", "save"])?;
    assert_eq!(
        save.as_array()
            .and_then(|a| a.get(1))
            .and_then(Reply::as_str),
        Some("")
    );
    Ok(())
}

#[test]
fn a_bad_config_is_an_error_that_quotes_the_log() {
    let error = RedisServer::start_with(&[("no-such-option", "1")]).unwrap_err();
    assert!(error.to_string().contains("no-such-option"), "{error}");
}

#[test]
fn a_cluster_needs_three_masters() {
    let error = RedisCluster::start(2).unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
}

#[test]
fn a_cluster_routes_keys_by_key_slot() -> io::Result<()> {
    let cluster = RedisCluster::start(3)?;
    assert_eq!(cluster.urls().len(), 3);
    for node in cluster.nodes() {
        let info = node.command(&["CLUSTER", "INFO"])?;
        assert!(
            info.as_str()
                .is_some_and(|i| i.contains("cluster_state:ok")),
            "{info:?}"
        );
    }

    let mut keys: Vec<String> = (0..16).map(|i| format!("key:{i}")).collect();
    keys.extend(
        [
            "{user1000}.following",
            "foo{}{bar}",
            "foo{{bar}}zap",
            "{}",
            "123456789",
        ]
        .map(String::from),
    );
    for key in &keys {
        let slot = key_slot(key.as_bytes());
        let theirs = cluster.nodes()[0].command(&["CLUSTER", "KEYSLOT", key])?;
        assert_eq!(theirs.as_integer(), Some(i64::from(slot)), "{key}");

        let owner = cluster.node_of_slot(slot)?;
        assert_eq!(
            cluster.nodes()[owner].command(&["SET", key, "v"])?,
            ok(),
            "{key}"
        );
        let other = &cluster.nodes()[(owner + 1) % 3];
        let moved = format!("MOVED {slot} 127.0.0.1:{}", cluster.nodes()[owner].port());
        assert_eq!(other.command(&["SET", key, "v"])?, Reply::Error(moved));
    }
    Ok(())
}

#[test]
fn restart_node_keeps_its_keys() -> io::Result<()> {
    let mut cluster = RedisCluster::start(3)?;
    let key = "survivor";
    let owner = cluster.node_of_slot(key_slot(key.as_bytes()))?;
    assert_eq!(cluster.nodes()[owner].command(&["SET", key, "here"])?, ok());

    cluster.restart_node(owner)?;

    assert_eq!(cluster.node_of_slot(key_slot(key.as_bytes()))?, owner);
    assert_eq!(
        cluster.nodes()[owner].command(&["GET", key])?.as_str(),
        Some("here")
    );
    assert!(cluster.restart_node(3).is_err());
    Ok(())
}
