//! The performance goals of issue 8, as data, and their verdicts.

use super::compare::{find, ratio};
use super::criterion::Measurement;

/// One goal: `subject` in `group` takes at most `max_ratio` times the time of
/// `reference` in `reference_group`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Goal {
    /// What the goal says, in words.
    pub description: &'static str,
    /// The group of the measured row.
    pub group: &'static str,
    /// The function id of the measured row.
    pub subject: &'static str,
    /// The group of the reference row.
    pub reference_group: &'static str,
    /// The function id of the reference row.
    pub reference: &'static str,
    /// The largest ratio (subject's time over reference's) that meets the goal.
    pub max_ratio: f64,
    /// Reported for information; not one of the goals.
    pub informational: bool,
}

const fn goal(
    description: &'static str,
    group: &'static str,
    subject: &'static str,
    reference_group: &'static str,
    reference: &'static str,
    max_ratio: f64,
) -> Goal {
    Goal {
        description,
        group,
        subject,
        reference_group,
        reference,
        max_ratio,
        informational: false,
    }
}

const fn informational(goal: Goal) -> Goal {
    Goal {
        informational: true,
        ..goal
    }
}

/// The goals of issue 8, in the order the issue states them.
pub const GOALS: &[Goal] = &[
    goal(
        "BloomFilter miss lookup at most fastbloom's time, same hasher",
        "classic/lookup_miss",
        "bloomlab::BloomFilter",
        "classic/lookup_miss",
        "fastbloom (SipHash-1-3)",
        1.0,
    ),
    goal(
        "BlockedBloomFilter miss lookup at most half fastbloom's time, same hasher",
        "classic/lookup_miss",
        "bloomlab::BlockedBloomFilter",
        "classic/lookup_miss",
        "fastbloom (SipHash-1-3)",
        0.5,
    ),
    informational(goal(
        "BlockedBloomFilter batched miss lookup against the same target",
        "classic/lookup_miss",
        "bloomlab::BlockedBloomFilter (batch)",
        "classic/lookup_miss",
        "fastbloom (SipHash-1-3)",
        0.5,
    )),
    goal(
        "CuckooFilter hit lookup at most half cuckoofilter's time",
        "cuckoo/lookup_hit",
        "bloomlab::CuckooFilter",
        "cuckoo/lookup_hit",
        "cuckoofilter",
        0.5,
    ),
    goal(
        "CuckooFilter miss lookup at most half cuckoofilter's time",
        "cuckoo/lookup_miss",
        "bloomlab::CuckooFilter",
        "cuckoo/lookup_miss",
        "cuckoofilter",
        0.5,
    ),
    goal(
        "CountingBloomFilter hit lookup at most half fastbloom-rs counting's time",
        "counting/lookup_hit",
        "bloomlab::CountingBloomFilter",
        "counting/lookup_hit",
        "fastbloom-rs::CountingBloomFilter",
        0.5,
    ),
    goal(
        "CountingBloomFilter miss lookup at most half fastbloom-rs counting's time",
        "counting/lookup_miss",
        "bloomlab::CountingBloomFilter",
        "counting/lookup_miss",
        "fastbloom-rs::CountingBloomFilter",
        0.5,
    ),
    goal(
        "ScalableBloomFilter hit lookup at most 0.7 of growable-bloom-filter's time",
        "scalable/lookup_hit",
        "bloomlab::ScalableBloomFilter",
        "scalable/lookup_hit",
        "growable-bloom-filter",
        0.7,
    ),
    goal(
        "ScalableBloomFilter miss lookup at most 0.7 of growable-bloom-filter's time",
        "scalable/lookup_miss",
        "bloomlab::ScalableBloomFilter",
        "scalable/lookup_miss",
        "growable-bloom-filter",
        0.7,
    ),
    goal(
        "Large filter: batched BlockedBloomFilter hit lookup within 2x the independent-loads floor",
        "big/lookup_hit",
        "bloomlab::BlockedBloomFilter (batch)",
        "big/floor",
        "independent loads",
        2.0,
    ),
    goal(
        "Large filter: batched BlockedBloomFilter miss lookup within 2x the independent-loads floor",
        "big/lookup_miss",
        "bloomlab::BlockedBloomFilter (batch)",
        "big/floor",
        "independent loads",
        2.0,
    ),
    goal(
        "Large filter: BlockedBloomFilter hit lookup within 1.5x the dependent-load floor",
        "big/lookup_hit",
        "bloomlab::BlockedBloomFilter",
        "big/floor",
        "dependent loads",
        1.5,
    ),
    goal(
        "Large filter: BlockedBloomFilter miss lookup within 1.5x the dependent-load floor",
        "big/lookup_miss",
        "bloomlab::BlockedBloomFilter",
        "big/floor",
        "dependent loads",
        1.5,
    ),
];

/// Whether a goal was met in this run.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The measured ratio is at most the goal's.
    Met,
    /// The measured ratio is above the goal's.
    NotMet,
    /// A row the goal needs is absent; holds the missing `group/subject` ids.
    NotMeasured(Vec<String>),
}

/// A goal with its measured ratio and verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The goal.
    pub goal: Goal,
    /// Subject's median ns/op over the reference's, when both were measured.
    pub ratio: Option<f64>,
    /// The verdict.
    pub verdict: Verdict,
}

/// Judges `goal` against the measurements of one run. The reference is taken
/// at the subject's setting when it was measured there.
pub fn evaluate(goal: &Goal, measurements: &[Measurement]) -> Outcome {
    let subject = find(measurements, goal.group, goal.subject, None);
    let setting = subject.and_then(|s| s.setting.as_deref());
    let reference = find(measurements, goal.reference_group, goal.reference, setting);
    let (ratio, verdict) = match (subject, reference) {
        (Some(s), Some(r)) => match ratio(s.ns_per_op(), r.ns_per_op()) {
            Some(x) if x <= goal.max_ratio => (Some(x), Verdict::Met),
            Some(x) => (Some(x), Verdict::NotMet),
            // A zero-time reference cannot be compared with.
            None => (
                None,
                Verdict::NotMeasured(vec![id(goal.reference_group, goal.reference)]),
            ),
        },
        _ => {
            let mut missing = Vec::new();
            if subject.is_none() {
                missing.push(id(goal.group, goal.subject));
            }
            if reference.is_none() {
                missing.push(id(goal.reference_group, goal.reference));
            }
            (None, Verdict::NotMeasured(missing))
        }
    };
    Outcome {
        goal: *goal,
        ratio,
        verdict,
    }
}

/// Every goal of [`GOALS`] judged against `measurements`.
pub fn evaluate_all(measurements: &[Measurement]) -> Vec<Outcome> {
    GOALS.iter().map(|g| evaluate(g, measurements)).collect()
}

fn id(group: &str, subject: &str) -> String {
    format!("{group}/{subject}")
}
