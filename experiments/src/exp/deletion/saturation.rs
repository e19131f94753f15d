//! Part 3, saturation: overloaded 4-bit counters, then removals.

use super::*;

/// One case of part 3.
pub(super) struct Overload {
    /// Shown in the x column.
    pub(super) label: String,
    /// Built for this many items at `TARGET`; `None`: the issue's counters.
    pub(super) built_for: Option<usize>,
    /// Items inserted.
    pub(super) inserts: usize,
    /// Items kept: the last ones inserted; the others are removed.
    pub(super) kept: usize,
}

/// What the fastbloom-rs models of part 3 leave out.
pub(super) const SKIPPED: &str = "the model ignores removes skipped once an item is already absent";

/// Part 3: overload, remove all but the kept items, and count what the kept
/// items lost and the rate paid.
pub(super) fn saturation(ctx: &Ctx, capacity: usize) -> Result<Vec<Row>, Error> {
    let n_probes = ctx.scale.probes();
    let mut rows = Vec::new();
    let mut cases: Vec<Overload> = OVERLOADS
        .iter()
        .map(|&f| Overload {
            label: format!("{f}x"),
            built_for: Some(capacity),
            inserts: capacity * f as usize,
            kept: capacity,
        })
        .collect();
    cases.push(Overload {
        label: "issue".into(),
        built_for: None,
        inserts: ISSUE_CASE.2,
        kept: ISSUE_CASE.2 / 2,
    });
    for case in cases {
        let keys = members(
            sub_seed(
                ctx.seed,
                &format!("deletion/saturation/{}/keys", case.label),
            ),
            case.inserts,
        );
        let removed = case.inserts - case.kept;
        for kind in [Kind::OursCounting, Kind::FastbloomCounting] {
            let seed = sub_seed(
                ctx.seed,
                &format!("deletion/saturation/{}/{}", case.label, kind.name()),
            );
            let mut s = match case.built_for {
                Some(n) => Subject::for_items(kind, n, TARGET, seed)?,
                None => Subject::with_counters(kind, ISSUE_CASE.0, ISSUE_CASE.1, seed)?,
            };
            let (m, k) = s
                .counting_shape()
                .ok_or_else(|| Error::Invariant(format!("{} has no counters", kind.name())))?;
            let x = format!(
                "{}: {} inserted and {} kept",
                case.label, case.inserts, case.kept
            );
            for &key in &keys {
                s.insert(key);
            }
            let saturated = s.saturated().unwrap_or(0);
            let mut refused = 0u64;
            for &key in &keys[..removed] {
                refused += u64::from(!s.remove(key));
            }
            let lost = keys[removed..]
                .iter()
                .filter(|&&key| !s.contains(key))
                .count() as u64;
            let hits = false_positives(
                &s,
                sub_seed(
                    ctx.seed,
                    &format!("deletion/saturation/{}/probes", case.label),
                ),
                n_probes,
            );
            let sticky = kind == Kind::OursCounting;
            let lambda_kept = case.kept as f64 * f64::from(k) / m as f64;
            let lambda_removed = removed as f64 * f64::from(k) / m as f64;
            let mut r = row(
                Part::Saturation,
                &s,
                "overload",
                &x,
                "saturated_counters",
                saturated,
                Some(m),
                Theory::Rate(
                    theory::counting::expected_saturated(m, case.inserts as u64, k, WIDTH)
                        / m as f64,
                ),
                "binomial tail",
            );
            r.note = "after the inserts and before the removes".into();
            rows.push(r);
            let mut r = row(
                Part::Saturation,
                &s,
                "overload",
                &x,
                "removes_not_applied",
                refused,
                Some(removed as u64),
                Theory::None,
                "",
            );
            r.note = if sticky {
                "refused with NotPresent".into()
            } else {
                "ignored: an inserted item already reported absent".into()
            };
            rows.push(r);
            // A kept item is lost when one of its counters reaches zero:
            // never for sticky counters; for fastbloom-rs when the removed
            // items alone bring a counter that stopped at 15 down to zero.
            let (kept_theory, kind_text) = if sticky {
                (Theory::Exact(0.0), "exact: none")
            } else {
                let per_counter =
                    theory::counting::counter_tail_poisson(lambda_removed, COUNTER_MAX);
                (
                    Theory::Rate(1.0 - (1.0 - per_counter).powi(k as i32)),
                    "Poisson model",
                )
            };
            let mut r = row(
                Part::Saturation,
                &s,
                "overload",
                &x,
                "kept_items_absent",
                lost,
                Some(case.kept as u64),
                kept_theory,
                kind_text,
            );
            if !sticky {
                r.note = SKIPPED.into();
            }
            rows.push(r);
            let zero = theory::counting::zero_after_removal(lambda_kept, lambda_removed, 4, sticky);
            let fill = 1.0 - zero;
            let mut r = row(
                Part::Saturation,
                &s,
                "overload",
                &x,
                "fpr_after_removal",
                hits,
                Some(n_probes as u64),
                Theory::Rate(fill.powi(k as i32)),
                "Poisson model",
            );
            r.note = format!(
                "counters expected at zero {:.1}; rate of the kept items without saturation {}",
                zero * m as f64,
                rate(theory::classic::fpr(
                    m as f64,
                    case.kept as f64,
                    f64::from(k)
                ))
            );
            if sticky {
                let bound = theory::counting::fpr_with_stuck(
                    m as f64,
                    case.kept as f64,
                    f64::from(k),
                    saturated as f64,
                );
                let _ = write!(r.note, "; bound with the stuck counters {}", rate(bound));
            } else {
                let _ = write!(r.note, "; {SKIPPED}");
            }
            rows.push(r);
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The issue's sequence: fastbloom-rs loses kept items, ours none.
    #[test]
    fn saturation_issue_case_peer_loses_ours_does_not() {
        let (m, k, inserts) = ISSUE_CASE;
        let keys = members(1, inserts);
        let mut lost = Vec::new();
        for kind in [Kind::OursCounting, Kind::FastbloomCounting] {
            let mut s = Subject::with_counters(kind, m, k, 2).unwrap();
            for &key in &keys {
                s.insert(key);
            }
            for &key in &keys[..inserts / 2] {
                s.remove(key);
            }
            lost.push(
                keys[inserts / 2..]
                    .iter()
                    .filter(|&&key| !s.contains(key))
                    .count(),
            );
        }
        assert_eq!(lost[0], 0);
        assert!(lost[1] > 1_000, "{lost:?}");
    }
}
