//! Decode-and-use fuzzing: a variant's decoder is fed arbitrary and corrupted
//! envelopes, and whatever decodes is handed to a closure that calls every
//! method of the filter. Each case runs under a watchdog, so a panic, a hang
//! or a broken invariant fails the test with the case that caused it.
//!
//! ```ignore
//! #[test]
//! fn decode_and_use() {
//!     let plan = Plan::new("classic", CLASSIC_TAG, samples());
//!     fuzz::run(&plan, |bytes| match BloomFilter::from_bytes(bytes) {
//!         Ok(mut f) => { fuzz::use_membership(&mut f); true }
//!         Err(_) => false,
//!     });
//! }
//! ```
//!
//! # The cases
//!
//! Every case is a deterministic function of the plan's seed and its index
//! ([`Plan::case`]), so a failure names an index that reproduces it. The
//! directed cases come first, then [`Plan::random_cases`] random ones:
//!
//! - **directed**: each sample unchanged (it must decode, or the plan is
//!   wrong); each named [`Field`] of each sample set to each of its edge
//!   values ([`edge_values`]: 0, 1, the type's maximum, the original ± 1,
//!   NaN, …) with the checksum recomputed; and a few whole-envelope edits
//!   (payload all ones or zeros, truncated, extended, another version, every
//!   variant tag).
//! - **arbitrary** bytes of random length;
//! - **header**: random bytes behind a valid magic, version and variant tag,
//!   half of them with consistent length fields and a valid checksum, so
//!   that they reach the variant's own parser;
//! - **resealed**: a sample with one to four mutations (a named field set to
//!   an edge or random value, bits flipped, bytes overwritten, parameters or
//!   payload truncated or extended, the key changed) and the checksum
//!   recomputed, so that it passes the envelope's check;
//! - **raw**: a sample with its envelope's own fields (magic, version, tag,
//!   length fields) or its length changed, checksum recomputed;
//! - **unsealed**: a resealed case whose checksum was not recomputed.
//!
//! # Finding out what a case is
//!
//! - `BLOOMLAB_FUZZ_CASE=<index>` runs that one case of every plan;
//! - `BLOOMLAB_FUZZ_TRACE=1` prints each case to stderr before it runs,
//!   bypassing the test harness's capture: if a case aborts the process
//!   (which no watchdog in the process can survive), the last line names it.

use std::time::Duration;

use bloomlab_core::codec::{FORMAT_VERSION, MAGIC, NEWEST_VERSION, Tag};
use rand::seq::IndexedRandom;
use rand::{Rng, RngCore};
use rand_chacha::ChaCha8Rng;

use crate::keys::rng;

mod exercise;
#[cfg(test)]
mod tests;
mod watchdog;

pub use exercise::{
    EXTREME_HASHES, fill, remove_some, samples, seeded, use_deletable, use_items, use_membership,
};
pub use watchdog::{run, run_decoder};

/// Bytes of the envelope before the parameters: magic 4, version 2, tag 2,
/// key 16, parameter length 4.
const HEADER_LEN: usize = 28;

/// The cases run per plan unless [`Plan::random_cases`] is changed.
pub const DEFAULT_RANDOM_CASES: u64 = 20_000;

/// How long one case may run before it counts as a hang.
pub const DEFAULT_CASE_LIMIT: Duration = Duration::from_secs(10);

/// At most this many failing cases are reported; the run stops after them.
const MAX_FAILURES: usize = 10;

/// How a [`Field`] is stored, little-endian.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One byte.
    U8,
    /// Four bytes.
    U32,
    /// Eight bytes.
    U64,
    /// Eight bytes, the IEEE-754 bits of an `f64`.
    F64,
}

impl Kind {
    /// Bytes the field takes.
    pub fn width(self) -> usize {
        match self {
            Kind::U8 => 1,
            Kind::U32 => 4,
            Kind::U64 | Kind::F64 => 8,
        }
    }
}

/// Which part of the envelope a [`Field`] lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// The variant's parameters.
    Params,
    /// The variant's payload.
    Payload,
}

/// A field of a variant's stored form that the fuzzer sets to edge values:
/// a count, a width, a rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// What the field holds, for the report ("num_hashes").
    pub name: &'static str,
    /// Where it is.
    pub region: Region,
    /// Its offset in bytes from the start of its region.
    pub offset: usize,
    /// How it is stored.
    pub kind: Kind,
}

