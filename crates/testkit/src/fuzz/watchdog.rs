//! The watchdog: each case on a worker thread, its panics and hangs caught
//! and reported.

use std::cell::{Cell, RefCell};
use std::fmt::Write as _;
use std::io::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Once};
use std::time::Instant;

use super::*;

thread_local! {
    /// Whether this thread is a fuzz worker, whose panics are reported by
    /// the driver instead of printed by the hook.
    static IN_WORKER: Cell<bool> = const { Cell::new(false) };

    /// The message and place of this worker's last panic (per thread, as
    /// several plans may run at once).
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs, once, a panic hook that keeps a worker's panic message and
/// location for the report and leaves every other thread's panic to the
/// hook that was there before.
fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if IN_WORKER.with(Cell::get) {
                LAST_PANIC.with(|last| *last.borrow_mut() = Some(info.to_string()));
            } else {
                previous(info);
            }
        }));
    });
}

/// What the worker tells the watchdog.
enum Msg {
    /// Case `index` starts.
    Start(u64, String, usize),
    /// Case `index` finished: decoded or not, or the panic it raised.
    Done(u64, Result<bool, String>),
    /// Every case ran.
    Finished,
}

/// Runs every case of `plan` through `exercise`, which decodes the bytes,
/// uses whatever decodes and returns whether anything did.
///
/// Each case runs on a worker thread; the calling thread is the watchdog. A
/// case that runs past [`Plan::case_limit`] is reported as a hang and ends
/// the run (its thread cannot be stopped; it dies with the test process).
///
/// # Panics
///
/// If any case panicked or hung, naming up to ten of them: their index,
/// description, input length and panic message. Also if a sample does not
/// decode unchanged.
pub fn run<U>(plan: &Plan, exercise: U) -> Report
where
    U: Fn(&[u8]) -> bool + Send + Sync + 'static,
{
    install_hook();
    let start = Instant::now();
    let only = std::env::var("BLOOMLAB_FUZZ_CASE")
        .ok()
        .and_then(|v| v.parse::<u64>().ok());
    let trace = std::env::var_os("BLOOMLAB_FUZZ_TRACE").is_some();
    let worker_plan = plan.clone();
    let directed = plan.directed();
    let directed_len = directed.len() as u64;
    let must_decode: Vec<bool> = directed.iter().map(|d| d.2).collect();
    let total = plan.total(directed.len());
    let (tx, rx) = mpsc::channel();
    let exercise = Arc::new(exercise);
    std::thread::Builder::new()
        .name(format!("fuzz-{}", plan.name))
        .spawn(move || {
            IN_WORKER.with(|w| w.set(true));
            let indices: Box<dyn Iterator<Item = u64>> = match only {
                Some(i) => Box::new(std::iter::once(i)),
                None => Box::new(0..total),
            };
            for index in indices {
                let case = worker_plan.case_with(&directed, index);
                if trace {
                    let _ = writeln!(
                        std::io::stderr(),
                        "fuzz {} case {index}: {}",
                        worker_plan.name,
                        case.description
                    );
                }
                let len = case.bytes.len();
                if tx.send(Msg::Start(index, case.description, len)).is_err() {
                    return;
                }
                let outcome = panic::catch_unwind(AssertUnwindSafe(|| exercise(&case.bytes)))
                    .map_err(|payload| {
                        let hooked = LAST_PANIC.with(|last| last.borrow_mut().take());
                        hooked.unwrap_or_else(|| {
                            payload
                                .downcast_ref::<&str>()
                                .map(|s| s.to_string())
                                .or_else(|| payload.downcast_ref::<String>().cloned())
                                .unwrap_or_else(|| "a panic without a message".into())
                        })
                    });
                if tx.send(Msg::Done(index, outcome)).is_err() {
                    return;
                }
            }
            let _ = tx.send(Msg::Finished);
        })
        .expect("spawn the fuzz worker");

    let mut report = Report::default();
    let mut failures: Vec<String> = Vec::new();
    let mut current: Option<(u64, String, usize)> = None;
    let mut started = Instant::now();
    loop {
        match rx.recv_timeout(plan.case_limit) {
            Ok(Msg::Start(index, description, len)) => {
                current = Some((index, description, len));
                started = Instant::now();
            }
            Ok(Msg::Done(index, outcome)) => {
                let (_, description, len) = current.take().unwrap_or_default();
                let took = started.elapsed();
                if report.slowest.as_ref().is_none_or(|s| took > s.1) {
                    report.slowest = Some((index, took, description.clone()));
                }
                report.cases += 1;
                let is_directed = index < directed_len;
                if is_directed {
                    report.directed.0 += 1;
                }
                match outcome {
                    Ok(decoded) => {
                        report.decoded += u64::from(decoded);
                        if is_directed {
                            report.directed.1 += u64::from(decoded);
                        }
                        if !decoded && must_decode.get(index as usize) == Some(&true) {
                            failures.push(format!(
                                "case {index}: {description}: a valid sample does not decode (the plan is wrong)"
                            ));
                        }
                    }
                    Err(message) => failures.push(format!(
                        "case {index} PANICKED: {description} ({len} bytes): {message}"
                    )),
                }
                if failures.len() >= MAX_FAILURES {
                    break;
                }
            }
            Ok(Msg::Finished) => break,
            Err(RecvTimeoutError::Timeout) => {
                let (index, description, len) = current.take().unwrap_or_default();
                failures.push(format!(
                    "case {index} HUNG (still running after {:?}): {description} ({len} bytes)",
                    plan.case_limit
                ));
                break;
            }
            Err(RecvTimeoutError::Disconnected) => {
                let (index, description, _) = current.take().unwrap_or_default();
                failures.push(format!(
                    "the worker died during case {index}: {description}"
                ));
                break;
            }
        }
    }
    report.elapsed = start.elapsed();
    if !failures.is_empty() {
        let mut msg = format!(
            "fuzz {}: {} failing case(s) after {report}; rerun one with BLOOMLAB_FUZZ_CASE=<index>:\n",
            plan.name,
            failures.len()
        );
        for f in &failures {
            let _ = writeln!(msg, "- {f}");
        }
        panic!("{msg}");
    }
    report
}

/// [`run`] with `decode` as the decoder and `exercise` as the use of
/// whatever decodes; prints the report to stderr under the plan's name.
///
/// # Panics
///
/// As [`run`].
pub fn run_decoder<F, E>(
    plan: &Plan,
    decode: fn(&[u8]) -> Result<F, E>,
    exercise: fn(&mut F),
) -> Report
where
    F: 'static,
    E: 'static,
{
    let report = run(plan, move |bytes| match decode(bytes) {
        Ok(mut f) => {
            exercise(&mut f);
            true
        }
        Err(_) => false,
    });
    eprintln!("{}: {report}", plan.name);
    report
}
