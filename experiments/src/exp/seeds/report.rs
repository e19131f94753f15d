//! The report section: the claims table, the verdict summary and the notes.

use super::*;

pub(super) fn body(claims: &[Claim], table: &Table, env: &Env<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Every claim of the five source documents (`shared/seeds/CLAIMS.md`) is set beside what \
         theory says and what this run measured. Worked examples are run (a) with the document's \
         own hashing, reproduced in Java's 32-bit `int` arithmetic (`String.hashCode` over UTF-16, \
         Guava's MurmurHash3 strategies), and (b) with bloomlab's `BloomFilter` of the same `m` and \
         `k`. Rates are measured with {} probes unless a row says otherwise (the documents' own \
         probe sets are counted too), carry a 95% Clopper–Pearson interval, and are compared with \
         `theory::classic::fpr(m, n, k)` (the blocked and scalable rows with their own formulas), \
         the rate averaged over all tables of those parameters.\n\n\
         A small table's own rate differs from that average, because the number of bits its items \
         happened to set varies from table to table. So each table is also compared with *this \
         table's own rate*: the mean over the probes of `(X/m)^d`, with `X` the bits set and `d` \
         the probe's number of distinct positions (double hashing can give fewer than `k`). This \
         is what the table would give probes whose positions are uniform, so a miss against it \
         says the hashing is at fault, not the luck of the table. Verdicts: **holds** (theory, or \
         this table's own rate, inside the 95% interval), **holds within chance** (outside the \
         95% interval but inside the 99.9% binomial range: with some thirty rates, one or two such \
         misses are expected by chance alone), **does not hold** (outside even that, with the \
         deviation).\n",
        env.probes
    );
    let _ = writeln!(
        out,
        "| id | subject | document says | theory says | bloomlab measured | verdict |\n|---|---|---|---|---|---|"
    );
    let mut previous: Option<(&str, &str)> = None;
    for c in claims {
        let doc = if previous == Some((c.id, c.doc.as_str())) {
            "(as above)".to_string()
        } else {
            md(&c.doc)
        };
        previous = Some((c.id, c.doc.as_str()));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            c.id,
            md(&c.subject),
            doc,
            md(&c.theory),
            md(&c.measured),
            md(&c.verdict)
        );
    }
    let _ = writeln!(out, "\nThe measured rates, in numbers:\n");
    let m_col = table.column("m").unwrap_or(0);
    out.push_str(&table.to_markdown_filtered(
        &[
            ("id", "id"),
            ("subject", "subject"),
            ("m", "m"),
            ("k", "k"),
            ("n", "n"),
            ("doc_false_positives", "document's probes: FP"),
            ("probes", "probes"),
            ("false_positives", "FP"),
            ("measured_fpr", "measured"),
            ("ci95_low", "95% low"),
            ("ci95_high", "95% high"),
            ("theory_fpr", "theory"),
            ("theory_in_ci95", "inside"),
            ("theory_at_fill", "this table"),
            ("at_fill_in_ci95", "inside"),
            ("fit", "fit"),
        ],
        |row| !row[m_col].is_empty(),
    ));
    let _ = writeln!(out, "\n{}", notes(claims, env));
    let _ = writeln!(out, "Data: [`seeds.csv`](seeds.csv).");
    out
}

/// A cell for a Markdown table: no pipes.
pub(super) fn md(s: &str) -> String {
    s.replace('|', "/")
}

/// The paragraphs under the tables, from this run's numbers.
pub(super) fn notes(claims: &[Claim], env: &Env<'_>) -> String {
    let find = |id: &str, needle: &str| {
        claims
            .iter()
            .find(|c| c.id == id && c.subject.contains(needle))
            .and_then(|c| c.rate)
    };
    let mut out = String::new();
    if let (Some(g), Some(g4)) = (find("E1", "(a) Guava"), find("E4", "(a) Guava")) {
        let doc = g.doc.map_or(0, |d| d.1);
        let repeats = |r: Rate| r.uniform.map_or(0, |u| u.repeats);
        let _ = writeln!(
            out,
            "**E1, which Guava.** `BloomFilter.create` uses the strategy `MURMUR128_MITZ_64` \
             (the two 64-bit halves of one MurmurHash3 x64-128; positions modulo the bit array, \
             rounded up to whole words: {} bits here). Document 000's Redis helper (H4) is the \
             older `MITZ_32` scheme, in 32-bit `int`s on the unrounded 14,377 bits. Both were \
             measured: row (a) is `MITZ_64`, row (a') is H4. With `MITZ_64` the document's own \
             10,000 probes give {doc} false positives{}. Plain double hashing in a table this \
             small gives some items repeated positions ({} and {} of the probes in E1 and E4), \
             which this table's own rate accounts for. E1 measured {} ({}) and E4 {} ({}).\n",
            g.m,
            if doc == 14 {
                ", exactly the document's output: the reproduction is bit-exact"
            } else {
                " (the document reports 14)"
            },
            repeats(g),
            repeats(g4),
            g.interval(),
            g.fit().phrase(),
            g4.interval(),
            g4.fit().phrase()
        );
    }
    if let (Some(o), Some(h)) = (find("E5", "(b)"), find("E5", "(a)")) {
        let (lo, _) = o.ci();
        let _ = writeln!(
            out,
            "**E5 is wrong.** At the document's 16 bits per item and 8 hashes, theory gives {} and \
             bloomlab measured {} (n = {}): even the low end of the 95% interval is {}x the \
             document's \"below 1/10,000\". Document 001's own code at the same 16 bits per item \
             measured {} against its theory {} ({}). Reaching 1e-4 takes {:.1} bits per item at \
             the best k.\n",
            sci(o.theory),
            o.interval(),
            o.n,
            ratio(lo / 1e-4),
            h.interval(),
            sci(h.theory),
            h.fit().phrase(),
            theory::classic::bits_per_item(1e-4)
        );
    }
    if let (Some(e), Some(d)) = (
        find("H1", "random addresses"),
        find("H1", "decimal strings"),
    ) {
        let phones = find("H1", "11-digit")
            .map(|p| {
                format!(
                    " and random 11-digit numbers {} ({})",
                    p.interval(),
                    p.fit().phrase()
                )
            })
            .unwrap_or_default();
        let (fill, uniform_fill) = (d.fill().unwrap_or(f64::NAN), fill_theory(d.m, d.n, d.k));
        let _ = writeln!(
            out,
            "**H1 on decimal strings.** The polynomial `h = seed·h + c` with a small seed cannot \
             leave a small range on short digit strings (seed 5 on 7 digits stays below {}), so \
             the positions crowd into the low end of the table: the decimal strings 0..n−1 set \
             {:.1}% of the bits uniform hashing would, and the next numbers, probed, pass {}x as \
             often as this table's fill predicts ({} against {}), because they land where the \
             members already set bits. Measured against theory, random addresses give {} ({}){}.\n",
            poly_bound(5, 7),
            fill / uniform_fill * 100.0,
            ratio(d.measured() / d.at_fill().unwrap_or(f64::NAN)),
            d.interval(),
            sci(d.at_fill().unwrap_or(f64::NAN)),
            e.interval(),
            e.fit().phrase(),
            phones
        );
    }
    let h3: Vec<&str> = claims
        .iter()
        .filter(|c| c.id == "H3")
        .filter_map(|c| c.note.as_deref())
        .collect();
    if !h3.is_empty() {
        let _ = writeln!(
            out,
            "**H3's table is not 2^25 bits.** The masks `seed·(2^25 − 1)` keep bits above bit 25 \
             (and the sign bit, which `Math.abs` folds back), and Java's `BitSet` grows silently to \
             hold every index set. Memory and rate, by key kind: {}. The rate is compared with \
             the nominal 2^25-bit theory; all six indexes are slices of one 32-bit value, so two \
             items with the same `String.hashCode` collide on every bit.\n",
            h3.join("; ")
        );
    }
    let _ = writeln!(
        out,
        "**E6 at this scale.** {}\n",
        if env.ctx.scale == Scale::Full {
            "The rows are the document's own sizes: 10^8 strings in 2^30 bits."
        } else {
            "The document's 10^8 items run under `--scale full` only; here the table is smaller \
             with the same 10.7 bits per item. For bloomlab's keyed hash the size does not matter; \
             for document 002's polynomial it does, because the range a small seed reaches depends \
             on how many digits the keys have, so the (a) row need not predict the full-size rate \
             (`--scale full` measures it)."
        }
    );
    out
}
