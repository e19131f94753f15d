//! Part 1, churn: held items must survive any number of replacements.

use super::*;

/// Part 1: fill to capacity, then replace a random held item by a new one,
/// `TURNOVER` × capacity times; check every held item after the fill and
/// after each capacity's worth of replacements.
pub(super) fn churn(ctx: &Ctx, n: usize) -> Result<Vec<Row>, Error> {
    let keys = members(seed(ctx, "churn/keys"), n * (TURNOVER + 1));
    let n_probes = ctx.scale.probes();
    let mut rows = Vec::new();
    for kind in Kind::churned(ctx.catalog)? {
        let size = Size::Items(n, TARGET);
        let mut s = Subject::new(kind, size, seed(ctx, &format!("churn/{}", kind.name())))?;
        let mut failed_inserts = s.insert_all(&keys[..n]);
        let mut held = keys[..n].to_vec();
        let mut order = keys::rng(seed(ctx, "churn/order"));
        let (mut missing, mut checks, mut refused) = (0u64, 0u64, 0u64);
        let mut check = |s: &Subject, held: &[u64]| {
            missing += s.absent(held);
            checks += held.len() as u64;
        };
        check(&s, &held);
        let mut next = n;
        for _ in 0..TURNOVER {
            for _ in 0..n {
                let i = order.random_range(0..held.len());
                let old = std::mem::replace(&mut held[i], keys[next]);
                next += 1;
                refused += u64::from(!s.remove(old));
                failed_inserts += u64::from(s.insert(held[i]) != Insert::Stored);
            }
            check(&s, &held);
        }
        let ops = (TURNOVER * n) as u64;
        let at = At::new(Part::Churn, &s, "replacements", TURNOVER * n);
        let lossless = at.seeded(kind.seeded_after(failed_inserts));
        rows.push(
            lossless
                .never("held_items_absent", missing, Some(checks))
                .note(format!("held items checked {} times", TURNOVER + 1)),
        );
        rows.push(lossless.never("removes_refused", refused, Some(ops)));
        rows.push(lossless.never("inserts_failed", failed_inserts, Some(ops + n as u64)));
        let hits = false_positives(&s, seed(ctx, "churn/probes"), n_probes);
        rows.push(at.row(
            "fpr_after_churn",
            hits,
            Some(n_probes as u64),
            Theory::Rate(s.table().fpr(n as u64)),
            "classic or cuckoo rate at n",
        ));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Churn at small scale: no subject loses a held item.
    #[test]
    fn churn_loses_nothing() {
        let ctx = Ctx::standard(Scale::Quick, 6);
        // 3,000 items: the crate's 4,096 slots are 73% full, below where its
        // inserts start to fail.
        let rows = churn(&ctx, 3_000).unwrap();
        for r in rows.iter().filter(|r| r.metric == "held_items_absent") {
            assert_eq!(r.count, 0, "{}", r.at.subject.name());
            assert!(r.at.seeded, "{}", r.at.subject.name());
        }
    }
}
