//! `bloomlab-cli inspect FILE` (and `bloomlab inspect FILE`): what a stored filter is, how full, and what rate
//! it gives now.
//!
//! Two formats are recognised from their first bytes:
//! - a bloomlab envelope (magic `BLMF`, any variant): decoded by the
//!   variant's own `from_bytes`, so every check of the format applies
//!   (checksum, parameters against payload);
//! - Guava's `BloomFilter.writeTo` stream (strategy ordinal 0 or 1): read by
//!   [`bloomlab_guava`]. The file does not record the funnel, and nothing
//!   reported here depends on it.
//!
//! Anything else is an [`InspectError`]: the file is read, never trusted.
//! Only a regular file is opened: a FIFO with no writer, a device or a
//! folder is refused before anything would wait on it.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use bloomlab::catalog::{self, Value as Param};
use bloomlab_core::codec::{MAGIC, split_version};
use bloomlab_guava::{ByteArrayFunnel, GuavaBloomFilter, Strategy};
use serde::Serialize;
use serde_json::{Value, json};

use bloomlab_choose::numbers::grouped as group;

/// What `inspect` reports of one file.
#[derive(Debug, Clone, Serialize)]
pub struct Inspection {
    /// The file as given.
    pub file: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// `"bloomlab"` (an envelope) or `"guava"` (Guava's `writeTo` stream).
    pub format: &'static str,
    /// The filter type: `BloomFilter`, …, `CuckooFilter`, or Guava's
    /// `BloomFilter`.
    pub variant: &'static str,
    /// The variant's own parameters, by name.
    pub parameters: serde_json::Map<String, Value>,
    /// Fraction of the table in use: bits set, non-zero counters, or
    /// occupied cuckoo slots.
    pub fill_ratio: f64,
    /// Items the filter recorded (inserts, net of removes where it can
    /// remove), when its format keeps the count; Guava's does not.
    pub len: Option<u64>,
    /// Distinct items estimated from the table alone (the bits set; the
    /// occupied slots of a cuckoo filter, which is exact). Infinite when
    /// every cell of a Bloom table is taken, which JSON writes as `null`:
    /// see [`estimate_unbounded`](Self::estimate_unbounded).
    pub estimate_count: f64,
    /// Whether the table could hold any number of items (every cell taken,
    /// so `estimate_count` is infinite, `null` in JSON), which sets this
    /// case apart from a count the format does not keep.
    pub estimate_unbounded: bool,
    /// The false-positive rate a probe of an absent item sees, from the
    /// table as it stands.
    pub estimated_fpr: f64,
    /// How that rate is computed.
    pub estimated_from: &'static str,
}

/// Why a file could not be inspected.
#[derive(Debug)]
#[non_exhaustive]
pub enum InspectError {
    /// The file could not be opened or read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The path names something other than a regular file (a FIFO, a
    /// socket, a device, a folder), which is refused unopened: opening a
    /// FIFO with no writer would wait forever.
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is instead: `"a FIFO"`, `"a folder"`, ….
        kind: &'static str,
    },
    /// The allocator refused a buffer the size of the file.
    OutOfMemory {
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
    },
    /// The file starts as a bloomlab envelope but does not decode.
    Bloomlab {
        /// The file.
        path: PathBuf,
        /// The variant its header names, if this build knows the tag.
        variant: Option<&'static str>,
        /// Why it does not decode.
        source: bloomlab_core::DecodeError,
    },
    /// A bloomlab file of a variant this build does not know (written by a
    /// newer bloomlab).
    UnknownVariant {
        /// The file.
        path: PathBuf,
        /// The variant tag in its header.
        tag: u16,
    },
    /// The file starts with a Guava strategy ordinal but is not a Guava filter.
    Guava {
        /// The file.
        path: PathBuf,
        /// Why.
        source: bloomlab_guava::ReadError,
    },
    /// The file is neither format.
    Unrecognised {
        /// The file.
        path: PathBuf,
        /// Its first bytes, at most eight.
        head: Vec<u8>,
    },
}

