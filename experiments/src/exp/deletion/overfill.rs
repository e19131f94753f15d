//! Part 4, cuckoo overflow: one item past its buckets, and a table past its slots.

use super::*;

/// The load Fan et al. 2014 report for 4-slot buckets, at which their
/// space figures are counted (Table 2, α = 95.5%; §5.1's figure of loads
/// by bucket size shows about 95%).
const PAPER_LOAD: f64 = 0.955;

/// Part 4a: one item inserted 2b + 1 times into a half-full table, and a
/// second item through the unique insert.
///
/// Both items are keys that both tables report absent after the fill: a key
/// reported present shares its fingerprint with a stored item in one of its
/// buckets, which then counts as one of its copies (its ninth insert would
/// be its eighth), and its unique insert would store nothing.
pub(super) fn duplicates(ctx: &Ctx, slots: usize) -> Result<Vec<Row>, Error> {
    let half = slots / 2;
    let keys = members(seed(ctx, "duplicates/keys"), half + 64);
    let (held, candidates) = keys.split_at(half);
    let mut subjects = Vec::new();
    for kind in [Kind::Cuckoo, Kind::CuckooCrate] {
        let seed = seed(ctx, &format!("duplicates/{}", kind.name()));
        let mut s = Subject::new(kind, Size::Slots(slots), seed)?;
        let failed = s.insert_all(held);
        subjects.push((s, failed));
    }
    let mut absent =
        (candidates.iter().copied()).filter(|&k| subjects.iter().all(|(s, _)| !s.contains(k)));
    let (Some(item), Some(unique)) = (absent.next(), absent.next()) else {
        return Err(Error::Invariant(
            "duplicates: no key is reported absent by both tables".into(),
        ));
    };
    let mut rows = Vec::new();
    for (mut s, failed) in subjects {
        let bucket_size = param(s.table(), "bucket_size")
            .ok_or_else(|| Error::Invariant(format!("{} has no buckets", s.kind().name())))?;
        let tries = 2 * bucket_size + 1;
        let outcomes: Vec<Insert> = (0..tries).map(|_| s.insert(item)).collect();
        let first_failure =
            (outcomes.iter().position(|&o| o != Insert::Stored)).map_or(0, |i| i as u64 + 1);
        let seeded = s.kind().seeded_after(failed);
        let at = At::new(Part::Duplicates, &s, "copies_inserted", tries).seeded(seeded);
        rows.push(
            at.row(
                "first_failed_insert",
                first_failure,
                None,
                Theory::Exact(tries as f64),
                "exact: 2b + 1",
            )
            .note(match outcomes.last() {
                Some(Insert::Refused) => "Full: nothing changed",
                Some(Insert::Failed) => "NotEnoughSpace: dropped one of the item's copies",
                _ => "",
            }),
        );
        let lost = s.absent(held);
        rows.push(at.never("other_items_absent", lost, Some(held.len() as u64)));
        let r = at.never("item_absent", u64::from(!s.contains(item)), None);
        rows.push(match s.count(item) {
            Some(c) => r.note(format!("copies stored: {c}")),
            None => r,
        });
        let stored = (0..tries)
            .map(|_| s.insert_unique(unique).map(u64::from))
            .sum::<Result<u64, Error>>()?;
        let at = At::new(Part::Duplicates, &s, "unique_inserts", tries).seeded(seeded);
        rows.push(at.row(
            "unique_inserts_stored",
            stored,
            None,
            Theory::Exact(1.0),
            "exact: the first",
        ));
    }
    Ok(rows)
}

/// One overfill of a cuckoo table, by the items offered.
#[derive(Debug, Clone, Default)]
pub(super) struct OverfillRun {
    /// Inserts that reported failure.
    pub(super) failed: u64,
    /// Items stored at the first failure.
    pub(super) first_failure_at: Option<u64>,
    /// Inserts that reported success.
    pub(super) acknowledged: u64,
    /// Acknowledged items reported absent at the end.
    pub(super) lost: u64,
    /// Offered items (acknowledged or not) reported absent at the end.
    pub(super) absent: u64,
    /// (offered / slots, acknowledged items absent) along the way.
    pub(super) curve: Vec<(f64, u64)>,
}

pub(super) fn overfill_once(s: &mut Subject, keys: &[u64], slots: usize) -> OverfillRun {
    let mut run = OverfillRun::default();
    let mut acknowledged = vec![false; keys.len()];
    let step = (slots / 40).max(1);
    let start = slots * 9 / 10;
    for (i, &k) in keys.iter().enumerate() {
        let ok = s.insert(k) == Insert::Stored;
        acknowledged[i] = ok;
        if ok {
            run.acknowledged += 1;
        } else {
            run.failed += 1;
            run.first_failure_at.get_or_insert(run.acknowledged);
        }
        let done = i + 1;
        if done == keys.len() || (done >= start && (done - start).is_multiple_of(step)) {
            let lost = keys[..done]
                .iter()
                .zip(&acknowledged)
                .filter(|&(&k, &ok)| ok && !s.contains(k))
                .count() as u64;
            run.curve.push((done as f64 / slots as f64, lost));
            run.lost = lost;
        }
    }
    run.absent = s.absent(keys);
    run
}

