//! T1–T4: sizing, memory, the rate at capacity and the count estimate.

use super::*;

/// T1 (sizing) and T4 (memory of a million bits).
pub(super) fn sizing_and_memory(_env: &Env<'_>) -> Result<Vec<Claim>, Error> {
    let mut out = Vec::new();
    // (n, p, who sized it, what the document states about m and k)
    let cases: [(u64, f64, &str, &str); 3] = [
        (1_000, 0.001, "E1 Guava create(1000; 0.001)", "m=14377 k=10"),
        (10_000, 0.001, "E3 Redisson tryInit(10000; 0.001)", "k=10"),
        (1_500, 0.01, "E4 Guava create(1500; 0.01)", "(not stated)"),
    ];
    let (mut all_agree, mut e1) = (true, None);
    for (n, p, who, stated) in cases {
        let err = format!("T1 {who}");
        let m = theory::classic::optimal_num_bits(n, p).map_err(Error::filter(&err))?;
        let k = theory::classic::optimal_num_hashes(m, n).map_err(Error::filter(&err))?;
        let (jm, jk) = java_sizing(n, p);
        let t = theory::classic::fpr(m as f64, n as f64, f64::from(k));
        let f: BloomFilter<u64> = BloomFilter::builder(n as usize, p)
            .seed(0)
            .build()
            .map_err(Error::filter(&err))?;
        let (om, ok) = (f.num_bits(), f.num_hashes());
        let ot = theory::classic::fpr(om as f64, n as f64, f64::from(ok));
        let agree = (jm, jk) == (m, k);
        let stated_ok = stated.starts_with('(')
            || stated == format!("m={m} k={k}")
            || stated == format!("k={k}");
        all_agree &= agree && stated_ok;
        e1.get_or_insert((m, k));
        out.push(
            Claim::new("T1", who)
                .doc(format!(
                    "m = -n ln p / (ln 2)^2 truncated; k = max(1; round(m/n ln 2)); stated: {stated}"
                ))
                .theory(format!(
                    "m={m} k={k}; then (1-e^(-kn/m))^k = {} ({:+.2}% against p={p})",
                    sci(t),
                    (t / p - 1.0) * 100.0
                ))
                .measured(format!(
                    "the documents' Java expressions give m={jm} k={jk}; bloomlab's builder \
                     (whole words; the k that keeps the promise) takes m={om} k={ok}: {}",
                    sci(ot)
                ))
                .verdict(format!(
                    "{}: formula; Java code and stated numbers agree{}",
                    holds(agree && stated_ok),
                    if t > p {
                        format!(
                            "; truncating m and rounding k leave theory {:.2}% above p",
                            (t / p - 1.0) * 100.0
                        )
                    } else {
                        String::new()
                    }
                )),
        );
    }
    if let Some((m, k)) = e1 {
        set_gist(&mut out, "T1", holds(all_agree), format!("E1: m={m} k={k}"));
    }

    let bits = 1_000_000u64;
    let bytes = bits / 8;
    let kib = bytes as f64 / 1024.0;
    let f: BloomFilter<u64> = BloomFilter::builder_with_bits(bits, 7)
        .seed(0)
        .build()
        .map_err(Error::filter("T4"))?;
    let ok = bytes == 125_000 && (kib - 122.0).abs() < 0.5 && f.memory_bytes() as u64 == bytes;
    out.push(
        Claim::new("T4", "a 1000000-bit array (004)")
            .doc("125000 bytes = about 122 KiB")
            .theory(format!("{bits} / 8 = {bytes} bytes = {kib:.2} KiB"))
            .measured(format!(
                "BloomFilter of {bits} bits: memory_bytes() = {} ({} words of 64 bits)",
                f.memory_bytes(),
                f.as_words().len()
            ))
            .verdict(holds(ok))
            .gist(holds(ok), format!("{bytes} B, {kib:.2} KiB")),
    );
    Ok(out)
}