impl fmt::Display for InspectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InspectError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            InspectError::NotAFile { path, kind } => write!(
                f,
                "{} is {kind}, not a regular file: inspect reads only files",
                path.display()
            ),
            InspectError::OutOfMemory { path, bytes } => write!(
                f,
                "cannot hold {} ({bytes} bytes) in memory: the allocator refused",
                path.display()
            ),
            InspectError::Bloomlab {
                path,
                variant,
                source,
            } => write!(
                f,
                "{} is a bloomlab file{} that does not decode: {source}",
                path.display(),
                variant.map_or(String::new(), |v| format!(" ({v})"))
            ),
            InspectError::UnknownVariant { path, tag } => write!(
                f,
                "{} is a bloomlab file of variant tag {tag}, which this build does not know \
                 (it reads tags {}); a newer bloomlab wrote it",
                path.display(),
                known_tags()
            ),
            InspectError::Guava { path, source } => write!(
                f,
                "{} starts like a Guava BloomFilter (strategy byte 0 or 1) but is not one: {source}",
                path.display()
            ),
            InspectError::Unrecognised { path, head } => {
                write!(
                    f,
                    "{} is not a filter bloomlab reads: a bloomlab file starts with the bytes \
                     \"BLMF\" and a Guava BloomFilter with the byte 0 or 1; this one starts with",
                    path.display()
                )?;
                if head.is_empty() {
                    f.write_str(" nothing (it is empty)")
                } else {
                    head.iter().try_for_each(|b| write!(f, " {b:02x}"))
                }
            }
        }
    }
}

/// The tags this build reads, as a list: `1, 2, 3, 4, 5, 6`.
fn known_tags() -> String {
    let mut tags: Vec<u16> = catalog::variants::<[u8]>().iter().map(|v| v.tag).collect();
    tags.dedup();
    let tags: Vec<String> = tags.iter().map(u16::to_string).collect();
    tags.join(", ")
}

impl std::error::Error for InspectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InspectError::Read { source, .. } => Some(source),
            InspectError::Bloomlab { source, .. } => Some(source),
            InspectError::Guava { source, .. } => Some(source),
            InspectError::NotAFile { .. }
            | InspectError::OutOfMemory { .. }
            | InspectError::UnknownVariant { .. }
            | InspectError::Unrecognised { .. } => None,
        }
    }
}

/// Reads `path` and says what filter it holds.
///
/// # Errors
///
/// [`InspectError`] if the file cannot be read or is not a filter of either
/// format.
pub fn inspect(path: &Path) -> Result<Inspection, InspectError> {
    let bytes = read(path)?;
    inspect_bytes(path, &bytes)
}

/// The whole file, in a buffer allocated fallibly for its size.
fn read(path: &Path) -> Result<Vec<u8>, InspectError> {
    let failed = |source| InspectError::Read {
        path: path.to_owned(),
        source,
    };
    // Asked of the path before opening it (`stat` never waits, `open` of a
    // FIFO does), and of the file opened, in case the path changed between.
    let regular = |kind: std::fs::FileType| match kind.is_file() {
        true => Ok(()),
        false => Err(InspectError::NotAFile {
            path: path.to_owned(),
            kind: kind_of(kind),
        }),
    };
    regular(std::fs::metadata(path).map_err(failed)?.file_type())?;
    let mut file = std::fs::File::open(path).map_err(failed)?;
    let meta = file.metadata().map_err(failed)?;
    regular(meta.file_type())?;
    let len = meta.len();
    let mut bytes = Vec::new();
    usize::try_from(len)
        .ok()
        .and_then(|n| bytes.try_reserve_exact(n).ok())
        .ok_or_else(|| InspectError::OutOfMemory {
            path: path.to_owned(),
            bytes: len,
        })?;
    file.read_to_end(&mut bytes).map_err(failed)?;
    Ok(bytes)
}

/// What a file that is not a regular file is, for [`InspectError::NotAFile`].
fn kind_of(kind: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else {
        "an unknown kind of file"
    }
}

