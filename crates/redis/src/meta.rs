//! The metadata hash: a filter's parameters, its hash key, the item type
//! and the format version, readable by any client (`HGETALL name:meta`).
//!
//! Nothing read from it is trusted. The fields `create` writes once carry a
//! CRC-32 (`checksum`) over their exact text, so a field edited by hand is
//! [`Error::CorruptMetadata`]; every field is also checked against the
//! bounds `create` enforces, so a stored value can never size an allocation
//! or a loop the client would not have chosen itself.

use std::collections::HashMap;

use bloomlab_core::hash::HashFunction;

use crate::error::Error;
use crate::layout::{Cell, REDIS_MAX_STRING};

/// The `format` field: the layout of this crate's keys, version 3, whose
/// metadata records the item type and a checksum of its fixed fields.
/// Filters written in versions 1 and 2 (no checksum) are refused: export
/// them with the release that wrote them and import the copy.
pub const FORMAT: &str = "bloomlab-redis/3";

/// The longest item type name recorded.
pub const MAX_ITEM_NAME: usize = 256;

/// The fields `create` writes once, in the order the checksum reads them.
const FIXED: [&str; 11] = [
    "format",
    "kind",
    "item",
    "blocks",
    "hashes",
    "max_shard_bytes",
    "hash",
    "key",
    "items",
    "fpr",
    "growth",
];

/// A fixed field of a scalable filter only; after [`FIXED`] in the
/// checksum.
const TIGHTENING: &str = "tightening";

/// The fields the checksum of a Bloom, counting or scalable filter covers.
fn fixed_fields() -> Vec<&'static str> {
    FIXED.iter().copied().chain([TIGHTENING]).collect()
}

/// The `hash` field's value for each function.
fn hash_name(hash: HashFunction) -> &'static str {
    match hash {
        HashFunction::SipHash13 => "siphash-1-3",
        HashFunction::AesCmac => "aes-128-cmac",
    }
}

/// The function whose `hash` field value is `name`.
pub(crate) fn hash_named(name: &str) -> Option<HashFunction> {
    [HashFunction::AesCmac, HashFunction::SipHash13]
        .into_iter()
        .find(|&h| hash_name(h) == name)
}

/// The two words of a `key` field: 32 hex digits.
pub(crate) fn key_words(hex: &str) -> Option<[u64; 2]> {
    let word = |range: std::ops::Range<usize>| {
        hex.get(range)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u64::from_str_radix(h, 16).ok())
    };
    match (hex.len(), word(0..16), word(16..32)) {
        (32, Some(a), Some(b)) => Some([a, b]),
        _ => None,
    }
}

/// Which filter a name holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// [`RedisBloomFilter`](crate::RedisBloomFilter).
    Bloom,
    /// [`RedisCountingBloomFilter`](crate::RedisCountingBloomFilter).
    Counting,
    /// [`RedisScalableBloomFilter`](crate::RedisScalableBloomFilter).
    Scalable,
    /// [`RedisCuckooFilter`](crate::RedisCuckooFilter), whose metadata
    /// `cuckoo.rs` reads.
    Cuckoo,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Bloom => "bloom",
            Kind::Counting => "counting",
            Kind::Scalable => "scalable",
            Kind::Cuckoo => "cuckoo",
        }
    }

    /// What the cells of its blocked tables hold (a cuckoo filter's
    /// buckets are not blocks: its metadata never reaches the callers).
    pub(crate) fn cell(self) -> Cell {
        match self {
            Kind::Counting => Cell::Counter,
            Kind::Bloom | Kind::Scalable | Kind::Cuckoo => Cell::Bit,
        }
    }
}

/// The name an item type is recorded by: Rust's name for it, with
/// references stripped and the owned forms of `str` and slices named as
/// the borrowed ones, since they hash alike (a filter of `&str` opens as a
/// filter of `String`).
pub fn item_name<T: ?Sized>() -> String {
    let mut name = std::any::type_name::<T>();
    while let Some(rest) = name.strip_prefix('&') {
        name = rest.trim_start_matches("mut ").trim_start();
    }
    let owned = [
        ("alloc::string::String", "str"),
        ("alloc::boxed::Box<str>", "str"),
        ("alloc::borrow::Cow<str>", "str"),
    ];
    if let Some((_, to)) = owned.iter().find(|(from, _)| *from == name) {
        return (*to).to_owned();
    }
    for prefix in ["alloc::vec::Vec<", "alloc::boxed::Box<["] {
        if let Some(inner) = name.strip_prefix(prefix) {
            let inner = inner.trim_end_matches('>').trim_end_matches(']');
            return format!("[{inner}]");
        }
    }
    name.chars().take(MAX_ITEM_NAME).collect()
}

