//! Real `redis-server` processes for tests and benchmarks: a standalone
//! server ([`RedisServer`]) or a Cluster of masters ([`RedisCluster`]), each
//! node on free loopback ports with its own temporary folder, killed on drop.
//!
//! No Redis client crate is involved: [`RedisServer::command`] speaks RESP
//! over a plain `TcpStream`, and `redis-cli --cluster create` joins a
//! cluster. Both programs come from Debian's `redis-server` package.
//!
//! Every wait is bounded (10 s for a server to answer PING, 30 s for a reply
//! or for a server to exit, 60 s for a cluster to settle), and every failure
//! is an `io::Error` whose message says what failed, with the tail of the
//! server's log where that helps.
//!
//! ```
//! use bloomlab_lab::redis_server::RedisServer;
//!
//! let mut server = RedisServer::start()?;
//! server.command(&["SET", "greeting", "hello"])?;
//! server.shutdown_save()?;
//! server.restart()?; // same port and folder: the AOF is reloaded
//! assert_eq!(server.command(&["GET", "greeting"])?.as_str(), Some("hello"));
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, ErrorKind, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use tempfile::TempDir;

const READY_TIMEOUT: Duration = Duration::from_secs(10);
const REPLY_TIMEOUT: Duration = Duration::from_secs(30);
const EXIT_TIMEOUT: Duration = Duration::from_secs(30);
const CLUSTER_TIMEOUT: Duration = Duration::from_secs(60);
const POLL: Duration = Duration::from_millis(50);
/// Another process may take a port between our probe and the server's bind.
const START_ATTEMPTS: usize = 5;
const LOG: &str = "redis.log";
const SLOTS: u16 = 16384;
const NOT_FOUND: &str = "not found on PATH: install Debian's redis-server package \
                         (the README's test command does)";

/// One reply of the RESP protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// `+OK`, `+PONG`, ...
    Simple(String),
    /// `-ERR ...`, `-MOVED 3999 127.0.0.1:6381`, ...: the server's answer,
    /// which [`RedisServer::command`] returns as `Ok`.
    Error(String),
    /// `:42`
    Integer(i64),
    /// A bulk string, `None` for the null bulk string.
    Bulk(Option<Vec<u8>>),
    /// An array, `None` for the null array.
    Array(Option<Vec<Reply>>),
}

impl Reply {
    /// The text of a simple string or of a UTF-8 bulk string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Reply::Simple(s) => Some(s),
            Reply::Bulk(Some(bytes)) => std::str::from_utf8(bytes).ok(),
            _ => None,
        }
    }

    /// The value of an integer reply.
    pub fn as_integer(&self) -> Option<i64> {
        match self {
            Reply::Integer(i) => Some(*i),
            _ => None,
        }
    }

    /// The elements of a non-null array.
    pub fn as_array(&self) -> Option<&[Reply]> {
        match self {
            Reply::Array(Some(items)) => Some(items),
            _ => None,
        }
    }
}

/// A `redis-server` child process with its own temporary folder (its working
/// directory, so `dir` is `./`), logging to `redis.log` there.
///
/// Dropping it kills the process and removes the folder.
#[derive(Debug)]
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
    /// `--name value` pairs, kept so that a restart uses the same config.
    config: Vec<(String, String)>,
    cluster: bool,
    dir: TempDir,
}

impl RedisServer {
    /// A standalone server on a free 127.0.0.1 port with its own temporary
    /// folder: `appendonly yes`, `protected-mode no`, `bind 127.0.0.1`,
    /// `daemonize no`, and the default RDB snapshots. Returns once it answers
    /// PING.
    ///
    /// # Errors
    ///
    /// When `redis-server` is not on `PATH`, or the server does not answer
    /// within 10 s (the message then ends with its log).
    pub fn start() -> io::Result<Self> {
        Self::start_with(&[])
    }

    /// Like [`start`](Self::start), with `extra` config pairs appended to the
    /// command line as `--name value` (so they override the defaults), e.g.
    /// `[("appendonly", "no")]`.
    ///
    /// # Errors
    ///
    /// As for [`start`](Self::start), and when Redis rejects a config pair.
    pub fn start_with(extra: &[(&str, &str)]) -> io::Result<Self> {
        Self::launch(extra, false)
    }