/// Part 4b: overfill both cuckoo tables to `OVERFILL` × their slots; the
/// crate's run is repeated `CRATE_REPEATS` times.
pub(super) fn overfill(
    ctx: &Ctx,
    slots: usize,
) -> Result<(Vec<Row>, Vec<OverfillRun>, chart::Chart), Error> {
    let offered = (slots as f64 * OVERFILL).round() as usize;
    let keys = members(seed(ctx, "overfill/keys"), offered);
    let mut rows = Vec::new();
    let mut crate_runs = Vec::new();
    let mut chart = chart::Chart {
        title: format!("Overfilling a cuckoo table of {slots} slots to {OVERFILL}x"),
        x_label: "items offered / slots".into(),
        y_label: "acknowledged items reported absent".into(),
        // Both tables lose nothing up to their first failure: set apart.
        dodge: true,
        notes: vec![
            "The cuckoofilter crate relocates fingerprints with an unseeded RNG (inside the \
             crate, which takes no seed): its curve changes from run to run. deletion.csv \
             holds `unseeded` in place of its counts."
                .into(),
        ],
        ..chart::Chart::default()
    };
    for kind in [Kind::Cuckoo, Kind::CuckooCrate] {
        let seed = seed(ctx, &format!("overfill/{}", kind.name()));
        let mut s = Subject::new(kind, Size::Slots(slots), seed)?;
        let run = overfill_once(&mut s, &keys, slots);
        if !kind.seeded() {
            crate_runs.push(run.clone());
            for _ in 1..CRATE_REPEATS {
                let mut again = Subject::new(kind, Size::Slots(slots), seed)?;
                crate_runs.push(overfill_once(&mut again, &keys, slots));
            }
        }
        let at = At::new(Part::Overfill, &s, "inserts", format!("{offered} offered"));
        rows.push(
            at.measured("inserts_failed", run.failed, Some(offered as u64))
                .note(if kind.seeded() {
                    "Full: nothing changed"
                } else {
                    "NotEnoughSpace: a stored fingerprint dropped"
                }),
        );
        let stored = run.first_failure_at.unwrap_or(run.acknowledged);
        let paper = fixed(PAPER_LOAD);
        rows.push(
            at.measured("stored_at_first_failure", stored, None)
                .note(if kind.seeded() {
                    format!(
                        "load {} of {slots} slots; the paper's maximum load {paper}",
                        fixed(stored as f64 / slots as f64)
                    )
                } else {
                    format!("the paper's maximum load {paper}")
                }),
        );
        // Every failed insert costs one item: ours the refused one, the crate
        // the one whose fingerprint it dropped, unless a matching fingerprint
        // in that item's buckets still reports it (the rate at the final load).
        let masked = s.table().fpr(run.acknowledged);
        let mut r = at.row(
            "offered_items_absent",
            run.absent,
            Some(offered as u64),
            Theory::Rate(run.failed as f64 * (1.0 - masked) / offered as f64),
            "one per failed insert",
        );
        r.theory_from_run = true;
        rows.push(r);
        let acknowledged = Some(run.acknowledged);
        rows.push(if kind.seeded() {
            at.never("acknowledged_items_absent", run.lost, acknowledged)
        } else {
            at.measured("acknowledged_items_absent", run.lost, acknowledged)
                .note("silent losses: the insert of each had reported success")
        });
        chart.curves.push(chart::Curve {
            label: label(kind, "one unseeded run: varies"),
            theory: Vec::new(),
            points: (run.curve.iter())
                .map(|&(x, y)| (x, y as f64, y as f64, y as f64))
                .collect(),
        });
    }
    Ok((rows, crate_runs, chart))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Overfilling: ours refuses and keeps everything; the crate drops items.
    #[test]
    fn overfill_peer_loses_ours_does_not() {
        let slots = 1 << 12;
        let keys = members(3, (slots as f64 * OVERFILL) as usize);
        let mut ours = Subject::new(Kind::Cuckoo, Size::Slots(slots), 4).unwrap();
        let run = overfill_once(&mut ours, &keys, slots);
        assert!(run.failed > 0);
        assert_eq!(run.lost, 0);
        let mut theirs = Subject::new(Kind::CuckooCrate, Size::Slots(slots), 4).unwrap();
        let run = overfill_once(&mut theirs, &keys, slots);
        assert!(run.failed > 0 && run.lost > 0, "{run:?}");
    }

    /// The ninth copy fails in both tables and neither loses another item.
    #[test]
    fn duplicates_fail_at_nine_and_lose_nothing() {
        let ctx = Ctx::standard(Scale::Quick, 5);
        let rows = duplicates(&ctx, 1 << 12).unwrap();
        for kind in [Kind::Cuckoo, Kind::CuckooCrate] {
            let first = find(&rows, Part::Duplicates, kind, "first_failed_insert", "").unwrap();
            assert_eq!(first.count, 9, "{}", kind.name());
            let lost = find(&rows, Part::Duplicates, kind, "other_items_absent", "").unwrap();
            assert_eq!(lost.count, 0, "{}", kind.name());
            let item = find(&rows, Part::Duplicates, kind, "item_absent", "").unwrap();
            assert_eq!(item.count, 0, "{}", kind.name());
        }
    }
}
