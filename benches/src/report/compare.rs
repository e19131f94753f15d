//! From measurements to tables: ordering, best peer and memory-floor ratios.

use std::cmp::Ordering;
use std::time::Duration;

use super::criterion::Measurement;

/// Prefix of every bloomlab benchmark's function id.
pub const OURS_PREFIX: &str = "bloomlab::";

/// Peers listed for reference only: never chosen as the best peer (a static
/// filter answers a different question).
pub const STATIC_REFERENCES: &[&str] = &["xorf::BinaryFuse8"];

/// Suffix of a batch-API benchmark.
pub const BATCH_SUFFIX: &str = " (batch)";

/// Suffix of a bloomlab row whose filter hashes with foldhash instead of
/// its default, AES-128-CMAC (`benches/scale.rs`): no floor bounds it,
/// since every floor hashes with the default.
pub const FOLDHASH_SUFFIX: &str = " (foldhash)";

/// Suffix of a bloomlab row whose filter hashes with SipHash-1-3, the
/// default before AES-128-CMAC (`benches/scale.rs`): no floor bounds it
/// either.
pub const SIPHASH_SUFFIX: &str = " (SipHash-1-3)";

pub use crate::floor::{
    CHAIN, FLOORS, HASH, ONE_LINE, ONE_LINE_BATCH, OWN_BLOCKED, OWN_COUNTING, THREE_LINES,
};

/// The last part of a floor group's id: `big/floor` holds the floors of the
/// `big/*` groups, `scale/floor` those of `scale/*`.
pub const FLOOR_OPERATION: &str = "floor";

/// bloomlab's filters whose lookups and inserts read at least three lines
/// (their first round tests three positions without a branch between them,
/// `bloomlab_core::hash::Scheme::all`), so that [`THREE_LINES`] bounds
/// their single rows.
pub const THREE_LINE_SUBJECTS: [&str; 3] = [
    "bloomlab::BloomFilter",
    "bloomlab::AtomicBloomFilter",
    "bloomlab::CountingBloomFilter",
];

/// Group families in report order; groups outside them follow alphabetically.
const FAMILY_ORDER: [&str; 6] = ["classic", "counting", "cuckoo", "scalable", "scale", "big"];

/// Whether a function id is one of bloomlab's own: `bloomlab::…`, or
/// `bloomlab …` as the fuse and quotient benches name their rows.
pub fn is_ours(subject: &str) -> bool {
    subject.starts_with(OURS_PREFIX) || subject.starts_with("bloomlab ")
}

/// Whether a function id may be a best peer: not bloomlab, not a static reference.
pub fn is_peer(subject: &str) -> bool {
    !is_ours(subject) && !STATIC_REFERENCES.iter().any(|r| subject.starts_with(r))
}

/// The family whose rows are all static filters: there the static
/// references are the peers.
pub const STATIC_FAMILY: &str = "fuse";

/// Whether a function id may be the best peer of `group`: [`is_peer`],
/// except that in the [`STATIC_FAMILY`] every row not bloomlab's may be.
pub fn is_peer_in(group: &str, subject: &str) -> bool {
    let static_family = group
        .split_once('/')
        .is_some_and(|(family, _)| family == STATIC_FAMILY);
    if static_family {
        !is_ours(subject)
    } else {
        is_peer(subject)
    }
}

/// The start of the last part of a group of [`Turns`](crate::harness::Turns)
/// rows: `scale/turns_miss` holds the pairs of `scale/lookup_miss`.
pub const TURNS_PREFIX: &str = "turns_";

/// Whether `group` holds rows timed in turns (`<family>/turns_<kind>`),
/// whose values are ratios, not times.
pub fn is_turns_group(group: &str) -> bool {
    group
        .split_once('/')
        .is_some_and(|(_, operation)| operation.starts_with(TURNS_PREFIX))
}

/// The group of the rows timed in turns that pairs the rows of a lookup
/// group: `scale/lookup_miss` → `scale/turns_miss`.
pub fn turns_group(group: &str) -> Option<String> {
    let (family, operation) = group.split_once('/')?;
    let kind = operation.strip_prefix("lookup_")?;
    Some(format!("{family}/{TURNS_PREFIX}{kind}"))
}

/// How the name of every floor row starts.
pub const FLOOR_PREFIX: &str = "floor: ";

/// Whether `group` holds floors (`<family>/floor`).
pub fn is_floor_group(group: &str) -> bool {
    group
        .split_once('/')
        .is_some_and(|(_, operation)| operation == FLOOR_OPERATION)
}

/// The floor group of `group`'s family (`big/lookup_miss` → `big/floor`).
pub fn floor_group(group: &str) -> String {
    let family = group.split_once('/').map_or(group, |(family, _)| family);
    format!("{family}/{FLOOR_OPERATION}")
}