    fn launch(extra: &[(&str, &str)], cluster: bool) -> io::Result<Self> {
        let mut attempt = 1;
        loop {
            let dir = tempfile::Builder::new()
                .prefix("bloomlab-redis-")
                .tempdir()
                .map_err(|e| context(e, "creating a temporary folder for redis-server"))?;
            let ports = free_ports(1 + usize::from(cluster))?;
            let mut config = vec![
                ("port", ports[0].to_string()),
                ("bind", "127.0.0.1".into()),
                ("protected-mode", "no".into()),
                ("daemonize", "no".into()),
                ("appendonly", "yes".into()),
                ("logfile", LOG.into()),
            ];
            if cluster {
                config.extend([
                    ("cluster-enabled", "yes".into()),
                    ("cluster-config-file", "nodes.conf".into()),
                    ("cluster-node-timeout", "5000".into()),
                    // port + 10000 may exceed 65535 for an ephemeral port.
                    ("cluster-port", ports[1].to_string()),
                ]);
            }
            config.extend(extra.iter().map(|&(name, value)| (name, value.to_owned())));
            let config = config.into_iter().map(|(n, v)| (n.to_owned(), v)).collect();
            let mut server = Self {
                child: None,
                port: ports[0],
                config,
                cluster,
                dir,
            };
            let taken = |e: &io::Error| e.to_string().contains("Address already in use");
            match server.spawn() {
                Err(e) if attempt < START_ATTEMPTS && taken(&e) => attempt += 1,
                result => return result.map(|()| server),
            }
        }
    }

    /// The port the server listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `redis://127.0.0.1:PORT/`
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The server's folder: its AOF, RDB, `nodes.conf` and `redis.log`.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Sends one command on a fresh connection and returns the reply; a
    /// server error such as `MOVED` is `Ok(Reply::Error(..))`. Since the
    /// connection is closed afterwards, connection state (`SELECT`, `MULTI`)
    /// does not carry over to the next call.
    ///
    /// # Errors
    ///
    /// When the server cannot be reached, or sends no well-formed reply
    /// within 30 s.
    pub fn command(&self, args: &[&str]) -> io::Result<Reply> {
        let what = format!("redis-server on port {}: {}", self.port, args.join(" "));
        request(self.port, args, REPLY_TIMEOUT).map_err(|e| context(e, &what))
    }

    /// Sends `SHUTDOWN SAVE` and waits, up to 30 s, for the process to exit.
    ///
    /// # Errors
    ///
    /// When the server is not running, refuses to shut down, or is still
    /// running after 30 s.
    pub fn shutdown_save(&mut self) -> io::Result<()> {
        if !self.is_running() {
            return Err(self.failure("SHUTDOWN SAVE: the server is not running"));
        }
        // On success the server closes the connection without a reply.
        if let Ok(Reply::Error(e)) = request(self.port, &["SHUTDOWN", "SAVE"], REPLY_TIMEOUT) {
            return Err(self.failure(&format!("SHUTDOWN SAVE refused: {e}")));
        }
        if !poll(EXIT_TIMEOUT, || !self.is_running()) {
            return Err(self.failure(&format!(
                "still running {EXIT_TIMEOUT:?} after SHUTDOWN SAVE"
            )));
        }
        Ok(())
    }

    /// Kills the process (SIGKILL) and waits for it; does nothing if it is
    /// not running.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port, in the same folder, with the
    /// same config, so the AOF (or RDB) is reloaded; kills it first if it is
    /// still running. Returns once it answers PING and, for a cluster node,
    /// once it reports `cluster_state:ok`.
    ///
    /// # Errors
    ///
    /// When the server does not answer within 10 s (say, because another
    /// process took its port), or a cluster node is not ok within 60 s.
    pub fn restart(&mut self) -> io::Result<()> {
        self.kill();
        self.spawn()?;
        if self.cluster {
            self.wait_until(
                Instant::now() + CLUSTER_TIMEOUT,
                "report cluster_state:ok",
                cluster_ok,
            )?;
        }
        Ok(())
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        match self.child.as_mut().map(Child::try_wait) {
            Some(Ok(None)) => true,
            Some(Ok(Some(_))) => {
                self.child = None;
                false
            }
            Some(Err(_)) | None => false,
        }
    }

