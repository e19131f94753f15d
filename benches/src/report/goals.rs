//! The performance goals of issues 8, 20 and 51, as data, and their verdicts.

use super::compare::{FLOOR_PREFIX, find, find_at, is_floor_group, ratio, turns_group};
use super::criterion::Measurement;
use crate::floor::{FUSE_SLOTS, ONE_LINE, OWN_ONE_LINE, OWN_ONE_LINE_BATCH};
use crate::harness::turns_id;

/// One goal: `subject` in `group` takes at most `max_ratio` times the time of
/// `reference` in `reference_group`, both at `setting` when it is given.
#[derive(Clone, Debug, PartialEq)]
pub struct Goal {
    /// The issue that set the goal.
    pub issue: u32,
    /// What the goal says, in words.
    pub description: String,
    /// The group of the measured row.
    pub group: &'static str,
    /// The function id of the measured row.
    pub subject: &'static str,
    /// The group of the reference row.
    pub reference_group: &'static str,
    /// The function id of the reference row.
    pub reference: &'static str,
    /// The setting both rows are taken at; `None`: the subject's only (or
    /// first) setting, and the reference at the same one if measured there.
    pub setting: Option<&'static str>,
    /// The reference's own setting, where it differs from `setting` (one
    /// filter against itself at another thread count).
    pub reference_setting: Option<&'static str>,
    /// The largest ratio (subject's time over reference's) that meets the goal.
    pub max_ratio: f64,
    /// Where `max_ratio` lies below the subject's floor (the goal is [out
    /// of reach](Verdict::OutOfReach)), the goal the issue sets instead:
    /// the subject's time at most this many times that floor's.
    pub at_floor: Option<f64>,
    /// Reported for information; not one of the issue's goals.
    pub informational: bool,
}