impl Field {
    /// A field of the parameters.
    pub const fn param(name: &'static str, offset: usize, kind: Kind) -> Self {
        Self {
            name,
            region: Region::Params,
            offset,
            kind,
        }
    }

    /// Fields of the parameters stored one after the other from `start`:
    /// each begins where the one before it ends.
    pub fn params(start: usize, layout: &[(&'static str, Kind)]) -> Vec<Self> {
        let mut offset = start;
        let mut fields = Vec::with_capacity(layout.len());
        for &(name, kind) in layout {
            fields.push(Self::param(name, offset, kind));
            offset += kind.width();
        }
        fields
    }
}

/// A valid encoding of a small real filter, and the fields of its stored form.
#[derive(Debug, Clone)]
pub struct Sample {
    /// What the filter is, for the report ("m=960 k=7, 50 items").
    pub label: String,
    /// Its bytes, as `to_bytes` wrote them.
    pub bytes: Vec<u8>,
    /// The fields the fuzzer sets to edge values.
    pub fields: Vec<Field>,
}

/// What to fuzz and how long.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The variant's name, for the report.
    pub name: &'static str,
    /// The variant tag valid headers carry.
    pub variant: Tag,
    /// The valid encodings mutated.
    pub samples: Vec<Sample>,
    /// Random cases after the directed ones.
    pub random_cases: u64,
    /// The seed every case derives from.
    pub seed: u64,
    /// How long one case may take before it counts as a hang.
    pub case_limit: Duration,
}

/// One input, and how it was made.
#[derive(Debug, Clone)]
pub struct Case {
    /// Its index in the plan.
    pub index: u64,
    /// How it was made, enough to rebuild it by hand.
    pub description: String,
    /// The bytes handed to the decoder.
    pub bytes: Vec<u8>,
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Cases run.
    pub cases: u64,
    /// Cases whose bytes decoded into a filter (and were then used).
    pub decoded: u64,
    /// Directed cases among them, and how many of those decoded.
    pub directed: (u64, u64),
    /// Wall-clock time of the run.
    pub elapsed: Duration,
    /// The slowest case: its index, time and description.
    pub slowest: Option<(u64, Duration, String)>,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} cases ({} directed, {} of them decoded), {} decoded in all, in {:.1} s",
            self.cases,
            self.directed.0,
            self.directed.1,
            self.decoded,
            self.elapsed.as_secs_f64()
        )?;
        if let Some((index, time, description)) = &self.slowest {
            write!(
                f,
                "; slowest case {index}, {:.1} ms: {description}",
                time.as_secs_f64() * 1e3
            )?;
        }
        Ok(())
    }
}

/// The envelope of a sample, taken apart without trusting it.
#[derive(Debug, Clone)]
struct Parts {
    version: u16,
    tag: u16,
    key: [u8; 16],
    params: Vec<u8>,
    payload: Vec<u8>,
}

impl Parts {
    /// Splits a well-formed envelope; `None` if the lengths do not add up.
    fn parse(bytes: &[u8]) -> Option<Self> {
        if bytes.len() < HEADER_LEN + 8 + 4 || bytes[..4] != MAGIC {
            return None;
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap_or([0; 4]));
        let params_len = u32_at(24) as usize;
        let params_end = HEADER_LEN.checked_add(params_len)?;
        let payload_len_end = params_end.checked_add(8)?;
        let payload_len =
            u64::from_le_bytes(bytes.get(params_end..payload_len_end)?.try_into().ok()?);
        let payload_end = payload_len_end.checked_add(usize::try_from(payload_len).ok()?)?;
        if payload_end.checked_add(4)? != bytes.len() {
            return None;
        }
        Some(Self {
            version: u16::from_le_bytes([bytes[4], bytes[5]]),
            tag: u16::from_le_bytes([bytes[6], bytes[7]]),
            key: bytes[8..24].try_into().ok()?,
            params: bytes[HEADER_LEN..params_end].to_vec(),
            payload: bytes[payload_len_end..payload_end].to_vec(),
        })
    }

