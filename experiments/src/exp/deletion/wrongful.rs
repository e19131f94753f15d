//! Part 2, wrongful removals: members lost to removed false positives.

use super::*;

/// The checkpoints of part 2: 1, 2, 5, 10, 20, 50 … up to `max`.
pub(super) fn wrongful_marks(max: u64) -> Vec<u64> {
    let decades = (0..).map(|e| 10u64.pow(e)).take_while(|&d| d <= max);
    let marks = decades.flat_map(|d| [d, 2 * d, 5 * d]);
    marks.filter(|&m| m <= max).collect()
}

/// Part 2: remove false positives from a full filter and count the members
/// lost. The chart has two panels, the counting filters and the cuckoo
/// filters, each plotting the members lost per false positive removed (its
/// two filters set apart on x): the fractions lost, on one log scale, lie
/// on two pairs of parallel lines that hide one another.
pub(super) fn wrongful(ctx: &Ctx, n: usize) -> Result<(Vec<Row>, Vec<chart::Chart>), Error> {
    let keys = members(seed(ctx, "wrongful/keys"), n);
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
    let mut charts = vec![panel("counting filters"), panel("cuckoo filters")];
    for kind in Kind::paired(ctx.catalog)? {
        let size = Size::Items(n, TARGET);
        let mut s = Subject::new(kind, size, seed(ctx, &format!("wrongful/{}", kind.name())))?;
        s.insert_all(&keys);
        // The model of a table of counters, or of buckets: a paired
        // entry's table is one of the two.
        let counting = s.table().counters();
        let p = |name| param(s.table(), name).unwrap_or(0);
        let (loss, model): (Box<dyn Fn(f64) -> f64>, _) = if counting {
            let (m, k) = (p("counters"), p("hashes") as u32);
            let model = theory::counting::RemovalLoss::new(m, k, n as u64, max);
            (Box::new(move |j| model.fraction(j)), "Poisson model")
        } else {
            let bucket_size = p("bucket_size") as u32;
            let load = n as f64 / (p("buckets") * u64::from(bucket_size)) as f64;
            let values = (1u64 << p("fingerprint_bits")) - 1;
            let loss =
                move |j| theory::cuckoo::removal_loss(values, bucket_size, load, n as u64, j);
            (Box::new(loss), "one per removal")
        };
        let per_removal = |j: f64, fraction: f64| fraction * n as f64 / j;
        let mut curve = chart::Curve {
            label: label(kind, "unseeded"),
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
        for q in probes(seed(ctx, "wrongful/probes"), probe_budget) {
            probed += 1;
            if !(s.contains(q) && s.remove(q)) {
                continue;
            }
            removed += 1;
            if next_mark.peek() == Some(&removed) {
                next_mark.next();
                let lost = s.absent(&keys);
                let r = At::new(Part::Wrongful, &s, "false_positives_removed", removed).row(
                    "members_absent",
                    lost,
                    Some(n as u64),
                    Theory::Rate(loss(removed as f64)),
                    model,
                );
                let r = if kind.seeded() {
                    r.note(format!("{probed} probes scanned"))
                } else {
                    r
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
        charts[usize::from(!counting)].curves.push(curve);
    }
    charts[1].notes.push(
        "The cuckoofilter crate relocates fingerprints with an unseeded RNG: its points may \
         differ from run to run (deletion.csv holds `unseeded` in their place)."
            .into(),
    );
    Ok((rows, charts))
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