/// The sizing of document 000's helper (and Guava's and Redisson's), in the
/// arithmetic Java does: `(long) (-n * Math.log(p) / (Math.log(2) * Math.log(2)))`
/// and `Math.max(1, (int) Math.round((double) m / n * Math.log(2)))`.
pub(super) fn java_sizing(n: u64, p: f64) -> (u64, u32) {
    let m = bloomlab_guava::sizing::optimal_num_of_bits(n, p);
    (
        m,
        bloomlab_guava::sizing::optimal_num_of_hash_functions(n, m),
    )
}

/// T2 on a filter at capacity; T3 on the same filter.
pub(super) fn rate_and_count(env: &Env<'_>) -> Result<Vec<Claim>, Error> {
    let n = env.capacity;
    let seed = seed_of(env.ctx, "t2");
    let mut f = BloomFilter::builder(n as usize, 0.01)
        .seed(seed)
        .build()
        .map_err(Error::filter("T2"))?;
    let r = filled_keys(env, &mut f, n, seed);
    let (m, k) = (r.m, r.k);
    let t2 = Claim::plain(
        "T2",
        format!("BloomFilter at capacity n={n} p=0.01"),
        "after n inserts the rate is (1-e^(-kn/m))^k",
        r,
    )
    .measured(format!(
        "{} of {} random probes: {}",
        r.fp,
        env.probes,
        r.interval()
    ))
    .gist(r.word(), r.versus());

    let est = f.estimate_count();
    let sd = theory::classic::estimate_count_sd(m as f64, n as f64, f64::from(k));
    let z = (est - n as f64) / sd;
    let within = z.abs() <= 1.96;
    let t3 = Claim::new("T3", format!("the same filter after n={n} inserts"))
        .doc("n is about -(m/k) ln(1 - X/m) for X bits set (000's BITCOUNT count())")
        .theory(format!(
            "unbiased to first order; standard deviation {sd:.1} (occupancy variance; delta method)"
        ))
        .measured(format!(
            "X={} bits set: estimate {est:.1} ({:+.3}% of n; {z:+.2} sd)",
            f.count_ones(),
            (est / n as f64 - 1.0) * 100.0
        ))
        .verdict(format!(
            "{}: the estimate is {} 1.96 sd of n",
            holds(within),
            if within { "within" } else { "outside" }
        ))
        .gist(holds(within), format!("{est:.0} for n={n} ({z:+.1} sd)"));
    Ok(vec![t2, t3])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_sizing_matches_the_documents() {
        // CLAIMS.md E1: m = 14,377 bits, k = 10; E3: k = 10.
        assert_eq!(java_sizing(1_000, 0.001), (14_377, 10));
        assert_eq!(java_sizing(10_000, 0.001), (143_775, 10));
        assert_eq!(java_sizing(1_500, 0.01), (14_377, 7));
        for (n, p) in [
            (1_000, 0.001),
            (10_000, 0.001),
            (1_500, 0.01),
            (12_345, 0.03),
        ] {
            let m = theory::classic::optimal_num_bits(n, p).unwrap();
            let k = theory::classic::optimal_num_hashes(m, n).unwrap();
            assert_eq!(java_sizing(n, p), (m, k));
        }
    }

    #[test]
    fn count_sd_is_the_occupancy_result() {
        // E3: m = 143,775, k = 10, n = 10,000. Large-m limit of the variance:
        // m e^-λ (1 − (1+λ) e^-λ) with λ = kn/m; sd of the estimate = sd(X)/(k e^-λ).
        let (m, n, k) = (143_775.0, 10_000.0, 10.0);
        let l: f64 = k * n / m;
        let q = (-l).exp();
        let approx = (m * q * (1.0 - (1.0 + l) * q)).sqrt() / (k * q);
        let sd = theory::classic::estimate_count_sd(m, n, k);
        assert!((sd - approx).abs() / approx < 1e-3, "{sd} vs {approx}");
        assert!((20.0..23.0).contains(&sd), "{sd}");
    }
}
