//! The metadata hash: a filter's parameters, its hash key and the format
//! version, readable by any client (`HGETALL name:meta`).

use std::collections::HashMap;

use bloomlab_core::hash::HashFunction;

use crate::error::Error;

/// The `format` field of a filter hashed with AES-128-CMAC, the default:
/// the layout of this crate's keys, version 2, whose metadata names the
/// hash function in a field `hash`.
pub const FORMAT: &str = "bloomlab-redis/2";

/// The `format` field of a filter hashed with SipHash-1-3: version 1, the
/// same layout with no `hash` field, as every filter was written before
/// AES-CMAC became the default. A filter imported from such a file is
/// written in it still, so that a client that knows only version 1 keeps
/// reading it; that client refuses version 2 rather than hash with the
/// wrong function.
pub const FORMAT_SIPHASH: &str = "bloomlab-redis/1";

/// The `hash` field's value for each function.
fn hash_name(hash: HashFunction) -> &'static str {
    match hash {
        HashFunction::SipHash13 => "siphash-1-3",
        HashFunction::AesCmac => "aes-128-cmac",
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
    /// `cuckoo.rs` reads and writes.
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
}

/// The fixed parameters of a filter. A scalable filter's `blocks` and
/// `hashes` are its first layer's.
#[derive(Debug, Clone, PartialEq)]
pub struct Meta {
    /// The filter.
    pub kind: Kind,
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

impl Meta {
    /// The `format` field this filter is written with: [`FORMAT_SIPHASH`]
    /// for SipHash-1-3, [`FORMAT`] otherwise.
    pub fn format(&self) -> &'static str {
        match self.hash {
            HashFunction::SipHash13 => FORMAT_SIPHASH,
            HashFunction::AesCmac => FORMAT,
        }
    }