/// The one-line filters whose rows are bounded by floors over their own
/// tables, each with those floors' rows `[single, batched]`
/// ([`crate::floor::own_rows`]): the lines their lookups read, at the same
/// addresses.
pub const OWN_TABLE_SUBJECTS: [(&str, [&str; 2]); 2] = [
    ("bloomlab::BlockedBloomFilter", OWN_BLOCKED),
    ("bloomlab::BlockedCountingBloomFilter", OWN_COUNTING),
];

/// The floor a row is compared with, when one bounds it: only bloomlab's
/// rows, whose hash is the floors' (peers hash otherwise, or read fewer
/// lines: fastbloom stops at the first unset bit), and not those hashing
/// with foldhash or SipHash-1-3 ([`FOLDHASH_SUFFIX`], [`SIPHASH_SUFFIX`]).
/// The filters of
/// [`OWN_TABLE_SUBJECTS`], single and batched, against the floors over
/// their own tables; other batches against [`ONE_LINE_BATCH`], the filters
/// of [`THREE_LINE_SUBJECTS`] against [`THREE_LINES`], other single rows
/// against [`ONE_LINE`].
pub fn floor_for(subject: &str) -> Option<&'static str> {
    let (filter, batched) = match subject.strip_suffix(BATCH_SUFFIX) {
        Some(filter) => (filter, true),
        None => (subject, false),
    };
    let other_hash = [FOLDHASH_SUFFIX, SIPHASH_SUFFIX]
        .iter()
        .any(|suffix| subject.ends_with(suffix));
    if !is_ours(subject) || other_hash {
        None
    } else if let Some((_, [single, batch])) = OWN_TABLE_SUBJECTS.iter().find(|(s, _)| *s == filter)
    {
        Some(if batched { batch } else { single })
    } else if batched {
        Some(ONE_LINE_BATCH)
    } else if THREE_LINE_SUBJECTS.contains(&subject) {
        Some(THREE_LINES)
    } else {
        Some(ONE_LINE)
    }
}

/// The measurement of `subject` in `group` at exactly `setting`.
pub fn find_at<'m>(
    measurements: &'m [Measurement],
    group: &str,
    subject: &str,
    setting: Option<&str>,
) -> Option<&'m Measurement> {
    settings_of(measurements, group, subject).find(|m| m.setting.as_deref() == setting)
}

/// The measurements of `subject` in `group`, at every setting.
fn settings_of<'m>(
    measurements: &'m [Measurement],
    group: &str,
    subject: &str,
) -> impl Iterator<Item = &'m Measurement> {
    measurements
        .iter()
        .filter(move |m| m.group == group && m.subject == subject)
}

/// Report order of two group ids: classic, counting, cuckoo, scalable,
/// scale, big, then other families alphabetically; inside a family by
/// operation name, with the family's floor group last.
pub fn group_order(a: &str, b: &str) -> Ordering {
    group_key(a).cmp(&group_key(b))
}

fn group_key(group: &str) -> (usize, &str, bool, &str) {
    let (family, operation) = group.split_once('/').unwrap_or((group, ""));
    let rank = FAMILY_ORDER
        .iter()
        .position(|f| *f == family)
        .unwrap_or(FAMILY_ORDER.len());
    (rank, family, is_floor_group(group), operation)
}

/// One row of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The measurement shown.
    pub measurement: Measurement,
    /// This row's time over the best peer's (below 1 is faster).
    pub vs_best_peer: Option<f64>,
    /// The floor that bounds this row ([`floor_for`]) and this row's time
    /// over it, when the family's floor group was measured at this setting.
    /// Below 1 means the floor is not a lower bound: the report says so.
    pub vs_floor: Option<(&'static str, f64)>,
    /// The same ratio timed in turns, when the run has that pair's row
    /// (`{family}/turns_{kind}`, [`turns_group`]): its median and the upper
    /// end of its 95% interval.
    pub vs_floor_in_turns: Option<(f64, f64)>,
}

/// One table: the results of one group at one setting.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The group id.
    pub group: String,
    /// The setting (criterion's value string) shared by the rows.
    pub setting: Option<String>,
    /// Bloomlab rows first, then peers, then static references, each by name.
    pub rows: Vec<Row>,
    /// Index in `rows` of the fastest peer, if the table has one.
    pub best_peer: Option<usize>,
    /// Whether the table carries a ratio-vs-floor column: its family's floor
    /// group was measured at its setting.
    pub has_floor: bool,
}

/// The fastest eligible peer among `rows` (see [`is_peer_in`]).
pub fn best_peer<'m>(rows: impl IntoIterator<Item = &'m Measurement>) -> Option<&'m Measurement> {
    rows.into_iter()
        .filter(|m| is_peer_in(&m.group, &m.subject))
        .min_by(|a, b| a.ns_per_op().total_cmp(&b.ns_per_op()))
}

/// The measurement of `subject` in `group`, preferring the one at `setting`
/// and otherwise taking the only one (or the first by setting when several).
pub fn find<'m>(
    measurements: &'m [Measurement],
    group: &str,
    subject: &str,
    setting: Option<&str>,
) -> Option<&'m Measurement> {
    setting
        .and_then(|_| find_at(measurements, group, subject, setting))
        .or_else(|| settings_of(measurements, group, subject).next())
}

