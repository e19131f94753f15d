//! Part 3, saturation: overloaded 4-bit counters, then removals.

use super::*;

/// What the fastbloom-rs models of part 3 leave out.
pub(super) const SKIPPED: &str = "the model ignores removes skipped once an item is already absent";

/// Part 3: overload, remove all but the kept items, and count what the kept
/// items lost and the rate paid.
pub(super) fn saturation(ctx: &Ctx, capacity: usize) -> Result<Vec<Row>, Error> {
    let n_probes = ctx.scale.probes();
    let mut rows = Vec::new();
    // (label, size, items inserted, items kept: the last ones inserted;
    // the others are removed)
    let mut cases: Vec<(String, Size, usize, usize)> = (OVERLOADS.iter())
        .map(|&f| {
            let size = Size::Items(capacity, TARGET);
            (format!("{f}x"), size, capacity * f as usize, capacity)
        })
        .collect();
    let (m, k, inserts) = ISSUE_CASE;
    cases.push(("issue".into(), Size::Counters(m, k), inserts, inserts / 2));
    for (label, size, inserts, kept) in cases {
        let keys = members(seed(ctx, &format!("saturation/{label}/keys")), inserts);
        let removed = inserts - kept;
        for kind in [Kind::Counting, Kind::FastbloomCounting] {
            let subject_seed = seed(ctx, &format!("saturation/{label}/{}", kind.name()));
            let mut s = Subject::new(kind, size, subject_seed)?;
            let (Some(m), Some(k)) = (param(s.table(), "counters"), param(s.table(), "hashes"))
            else {
                return Err(Error::Invariant(format!("{} has no counters", kind.name())));
            };
            let k = k as u32;
            s.insert_all(&keys);
            let saturated = s.saturated().unwrap_or(0);
            let refused = s.remove_all(&keys[..removed]);
            let lost = s.absent(&keys[removed..]);
            let probes_seed = seed(ctx, &format!("saturation/{label}/probes"));
            let hits = false_positives(&s, probes_seed, n_probes);
            let sticky = kind == Kind::Counting;
            let (mf, kf, kept_f) = (m as f64, f64::from(k), kept as f64);
            let lambda_kept = kept_f * kf / mf;
            let lambda_removed = removed as f64 * kf / mf;
            let x = format!("{label}: {inserts} inserted and {kept} kept");
            let at = At::new(Part::Saturation, &s, "overload", x);
            let expected_saturated =
                theory::counting::expected_saturated(m, inserts as u64, k, WIDTH);
            rows.push(
                at.row(
                    "saturated_counters",
                    saturated,
                    Some(m),
                    Theory::Rate(expected_saturated / mf),
                    "binomial tail",
                )
                .note("after the inserts and before the removes"),
            );
            rows.push(
                at.measured("removes_not_applied", refused, Some(removed as u64))
                    .note(if sticky {
                        "refused with NotPresent"
                    } else {
                        "ignored: an inserted item already reported absent"
                    }),
            );
            // A kept item is lost when one of its counters reaches zero:
            // never for sticky counters; for fastbloom-rs when the removed
            // items alone bring a counter that stopped at 15 down to zero.
            let held = Some(kept as u64);
            rows.push(if sticky {
                at.never("kept_items_absent", lost, held)
            } else {
                let per_counter =
                    theory::counting::counter_tail_poisson(lambda_removed, COUNTER_MAX);
                let theory = Theory::Rate(1.0 - (1.0 - per_counter).powi(k as i32));
                at.row("kept_items_absent", lost, held, theory, "Poisson model")
                    .note(SKIPPED)
            });
            let zero = theory::counting::zero_after_removal(lambda_kept, lambda_removed, 4, sticky);
            let fill = 1.0 - zero;
            let mut note = format!(
                "counters expected at zero {:.1}; rate of the kept items without saturation {}",
                zero * mf,
                rate(theory::classic::fpr(mf, kept_f, kf))
            );
            if sticky {
                let bound = theory::counting::fpr_with_stuck(mf, kept_f, kf, saturated as f64);
                note += &format!("; bound with the stuck counters {}", rate(bound));
            } else {
                note += &format!("; {SKIPPED}");
            }
            rows.push(
                at.row(
                    "fpr_after_removal",
                    hits,
                    Some(n_probes as u64),
                    Theory::Rate(fill.powi(k as i32)),
                    "Poisson model",
                )
                .note(note),
            );
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
        for kind in [Kind::Counting, Kind::FastbloomCounting] {
            let mut s = Subject::new(kind, Size::Counters(m, k), 2).unwrap();
            s.insert_all(&keys);
            s.remove_all(&keys[..inserts / 2]);
            lost.push(s.absent(&keys[inserts / 2..]));
        }
        assert_eq!(lost[0], 0);
        assert!(lost[1] > 1_000, "{lost:?}");
    }
}