/// A goal of issue 8, at the subject's only setting.
fn issue8(
    description: &str,
    [group, subject]: [&'static str; 2],
    [reference_group, reference]: [&'static str; 2],
    max_ratio: f64,
) -> Goal {
    Goal {
        issue: 8,
        description: description.to_owned(),
        group,
        subject,
        reference_group,
        reference,
        setting: None,
        reference_setting: None,
        max_ratio,
        at_floor: None,
        informational: false,
    }
}

/// Goal of `issue`: `subject`'s row of `group` at `setting`, at most
/// `max_ratio` times the `reference` row of the same group and setting.
fn at_setting(
    issue: u32,
    description: String,
    [group, subject, reference]: [&'static str; 3],
    setting: &'static str,
    max_ratio: f64,
) -> Goal {
    Goal {
        issue,
        description,
        group,
        subject,
        reference_group: group,
        reference,
        setting: Some(setting),
        reference_setting: None,
        max_ratio,
        at_floor: None,
        informational: false,
    }
}

fn informational(goal: Goal) -> Goal {
    Goal {
        informational: true,
        ..goal
    }
}

/// The sizes of issue 20's peer goals: the settings of `scale/*`.
pub const SCALE_SETTINGS: [&str; 2] = ["1M items, 1%", "20M items, 1%"];

/// Issue 20's peer goals: each bloomlab filter's lookups (misses and hits,
/// at each of [`SCALE_SETTINGS`]) against its peer, built by both crates'
/// default constructors, at most this ratio.
pub const SCALE_PEERS: [(&str, &str, f64); 7] = [
    ("bloomlab::BloomFilter", "fastbloom::BloomFilter", 0.8),
    (
        "bloomlab::BlockedBloomFilter",
        "fastbloom::BloomFilter",
        0.6,
    ),
    (
        "bloomlab::AtomicBloomFilter",
        "fastbloom::AtomicBloomFilter",
        0.8,
    ),
    (
        "bloomlab::CountingBloomFilter",
        "fastbloom-rs::CountingBloomFilter",
        0.8,
    ),
    (
        "bloomlab::BlockedCountingBloomFilter",
        "fastbloom-rs::CountingBloomFilter",
        0.8,
    ),
    ("bloomlab::CuckooFilter", "cuckoofilter", 0.8),
    (
        "bloomlab::ScalableBloomFilter",
        "growable-bloom-filter",
        0.8,
    ),
];

/// The sizes of issue 51's goals: the settings of `fuse/*`, in keys.
pub const FUSE_SETTINGS: [&str; 2] = ["1000000", "20000000"];

/// The bloomlab row of issue 51's goals: the shape of xorf's
/// `BinaryFuse8`, 8-bit fingerprints, 3-wise.
pub const FUSE_SUBJECT: &str = "bloomlab 8-bit 3-wise";

/// The same filter's lookups under its shape (`BinaryFuseFilter::shaped`),
/// as xorf's type fixes it: no choice of shape for each key.
pub const FUSE_SHAPED: &str = "bloomlab 8-bit 3-wise (shaped)";

/// The filter's batch lookups (`contains_batch`, prefetching, its shape
/// found once a batch).
pub const FUSE_BATCH_SUBJECT: &str = "bloomlab 8-bit 3-wise (batch)";

/// The setting of the 1 GiB rows of `big/*` and their floors.
pub const BIG_SETTING: &str = "1 GiB, 1%";

/// The goals of issue 8 that still stand (its dependent-load goals are
/// replaced by issue 20's floors), then issue 20's, in the order the issues
/// state them.
pub fn all() -> Vec<Goal> {
    let miss = "classic/lookup_miss";
    let fastbloom = [miss, "fastbloom (SipHash-1-3)"];
    let mut goals = vec![
        issue8(
            "BloomFilter miss lookup at most fastbloom's time, same hasher",
            [miss, "bloomlab::BloomFilter"],
            fastbloom,
            1.0,
        ),
        issue8(
            "BlockedBloomFilter miss lookup at most half fastbloom's time, same hasher",
            [miss, "bloomlab::BlockedBloomFilter"],
            fastbloom,
            0.5,
        ),
        informational(issue8(
            "BlockedBloomFilter batched miss lookup against the same target",
            [miss, "bloomlab::BlockedBloomFilter (batch)"],
            fastbloom,
            0.5,
        )),
    ];
    for (kind, group) in [("hit", "cuckoo/lookup_hit"), ("miss", "cuckoo/lookup_miss")] {
        goals.push(issue8(
            &format!("CuckooFilter {kind} lookup at most half cuckoofilter's time"),
            [group, "bloomlab::CuckooFilter"],
            [group, "cuckoofilter"],
            0.5,
        ));
    }
    for (kind, group) in [
        ("hit", "counting/lookup_hit"),
        ("miss", "counting/lookup_miss"),
    ] {
        goals.push(issue8(
            &format!("CountingBloomFilter {kind} lookup at most half fastbloom-rs counting's time"),
            [group, "bloomlab::CountingBloomFilter"],
            [group, "fastbloom-rs::CountingBloomFilter"],
            0.5,
        ));
    }
    for (kind, group) in [
        ("hit", "scalable/lookup_hit"),
        ("miss", "scalable/lookup_miss"),
    ] {
        goals.push(issue8(
            &format!(
                "ScalableBloomFilter {kind} lookup at most 0.7 of growable-bloom-filter's time"
            ),
            [group, "bloomlab::ScalableBloomFilter"],
            [group, "growable-bloom-filter"],
            0.7,
        ));
    }

    for setting in SCALE_SETTINGS {
        for (subject, peer, max_ratio) in SCALE_PEERS {
            for (kind, group) in [("miss", "scale/lookup_miss"), ("hit", "scale/lookup_hit")] {
                goals.push(at_setting(
                    20,
                    format!(
                        "{} {kind} lookup at {setting}, default constructors, against {peer}",
                        subject.trim_start_matches("bloomlab::")
                    ),
                    [group, subject, peer],
                    setting,
                    max_ratio,
                ));
            }
        }
    }
    // The one-line counting layout: at most half fastbloom-rs's counting
    // lookups at 20M items.
    for (kind, group) in [("miss", "scale/lookup_miss"), ("hit", "scale/lookup_hit")] {
        goals.push(Goal {
            issue: 20,
            description: format!(
                "BlockedCountingBloomFilter (one line) {kind} lookup at {} at most half \
                 fastbloom-rs's counting lookups",
                SCALE_SETTINGS[1]
            ),
            group,
            subject: "bloomlab::BlockedCountingBloomFilter",
            reference_group: group,
            reference: "fastbloom-rs::CountingBloomFilter",
            setting: Some(SCALE_SETTINGS[1]),
            reference_setting: None,
            max_ratio: 0.5,
            at_floor: None,
            informational: false,
        });
    }
    // The floors' goals: at 1 GiB as the issue states them, and the same
    // ratios at 20M items for information; against the floors over the
    // filter's own table, which read the very lines its lookups read.
    for (setting, floor_group, family, informational) in [
        (BIG_SETTING, "big/floor", "big", false),
        (SCALE_SETTINGS[1], "scale/floor", "scale", true),
    ] {
        for kind in ["miss", "hit"] {
            let group = match (family, kind) {
                ("big", "miss") => "big/lookup_miss",
                ("big", _) => "big/lookup_hit",
                (_, "miss") => "scale/lookup_miss",
                _ => "scale/lookup_hit",
            };
            for (subject, floor, max_ratio) in [
                (
                    "bloomlab::BlockedBloomFilter (batch)",
                    OWN_ONE_LINE_BATCH,
                    1.5,
                ),
                ("bloomlab::BlockedBloomFilter", OWN_ONE_LINE, 1.2),
            ] {
                goals.push(Goal {
                    issue: 20,
                    description: format!(
                        "{} {kind} lookup at {setting} within {max_ratio}x its floor",
                        subject.trim_start_matches("bloomlab::")
                    ),
                    group,
                    subject,
                    reference_group: floor_group,
                    reference: floor,
                    setting: Some(setting),
                    reference_setting: None,
                    max_ratio,
                    at_floor: None,
                    informational,
                });
            }
        }
    }
    goals.extend(issue51());
    goals.extend(issue55());
    goals.extend(issue52());
    goals
}

/// Issue 51's goals, at each of [`FUSE_SETTINGS`]: lookups at most 0.8
/// times xorf's `BinaryFuse8` and construction at most its time; and, for
/// where 0.8 times lies below what any lookup costs, lookups within 1.1
/// times their floor (the hash and three reads), reported beside them.
fn issue51() -> Vec<Goal> {
    let groups = ["fuse/lookup_miss", "fuse/lookup_hit", "fuse/floor"];
    let peer = "xorf::BinaryFuse8";
    let mut goals = lookup_goals(
        Lookups {
            issue: 51,
            name: "BinaryFuseFilter 8-bit",
            subject: FUSE_SUBJECT,
            groups,
            peer,
            floor: FUSE_SLOTS,
            settings: FUSE_SETTINGS,
            unit: "keys",
        },
        0.8,
    );
    for (setting, keys) in FUSE_SETTINGS.into_iter().zip(["1M", "20M"]) {
        let goal = |description, group, subject, max_ratio| {
            at_setting(51, description, [group, subject, peer], setting, max_ratio)
        };
        // For information: the filter's lookups under its shape, and its
        // batch (xorf has none, so its single lookups are the reference).
        for (kind, group) in [("miss", groups[0]), ("hit", groups[1])] {
            goals.push(informational(goal(
                format!(
                    "BinaryFuseFilter 8-bit {kind} lookup under its shape at {keys} keys, \
                     against {peer}"
                ),
                group,
                FUSE_SHAPED,
                0.8,
            )));
            goals.push(informational(goal(
                format!(
                    "BinaryFuseFilter 8-bit batched {kind} lookup at {keys} keys, against \
                     {peer}'s single lookups"
                ),
                group,
                FUSE_BATCH_SUBJECT,
                0.8,
            )));
        }
        goals.push(goal(
            format!("BinaryFuseFilter 8-bit construction at {keys} keys, against {peer}"),
            "fuse/build",
            FUSE_SUBJECT,
            1.0,
        ));
    }
    goals
}

/// A family's lookups judged against a peer and against their floor.
struct Lookups {
    issue: u32,
    /// The subject in words.
    name: &'static str,
    /// Its row.
    subject: &'static str,
    /// The groups of its misses and hits, and of its floors.
    groups: [&'static str; 3],
    /// The peer's row.
    peer: &'static str,
    /// The floor's row.
    floor: &'static str,
    /// The settings, 1M and 20M.
    settings: [&'static str; 2],
    /// What the settings count: `keys`, `items`.
    unit: &'static str,
}

/// At each setting, the subject's miss and hit lookups at most
/// `max_ratio` times the peer's, or, where that lies below what any lookup
/// costs (the peer timed in turns against the subject's floor), within 1.1
/// times that floor; and beside each, for information, the subject against
/// its floor.
fn lookup_goals(l: Lookups, max_ratio: f64) -> Vec<Goal> {
    let [miss, hit, floor_group] = l.groups;
    let mut goals = Vec::new();
    for (setting, size) in l.settings.into_iter().zip(["1M", "20M"]) {
        for (kind, group) in [("miss", miss), ("hit", hit)] {
            let what = format!("{} {kind} lookup at {size} {}", l.name, l.unit);
            goals.push(Goal {
                at_floor: Some(AT_FLOOR),
                ..at_setting(
                    l.issue,
                    format!(
                        "{what}, against {}, or within {AT_FLOOR}x its floor",
                        l.peer
                    ),
                    [group, l.subject, l.peer],
                    setting,
                    max_ratio,
                )
            });
            goals.push(informational(Goal {
                reference_group: floor_group,
                ..at_setting(
                    l.issue,
                    format!("{what} within {AT_FLOOR}x its floor"),
                    [group, l.subject, l.floor],
                    setting,
                    AT_FLOOR,
                )
            }));
        }
    }
    goals
}

/// The ratio to their floor issues 51 and 52 set lookups whose peer goal
/// lies below the floor.
const AT_FLOOR: f64 = 1.1;

/// The settings of issue 55's goals (`benches/benches/atomic.rs`): 20M
/// items from 1 and from 2 threads.
pub const ATOMIC_SETTINGS: [&str; 2] = ["20000000 items, 1 thread", "20000000 items, 2 threads"];

/// Issue 55's goals at 20M items: `AtomicBloomFilter`'s inserts from 2
/// threads at most 0.8 times fastbloom's `AtomicBloomFilter`'s, and at
/// least 1.8 times as fast as its own from 1 thread (its 2-thread time at
/// most 1/1.8 of its 1-thread time).
fn issue55() -> Vec<Goal> {
    let [one, two] = ATOMIC_SETTINGS;
    let goal = |description: &str, reference, reference_setting, max_ratio| Goal {
        issue: 55,
        description: description.to_owned(),
        group: "atomic/insert",
        subject: "bloomlab::AtomicBloomFilter",
        reference_group: "atomic/insert",
        reference,
        setting: Some(two),
        reference_setting,
        max_ratio,
        at_floor: None,
        informational: false,
    };
    vec![
        goal(
            "AtomicBloomFilter inserts from 2 threads at 20M items, against \
             fastbloom::AtomicBloomFilter from 2 threads",
            "fastbloom::AtomicBloomFilter",
            None,
            0.8,
        ),
        goal(
            "AtomicBloomFilter inserts from 2 threads at 20M items, against its own from 1 \
             thread (a speed-up of at least 1.8)",
            "bloomlab::AtomicBloomFilter",
            Some(one),
            1.0 / 1.8,
        ),
    ]
}

/// The sizes of issue 52's lookup goals: the settings of
/// `quotient/lookup_*`, in items.
pub const QUOTIENT_SETTINGS: [&str; 2] = ["1000000", "20000000"];

/// The settings of issue 52's growth goals (`quotient/grown_miss`): n0 and
/// 1,000 n0 items.
pub const GROWN_SETTINGS: [&str; 2] = ["1x (20000 items)", "1000x (20000000 items)"];

/// Issue 52's goals (`benches/benches/quotient.rs`): `QuotientFilter`'s
/// lookups at most 0.8 times qfilter's at 1M and 20M items, or, where that
/// lies below what any lookup costs, within 1.1 times their floor (the hash
/// and one line); and misses of the growing filter after 1,000-fold growth
/// at most twice those at 1×, with the scalable Bloom filter's beside them
/// for comparison.
fn issue52() -> Vec<Goal> {
    let mut goals = lookup_goals(
        Lookups {
            issue: 52,
            name: "QuotientFilter",
            subject: "bloomlab QuotientFilter",
            groups: [
                "quotient/lookup_miss",
                "quotient/lookup_hit",
                "quotient/floor",
            ],
            peer: "qfilter",
            floor: ONE_LINE,
            settings: QUOTIENT_SETTINGS,
            unit: "items",
        },
        0.8,
    );
    let [one, grown] = GROWN_SETTINGS;
    for (name, subject, informational) in [
        (
            "the growing QuotientFilter",
            "bloomlab QuotientFilter (growing)",
            false,
        ),
        ("ScalableBloomFilter", "bloomlab ScalableBloomFilter", true),
    ] {
        goals.push(Goal {
            issue: 52,
            description: format!(
                "Misses of {name} after growing 1,000-fold, against its misses at 1x"
            ),
            group: "quotient/grown_miss",
            subject,
            reference_group: "quotient/grown_miss",
            reference: subject,
            setting: Some(grown),
            reference_setting: Some(one),
            max_ratio: 2.0,
            at_floor: None,
            informational,
        });
    }
    goals
}

/// Whether a goal was met in this run.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The measured ratio is at most the goal's.
    Met,
    /// The measured ratio is above the goal's.
    NotMet,
    /// A row the goal needs is absent; holds the missing `group/subject` ids.
    NotMeasured(Vec<String>),
    /// The subject is faster than the floor it is judged against (timed in
    /// turns: the ratio's whole interval is below 1): the floor is not a
    /// lower bound, so the goal cannot be judged.
    BelowFloor,
    /// Not met, and out of reach: the target, a fraction of the reference's
    /// time, is below a floor of the subject (see [`Reach`]).
    OutOfReach,
    /// Out of reach, and met by the goal set for that case
    /// ([`Goal::at_floor`]): the subject, timed in turns against the floor,
    /// within that ratio of it.
    MetAtFloor,
}

impl Verdict {
    /// Whether the goal was met: [`Met`](Self::Met), or [met at the
    /// floor](Self::MetAtFloor).
    pub fn is_met(&self) -> bool {
        matches!(self, Verdict::Met | Verdict::MetAtFloor)
    }
}

/// The reference timed in turns against a floor of the subject: the hash
/// and the lines every lookup of the subject reads, over the subject's own
/// table (`{family}/turns_{kind}`, rows `reference vs floor` and `subject
/// vs floor`, `floor` a `floor:` row).
#[derive(Clone, Debug, PartialEq)]
pub struct Reach {
    /// The floor's row name.
    pub floor: String,
    /// The reference's time over the floor's: the median of its row in
    /// turns.
    pub reference: f64,
    /// The upper end of that ratio's 95% interval.
    pub reference_upper: f64,
    /// The subject's time over the floor's: the median of its row in
    /// turns.
    pub subject: f64,
}

impl Reach {
    /// The goal's target time over the floor, at the upper end of the
    /// reference's interval: `max_ratio × reference_upper`. Below 1, no
    /// lookup that does the floor's work meets the target.
    pub fn target_over_floor(&self, max_ratio: f64) -> f64 {
        max_ratio * self.reference_upper
    }
}

/// A goal with its measured ratio and verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The goal.
    pub goal: Goal,
    /// The ratio judged: [`in_turns`](Self::in_turns) when it was measured,
    /// else [`apart`](Self::apart).
    pub ratio: Option<f64>,
    /// The median ratio of the pair's row timed in turns
    /// ([`crate::harness::Turns`]), when there is one.
    pub in_turns: Option<f64>,
    /// Subject's median ns/op over the reference's, each from its own row,
    /// when both were measured.
    pub apart: Option<f64>,
    /// The verdict.
    pub verdict: Verdict,
    /// The reference against the subject's floor, when the run timed them
    /// so.
    pub reach: Option<Reach>,
}

/// Judges `goal` against the measurements of one run: by the pair's row
/// timed in turns when the run has one (`{family}/turns_{kind}`, id
/// `subject vs reference`, at the goal's setting), else by the two rows
/// measured apart, both at the goal's setting, or, without one, the
/// reference at the subject's setting when it was measured there.
///
/// A goal not met whose target lies below the subject's floor (its whole
/// interval: [`Reach::target_over_floor`] under 1) is [out of
/// reach](Verdict::OutOfReach), or [met at the floor](Verdict::MetAtFloor)
/// when it sets a ratio to the floor for that case and the subject is
/// within it.
pub fn evaluate(goal: &Goal, measurements: &[Measurement]) -> Outcome {
    let mut outcome = evaluate_in_turns(goal, measurements);
    outcome.reach = reach(goal, measurements);
    let under_floor = outcome
        .reach
        .as_ref()
        .is_some_and(|r| r.target_over_floor(goal.max_ratio) < 1.0);
    if outcome.verdict == Verdict::NotMet && under_floor {
        let at_floor = outcome.reach.as_ref().map(|r| r.subject);
        outcome.verdict = match (goal.at_floor, at_floor) {
            (Some(max), Some(x)) if x <= max => Verdict::MetAtFloor,
            _ => Verdict::OutOfReach,
        };
    }
    outcome
}

/// The goal's reference against a floor of its subject, timed in turns at
/// the goal's setting, when the run has both `reference vs floor` and
/// `subject vs floor` for some `floor:` row.
fn reach(goal: &Goal, measurements: &[Measurement]) -> Option<Reach> {
    let group = turns_group(goal.group)?;
    let prefix = turns_id(goal.reference, FLOOR_PREFIX);
    measurements.iter().find_map(|m| {
        if m.group != group || m.setting.as_deref() != goal.setting {
            return None;
        }
        let floor = m
            .subject
            .strip_prefix(&prefix)
            .map(|rest| format!("{FLOOR_PREFIX}{rest}"))?;
        let subject = find_at(
            measurements,
            &group,
            &turns_id(goal.subject, &floor),
            goal.setting,
        )?;
        Some(Reach {
            floor,
            reference: m.median_ns,
            reference_upper: m.upper_ns,
            subject: subject.median_ns,
        })
    })
}

/// [`evaluate`] without the floor's reach.
fn evaluate_in_turns(goal: &Goal, measurements: &[Measurement]) -> Outcome {
    let apart = evaluate_apart(goal, measurements);
    let turns = turns_group(goal.group).and_then(|group| {
        let id = turns_id(goal.subject, goal.reference);
        find_at(measurements, &group, &id, goal.setting)
    });
    let Some(turns) = turns else {
        return apart;
    };
    // Below the floor only when the whole interval is: a filter that
    // reaches its floor measures on either side of 1.
    let x = turns.median_ns;
    let verdict = judge(goal, x, turns.upper_ns < 1.0);
    Outcome {
        ratio: Some(x),
        in_turns: Some(x),
        verdict,
        ..apart
    }
}

/// The verdict of a measured ratio `x`: below the goal's floor when the
/// reference is a floor and `under_one` (the ratio, or in turns its whole
/// interval, is under 1), else met when `x` is at most the goal's ratio.
fn judge(goal: &Goal, x: f64, under_one: bool) -> Verdict {
    if is_floor_group(goal.reference_group) && under_one {
        Verdict::BelowFloor
    } else if x <= goal.max_ratio {
        Verdict::Met
    } else {
        Verdict::NotMet
    }
}

/// [`evaluate`] by the two rows measured apart.
fn evaluate_apart(goal: &Goal, measurements: &[Measurement]) -> Outcome {
    let (subject, reference) = match goal.setting {
        Some(setting) => (
            find_at(measurements, goal.group, goal.subject, Some(setting)),
            find_at(
                measurements,
                goal.reference_group,
                goal.reference,
                Some(goal.reference_setting.unwrap_or(setting)),
            ),
        ),
        None => {
            let subject = find(measurements, goal.group, goal.subject, None);
            let setting = subject.and_then(|s| s.setting.as_deref());
            let reference = find(measurements, goal.reference_group, goal.reference, setting);
            (subject, reference)
        }
    };
    let (ratio, verdict) = match (subject, reference) {
        (Some(s), Some(r)) => match ratio(s.ns_per_op(), r.ns_per_op()) {
            Some(x) => (Some(x), judge(goal, x, x < 1.0)),
            // A zero-time reference cannot be compared with.
            None => (
                None,
                Verdict::NotMeasured(vec![id(
                    goal.reference_group,
                    goal.reference,
                    goal.reference_setting.or(goal.setting),
                )]),
            ),
        },
        _ => {
            let mut missing = Vec::new();
            if subject.is_none() {
                missing.push(id(goal.group, goal.subject, goal.setting));
            }
            if reference.is_none() {
                let setting = goal.reference_setting.or(goal.setting);
                missing.push(id(goal.reference_group, goal.reference, setting));
            }
            (None, Verdict::NotMeasured(missing))
        }
    };
    Outcome {
        goal: goal.clone(),
        ratio,
        in_turns: None,
        apart: ratio,
        verdict,
        reach: None,
    }
}

/// Every goal of [`all`] judged against `measurements`.
pub fn evaluate_all(measurements: &[Measurement]) -> Vec<Outcome> {
    all().iter().map(|g| evaluate(g, measurements)).collect()
}

fn id(group: &str, subject: &str, setting: Option<&str>) -> String {
    match setting {
        Some(setting) => format!("{group}/{subject}/{setting}"),
        None => format!("{group}/{subject}"),
    }
}