/// The fixed parameters of a filter. A scalable filter's `blocks` and
/// `hashes` are its first layer's.
#[derive(Debug, Clone, PartialEq)]
pub struct Meta {
    /// The filter.
    pub kind: Kind,
    /// The item type ([`item_name`]).
    pub item: String,
    /// The items and rate it was sized for; `None` for an imported table.
    pub design: Option<(u64, f64)>,
    /// Blocks of its (first) table.
    pub blocks: u64,
    /// `k` of its (first) table.
    pub hashes: u32,
    /// The cap on a shard's bytes.
    pub max_shard_bytes: u64,
    /// The function items are hashed with.
    pub hash: HashFunction,
    /// Its key.
    pub key: [u64; 2],
    /// A scalable filter's growth factor and tightening ratio.
    pub growth: Option<(u32, f64)>,
}

/// What a metadata hash holds besides the parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct State {
    /// Every shard was written: the filter may be used.
    pub ready: bool,
    /// A scalable filter's layers.
    pub layers: u32,
    /// Items added to a scalable filter's active layer.
    pub count: u64,
    /// Inserts into a scalable filter, duplicates included.
    pub inserts: u64,
}

/// The CRC-32, in hex, of the fields `fixed` as stored: each field's name
/// and exact text, or its absence. Every kind of filter keeps one over the
/// fields its `create` writes once.
pub(crate) fn checksum(fixed: &[&str], get: impl Fn(&str) -> Option<String>) -> String {
    let mut crc = crc32fast::Hasher::new();
    for field in fixed {
        crc.update(field.as_bytes());
        match get(field) {
            Some(v) => {
                crc.update(b"=");
                crc.update(v.as_bytes());
            }
            None => crc.update(b"-"),
        }
        crc.update(b"\n");
    }
    format!("{:08x}", crc.finalize())
}

/// The `state` field: the first 16 hex digits of the SHA-1 of `parts`
/// joined by `:`, the counts a filter changes as it is used and its fixed
/// fields' checksum. The scripts that change the counts compute it alike
/// (`redis.sha1hex`, [`STATE_FN`](crate::scripts)), so a count edited by
/// hand no longer matches it.
pub(crate) fn state_sum(parts: &[&str]) -> String {
    let hex = sha1_smol::Sha1::from(parts.join(":")).digest().to_string();
    hex[..16].to_owned()
}