    /// The envelope as bytes, with a correct checksum.
    fn seal(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.params.len() + 12 + self.payload.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&self.tag.to_le_bytes());
        out.extend_from_slice(&self.key);
        out.extend_from_slice(&(self.params.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.params);
        out.extend_from_slice(&(self.payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.payload);
        out.extend_from_slice(&crc32fast::hash(&out).to_le_bytes());
        out
    }

    fn region(&mut self, region: Region) -> &mut Vec<u8> {
        match region {
            Region::Params => &mut self.params,
            Region::Payload => &mut self.payload,
        }
    }
}

/// Recomputes the checksum in the last four bytes over every byte before it.
fn reseal(bytes: &mut [u8]) {
    if let Some(body) = bytes.len().checked_sub(4) {
        let crc = crc32fast::hash(&bytes[..body]);
        bytes[body..].copy_from_slice(&crc.to_le_bytes());
    }
}

/// Reads a field's value as raw bits (an `f64` as its bits), `None` past the end.
fn read_field(bytes: &[u8], offset: usize, kind: Kind) -> Option<u64> {
    let raw = bytes.get(offset..offset.checked_add(kind.width())?)?;
    let mut buf = [0u8; 8];
    buf[..raw.len()].copy_from_slice(raw);
    Some(u64::from_le_bytes(buf))
}

/// Writes a field's raw bits; does nothing past the end.
fn write_field(bytes: &mut [u8], offset: usize, kind: Kind, value: u64) {
    let width = kind.width();
    if let Some(slot) = offset
        .checked_add(width)
        .and_then(|end| bytes.get_mut(offset..end))
    {
        slot.copy_from_slice(&value.to_le_bytes()[..width]);
    }
}

/// The values a field of `kind` is set to in the directed cases, as raw bits,
/// given its original raw bits: zero, one, powers of two and their
/// neighbours, the type's maximum, the original value's neighbours and
/// multiples; for rates also NaN, the infinities, subnormals and the
/// neighbours of 0 and 1.
pub fn edge_values(kind: Kind, original: u64) -> Vec<u64> {
    let mut v: Vec<u64> = match kind {
        Kind::U8 => vec![
            0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 255,
        ],
        Kind::U32 => vec![
            0,
            1,
            2,
            3,
            31,
            32,
            33,
            63,
            64,
            65,
            1 << 16,
            (1 << 16) + 1,
            1 << 31,
            u64::from(u32::MAX - 1),
            u64::from(u32::MAX),
        ],
        Kind::U64 => vec![
            0,
            1,
            2,
            63,
            64,
            65,
            1 << 31,
            1 << 32,
            (1 << 32) + 1,
            1 << 45,
            1 << 60,
            i64::MAX as u64,
            1 << 63,
            u64::MAX - 1,
            u64::MAX,
        ],
        Kind::F64 => [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.0 - f64::EPSILON / 2.0,
            1.0 + f64::EPSILON,
            2.0,
            1e-300,
            5e-324,
            f64::MIN_POSITIVE,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::from_bits(original) * 1e-300,
            f64::from_bits(original) * 1e300,
        ]
        .iter()
        .map(|x| x.to_bits())
        .collect(),
    };
    if kind == Kind::F64 {
        v.extend([original.wrapping_add(1), original.wrapping_sub(1)]);
    } else {
        let max = match kind {
            Kind::U8 => u64::from(u8::MAX),
            Kind::U32 => u64::from(u32::MAX),
            _ => u64::MAX,
        };
        v.extend(
            [
                original.wrapping_add(1),
                original.wrapping_sub(1),
                original.wrapping_mul(2),
                original / 2,
                original.wrapping_mul(64),
            ]
            .map(|x| x & max),
        );
    }
    let mut seen = std::collections::HashSet::new();
    v.retain(|x| *x != original && seen.insert(*x));
    v
}

/// Describes a raw field value for the report.
fn show(kind: Kind, raw: u64) -> String {
    match kind {
        Kind::F64 => format!("{:e} ({raw:#018x})", f64::from_bits(raw)),
        _ => raw.to_string(),
    }
}

/// The per-case generator: one stream per (seed, index).
fn case_rng(seed: u64, index: u64) -> ChaCha8Rng {
    // SplitMix64 of the index, so neighbouring indices get unrelated streams.
    let mut z = index.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    rng(seed ^ z ^ (z >> 31))
}

/// A length skewed towards short inputs, up to `max`.
fn random_len(r: &mut ChaCha8Rng, max: usize) -> usize {
    match r.random_range(0..4) {
        0 => r.random_range(0..=16.min(max)),
        1 => r.random_range(0..=64.min(max)),
        2 => r.random_range(0..=512.min(max)),
        _ => r.random_range(0..=max),
    }
}

fn random_bytes(r: &mut ChaCha8Rng, len: usize) -> Vec<u8> {
    let mut v = vec![0; len];
    r.fill_bytes(&mut v);
    v
}

impl Plan {
    /// A plan of [`DEFAULT_RANDOM_CASES`] random cases, seed 1, and
    /// [`DEFAULT_CASE_LIMIT`] per case.
    pub fn new(name: &'static str, variant: Tag, samples: Vec<Sample>) -> Self {
        Self {
            name,
            variant,
            samples,
            random_cases: DEFAULT_RANDOM_CASES,
            seed: 1,
            case_limit: DEFAULT_CASE_LIMIT,
        }
    }

