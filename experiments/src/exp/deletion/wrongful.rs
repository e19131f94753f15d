//! Part 2, wrongful removals: members lost to removed false positives.

use super::*;

/// The checkpoints of part 2: 1, 2, 5, 10, 20, 50 … up to `max`.
pub(super) fn wrongful_marks(max: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut decade = 1;
    while decade <= max {
        for step in [1, 2, 5] {
            if step * decade <= max {
                out.push(step * decade);
            }
        }
        decade *= 10;
    }
    out
}

/// Part 2: remove false positives from a full filter and count the members
/// lost. The chart has two panels, the counting filters and the cuckoo
/// filters, each plotting the members lost per false positive removed (its
/// two filters set apart on x): the fractions lost, on one log scale, lie
/// on two pairs of parallel lines that hide one another.
pub(super) fn wrongful(ctx: &Ctx, n: usize) -> Result<(Vec<Row>, Vec<chart::Chart>), Error> {
    let keys = members(sub_seed(ctx.seed, "deletion/wrongful/keys"), n);
    let max = (n / 20) as u64;
    let marks = wrongful_marks(max);
    let probe_budget = 200 * n;
    let mut rows = Vec::new();
    let panel = |what: &str| chart::Chart {
        title: format!("Removing false positives from {what} holding {n} items"),
        x_label: "false positives removed (log scale)".into(),
        y_label: "members reported absent per removal".into(),
        x_log: true,
        dodge: true,
        ..chart::Chart::default()
    };
    let mut counting_chart = panel("counting filters");
    let mut cuckoo_chart = panel("cuckoo filters");
    for kind in Kind::ALL {
        let mut s = Subject::for_items(
            kind,
            n,
            TARGET,
            sub_seed(ctx.seed, &format!("deletion/wrongful/{}", kind.name())),
        )?;
        for &k in &keys {
            s.insert(k);
        }
        let counting = s
            .counting_shape()
            .map(|(m, k)| theory::counting::RemovalLoss::new(m, k, n as u64, max));
        let cuckoo = s.cuckoo_shape();
        let loss = |j: f64| -> f64 {
            if let Some(model) = &counting {
                model.fraction(j)
            } else if let Some((slots, b, values)) = cuckoo {
                theory::cuckoo::removal_loss(values, b, n as f64 / slots as f64, n as u64, j)
            } else {
                f64::NAN
            }
        };
        let per_removal = |j: f64, fraction: f64| fraction * n as f64 / j;
        let mut curve = chart::Curve {
            label: if kind.seeded() {
                kind.name().into()
            } else {
                format!("{} (unseeded)", kind.name())
            },
            theory: (0..=40)
                .map(|i| {
                    let j = (max as f64).powf(f64::from(i) / 40.0);
                    (j, per_removal(j, loss(j)))
                })
                .collect(),
            points: Vec::new(),
        };
        let mut removed = 0u64;
        let mut probed = 0u64;
        let mut next_mark = marks.iter().copied().peekable();
        for q in probes(sub_seed(ctx.seed, "deletion/wrongful/probes"), probe_budget) {
            probed += 1;
            if !(s.contains(q) && s.remove(q)) {
                continue;
            }
            removed += 1;
            if next_mark.peek() == Some(&removed) {
                next_mark.next();
                let lost = keys.iter().filter(|&&k| !s.contains(k)).count() as u64;
                let mut r = row(
                    Part::Wrongful,
                    &s,
                    "false_positives_removed",
                    removed,
                    "members_absent",
                    lost,
                    Some(n as u64),
                    Theory::Rate(loss(removed as f64)),
                    if kind.counting() {
                        "Poisson model"
                    } else {
                        "one per removal"
                    },
                );
                r.seeded = kind.seeded();
                r.note = if kind.seeded() {
                    format!("{probed} probes scanned")
                } else {
                    String::new()
                };
                if let (Some(frac), Some((lo, hi))) = (r.rate(), r.interval()) {
                    let j = removed as f64;
                    curve.points.push((
                        j,
                        per_removal(j, lo),
                        per_removal(j, frac),
                        per_removal(j, hi),
                    ));
                }
                rows.push(r);
                if removed >= max {
                    break;
                }
            }
        }
        if kind.counting() {
            counting_chart.curves.push(curve);
        } else {
            cuckoo_chart.curves.push(curve);
        }
    }
    cuckoo_chart.notes.push(
        "The cuckoofilter crate relocates fingerprints with an unseeded RNG: its points may \
         differ from run to run (deletion.csv holds `unseeded` in their place)."
            .into(),
    );
    Ok((rows, vec![counting_chart, cuckoo_chart]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_one_two_five() {
        assert_eq!(
            wrongful_marks(500),
            vec![1, 2, 5, 10, 20, 50, 100, 200, 500]
        );
        assert_eq!(wrongful_marks(30), vec![1, 2, 5, 10, 20]);
    }
}