/// Checks the `state` field of `hash` against the counts `parts` (texts of
/// `hash`'s fields, the fixed fields' checksum last).
pub(crate) fn check_state(
    key: &str,
    hash: &HashMap<String, String>,
    parts: &[&'static str],
) -> Result<(), Error> {
    let r = Reader::new(key, hash);
    let mut texts = Vec::with_capacity(parts.len());
    for &field in parts {
        texts.push(r.text(field)?);
    }
    let stored = r.text("state")?;
    if stored != state_sum(&texts) {
        let why = format!(
            "not the checksum of {}: one was edited by hand",
            parts.join(", ")
        );
        return Err(r.corrupt("state", Some(stored), &why));
    }
    Ok(())
}

/// Appends to `fields` their `checksum` over the names `fixed`.
pub(crate) fn seal(fields: &mut Vec<(&'static str, String)>, fixed: &[&str]) {
    let sum = checksum(fixed, |name| {
        fields
            .iter()
            .find(|(field, _)| *field == name)
            .map(|(_, v)| v.clone())
    });
    fields.push(("checksum", sum));
}

/// A stored value as an error shows it: at most 64 characters.
fn shown(value: &str) -> String {
    if value.chars().count() <= 64 {
        return value.to_owned();
    }
    let head: String = value.chars().take(61).collect();
    format!("{head}...")
}

/// Reads the fields of one metadata hash, naming what is wrong.
pub struct Reader<'a> {
    key: &'a str,
    hash: &'a HashMap<String, String>,
}

impl<'a> Reader<'a> {
    /// A reader of `hash`, the metadata at `key`.
    pub fn new(key: &'a str, hash: &'a HashMap<String, String>) -> Self {
        Self { key, hash }
    }

    /// The error for `field` holding `value`, for `reason`.
    pub fn corrupt(&self, field: &'static str, value: Option<&str>, reason: &str) -> Error {
        Error::CorruptMetadata {
            key: self.key.to_owned(),
            field,
            value: value.map(shown),
            reason: reason.to_owned(),
        }
    }

    /// The text of `field`; missing is an error.
    pub fn text(&self, field: &'static str) -> Result<&'a str, Error> {
        self.hash
            .get(field)
            .map(String::as_str)
            .ok_or_else(|| self.corrupt(field, None, "missing"))
    }

    /// `field` as an integer in `range`.
    pub fn int(
        &self,
        field: &'static str,
        range: std::ops::RangeInclusive<u64>,
    ) -> Result<u64, Error> {
        let text = self.text(field)?;
        // Only the text `to_string` writes: no sign, no leading zero, as
        // Redis's own integers (`HINCRBY` refuses "01").
        let n: u64 = text
            .parse()
            .ok()
            .filter(|n: &u64| n.to_string() == text)
            .ok_or_else(|| self.corrupt(field, Some(text), "not a non-negative integer"))?;
        if !range.contains(&n) {
            let why = format!("outside {}..={}", range.start(), range.end());
            return Err(self.corrupt(field, Some(text), &why));
        }
        Ok(n)
    }

    /// `field` as a rate strictly between 0 and 1.
    fn rate(&self, field: &'static str) -> Result<f64, Error> {
        let text = self.text(field)?;
        match text.parse::<f64>() {
            Ok(r) if r > 0.0 && r < 1.0 => Ok(r),
            _ => Err(self.corrupt(field, Some(text), "not a number in (0, 1)")),
        }
    }
}

/// The fixed fields every filter's metadata starts with, in the order
/// [`seal`] and the readers expect: the format, `kind`, the item type, the
/// table's `shape`, the hash function and key, and the size the filter was
/// designed for (when it was).
pub(crate) fn described<const N: usize>(
    kind: &str,
    item: &str,
    shape: [(&'static str, String); N],
    (hash, key): (HashFunction, [u64; 2]),
    design: Option<(u64, f64)>,
) -> Vec<(&'static str, String)> {
    let mut f = vec![
        ("format", FORMAT.to_owned()),
        ("kind", kind.to_owned()),
        ("item", item.to_owned()),
    ];
    f.extend(shape);
    f.push(("hash", hash_name(hash).to_owned()));
    f.push(("key", format!("{:016x}{:016x}", key[0], key[1])));
    if let Some((items, fpr)) = design {
        f.push(("items", items.to_string()));
        f.push(("fpr", fpr.to_string()));
    }
    f
}

impl Meta {
    /// The fields to write at creation (`ready` 0, a scalable filter's
    /// first layer open), with their checksum.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        let mut f = described(
            self.kind.name(),
            &self.item,
            [
                ("blocks", self.blocks.to_string()),
                ("hashes", self.hashes.to_string()),
                ("max_shard_bytes", self.max_shard_bytes.to_string()),
            ],
            (self.hash, self.key),
            self.design,
        );
        if let Some((growth, tightening)) = self.growth {
            f.push(("growth", growth.to_string()));
            f.push(("tightening", tightening.to_string()));
        }
        seal(&mut f, &fixed_fields());
        f.push(("ready", "0".to_owned()));
        if self.growth.is_some() {
            let sum = f
                .iter()
                .find(|(k, _)| *k == "checksum")
                .map(|(_, v)| v.clone());
            let state = state_sum(&["1", "0", "0", &sum.unwrap_or_default()]);
            f.push(("layers", "1".to_owned()));
            f.push(("count", "0".to_owned()));
            f.push(("inserts", "0".to_owned()));
            f.push(("state", state));
        }
        f
    }

    /// The checksum [`fields`](Self::fields) writes.
    pub fn checksum(&self) -> String {
        self.fields()
            .into_iter()
            .find(|(k, _)| *k == "checksum")
            .map(|(_, v)| v)
            .unwrap_or_default()
    }

    /// Reads a metadata hash (as `HGETALL` returns it) written by
    /// [`fields`](Self::fields), checking its checksum and every field
    /// against the bounds `create` enforces. A scalable filter's counts are
    /// checked against its layers by the caller, which knows their sizes.
    pub fn parse(key: &str, hash: &HashMap<String, String>) -> Result<(Self, State), Error> {
        let r = Reader::new(key, hash);
        let format = r.text("format")?;
        if format != FORMAT {
            return Err(r.corrupt(
                "format",
                Some(format),
                &format!("not {FORMAT}, the only format this release reads"),
            ));
        }
        if r.text("kind")? == "cuckoo" {
            let name = key.trim_end_matches(":meta");
            return Err(Error::Mismatch {
                name: name
                    .trim_start_matches('{')
                    .trim_end_matches('}')
                    .to_owned(),
                field: "kind",
                existing: "cuckoo".to_owned(),
                requested: "a Bloom, counting or scalable filter".to_owned(),
            });
        }
        let stored = r.text("checksum")?;
        if stored != checksum(&fixed_fields(), |f| hash.get(f).cloned()) {
            return Err(r.corrupt(
                "checksum",
                Some(stored),
                "not the checksum of the fixed fields: one was edited or lost",
            ));
        }
        let kind = match r.text("kind")? {
            "bloom" => Kind::Bloom,
            "counting" => Kind::Counting,
            "scalable" => Kind::Scalable,
            other => return Err(r.corrupt("kind", Some(other), "an unknown kind")),
        };
        let item = r.text("item")?;
        if item.is_empty() || item.len() > MAX_ITEM_NAME {
            let why = format!("empty or longer than {MAX_ITEM_NAME} bytes");
            return Err(r.corrupt("item", Some(item), &why));
        }
        let name = r.text("hash")?;
        let function = hash_named(name)
            .ok_or_else(|| r.corrupt("hash", Some(name), "an unknown hash function"))?;
        let hex = r.text("key")?;
        let key_words =
            key_words(hex).ok_or_else(|| r.corrupt("key", Some(hex), "not 32 hex digits"))?;
        let design = match (hash.contains_key("items"), hash.contains_key("fpr")) {
            (false, false) => None,
            _ => Some((r.int("items", 1..=u64::MAX)?, r.rate("fpr")?)),
        };
        let growth = match kind {
            Kind::Scalable => {
                let growth = r.int("growth", 0..=u64::from(u32::MAX))? as u32;
                if !bloomlab_scalable::GROWTH_FACTORS.contains(&growth) {
                    let text = growth.to_string();
                    let why = format!("not one of {:?}", bloomlab_scalable::GROWTH_FACTORS);
                    return Err(r.corrupt("growth", Some(&text), &why));
                }
                if design.is_none() {
                    return Err(r.corrupt("items", None, "missing"));
                }
                Some((growth, r.rate("tightening")?))
            }
            _ => None,
        };
        let block_bytes = u64::from(crate::layout::BLOCK_CELLS) * kind.cell().bits() / 8;
        let max_hashes = u64::from(bloomlab_core::theory::classic::MAX_HASHES);
        let meta = Meta {
            kind,
            item: item.to_owned(),
            design,
            blocks: r.int("blocks", 1..=u64::MAX / block_bytes)?,
            hashes: r.int("hashes", 1..=max_hashes)? as u32,
            max_shard_bytes: r.int("max_shard_bytes", block_bytes + 1..=REDIS_MAX_STRING as u64)?,
            hash: function,
            key: key_words,
            growth,
        };
        let ready = match r.text("ready")? {
            "0" => false,
            "1" => true,
            other => return Err(r.corrupt("ready", Some(other), "not 0 or 1")),
        };
        let state = match kind {
            Kind::Scalable => State {
                ready,
                layers: r.int("layers", 1..=u64::from(MAX_LAYERS))? as u32,
                count: r.int("count", 0..=MAX_COUNT)?,
                inserts: r.int("inserts", 0..=MAX_COUNT)?,
            },
            _ => State {
                ready,
                ..State::default()
            },
        };
        if kind == Kind::Scalable {
            check_state(key, hash, &SCALABLE_STATE)?;
        }
        Ok((meta, state))
    }

    /// The first parameter in which `self` (in Redis) differs from `wanted`,
    /// as (field, existing, requested). The hash function and key are
    /// compared only when `key_given`: a filter created with a random key
    /// adopts the existing ones.
    pub fn differs(
        &self,
        wanted: &Meta,
        key_given: bool,
    ) -> Option<(&'static str, String, String)> {
        let pair = |field, a: String, b: String| (a != b).then_some((field, a, b));
        let design = |m: &Meta| m.design.map(|(n, p)| format!("{n} items at {p}"));
        pair("kind", self.kind.name().into(), wanted.kind.name().into())
            .or_else(|| pair("item", self.item.clone(), wanted.item.clone()))
            .or_else(|| match (design(self), design(wanted)) {
                (Some(a), Some(b)) => pair("design", a, b),
                _ => None,
            })
            .or_else(|| {
                pair(
                    "growth",
                    format!("{:?}", self.growth),
                    format!("{:?}", wanted.growth),
                )
            })
            .or_else(|| pair("blocks", self.blocks.to_string(), wanted.blocks.to_string()))
            .or_else(|| pair("hashes", self.hashes.to_string(), wanted.hashes.to_string()))
            .or_else(|| {
                pair(
                    "max_shard_bytes",
                    self.max_shard_bytes.to_string(),
                    wanted.max_shard_bytes.to_string(),
                )
            })
            .or_else(|| {
                key_given
                    .then(|| {
                        pair(
                            "hash",
                            self.hash.name().to_owned(),
                            wanted.hash.name().to_owned(),
                        )
                    })
                    .flatten()
            })
            .or_else(|| {
                key_given
                    .then(|| {
                        pair(
                            "key",
                            format!("{:x?}", self.key),
                            format!("{:x?}", wanted.key),
                        )
                    })
                    .flatten()
            })
    }
}

/// [`Error::Mismatch`] for the filter `name` unless its `field`, stored as
/// `existing`, is the `requested` one.
pub(crate) fn same(
    name: &str,
    field: &'static str,
    existing: String,
    requested: String,
) -> Result<(), Error> {
    if existing == requested {
        return Ok(());
    }
    Err(Error::Mismatch {
        name: name.to_owned(),
        field,
        existing,
        requested,
    })
}

/// [`Error::OverLimit`] for the filter `name` when its tables' `bytes` are
/// past the `limit` its client accepts.
pub(crate) fn fits(name: &str, bytes: u64, limit: u64) -> Result<(), Error> {
    if bytes > limit {
        return Err(Error::OverLimit {
            name: name.to_owned(),
            bytes,
            limit,
        });
    }
    Ok(())
}

impl Meta {
    /// Refuses, as [`Error::Mismatch`], the metadata of a filter `name` of
    /// another kind than `kind` or item type than `item`.
    pub(crate) fn expect(&self, name: &str, kind: Kind, item: &str) -> Result<(), Error> {
        same(
            name,
            "kind",
            format!("{:?}", self.kind),
            format!("{kind:?}"),
        )?;
        same(name, "item", self.item.clone(), item.to_owned())
    }
}

/// The fields a scalable filter's `state` covers, in order.
pub(crate) const SCALABLE_STATE: [&str; 4] = ["layers", "count", "inserts", "checksum"];

/// The largest count a scalable filter's metadata may record: what Redis's
/// `HINCRBY` can reach.
pub const MAX_COUNT: u64 = i64::MAX as u64;

/// The most layers a scalable filter's metadata may record: with growth
/// factor 2 or more, layer 64's capacity overflows `u64`.
pub const MAX_LAYERS: u32 = 64;

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(kind: Kind) -> Meta {
        Meta {
            kind,
            item: "u64".to_owned(),
            design: Some((1_000_000, 0.001)),
            blocks: 12_345,
            hashes: 9,
            max_shard_bytes: 1 << 20,
            hash: HashFunction::AesCmac,
            key: [0x0123_4567_89ab_cdef, u64::MAX],
            growth: (kind == Kind::Scalable).then_some((2, 0.85)),
        }
    }

    fn stored(m: &Meta) -> HashMap<String, String> {
        m.fields().into_iter().map(|(k, v)| (k.into(), v)).collect()
    }

    #[test]
    fn fields_read_back() {
        for (kind, function) in [Kind::Bloom, Kind::Counting, Kind::Scalable]
            .into_iter()
            .flat_map(|k| [(k, HashFunction::AesCmac), (k, HashFunction::SipHash13)])
        {
            let m = Meta {
                hash: function,
                ..sample(kind)
            };
            let hash = stored(&m);
            let (back, state) = Meta::parse("x:meta", &hash).unwrap();
            assert_eq!(back, m);
            assert_eq!(hash["format"], FORMAT);
            assert!(!state.ready);
            assert_eq!(state.layers, u32::from(kind == Kind::Scalable));
        }
    }

    #[test]
    fn an_edited_fixed_field_fails_the_checksum() {
        let m = sample(Kind::Scalable);
        for field in &fixed_fields() {
            let mut hash = stored(&m);
            let Some(v) = hash.get_mut(*field) else {
                continue;
            };
            v.push('0');
            let e = Meta::parse("x:meta", &hash).unwrap_err();
            let want = if *field == "format" {
                "format"
            } else {
                "checksum"
            };
            assert!(
                matches!(e, Error::CorruptMetadata { field, .. } if field == want),
                "{field}: {e}"
            );
        }
        // Removing a field is an edit too.
        let mut hash = stored(&m);
        hash.remove("items");
        let e = Meta::parse("x:meta", &hash).unwrap_err();
        assert!(
            matches!(
                e,
                Error::CorruptMetadata {
                    field: "checksum",
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn out_of_bounds_fields_are_named_even_with_a_matching_checksum() {
        // A forged checksum does not make a stored value trusted.
        let cases: [(&str, &str); 8] = [
            ("blocks", "0"),
            ("blocks", "18446744073709551615"),
            ("hashes", "65"),
            ("max_shard_bytes", "1"),
            ("growth", "5"),
            ("tightening", "1"),
            ("fpr", "-1"),
            ("items", "0"),
        ];
        for (field, value) in cases {
            let mut hash = stored(&sample(Kind::Scalable));
            hash.insert(field.into(), value.into());
            let sum = checksum(&fixed_fields(), |f| hash.get(f).cloned());
            hash.insert("checksum".into(), sum);
            let e = Meta::parse("x:meta", &hash).unwrap_err();
            assert!(
                matches!(&e, Error::CorruptMetadata { field: f, .. } if *f == field),
                "{field}={value}: {e}"
            );
        }
        for (field, value) in [
            ("layers", "0"),
            ("layers", "65"),
            ("count", "-1"),
            ("ready", "2"),
        ] {
            let mut hash = stored(&sample(Kind::Scalable));
            hash.insert(field.into(), value.into());
            let e = Meta::parse("x:meta", &hash).unwrap_err();
            assert!(
                matches!(&e, Error::CorruptMetadata { field: f, .. } if *f == field),
                "{field}={value}: {e}"
            );
        }
        // Counts within their bounds but edited by hand: their checksum.
        for (field, value) in [("layers", "2"), ("count", "7"), ("inserts", "9")] {
            let mut hash = stored(&sample(Kind::Scalable));
            hash.insert(field.into(), value.into());
            let e = Meta::parse("x:meta", &hash).unwrap_err();
            assert!(
                matches!(&e, Error::CorruptMetadata { field: "state", .. }),
                "{field}={value}: {e}"
            );
        }
    }

    #[test]
    fn item_names_treat_owned_and_borrowed_alike() {
        assert_eq!(item_name::<u64>(), "u64");
        assert_eq!(item_name::<&str>(), "str");
        assert_eq!(item_name::<String>(), "str");
        assert_eq!(item_name::<str>(), "str");
        assert_eq!(item_name::<Vec<u8>>(), "[u8]");
        assert_eq!(item_name::<&[u8]>(), "[u8]");
        assert_ne!(item_name::<u32>(), item_name::<u64>());
    }

    #[test]
    fn differences_are_reported_in_order() {
        let a = sample(Kind::Bloom);
        let mut b = a.clone();
        assert_eq!(a.differs(&b, true), None);
        b.key = [1, 2];
        assert_eq!(
            a.differs(&b, false),
            None,
            "a random key adopts the existing one"
        );
        assert_eq!(a.differs(&b, true).map(|d| d.0), Some("key"));
        b.hash = HashFunction::SipHash13;
        assert_eq!(a.differs(&b, false), None);
        assert_eq!(a.differs(&b, true).map(|d| d.0), Some("hash"));
        b.design = Some((1_000_000, 0.01));
        assert_eq!(a.differs(&b, false).map(|d| d.0), Some("design"));
        b.item = "str".to_owned();
        assert_eq!(a.differs(&b, false).map(|d| d.0), Some("item"));
    }
}
