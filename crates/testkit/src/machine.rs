//! What the machine running the tests does with extreme requests.

use std::fmt::Debug;
use std::sync::mpsc;
use std::time::Duration;

use bloomlab_core::Filter;

/// Whether the allocator refuses a request larger than the machine's memory:
/// Linux overcommit modes 0 (heuristic) and 2 (strict) do, mode 1 grants
/// every request lazily. Tests that expect `OutOfMemory` for a 4.8 TB table
/// accept a working filter where this is false; either way nothing aborts.
pub fn refuses_oversized_requests() -> bool {
    std::fs::read_to_string("/proc/sys/vm/overcommit_memory").is_ok_and(|m| m.trim() != "1")
}

/// Asserts what a constructor asked for a table of `bytes` bytes returned:
/// the error `refused` (its out-of-memory error for that size), or, on a
/// machine that grants every request lazily
/// ([`refuses_oversized_requests`] false), a filter of that size.
///
/// # Panics
///
/// On any other error, or on a filter where the machine refuses such
/// requests or of another size.
pub fn assert_refused_or_granted<F, E>(result: Result<F, E>, refused: E, bytes: u128)
where
    F: Filter,
    E: PartialEq + Debug,
{
    match result {
        Err(e) => assert_eq!(e, refused, "expected {refused:?}"),
        Ok(f) => {
            assert!(!refuses_oversized_requests(), "{bytes} bytes were granted");
            assert_eq!(f.memory_bytes() as u128, bytes);
        }
    }
}

/// Resident memory of this process in bytes (Linux, from
/// `/proc/self/status`), or `None` where it cannot be read.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Runs `work` on its own thread and panics, naming `what`, if it has not
/// returned within `limit`: a hang becomes a test failure, not a stuck CI
/// job. (The thread is left behind; the test process ends soon after.)
///
/// # Panics
///
/// When `work` takes longer than `limit`, or panics itself.
pub fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("{what} did not return within {limit:?}"))
}
