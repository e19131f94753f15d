//! Part 1, churn: held items must survive any number of replacements.

use super::*;

/// Part 1: fill to capacity, then replace a random held item by a new one,
/// `TURNOVER` × capacity times; check every held item after the fill and
/// after each capacity's worth of replacements.
pub(super) fn churn(ctx: &Ctx, n: usize) -> Result<Vec<Row>, Error> {
    let keys = members(
        sub_seed(ctx.seed, "deletion/churn/keys"),
        n * (TURNOVER + 1),
    );
    let n_probes = ctx.scale.probes();
    let mut rows = Vec::new();
    for kind in Kind::ALL {
        let mut s = Subject::for_items(
            kind,
            n,
            TARGET,
            sub_seed(ctx.seed, &format!("deletion/churn/{}", kind.name())),
        )?;
        let mut failed_inserts = 0u64;
        for &k in &keys[..n] {
            failed_inserts += u64::from(s.insert(k) != Insert::Stored);
        }
        let mut held = keys[..n].to_vec();
        let mut order = keys::rng(sub_seed(ctx.seed, "deletion/churn/order"));
        let (mut missing, mut checks, mut refused) = (0u64, 0u64, 0u64);
        let mut check = |s: &Subject, held: &[u64]| {
            missing += held.iter().filter(|&&k| !s.contains(k)).count() as u64;
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
        let x = TURNOVER * n;
        // The crate's outcome is reproducible as long as no insert failed:
        // its walks then only move fingerprints between their two buckets.
        let seeded = kind.seeded() || failed_inserts == 0;
        let mut r = never(
            Part::Churn,
            &s,
            "replacements",
            x,
            "held_items_absent",
            missing,
            Some(checks),
        );
        r.note = format!("held items checked {} times", TURNOVER + 1);
        r.seeded = seeded;
        rows.push(r);
        let mut r = never(
            Part::Churn,
            &s,
            "replacements",
            x,
            "removes_refused",
            refused,
            Some(ops),
        );
        r.seeded = seeded;
        rows.push(r);
        let mut r = never(
            Part::Churn,
            &s,
            "replacements",
            x,
            "inserts_failed",
            failed_inserts,
            Some(ops + n as u64),
        );
        r.seeded = seeded;
        rows.push(r);
        let hits = false_positives(&s, sub_seed(ctx.seed, "deletion/churn/probes"), n_probes);
        let mut r = row(
            Part::Churn,
            &s,
            "replacements",
            x,
            "fpr_after_churn",
            hits,
            Some(n_probes as u64),
            Theory::Rate(fpr_theory(&s, n as u64)),
            "classic or cuckoo rate at n",
        );
        r.seeded = kind.seeded();
        rows.push(r);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Churn at small scale: no subject loses a held item.
    #[test]
    fn churn_loses_nothing() {
        let ctx = Ctx {
            scale: Scale::Quick,
            seed: 6,
        };
        // 3,000 items: the crate's 4,096 slots are 73% full, below where its
        // inserts start to fail.
        let rows = churn(&ctx, 3_000).unwrap();
        for r in rows.iter().filter(|r| r.metric == "held_items_absent") {
            assert_eq!(r.count, 0, "{}", r.subject.name());
            assert!(r.seeded, "{}", r.subject.name());
        }
    }
}