    /// The fields to write at creation (`ready` 0, a scalable filter's
    /// first layer open).
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        let mut f = vec![
            ("format", self.format().to_owned()),
            ("kind", self.kind.name().to_owned()),
            ("blocks", self.blocks.to_string()),
            ("hashes", self.hashes.to_string()),
            ("max_shard_bytes", self.max_shard_bytes.to_string()),
            ("key", format!("{:016x}{:016x}", self.key[0], self.key[1])),
            ("ready", "0".to_owned()),
        ];
        if self.hash != HashFunction::SipHash13 {
            f.push(("hash", hash_name(self.hash).to_owned()));
        }
        if let Some((items, fpr)) = self.design {
            f.push(("items", items.to_string()));
            f.push(("fpr", fpr.to_string()));
        }
        if let Some((growth, tightening)) = self.growth {
            f.push(("growth", growth.to_string()));
            f.push(("tightening", tightening.to_string()));
            f.push(("layers", "1".to_owned()));
            f.push(("count", "0".to_owned()));
            f.push(("inserts", "0".to_owned()));
        }
        f
    }

    /// Reads a metadata hash (as `HGETALL` returns it) written by
    /// [`fields`](Self::fields).
    pub fn parse(key: &str, hash: &HashMap<String, String>) -> Result<(Self, State), Error> {
        let corrupt = |reason: String| Error::CorruptMetadata {
            key: key.to_owned(),
            reason,
        };
        let get = |field: &str| {
            hash.get(field)
                .map(String::as_str)
                .ok_or_else(|| corrupt(format!("no field {field:?}")))
        };
        fn num<N: std::str::FromStr>(
            field: &str,
            text: &str,
            corrupt: impl Fn(String) -> Error,
        ) -> Result<N, Error> {
            text.parse()
                .map_err(|_| corrupt(format!("field {field:?} is {text:?}, not a number")))
        }
        let field = |name: &str| -> Result<u64, Error> { num(name, get(name)?, corrupt) };
        let function = match get("format")? {
            FORMAT_SIPHASH => HashFunction::SipHash13,
            FORMAT => match get("hash")? {
                name if name == hash_name(HashFunction::AesCmac) => HashFunction::AesCmac,
                name if name == hash_name(HashFunction::SipHash13) => HashFunction::SipHash13,
                other => return Err(corrupt(format!("unknown hash function {other:?}"))),
            },
            other => {
                return Err(corrupt(format!(
                    "format {other:?}, not {FORMAT:?} or {FORMAT_SIPHASH:?}"
                )));
            }
        };
        let kind = match get("kind")? {
            "bloom" => Kind::Bloom,
            "counting" => Kind::Counting,
            "scalable" => Kind::Scalable,
            "cuckoo" => {
                return Err(corrupt(
                    "a cuckoo filter: open it as a RedisCuckooFilter".to_owned(),
                ));
            }
            other => return Err(corrupt(format!("unknown kind {other:?}"))),
        };
        let hex = get("key")?;
        let word = |range: std::ops::Range<usize>| {
            hex.get(range)
                .and_then(|h| u64::from_str_radix(h, 16).ok())
                .ok_or_else(|| corrupt(format!("key {hex:?} is not 32 hex digits")))
        };
        if hex.len() != 32 {
            return Err(corrupt(format!("key {hex:?} is not 32 hex digits")));
        }
        let design = match (hash.get("items"), hash.get("fpr")) {
            (Some(items), Some(fpr)) => {
                Some((num("items", items, corrupt)?, num("fpr", fpr, corrupt)?))
            }
            _ => None,
        };
        let growth = match kind {
            Kind::Scalable => Some((
                num("growth", get("growth")?, corrupt)?,
                num("tightening", get("tightening")?, corrupt)?,
            )),
            _ => None,
        };
        let meta = Meta {
            kind,
            design,
            blocks: field("blocks")?,
            hashes: num("hashes", get("hashes")?, corrupt)?,
            max_shard_bytes: field("max_shard_bytes")?,
            hash: function,
            key: [word(0..16)?, word(16..32)?],
            growth,
        };
        let state = State {
            ready: get("ready")? == "1",
            layers: match kind {
                Kind::Scalable => num("layers", get("layers")?, corrupt)?,
                _ => 0,
            },
            count: hash
                .get("count")
                .map_or(Ok(0), |c| num("count", c, corrupt))?,
            inserts: hash
                .get("inserts")
                .map_or(Ok(0), |c| num("inserts", c, corrupt))?,
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(kind: Kind) -> Meta {
        Meta {
            kind,
            design: Some((1_000_000, 0.001)),
            blocks: 12_345,
            hashes: 9,
            max_shard_bytes: 1 << 20,
            hash: HashFunction::AesCmac,
            key: [0x0123_4567_89ab_cdef, u64::MAX],
            growth: (kind == Kind::Scalable).then_some((2, 0.85)),
        }
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
            let hash: HashMap<_, _> = m.fields().into_iter().map(|(k, v)| (k.into(), v)).collect();
            let (back, state) = Meta::parse("x:meta", &hash).unwrap();
            assert_eq!(back, m);
            // A SipHash-1-3 filter is written as every filter was before
            // AES-CMAC: format 1, no `hash` field.
            let old = function == HashFunction::SipHash13;
            assert_eq!(hash["format"], if old { FORMAT_SIPHASH } else { FORMAT });
            assert_eq!(hash.contains_key("hash"), !old);
            assert!(!state.ready);
            assert_eq!(state.layers, u32::from(kind == Kind::Scalable));
        }
    }

    #[test]
    fn corrupt_fields_are_named() {
        let mut hash: HashMap<String, String> = sample(Kind::Bloom)
            .fields()
            .into_iter()
            .map(|(k, v)| (k.into(), v))
            .collect();
        hash.insert("blocks".into(), "many".into());
        let e = Meta::parse("x:meta", &hash).unwrap_err().to_string();
        assert!(e.contains("\"blocks\" is \"many\""), "{e}");
        hash.remove("blocks");
        assert!(
            Meta::parse("x:meta", &hash)
                .unwrap_err()
                .to_string()
                .contains("no field")
        );
        hash.insert("format".into(), "bloomlab-redis/0".into());
        assert!(Meta::parse("x:meta", &hash).is_err());
        hash.insert("blocks".into(), "1".into());
        hash.insert("format".into(), FORMAT.into());
        hash.insert("hash".into(), "md5".into());
        let e = Meta::parse("x:meta", &hash).unwrap_err().to_string();
        assert!(e.contains("unknown hash function \"md5\""), "{e}");
        hash.remove("hash");
        let e = Meta::parse("x:meta", &hash).unwrap_err().to_string();
        assert!(e.contains("no field \"hash\""), "{e}");
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
    }
}