/// `a` over `b` when `b` is positive.
pub fn ratio(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| a / b)
}

/// Splits results into those of the latest run and stale ones: a result is
/// stale when it was written more than `window` before the newest result
/// (criterion keeps the folders of benchmarks since renamed or removed).
/// Results without a modification time count as current.
pub fn split_stale(
    measurements: Vec<Measurement>,
    window: Duration,
) -> (Vec<Measurement>, Vec<Measurement>) {
    let Some(newest) = measurements.iter().filter_map(|m| m.modified).max() else {
        return (measurements, Vec::new());
    };
    measurements.into_iter().partition(|m| match m.modified {
        Some(t) => newest.duration_since(t).unwrap_or_default() <= window,
        None => true,
    })
}

/// Every table, in report order (see [`group_order`]).
pub fn tables(measurements: &[Measurement]) -> Vec<Table> {
    let mut keys: Vec<(&str, Option<&str>)> = measurements
        .iter()
        .map(|m| (m.group.as_str(), m.setting.as_deref()))
        .collect();
    keys.sort_by(|a, b| group_order(a.0, b.0).then_with(|| a.1.cmp(&b.1)));
    keys.dedup();

    keys.into_iter()
        .map(|(group, setting)| {
            let mut members: Vec<&Measurement> = measurements
                .iter()
                .filter(|m| m.group == group && m.setting.as_deref() == setting)
                .collect();
            members.sort_by(|x, y| {
                let class = row_class(&x.subject).cmp(&row_class(&y.subject));
                class.then_with(|| natural(&x.subject, &y.subject))
            });
            // The floors are the reference, not competitors of each other,
            // and the rows timed in turns are ratios already.
            let floors = !is_floor_group(group) && !is_turns_group(group);
            let best = floors.then(|| best_peer(members.iter().copied())).flatten();
            let floor_group = floor_group(group);
            let has_floor = floors
                && measurements
                    .iter()
                    .any(|m| m.group == floor_group && m.setting.as_deref() == setting);
            let turns = turns_group(group);
            let rows: Vec<Row> = members
                .iter()
                .map(|m| {
                    let floor = floor_for(&m.subject).filter(|_| has_floor);
                    Row {
                        measurement: (*m).clone(),
                        vs_best_peer: best.and_then(|b| ratio(m.ns_per_op(), b.ns_per_op())),
                        vs_floor_in_turns: floor
                            .zip(turns.as_deref())
                            .and_then(|(floor, turns)| {
                                let id = crate::harness::turns_id(&m.subject, floor);
                                find_at(measurements, turns, &id, setting)
                            })
                            .map(|t| (t.median_ns, t.upper_ns)),
                        vs_floor: floor.and_then(|floor| {
                            find_at(measurements, &floor_group, floor, setting)
                                .and_then(|f| ratio(m.ns_per_op(), f.ns_per_op()))
                                .map(|r| (floor, r))
                        }),
                    }
                })
                .collect();
            let best_peer = best.and_then(|b| members.iter().position(|m| std::ptr::eq(*m, b)));
            Table {
                group: group.to_owned(),
                setting: setting.map(str::to_owned),
                rows,
                best_peer,
                has_floor,
            }
        })
        .collect()
}

/// `a` against `b` character by character, except that where both hold a
/// run of digits the runs compare as numbers: `2 MiB` before `12 MiB`.
fn natural(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a, b);
    loop {
        let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let (da, db) = (digits(a), digits(b));
        if da > 0 && db > 0 {
            let number = |s: &str| s.parse::<u128>().unwrap_or(u128::MAX);
            let order = number(&a[..da]).cmp(&number(&b[..db]));
            if order != Ordering::Equal {
                return order;
            }
            (a, b) = (&a[da..], &b[db..]);
            continue;
        }
        let mut ca = a.chars();
        let mut cb = b.chars();
        match (ca.next(), cb.next()) {
            (None, None) => return Ordering::Equal,
            (x, y) if x != y => return x.cmp(&y),
            _ => (a, b) = (ca.as_str(), cb.as_str()),
        }
    }
}

/// Bloomlab first, peers next, static references last.
fn row_class(subject: &str) -> u8 {
    if is_ours(subject) {
        0
    } else if is_peer(subject) {
        1
    } else {
        2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_runs_sort_as_numbers() {
        let mut rows = ["chain over 12 MiB", "chain over 2 MiB", "chain over 1 MiB"];
        rows.sort_by(|a, b| natural(a, b));
        assert_eq!(
            rows,
            ["chain over 1 MiB", "chain over 2 MiB", "chain over 12 MiB"]
        );
        // Elsewhere, the order of the characters.
        assert_eq!(natural("a (batch)", "a1"), "a (batch)".cmp("a1"));
        assert_eq!(natural("ab", "a"), Ordering::Greater);
        assert_eq!(natural("x7", "x7"), Ordering::Equal);
    }
}