    /// This plan with `random_cases` random cases derived from `seed`.
    pub fn cases(self, random_cases: u64, seed: u64) -> Self {
        Self {
            random_cases,
            seed,
            ..self
        }
    }

    fn parts(&self, sample: usize) -> Parts {
        let s = &self.samples[sample];
        Parts::parse(&s.bytes).unwrap_or_else(|| {
            panic!(
                "{}: sample {sample} ({}) is not a well-formed envelope",
                self.name, s.label
            )
        })
    }

    /// The directed cases, in order: (description, bytes, must decode).
    fn directed(&self) -> Vec<(String, Vec<u8>, bool)> {
        let mut out = Vec::new();
        for (si, s) in self.samples.iter().enumerate() {
            let base = self.parts(si);
            let name = format!("sample {si} ({})", s.label);
            out.push((format!("{name} unchanged"), s.bytes.clone(), true));
            for field in &s.fields {
                let bytes = match field.region {
                    Region::Params => &base.params,
                    Region::Payload => &base.payload,
                };
                let Some(original) = read_field(bytes, field.offset, field.kind) else {
                    panic!("{}: field {} lies outside {name}", self.name, field.name);
                };
                for value in edge_values(field.kind, original) {
                    let mut p = base.clone();
                    write_field(p.region(field.region), field.offset, field.kind, value);
                    out.push((
                        format!(
                            "{name}: {} := {} (was {}), checksum recomputed",
                            field.name,
                            show(field.kind, value),
                            show(field.kind, original)
                        ),
                        p.seal(),
                        false,
                    ));
                }
            }
            let mut edits: Vec<(String, Parts)> = Vec::new();
            for (what, byte) in [("all ones", 0xff), ("all zeros", 0x00)] {
                let mut p = base.clone();
                p.payload.fill(byte);
                edits.push((format!("payload {what}"), p));
            }
            for cut in [1, 8] {
                let mut p = base.clone();
                p.payload.truncate(p.payload.len().saturating_sub(cut));
                edits.push((format!("payload less its last {cut} bytes"), p));
                let mut p = base.clone();
                p.params.truncate(p.params.len().saturating_sub(cut));
                edits.push((format!("parameters less their last {cut} bytes"), p));
            }
            for more in [1, 8] {
                let mut p = base.clone();
                p.payload.extend(std::iter::repeat_n(0, more));
                edits.push((format!("payload and {more} zero bytes"), p));
                let mut p = base.clone();
                p.params.extend(std::iter::repeat_n(0, more));
                edits.push((format!("parameters and {more} zero bytes"), p));
            }
            for version in [0, NEWEST_VERSION.wrapping_add(1), u16::MAX] {
                let mut p = base.clone();
                p.version = version;
                edits.push((format!("format version {version}"), p));
            }
            for tag in (0..=8).chain([u16::MAX]) {
                if tag != base.tag {
                    let mut p = base.clone();
                    p.tag = tag;
                    edits.push((format!("variant tag {tag}"), p));
                }
            }
            let mut p = base.clone();
            p.key = [0xa5; 16];
            edits.push(("another hash key".into(), p));
            for (what, p) in edits {
                out.push((
                    format!("{name}: {what}, checksum recomputed"),
                    p.seal(),
                    false,
                ));
            }
        }
        out
    }