/// [`inspect`] of bytes already read from `path`.
///
/// # Errors
///
/// As [`inspect`].
pub fn inspect_bytes(path: &Path, bytes: &[u8]) -> Result<Inspection, InspectError> {
    let base = |format, variant| Inspection {
        file: path.to_owned(),
        bytes: bytes.len() as u64,
        format,
        variant,
        parameters: serde_json::Map::new(),
        fill_ratio: 0.0,
        len: None,
        estimate_count: 0.0,
        estimate_unbounded: false,
        estimated_fpr: 0.0,
        estimated_from: "",
    };
    if bytes.starts_with(&MAGIC) {
        // Magic (4), format version (2), then the variant tag (2), little-endian.
        let le16 = |at: usize| {
            bytes
                .get(at..at + 2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
        };
        let variant = le16(6).and_then(catalog::by_tag::<[u8]>);
        let failed = |source| InspectError::Bloomlab {
            path: path.to_owned(),
            variant: variant.as_ref().map(|v| v.type_name),
            source,
        };
        let Some(variant) = &variant else {
            return Err(match (le16(4), le16(6)) {
                // A format version this build does not read, or a short
                // header: the envelope's decoder names it.
                (Some(version), Some(_)) if split_version(version).is_none() => {
                    failed(bloomlab_core::DecodeError::UnsupportedVersion(version))
                }
                (Some(_), Some(tag)) => InspectError::UnknownVariant {
                    path: path.to_owned(),
                    tag,
                },
                _ => failed(bloomlab_core::DecodeError::Truncated),
            });
        };
        let state = (variant.decode)(bytes).map_err(failed)?.state();
        let mut out = base("bloomlab", variant.type_name);
        // Read by the decoder above, so present and supported.
        if let Some((version, hash)) = le16(4).and_then(split_version) {
            out.parameters
                .insert("format_version".into(), json!(version));
            out.parameters.insert("hash".into(), json!(hash.name()));
        }
        for (name, value) in state.parameters {
            let value = match value {
                Param::Count(n) => json!(n),
                Param::Real(x) => json!(x),
            };
            out.parameters.insert(name.into(), value);
        }
        out.fill_ratio = state.fill_ratio;
        out.len = Some(state.len);
        out.estimate_count = state.estimate_count;
        out.estimate_unbounded = !state.estimate_count.is_finite();
        out.estimated_fpr = state.estimated_fpr;
        out.estimated_from = state.estimated_from;
        return Ok(out);
    }
    if matches!(bytes.first(), Some(0 | 1)) {
        let filter = GuavaBloomFilter::from_bytes(bytes, ByteArrayFunnel).map_err(|source| {
            InspectError::Guava {
                path: path.to_owned(),
                source,
            }
        })?;
        let mut out = base("guava", "BloomFilter (Guava)");
        describe_guava(&filter, &mut out);
        return Ok(out);
    }
    Err(InspectError::Unrecognised {
        path: path.to_owned(),
        head: bytes.iter().take(8).copied().collect(),
    })
}

fn describe_guava(filter: &GuavaBloomFilter<ByteArrayFunnel>, out: &mut Inspection) {
    let p = &mut out.parameters;
    p.insert("strategy".into(), json!(filter.strategy().name()));
    p.insert("bits".into(), json!(filter.bit_size()));
    p.insert("hashes".into(), json!(filter.num_hash_functions()));
    if filter.strategy() == Strategy::Murmur128Mitz32 && filter.bit_size() > i32::MAX as u64 {
        p.insert(
            "note".into(),
            json!("MURMUR128_MITZ_32 reaches only the first 2^31 bits"),
        );
    }
    out.fill_ratio = filter.bit_count() as f64 / filter.bit_size() as f64;
    out.estimate_count = filter.approximate_element_count() as f64;
    out.estimate_unbounded = !out.estimate_count.is_finite();
    out.estimated_fpr = filter.expected_fpp();
    out.estimated_from = "Guava's expectedFpp(): (bitCount / bitSize)^k";
}

impl fmt::Display for Inspection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let format = match self.format {
            "guava" => "Guava BloomFilter.writeTo stream",
            _ => "bloomlab envelope",
        };
        writeln!(
            f,
            "file           {} ({} bytes)",
            self.file.display(),
            group(self.bytes)
        )?;
        writeln!(f, "format         {format}")?;
        writeln!(f, "variant        {}", self.variant)?;
        for (i, (name, value)) in self.parameters.iter().enumerate() {
            let label = if i == 0 { "parameters" } else { "" };
            let value = match value {
                Value::Number(n) if n.is_u64() => group(n.as_u64().unwrap_or_default()),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            writeln!(f, "{label:<14} {name} = {value}")?;
        }
        writeln!(f, "fill           {:.2}%", 100.0 * self.fill_ratio)?;
        // A table with every cell taken could hold any number of items.
        let estimate = if self.estimate_unbounded {
            "any number (every cell is taken)".to_owned()
        } else {
            format!("about {}", group(self.estimate_count.round() as u64))
        };
        match self.len {
            Some(items) => writeln!(
                f,
                "items          {} recorded; {estimate} from the table",
                group(items),
            )?,
            None => writeln!(
                f,
                "items          {estimate} from the table (the format records no count)",
            )?,
        }
        write!(
            f,
            "estimated rate {:.3e} (from {})",
            self.estimated_fpr, self.estimated_from
        )
    }
}
