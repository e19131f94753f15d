//! Experiment `seeds`: every claim of the source documents
//! (`shared/seeds/CLAIMS.md`: T1–T4, E1–E6, H1–H4, V1–V6) beside what theory
//! says and what bloomlab measures.
//!
//! Each worked example (E-claims) is run twice where the document has hashing
//! of its own: (a) with that hashing, reproduced faithfully in
//! [`crate::naive`] (H1–H4) or by [`bloomlab_guava`] (Guava's
//! `MURMUR128_MITZ_64`, the strategy `BloomFilter.create` really uses, bit
//! for bit as Debian's Guava jar), and (b) with bloomlab's
//! [`BloomFilter`] of the same `m` and `k`. Every rate carries a 95%
//! Clopper–Pearson interval and is set against
//! [`theory::classic::fpr`]`(m, n, k)`.
//!
//! By claim family: [`sizing`] (T1–T4), [`examples`] (E1–E4), [`fixed`]
//! (E5, E6 and the documents' hash functions H1–H4 in their fixed tables),
//! [`mod@variants`] (V1–V6); beside them the generated [`keys`], the [`tables`]
//! that put the documents' hashing and bloomlab's behind one interface, the
//! [`rows`] of measured rates and claims, and the [`report`] text: a
//! summary line per claim id, and the evidence row by row in the appendix.

use std::borrow::Borrow;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::hash::{BuildHasher, Hash};
use std::ops::Range;

use bloomlab::prelude::*;
use bloomlab::theory;
use bloomlab_core::hash::mix64;
use bloomlab_guava::{GuavaBloomFilter, IntegerFunnel};
use bloomlab_lab::keys::{members, probes};
use bloomlab_lab::stats::clopper_pearson;
use statrs::distribution::{ContinuousCDF, Normal};

use super::subject::scalable_theory;
use super::{Ctx, Error, Output, sub_seed};
use crate::naive::{NaiveFilter, Strategy, java_string_hash};
use crate::progress;
use crate::report::Section;
use crate::scale::Scale;
use crate::table::{
    AGAINST_THEORY, CHANCE, Hits, INSIDE, OFF, Table, against_theory, markdown, markdown_records,
    or_empty, rate, yes_no,
};

mod examples;
mod fixed;
mod keys;
mod report;
mod rows;
mod sizing;
mod tables;
mod variants;

use examples::*;
use fixed::*;
pub(crate) use keys::Keys;
use keys::{email_keys, phone_keys};
use report::*;
pub(crate) use rows::strings;
use rows::*;
use sizing::*;
use tables::*;
pub(crate) use tables::{BitTable, fill, hits};
use variants::*;

/// What each group needs: the run, and probes per measured rate.
struct Env<'a> {
    ctx: &'a Ctx,
    probes: u64,
    capacity: u64,
}

/// Runs the experiment: `seeds.csv` and the report section.
pub fn run(ctx: &Ctx) -> Result<Output, Error> {
    let env = Env {
        ctx,
        probes: ctx.scale.probes() as u64,
        capacity: ctx.scale.capacity() as u64,
    };
    type Group = fn(&Env<'_>) -> Result<Vec<Claim>, Error>;
    let groups: [(&str, Group); 10] = [
        ("T", sizing_and_memory),
        ("T2 T3", rate_and_count),
        ("E1", e1_guava),
        ("E2", e2_default_rate),
        ("E3", e3_redisson),
        ("E4", e4_guava),
        ("E6", e6_decimal),
        ("E5 H1 H3", e5_h1_h3),
        ("H4", h4_helper),
        ("V", variants),
    ];
    let bar = progress::bar(groups.len() as u64, "seeds");
    let mut claims = Vec::new();
    for (name, group) in groups {
        bar.set_message(name);
        claims.extend(group(&env)?);
        bar.inc(1);
    }
    bar.finish_and_clear();
    // Report order: T, E, H, V, each by number, as `CLAIMS` lists them.
    claims.sort_by_key(|c| CLAIMS.iter().position(|(id, _)| *id == c.id));

    let table = to_table(&claims);
    let section = Section::new("The documents' claims, checked", body(&claims, &env));
    let appendix = appendix(&claims, &table, &env);
    Ok(Output::new(section)
        .appendix(appendix)
        .table("seeds.csv", table)
        .table("seeds_claims.csv", claims_table(&claims)))
}

/// One row per claim id: the claim and its verdict in a few words, and the
/// key number, as the section's table shows them (commas become
/// semicolons: a CSV cell holds none).
fn claims_table(claims: &[Claim]) -> Table {
    let rows = gists(claims).map(|gist| gist.map(|s| s.replace(',', ";")).to_vec());
    Table::with_rows(&["id", "claim", "verdict", "key_number"], rows)
}

fn to_table(claims: &[Claim]) -> Table {
    Table::from_records(claims.iter().map(|c| {
        // A claim without a measured rate leaves the rate's columns empty.
        let of = |f: &dyn Fn(&Rate) -> String| c.rate.as_ref().map_or(String::new(), f);
        let measured = (c.rate).map_or_else(Default::default, |r| {
            against_theory(r.fp, r.probes, r.theory)
        });
        let head = [
            ("id", c.id.to_string()),
            ("subject", cell(&c.subject)),
            ("document_says", cell(&c.doc)),
            ("theory_says", cell(&c.theory)),
            ("bloomlab_measured", cell(&c.measured)),
            ("verdict", cell(&c.verdict)),
            ("m", of(&|r| r.m.to_string())),
            (
                "k",
                of(&|r| match r.k {
                    0 => "varies".into(),
                    k => k.to_string(),
                }),
            ),
            ("n", of(&|r| r.n.to_string())),
            ("doc_probes", of(&|r| or_empty(r.doc.map(|d| d.0)))),
            ("doc_false_positives", of(&|r| or_empty(r.doc.map(|d| d.1)))),
            ("probes", of(&|r| r.probes.to_string())),
        ];
        let tail = [
            ("bits_set", of(&|r| or_empty(r.ones))),
            (
                "theory_at_fill",
                of(&|r| r.at_fill().map_or(String::new(), rate)),
            ),
            (
                "at_fill_in_ci95",
                of(&|r| r.at_fill_inside().map_or("", yes_no).into()),
            ),
            ("fit", of(&|r| r.fit().name().into())),
        ];
        (head.into_iter())
            .chain(AGAINST_THEORY.into_iter().zip(measured))
            .chain(tail)
            .collect()
    }))
}