    /// Every case's index runs below this.
    fn total(&self, directed: usize) -> u64 {
        directed as u64 + self.random_cases
    }

    /// Case `index`: a directed case, or a random one made from
    /// ([`seed`](Self::seed), `index`) alone.
    pub fn case(&self, index: u64) -> Case {
        let directed = self.directed();
        self.case_with(&directed, index)
    }

    fn case_with(&self, directed: &[(String, Vec<u8>, bool)], index: u64) -> Case {
        if let Some((description, bytes, _)) =
            usize::try_from(index).ok().and_then(|i| directed.get(i))
        {
            return Case {
                index,
                description: description.clone(),
                bytes: bytes.clone(),
            };
        }
        let mut r = case_rng(self.seed, index);
        let (description, bytes) = match r.random_range(0..16) {
            0 | 1 => self.arbitrary(&mut r),
            2..=4 => self.header(&mut r),
            5..=11 => self.resealed(&mut r, true),
            12 | 13 => self.raw(&mut r),
            _ => self.resealed(&mut r, false),
        };
        Case {
            index,
            description: format!("random case (seed {}): {description}", self.seed),
            bytes,
        }
    }

    fn arbitrary(&self, r: &mut ChaCha8Rng) -> (String, Vec<u8>) {
        let len = random_len(r, 4096);
        (format!("{len} arbitrary bytes"), random_bytes(r, len))
    }

    fn header(&self, r: &mut ChaCha8Rng) -> (String, Vec<u8>) {
        if r.random_bool(0.5) {
            let mut out = MAGIC.to_vec();
            out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
            out.extend_from_slice(&self.variant.id().to_le_bytes());
            let len = random_len(r, 4096);
            out.extend(random_bytes(r, len));
            return (
                format!("valid magic, version and tag, then {len} arbitrary bytes"),
                out,
            );
        }
        let params_len = random_len(r, 128);
        let payload_len = random_len(r, 2048);
        let mut key = [0; 16];
        r.fill_bytes(&mut key);
        let p = Parts {
            version: FORMAT_VERSION,
            tag: self.variant.id(),
            key,
            params: random_bytes(r, params_len),
            payload: random_bytes(r, payload_len),
        };
        (
            format!(
                "valid envelope of {params_len} arbitrary parameter bytes and {payload_len} arbitrary payload bytes, checksum valid"
            ),
            p.seal(),
        )
    }

    fn pick_sample(&self, r: &mut ChaCha8Rng) -> (usize, String) {
        let si = r.random_range(0..self.samples.len());
        (si, format!("sample {si} ({})", self.samples[si].label))
    }

    fn resealed(&self, r: &mut ChaCha8Rng, reseal_crc: bool) -> (String, Vec<u8>) {
        let (si, name) = self.pick_sample(r);
        let mut p = self.parts(si);
        let mut what = Vec::new();
        for _ in 0..r.random_range(1..=4) {
            what.push(self.mutate(r, si, &mut p));
        }
        let mut bytes = p.seal();
        let crc = if reseal_crc {
            "checksum recomputed".to_string()
        } else {
            let original = &self.samples[si].bytes;
            let n = bytes.len();
            if r.random_bool(0.5) && original.len() >= 4 {
                bytes[n - 4..].copy_from_slice(&original[original.len() - 4..]);
                "the sample's checksum kept".to_string()
            } else {
                let at = r.random_range(0..n);
                bytes[at] ^= 1 << r.random_range(0..8);
                format!("then byte {at} flipped after sealing")
            }
        };
        (format!("{name}: {}; {crc}", what.join("; ")), bytes)
    }