    /// Spawns the process and waits until it answers PING.
    fn spawn(&mut self) -> io::Result<()> {
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir().join(LOG))
            .map_err(|e| context(e, "opening the redis-server log"))?;
        let mut command = Command::new("redis-server");
        // Config errors go to stderr before the log file is open.
        command
            .current_dir(self.dir())
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        for (name, value) in &self.config {
            command.arg(format!("--{name}")).arg(value);
        }
        let child = spawn_program(&mut command, "redis-server")?;
        let pid = child.id();
        self.child = Some(child);
        let ready = self.wait_until(Instant::now() + READY_TIMEOUT, "answer PING", |port| {
            answers_as(port, pid)
        });
        if ready.is_err() {
            self.kill();
        }
        ready
    }

    /// Polls `ready` until it holds, the process exits, or `deadline` passes.
    fn wait_until(
        &mut self,
        deadline: Instant,
        what: &str,
        ready: impl Fn(u16) -> io::Result<bool>,
    ) -> io::Result<()> {
        loop {
            let last = match ready(self.port) {
                Ok(true) => return Ok(()),
                Ok(false) => "not yet".to_owned(),
                Err(e) => e.to_string(),
            };
            if !self.is_running() {
                return Err(self.failure(&format!("exited before it would {what}")));
            }
            if Instant::now() >= deadline {
                return Err(self.failure(&format!("did not {what} in time (last: {last})")));
            }
            thread::sleep(POLL);
        }
    }

    fn failure(&self, what: &str) -> io::Error {
        let log = log_tail(&self.dir().join(LOG));
        io::Error::other(format!(
            "redis-server on port {}: {what}; its log ends with:\n{log}",
            self.port
        ))
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A Redis Cluster of masters without replicas, each a [`RedisServer`].
#[derive(Debug)]
pub struct RedisCluster {
    nodes: Vec<RedisServer>,
}

impl RedisCluster {
    /// Starts `masters` cluster-enabled servers (each with `nodes.conf` in
    /// its folder, `cluster-node-timeout 5000`, `appendonly yes` and its bus
    /// on a second free port) and joins them with `redis-cli --cluster
    /// create`. Returns once every node reports `cluster_state:ok` with all
    /// 16384 slots assigned.
    ///
    /// # Errors
    ///
    /// When `masters < 3`, a node does not start, `redis-cli` fails or takes
    /// more than 60 s, or the cluster is not ok within 60 s.
    pub fn start(masters: usize) -> io::Result<Self> {
        if masters < 3 {
            let message = format!("a Redis Cluster needs at least 3 masters, not {masters}");
            return Err(invalid_input(message));
        }
        let nodes = (0..masters)
            .map(|_| RedisServer::launch(&[], true))
            .collect::<io::Result<_>>()?;
        let mut cluster = Self { nodes };
        cluster.create()?;
        cluster.wait_all_ok()?;
        Ok(cluster)
    }

    /// The nodes' URLs, in node order.
    pub fn urls(&self) -> Vec<String> {
        self.nodes.iter().map(RedisServer::url).collect()
    }

    /// The nodes, in the order they were started.
    pub fn nodes(&self) -> &[RedisServer] {
        &self.nodes
    }

    /// Node `i`, to kill or restart it on its own.
    ///
    /// # Panics
    ///
    /// When `i` is not below the number of nodes.
    pub fn node_mut(&mut self, i: usize) -> &mut RedisServer {
        &mut self.nodes[i]
    }

    /// The index of the node that serves `slot`, from `CLUSTER SLOTS` as
    /// seen by the first node that answers.
    ///
    /// # Errors
    ///
    /// When `slot` is not below 16384, no node answers, or no node serves it.
    pub fn node_of_slot(&self, slot: u16) -> io::Result<usize> {
        if slot >= SLOTS {
            return Err(invalid_input(format!("slot {slot} is not below {SLOTS}")));
        }
        // Any running node knows the whole map; a test may have killed some.
        let slots = self
            .nodes
            .iter()
            .find_map(|node| node.command(&["CLUSTER", "SLOTS"]).ok())
            .ok_or_else(|| io::Error::other("no node answers CLUSTER SLOTS"))?;
        owner_port(&slots, slot)
            .and_then(|port| self.nodes.iter().position(|n| i64::from(n.port) == port))
            .ok_or_else(|| io::Error::other(format!("no node serves slot {slot}: {slots:?}")))
    }

    /// Shuts node `i` down with `SHUTDOWN SAVE`, starts it again, and waits
    /// until every node reports `cluster_state:ok`.
    ///
    /// # Errors
    ///
    /// When there is no node `i`, or as for [`RedisServer::shutdown_save`],
    /// [`RedisServer::restart`] and [`start`](Self::start).
    pub fn restart_node(&mut self, i: usize) -> io::Result<()> {
        let count = self.nodes.len();
        let node = self
            .nodes
            .get_mut(i)
            .ok_or_else(|| invalid_input(format!("no node {i} in a cluster of {count}")))?;
        node.shutdown_save()?;
        node.restart()?;
        self.wait_all_ok()
    }

    fn create(&self) -> io::Result<()> {
        let log_path = self.nodes[0].dir().join("cluster-create.log");
        let log = File::create(&log_path).map_err(|e| context(e, "creating the redis-cli log"))?;
        let mut command = Command::new("redis-cli");
        command.args(["--cluster", "create"]);
        command.args(self.nodes.iter().map(|n| format!("127.0.0.1:{}", n.port)));
        command.args(["--cluster-replicas", "0", "--cluster-yes"]);
        command
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        let mut child = spawn_program(&mut command, "redis-cli")?;
        poll(CLUSTER_TIMEOUT, || !matches!(child.try_wait(), Ok(None)));
        let outcome = match child.try_wait()? {
            Some(status) if status.success() => return Ok(()),
            Some(status) => format!("failed ({status})"),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                format!("did not finish within {CLUSTER_TIMEOUT:?}")
            }
        };
        let output = log_tail(&log_path);
        Err(io::Error::other(format!(
            "redis-cli --cluster create {outcome}; its output ends with:\n{output}"
        )))
    }

    fn wait_all_ok(&mut self) -> io::Result<()> {
        let deadline = Instant::now() + CLUSTER_TIMEOUT;
        for node in &mut self.nodes {
            node.wait_until(
                deadline,
                "report cluster_state:ok with all slots assigned",
                cluster_ok,
            )?;
        }
        Ok(())
    }
}

