//! V1–V6: the variants' caveats, on bloomlab's variants.

use bloomlab::catalog;

use super::*;

/// V1–V6: the variants' caveats, on bloomlab's variants.
pub(super) fn variants(env: &Env<'_>) -> Result<Vec<Claim>, Error> {
    let n = env.capacity;
    let seed = seed_of(env.ctx, "v");
    let keys = members(sub_seed(seed, "members"), n as usize);
    // bloomlab's classic filter at 1%, its key from `part` of the seed.
    let classic = |part: &str| -> Result<BloomFilter<u64>, Error> {
        BloomFilter::builder(n as usize, 0.01)
            .seed(sub_seed(seed, part))
            .build()
            .map_err(Error::filter(part.to_uppercase()))
    };
    let mut out = Vec::new();

    // V1: removing what was never inserted.
    {
        let mut f = CountingBloomFilter::builder(n as usize, 0.01)
            .seed(sub_seed(seed, "v1"))
            .build()
            .map_err(Error::filter("V1"))?;
        for key in &keys {
            f.insert(key).map_err(Error::filter("V1"))?;
        }
        let (m, k) = (f.num_counters(), f.num_hashes());
        let attempts = env.probes / 10;
        let mut accepted = 0u64;
        for q in probes(sub_seed(seed, "v1/probes"), attempts as usize) {
            accepted += u64::from(f.remove(&q).is_ok());
        }
        let lost = keys.iter().filter(|key| !f.contains(*key)).count();
        let r = Rate::new(m, k, n, attempts, accepted);
        let ok = holds(lost > 0 || accepted == 0);
        out.push(
            Claim::new("V1", format!("CountingBloomFilter n={n} p=0.01 (4-bit counters); {attempts} removes of items never inserted"))
                .doc("a counting filter can delete; deleting an item never inserted corrupts it: the filter alone cannot prove presence")
                .theory(format!(
                    "a remove is refused when a counter is zero; it is wrongly accepted exactly for the false positives: {}",
                    sci(r.theory)
                ))
                .measured(format!(
                    "{} refused; {accepted} accepted ({}); afterwards {lost} of the {n} members are reported absent",
                    attempts - accepted,
                    r.interval()
                ))
                .verdict(format!(
                    "{ok}: every accepted wrong remove is a false positive ({}); they made {lost} false negatives",
                    r.against_theory()
                ))
                .gist(ok, format!("{lost} of {n} members lost"))
                .rate(r),
        );
    }

    // V2: the same item, inserted again and again.
    {
        let mut f = CuckooFilter::builder(n as usize, 0.01)
            .seed(sub_seed(seed, "v2"))
            .build()
            .map_err(Error::filter("V2"))?;
        for key in &keys[..keys.len() / 2] {
            f.insert(key).map_err(Error::filter("V2 fill"))?;
        }
        let b = f.bucket_size();
        let trials = 200u64;
        let (mut fewest, mut most) = (usize::MAX, 0usize);
        let mut restored = true;
        let mut still_reported = 0usize;
        for q in probes(sub_seed(seed, "v2/probes"), trials as usize) {
            let before = f.len();
            let mut copies = 0usize;
            while f.insert(&q).is_ok() {
                copies += 1;
                if copies > 4 * b as usize {
                    break;
                }
            }
            fewest = fewest.min(copies);
            most = most.max(copies);
            for _ in 0..copies {
                f.remove(&q).map_err(Error::filter("V2 remove"))?;
            }
            restored &= f.len() == before;
            still_reported += usize::from(f.contains(&q));
        }
        let intact = keys[..keys.len() / 2].iter().all(|key| f.contains(key));
        let ok = holds(most <= 2 * b as usize && intact && restored);
        out.push(
            Claim::new("V2", format!("CuckooFilter n={n} p=0.01 half full; {trials} items each inserted until Full"))
                .doc("a cuckoo filter deletes only if one item is not inserted more than a bounded number of times")
                .theory(format!("an item's copies live in its two buckets of b={b} slots: at most 2b = {}", 2 * b))
                .measured(format!(
                    "copies accepted before Full: {fewest} to {most} (fewer than 2b when the moves to make room ran out); \
                     every copy removed again and len() restored: {restored}; members intact after the refused inserts: {intact}; \
                     {still_reported} of the {trials} items are still reported after their removal (false positives: the filter's rate is {})",
                    sci(f.expected_fpr())
                ))
                .verdict(format!(
                    "{ok}: the bound is 2b = {} copies; a refused insert loses nothing",
                    2 * b
                ))
                .gist(ok, format!("{fewest}-{most} copies, 2b={}", 2 * b)),
        );
    }

    // V3: RedisBloom's stacking, as ScalableBloomFilter::redisbloom().
    {
        let n0 = (n / 10).max(1);
        let total = 31 * n0;
        let mut f = ScalableBloomFilter::builder(n0 as usize, 0.01)
            .redisbloom()
            .seed(sub_seed(seed, "v3"))
            .build()
            .map_err(Error::filter("V3"))?;
        for key in members(sub_seed(seed, "v3/members"), total as usize) {
            f.insert(&key).map_err(Error::filter("V3 insert"))?;
        }
        let fp = probes(sub_seed(seed, "v3/probes"), env.probes as usize)
            .filter(|q| f.contains(q))
            .count() as u64;
        let layers: Vec<String> = f
            .layers()
            .iter()
            .enumerate()
            .map(|(i, l)| {
                format!(
                    "{}x{}",
                    f.layer_capacity(i as u32).unwrap_or(0),
                    l.num_bits()
                )
            })
            .collect();
        let theory_now = scalable_theory(n0, 2, 0.01, 0.5, total);
        let bits: u64 = f.layers().iter().map(|l| l.num_bits()).sum();
        let mut r = Rate::new(bits, 0, total, env.probes, fp);
        r.theory = theory_now;
        let doubles = (1..f.layers().len() as u32)
            .all(|i| f.layer_capacity(i) == f.layer_capacity(i - 1).map(|c| 2 * c));
        let ok = holds(doubles && f.layers().len() == 5 && r.consistent());
        out.push(
            Claim::new("V3", format!("ScalableBloomFilter::builder({n0}; 0.01).redisbloom(); {total} items"))
                .doc("BF.RESERVE key error_rate capacity [EXPANSION e]: when full a sub-filter e times larger (default 2) is stacked")
                .theory(format!(
                    "layer i holds n0*2^i at 0.01*0.5^(i+1); 31 n0 items fill 5 layers; compound rate {} (below 0.01)",
                    sci(theory_now)
                ))
                .measured(format!(
                    "{} layers (items x bits: {}); {:.2} bits/item; {}",
                    f.layers().len(),
                    layers.join(" "),
                    f.memory_bytes() as f64 * 8.0 / total as f64,
                    r.probed()
                ))
                .verdict(format!(
                    "{ok}: each layer twice the one before; {}",
                    r.against_theory()
                ))
                .gist(ok, format!("{} layers x2; {}", f.layers().len(), r.versus()))
                .rate(r),
        );
    }

    // V4: all k bits of a key in one small block.
    {
        let mut blocked: BlockedBloomFilter<u64> = BlockedBloomFilter::builder(n as usize, 0.01)
            .seed(sub_seed(seed, "v4"))
            .build()
            .map_err(Error::filter("V4"))?;
        let plain = classic("v4")?;
        blocked.extend(&keys);
        let fp = probes(sub_seed(seed, "v4/probes"), env.probes as usize)
            .filter(|q| blocked.contains(q))
            .count() as u64;
        let (blocks, k) = (blocked.num_blocks(), blocked.num_hashes());
        let mut r = Rate::new(blocked.num_bits(), k, n, env.probes, fp);
        // The exact rate of the filter's layout (by default k/8 bits in
        // each 64-bit word: `theory::sectored`).
        r.theory = blocked.expected_fpr();
        let (bb, pb) = (
            blocked.memory_bytes() as f64 * 8.0 / n as f64,
            plain.memory_bytes() as f64 * 8.0 / n as f64,
        );
        // Beside the classic filter as its constructor sizes it (whole
        // hashes), the optimum m/n = log2(1/p)/ln 2 with fractional k.
        let optimum = theory::classic::bits_per_item(0.01);
        let (extra, over_optimum, premium, ok) = (
            (bb / pb - 1.0) * 100.0,
            (bb / optimum - 1.0) * 100.0,
            blocked_premium(n),
            holds(r.consistent()),
        );
        out.push(
            Claim::new("V4", format!("BlockedBloomFilter n={n} p=0.01: {blocks} blocks of 512 bits"))
                .doc("split a huge bitmap into small ones so that all k bits of a key fall into one small bitmap")
                .theory(format!(
                    "k={k} bits in one 64-byte block per key ({:?} layout); exact rate at this load {}",
                    blocked.layout(),
                    sci(r.theory)
                ))
                .measured(format!(
                    "{}; {bb:.2} bits/item against {pb:.2} for the unblocked BloomFilter at 0.01 (+{extra:.1}%) and {optimum:.3} at the optimum (+{over_optimum:.1}%)",
                    r.probed(),
                ))
                .verdict(format!(
                    "{ok}: one key touches one 64-byte block; the price is {extra:.1}% more bits at 1% \
                     than the classic filter as built ({over_optimum:.1}% over the optimum), and grows \
                     as the rate falls ({premium}, as the constructors size them); {}",
                    r.against_theory()
                ))
                .gist(
                    ok,
                    format!("+{extra:.1}% bits at 1% (+{over_optimum:.1}% over the optimum); {premium}"),
                )
                .rate(r),
        );
    }

    // V5: a whitelist of known false positives.
    {
        let mut f = classic("v5")?;
        f.extend(&keys);
        let known = env.probes / 10;
        let whitelist: HashSet<u64> = probes(sub_seed(seed, "v5/known"), known as usize)
            .filter(|q| f.contains(q))
            .collect();
        let known_after = probes(sub_seed(seed, "v5/known"), known as usize)
            .filter(|q| f.contains(q) && !whitelist.contains(q))
            .count();
        let (mut fresh_before, mut fresh_after) = (0u64, 0u64);
        for q in probes(sub_seed(seed, "v5/fresh"), env.probes as usize) {
            if f.contains(&q) {
                fresh_before += 1;
                fresh_after += u64::from(!whitelist.contains(&q));
            }
        }
        let (m, k) = (f.num_bits(), f.num_hashes());
        let r = Rate::new(m, k, n, known, whitelist.len() as u64).with_ones(f.count_ones());
        let fresh = Rate::new(m, k, n, env.probes, fresh_after).with_ones(f.count_ones());
        let cost = whitelist.len() * 8;
        let share = cost as f64 / f.memory_bytes() as f64 * 100.0;
        let ok = holds(known_after == 0 && fresh_after == fresh_before);
        out.push(
            Claim::new("V5", format!("BloomFilter n={n} p=0.01 and a whitelist of the false positives among {known} known good keys"))
                .doc("a small whitelist of addresses known to be misjudged compensates for false positives")
                .theory(format!(
                    "expected whitelist size = rate x known keys = {:.0}; it cannot help keys not known in advance",
                    r.theory * known as f64
                ))
                .measured(format!(
                    "whitelist {} keys ({cost} bytes of 64-bit keys = {:.1}% of the filter's {} bytes); \
                     known keys still misjudged: {known_after}; fresh keys: {fresh_before} before and {fresh_after} after of {} ({})",
                    whitelist.len(),
                    share,
                    f.memory_bytes(),
                    env.probes,
                    fresh.interval()
                ))
                .verdict(format!(
                    "{ok}: the known false positives are gone at the cost of storing them; unknown keys keep the full rate"
                ))
                .gist(ok, format!("{} keys = {share:.1}% of the filter", whitelist.len()))
                .rate(r),
        );
    }

    // V6: surviving a restart.
    {
        let mut f = classic("v6")?;
        f.extend(&keys);
        let bytes = f.to_bytes();
        let back = BloomFilter::from_bytes(&bytes).map_err(Error::filter("V6 decode"))?;
        let same_answers = probes(sub_seed(seed, "v6/probes"), env.probes as usize)
            .all(|q| f.contains(&q) == back.contains(&q));
        let mut corrupt = bytes.clone();
        let mid = corrupt.len() / 2;
        corrupt[mid] ^= 1;
        let rejected = BloomFilter::<u64>::from_bytes(&corrupt).is_err();
        let truncated = BloomFilter::<u64>::from_bytes(&bytes[..bytes.len() - 1]).is_err();
        let ok = holds(back == f && same_answers && rejected && truncated);
        out.push(
            Claim::new("V6", format!("BloomFilter n={n} p=0.01: to_bytes / from_bytes"))
                .doc("a filter in one process's memory is lost on restart and invisible to other services (hence Redis)")
                .theory(
                    "true of any filter in process memory, which ends with the process: nothing \
                     to measure; what is measured is the remedy, a persisted filter answering \
                     exactly as the original",
                )
                .measured(format!(
                    "{} bytes for a {}-byte table; decoded == original: {}; same answers on {} probes: {same_answers}; \
                     one flipped bit rejected: {rejected}; truncation rejected: {truncated}",
                    bytes.len(),
                    f.memory_bytes(),
                    back == f,
                    env.probes
                ))
                .verdict(format!(
                    "holds by construction (not measured); the remedy {ok}: the restart loss is avoided by to_bytes/from_bytes; sharing between processes is bloomlab-redis's part (not measured here)"
                ))
                .gist(
                    ok,
                    format!(
                        "by construction; the remedy: round trip {}, corruption {}",
                        if back == f && same_answers { "exact" } else { "NOT exact" },
                        if rejected && truncated { "rejected" } else { "NOT rejected" }
                    ),
                ),
        );
    }
    Ok(out)
}

/// How many more bits the blocked filter's constructor takes than the
/// classic one's for `n` items, at 1e-4 and 1e-6: `+15% at 1e-4; …`.
fn blocked_premium(n: u64) -> String {
    let bytes = |id: &str, p: f64| {
        catalog::find::<u64>(id)
            .and_then(|v| (v.plan)(n, p).ok())
            .map_or(f64::NAN, |plan| plan.memory_bytes as f64)
    };
    [1e-4, 1e-6]
        .iter()
        .map(|&p| {
            let extra = bytes("blocked", p) / bytes("classic", p) - 1.0;
            format!("+{:.0}% at {p:e}", extra * 100.0)
        })
        .collect::<Vec<_>>()
        .join("; ")
}