    /// Applies one random mutation to `p` and says what it was.
    fn mutate(&self, r: &mut ChaCha8Rng, si: usize, p: &mut Parts) -> String {
        let fields = &self.samples[si].fields;
        let region = if r.random_bool(0.5) {
            Region::Params
        } else {
            Region::Payload
        };
        let rname = match region {
            Region::Params => "parameters",
            Region::Payload => "payload",
        };
        match r.random_range(0..12) {
            0..=3 if !fields.is_empty() => {
                let field = *fields.choose(r).unwrap_or(&fields[0]);
                let bytes = p.region(field.region);
                let original = read_field(bytes, field.offset, field.kind).unwrap_or(0);
                let value = if r.random_bool(0.75) {
                    *edge_values(field.kind, original)
                        .choose(r)
                        .unwrap_or(&original)
                } else {
                    r.random::<u64>()
                };
                write_field(bytes, field.offset, field.kind, value);
                format!("{} := {}", field.name, show(field.kind, value))
            }
            0..=5 => {
                let bytes = p.region(region);
                if bytes.is_empty() {
                    return format!("{rname} empty, left alone");
                }
                let flips = r.random_range(1..=8);
                for _ in 0..flips {
                    let bit = r.random_range(0..bytes.len() * 8);
                    bytes[bit / 8] ^= 1 << (bit % 8);
                }
                format!("{flips} random bits of the {rname} flipped")
            }
            6 => {
                let bytes = p.region(region);
                if bytes.len() < 8 {
                    return format!("{rname} shorter than a word, left alone");
                }
                let at = r.random_range(0..=bytes.len() - 8);
                let value = *edge_values(Kind::U64, 0).choose(r).unwrap_or(&u64::MAX);
                write_field(bytes, at, Kind::U64, value);
                format!("{rname} bytes {at}..{} := {value} (u64)", at + 8)
            }
            7 => {
                let bytes = p.region(region);
                let byte = *[0u8, 0xff].choose(r).unwrap_or(&0);
                bytes.fill(byte);
                format!("{rname} filled with {byte:#04x}")
            }
            8 => {
                let bytes = p.region(region);
                let len = r.random_range(0..=bytes.len());
                bytes.truncate(len);
                format!("{rname} truncated to {len} bytes")
            }
            9 => {
                let bytes = p.region(region);
                let more = *[1usize, 7, 8, 16, 64, 512].choose(r).unwrap_or(&8);
                let zero = r.random_bool(0.5);
                let extra = if zero {
                    vec![0; more]
                } else {
                    random_bytes(r, more)
                };
                bytes.extend(extra);
                format!(
                    "{rname} extended by {more} {} bytes",
                    if zero { "zero" } else { "random" }
                )
            }
            10 => {
                let bytes = p.region(region);
                if bytes.is_empty() {
                    return format!("{rname} empty, left alone");
                }
                let start = r.random_range(0..bytes.len());
                let end = r.random_range(start..=bytes.len());
                r.fill_bytes(&mut bytes[start..end]);
                format!("{rname} bytes {start}..{end} randomized")
            }
            _ => {
                r.fill_bytes(&mut p.key);
                "hash key randomized".to_string()
            }
        }
    }

    fn raw(&self, r: &mut ChaCha8Rng) -> (String, Vec<u8>) {
        let (si, name) = self.pick_sample(r);
        let p = self.parts(si);
        let mut bytes = p.seal();
        let params_len_at = 24;
        let payload_len_at = HEADER_LEN + p.params.len();
        let what = match r.random_range(0..7) {
            which @ 0..=1 => {
                let (what, at, kind, len) = if which == 0 {
                    ("parameter", params_len_at, Kind::U32, p.params.len())
                } else {
                    ("payload", payload_len_at, Kind::U64, p.payload.len())
                };
                let v = *edge_values(kind, len as u64).choose(r).unwrap_or(&0);
                write_field(&mut bytes, at, kind, v);
                format!("{what} length := {v}")
            }
            2 => {
                let at = r.random_range(0..4);
                bytes[at] ^= 1 << r.random_range(0..8);
                format!("magic byte {at} changed")
            }
            3 => {
                let v = r.random::<u16>();
                bytes[4..6].copy_from_slice(&v.to_le_bytes());
                format!("format version := {v}")
            }
            4 => {
                let v = r.random_range(0..=8u16);
                bytes[6..8].copy_from_slice(&v.to_le_bytes());
                format!("variant tag := {v}")
            }
            5 => {
                let len = r.random_range(0..bytes.len());
                bytes.truncate(len);
                format!("whole envelope truncated to {len} bytes")
            }
            _ => {
                let more = r.random_range(1..=64);
                let extra = random_bytes(r, more);
                let n = bytes.len();
                // Insert before the checksum, so the lengths no longer add up.
                bytes.splice(n - 4..n - 4, extra);
                format!("{more} random bytes inserted before the checksum")
            }
        };
        reseal(&mut bytes);
        (format!("{name}: {what}; checksum recomputed"), bytes)
    }
}