/// The hash slot of `key` as Redis Cluster computes it: CRC16-XMODEM of the
/// key, or of the hash tag inside it (the bytes between the first `{` and
/// the next `}`, if there are any), mod 16384. Keys with the same tag, like
/// `{user1000}.following` and `{user1000}.followers`, share a slot.
pub fn key_slot(key: &[u8]) -> u16 {
    let tag = |open: usize| {
        let rest = &key[open + 1..];
        let close = rest.iter().position(|&b| b == b'}')?;
        (close > 0).then(|| &rest[..close])
    };
    let hashed = key
        .iter()
        .position(|&b| b == b'{')
        .and_then(tag)
        .unwrap_or(key);
    crc16_xmodem(hashed) % SLOTS
}

/// CRC16 with polynomial 0x1021, initial value 0, no reflection: the one in
/// the Redis Cluster specification. Bitwise, since tests hash few keys.
fn crc16_xmodem(bytes: &[u8]) -> u16 {
    let mut crc = 0u16;
    for &byte in bytes {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            let carry = crc & 0x8000 != 0;
            crc = (crc << 1) ^ if carry { 0x1021 } else { 0 };
        }
    }
    crc
}

/// The port of the master whose range in a `CLUSTER SLOTS` reply holds `slot`.
fn owner_port(slots: &Reply, slot: u16) -> Option<i64> {
    slots.as_array()?.iter().find_map(|range| {
        let range = range.as_array()?;
        let (start, end) = (range.first()?.as_integer()?, range.get(1)?.as_integer()?);
        let master = range.get(2)?.as_array()?;
        (start..=end)
            .contains(&i64::from(slot))
            .then(|| master.get(1)?.as_integer())
            .flatten()
    })
}

/// Whether the server on `port` answers PING and is process `pid`. Another
/// server may have taken the port between [`free_ports`] and our bind (ours
/// then exits, and [`RedisServer::launch`] tries other ports): its PONG must
/// not pass for ours, or a cluster would be joined with another's node.
fn answers_as(port: u16, pid: u32) -> io::Result<bool> {
    if request(port, &["PING"], POLL)?.as_str() != Some("PONG") {
        return Ok(false);
    }
    let info = request(port, &["INFO", "server"], POLL)?;
    let serving = info
        .as_str()
        .unwrap_or_default()
        .lines()
        .find_map(|line| line.strip_prefix("process_id:"))
        .and_then(|id| id.trim().parse::<u32>().ok());
    Ok(serving == Some(pid))
}

fn cluster_ok(port: u16) -> io::Result<bool> {
    let info = request(port, &["CLUSTER", "INFO"], REPLY_TIMEOUT)?;
    let info = info.as_str().unwrap_or_default();
    Ok(info.contains("cluster_state:ok")
        && info.contains(&format!("cluster_slots_assigned:{SLOTS}")))
}

/// Calls `done` every 50 ms until it holds (true) or `limit` passes (false).
fn poll(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while !done() {
        if Instant::now() >= deadline {
            return false;
        }
        thread::sleep(POLL);
    }
    true
}

