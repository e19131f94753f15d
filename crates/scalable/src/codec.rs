//! The binary format of a [`ScalableBloomFilter`], inside the core envelope
//! ([`bloomlab_core::codec`]) under [`TAG`].
//!
//! Parameters, little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | initial capacity `n0` |
//! | 8 | total rate `P` (IEEE-754 bits) |
//! | 4 | growth factor `s` |
//! | 8 | tightening ratio `r` (IEEE-754 bits) |
//! | 1 | 1 if a memory cap is set, else 0 |
//! | 8 | the cap in bytes (0 when none) |
//! | 8 | `len`: inserts that returned `Ok` |
//! | 4 | the layer new items go to |
//! | 4 | number of layers `L` |
//! | 20·L | per layer: bits `m` (8), hashes `k` (4), items added (8) |
//!
//! The payload is each layer's `⌈m/64⌉` words, oldest layer first.
//!
//! Decoding checks that every layer fits the schedule: its capacity is
//! `n0·s^i`, its `(m, k)` keeps the layer's rate `P(1 − r)r^i` at that
//! capacity, it holds no more items than that, the layers before the active
//! one are full and those after it empty, its set bits number at most `k`
//! per item added, and the layers together respect the memory cap.

use bloomlab_classic::BloomFilter;
use bloomlab_core::codec::{Envelope, Reader, Writer, invalid};
use bloomlab_core::hash::Scheme;
use bloomlab_core::theory::classic;
use bloomlab_core::{DecodeError, DefaultHasher, Tag, check_hashes};

use crate::error::{BuildError, Invalid};
use crate::filter::{ScalableBloomFilter, added};
use crate::schedule::Schedule;

/// The envelope tag of a [`ScalableBloomFilter`].
pub const TAG: Tag = Tag::new(5, "ScalableBloomFilter");

/// A layer's rate may exceed its target by this relative amount in a decoded
/// file: `exp` and `powf` may round differently on the platform that wrote it.
const RATE_SLACK: f64 = 1e-9;

/// The filter as bytes.
pub(crate) fn encode<T: ?Sized>(f: &ScalableBloomFilter<T, DefaultHasher>) -> Vec<u8> {
    let s = f.schedule();
    let mut params = Writer::new();
    params
        .u64(s.initial_capacity)
        .f64(s.fpr)
        .u32(s.growth)
        .f64(s.tightening)
        .u8(u8::from(s.max_bytes.is_some()))
        .u64(s.max_bytes.unwrap_or(0) as u64)
        .u64(f.len() as u64)
        .u32(f.active() as u32)
        .u32(f.layers().len() as u32);
    let mut payload = Writer::new();
    for layer in f.layers() {
        params
            .u64(layer.num_bits())
            .u32(layer.num_hashes())
            .u64(added(layer));
        payload.words(layer.as_words());
    }
    Envelope {
        version: f.scheme().version(),
        ..Envelope::new(TAG, f.hasher(), params.finish(), payload.finish())
    }
    .encode()
}

/// One layer's fields from the parameters.
struct LayerParams {
    bits: u64,
    hashes: u32,
    added: u64,
}

/// Reads a filter written by [`encode`].
pub(crate) fn decode<T: ?Sized>(
    bytes: &[u8],
) -> Result<ScalableBloomFilter<T, DefaultHasher>, DecodeError> {
    let env = Envelope::decode(bytes, TAG)?;
    let mut r = Reader::new(&env.params);
    let initial_capacity = r.u64()?;
    let fpr = r.f64()?;
    let growth = r.u32()?;
    let tightening = r.f64()?;
    let max_bytes = match (r.u8()?, r.u64()?) {
        (0, 0) => None,
        (1, cap) => Some(usize::try_from(cap).map_err(|_| invalid("memory cap"))?),
        _ => return Err(invalid("memory cap flag")),
    };
    let len = usize::try_from(r.u64()?).map_err(|_| invalid("len"))?;
    let active = r.u32()? as usize;
    let count = r.u32()? as usize;
    // Each layer's fields are read before any is trusted; a count larger
    // than the parameters hold ends in `Truncated` without allocating.
    let mut fields = Vec::new();
    for _ in 0..count {
        fields.push(LayerParams {
            bits: r.u64()?,
            hashes: r.u32()?,
            added: r.u64()?,
        });
    }
    r.finish("parameters longer than their fields")?;

    usize::try_from(initial_capacity).map_err(|_| invalid("initial capacity"))?;
    let schedule = Schedule::new(initial_capacity, fpr, growth, tightening, max_bytes).map_err(
        |e| match e {
            BuildError::Variant(Invalid::GrowthFactor(_)) => invalid("growth factor"),
            BuildError::Variant(Invalid::TighteningRatio(_)) => invalid("tightening ratio"),
            BuildError::Variant(Invalid::RateUnderflow { layer: 1.., .. }) => {
                invalid("tightening ratio (a layer's rate underflows)")
            }
            _ if initial_capacity == 0 => invalid("initial capacity"),
            _ => invalid("total rate"),
        },
    )?;
    if count == 0 {
        return Err(invalid("no layers"));
    }
    if active >= count {
        return Err(invalid("active layer beyond the last"));
    }

    let hasher = env.hasher();
    let mut payload = Reader::new(&env.payload);
    let mut layers = Vec::with_capacity(fields.len());
    let mut capacities = Vec::with_capacity(fields.len());
    let (mut memory, mut total_added) = (0u128, 0u64);
    for (i, layer) in fields.iter().enumerate() {
        let index = u32::try_from(i).map_err(|_| invalid("too many layers"))?;
        let capacity = schedule
            .capacity(index)
            .ok_or(invalid("layer capacity overflows"))?;
        if layer.bits == 0 || check_hashes(layer.hashes).is_err() {
            return Err(invalid("layer size"));
        }
        let rate = classic::fpr(layer.bits as f64, capacity as f64, f64::from(layer.hashes));
        let keeps_rate = rate <= schedule.rate(index) * (1.0 + RATE_SLACK);
        if !keeps_rate {
            return Err(invalid("a layer too small for its rate"));
        }
        let expected = match i.cmp(&active) {
            std::cmp::Ordering::Less => layer.added == capacity,
            std::cmp::Ordering::Equal => layer.added <= capacity,
            std::cmp::Ordering::Greater => layer.added == 0,
        };
        if !expected {
            return Err(invalid("items added to a layer"));
        }
        let words = usize::try_from(layer.bits.div_ceil(64)).map_err(|_| invalid("layer size"))?;
        memory += words as u128 * 8;
        if memory > schedule.limit() as u128 {
            return Err(invalid("layers beyond the memory cap"));
        }
        let words = payload.words(words)?;
        let ones: u64 = words.iter().map(|w| u64::from(w.count_ones())).sum();
        let most = layer.added.saturating_mul(u64::from(layer.hashes));
        if ones > most || (layer.added > 0 && ones == 0) {
            return Err(invalid("bits set do not fit the items added"));
        }
        let added = usize::try_from(layer.added).map_err(|_| invalid("items added to a layer"))?;
        let filter =
            BloomFilter::from_words(words, layer.bits, layer.hashes, added, hasher.clone())
                .map_err(|_| invalid("layer words do not fit its size"))?
                .with_scheme(Scheme::of_version(env.version));
        total_added = total_added.saturating_add(layer.added);
        layers.push(filter);
        capacities.push(capacity);
    }
    payload.finish("payload longer than the layers")?;
    if total_added > len as u64 {
        return Err(invalid("more items added than inserted"));
    }
    Ok(ScalableBloomFilter::from_parts(
        schedule, layers, capacities, active, len, hasher,
    ))
}