/// Sends `args` as a RESP array of bulk strings on a new connection and
/// reads one reply, waiting at most `timeout` for each step.
fn request(port: u16, args: &[&str], timeout: Duration) -> io::Result<Reply> {
    let stream =
        TcpStream::connect_timeout(&SocketAddr::from((Ipv4Addr::LOCALHOST, port)), timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    let mut message = format!("*{}\r\n", args.len()).into_bytes();
    for arg in args {
        write!(message, "${}\r\n{arg}\r\n", arg.len())?;
    }
    (&stream).write_all(&message)?;
    read_reply(&mut BufReader::new(stream))
}

fn read_reply(reader: &mut impl BufRead) -> io::Result<Reply> {
    let mut line = Vec::new();
    reader.read_until(b'\n', &mut line)?;
    let Some((&kind, rest)) = line.strip_suffix(b"\r\n").and_then(<[u8]>::split_first) else {
        return Err(io::Error::new(
            ErrorKind::UnexpectedEof,
            "connection closed before a whole reply",
        ));
    };
    let text = String::from_utf8_lossy(rest).into_owned();
    let number = || {
        text.parse::<i64>().map_err(|_| {
            io::Error::new(ErrorKind::InvalidData, format!("bad RESP number {text:?}"))
        })
    };
    Ok(match kind {
        b'+' => Reply::Simple(text),
        b'-' => Reply::Error(text),
        b':' => Reply::Integer(number()?),
        // A negative length (-1) is the null bulk string or array.
        b'$' => Reply::Bulk(match usize::try_from(number()?) {
            Ok(len) => {
                let mut bytes = vec![0; len + 2];
                reader.read_exact(&mut bytes)?;
                bytes.truncate(len);
                Some(bytes)
            }
            Err(_) => None,
        }),
        b'*' => Reply::Array(match usize::try_from(number()?) {
            Ok(len) => Some(
                (0..len)
                    .map(|_| read_reply(reader))
                    .collect::<io::Result<_>>()?,
            ),
            Err(_) => None,
        }),
        other => {
            let message = format!("unknown RESP type byte {:?}", char::from(other));
            return Err(io::Error::new(ErrorKind::InvalidData, message));
        }
    })
}

/// `n` distinct free loopback ports: all are held until all are found.
fn free_ports(n: usize) -> io::Result<Vec<u16>> {
    let bind = |_| TcpListener::bind((Ipv4Addr::LOCALHOST, 0));
    let listeners = (0..n).map(bind).collect::<io::Result<Vec<_>>>()?;
    listeners
        .iter()
        .map(|l| Ok(l.local_addr()?.port()))
        .collect()
}

fn spawn_program(command: &mut Command, program: &str) -> io::Result<Child> {
    command.spawn().map_err(|e| match e.kind() {
        ErrorKind::NotFound => io::Error::new(e.kind(), format!("{program} {NOT_FOUND}")),
        _ => context(e, &format!("starting {program}")),
    })
}

/// The last 20 lines of a log, or why it cannot be read.
fn log_tail(path: &Path) -> String {
    match std::fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let lines: Vec<&str> = text.lines().collect();
            lines[lines.len().saturating_sub(20)..].join("\n")
        }
        Err(e) => format!("(cannot read {}: {e})", path.display()),
    }
}

fn invalid_input(message: String) -> io::Error {
    io::Error::new(ErrorKind::InvalidInput, message)
}

fn context(e: io::Error, what: &str) -> io::Error {
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_parsed() {
        let mut input: &[u8] = b"*4\r\n+OK\r\n:-7\r\n$3\r\na\r\n\r\n*2\r\n$-1\r\n-ERR no\r\n";
        let reply = read_reply(&mut input).unwrap();
        let expected = Reply::Array(Some(vec![
            Reply::Simple("OK".into()),
            Reply::Integer(-7),
            Reply::Bulk(Some(b"a\r\n".to_vec())),
            Reply::Array(Some(vec![Reply::Bulk(None), Reply::Error("ERR no".into())])),
        ]));
        assert_eq!(reply, expected);
        assert!(read_reply(&mut &b"$5\r\nab"[..]).is_err());
        assert!(read_reply(&mut &b""[..]).is_err());
    }

    #[test]
    fn a_server_whose_port_is_taken_is_not_mistaken_for_the_one_holding_it() {
        let holder = RedisServer::start().unwrap();
        let mut late = RedisServer {
            child: None,
            port: holder.port,
            config: holder.config.clone(),
            cluster: false,
            dir: tempfile::tempdir().unwrap(),
        };
        // The holder answers PING on the port at once; the late server fails
        // to bind it and exits.
        let error = late.spawn().unwrap_err();
        assert!(
            error.to_string().contains("Address already in use"),
            "{error}"
        );
        assert!(!late.is_running());
        assert_eq!(holder.command(&["PING"]).unwrap().as_str(), Some("PONG"));
    }
}
