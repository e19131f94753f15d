//! [`inspect`]: what a filter kept in Redis is and holds, for a tool that
//! knows its name only, not its kind or item type.

use redis::{Value, cmd};

use crate::admin::Info;
use crate::conn::Connection;
use crate::error::Error;
use crate::handle::Handle;
use crate::layout::{self, Keys};
use crate::ops::Start;
use crate::table::Options;
use crate::variant::{Bits, Counters, Cuckoo, Inner, Scalable, Variant};

/// What the filter `name` is and holds, whatever its kind and item type:
/// [`info`](crate::RedisFilter::info) of the filter, opened as the kind its
/// metadata records, for the item type it records. The metadata is checked
/// as [`open`](crate::RedisFilter::open) checks it (its checksum, its
/// bounds, the cap [`options.get_max_bytes()`](Options::max_bytes) on the
/// filter's bytes) and every shard's guard is read, so a damaged filter is
/// an error here too. Nothing is written.
///
/// The Bloom and counting filters' metadata is `name:meta`, the cuckoo and
/// scalable filters' `{name}:meta`: both are read, in one round trip, and
/// the one that exists says the kind.
///
/// # Errors
///
/// [`Error::NotFound`] when neither metadata hash exists,
/// [`Error::Mismatch`] when both do (two filters share the name), and the
/// errors of `open` and `info`.
pub fn inspect<C: Connection>(mut conn: C, name: &str, options: Options) -> Result<Info, Error> {
    let forms = [Keys::spread(name)?, Keys::tagged(name)?];
    let cmds: Vec<_> = forms
        .iter()
        .map(|k| cmd("HMGET").arg(k.meta()).arg("kind").arg("item").take())
        .collect();
    let replies = conn
        .round_trip(&cmds)
        .map_err(|f| Error::from_redis(f.error))?;
    let mut found = Vec::new();
    for (keys, reply) in forms.iter().zip(&replies) {
        layout::check(&keys.meta(), reply)?;
        if let Value::Array(fields) = reply
            && let [Value::BulkString(kind), Value::BulkString(item)] = fields.as_slice()
        {
            found.push((
                String::from_utf8_lossy(kind).into_owned(),
                String::from_utf8_lossy(item).into_owned(),
            ));
        }
    }
    let max = options.get_max_bytes();
    match found.as_slice() {
        [] => Err(Error::NotFound {
            name: name.to_owned(),
        }),
        [(kind, item)] => match kind.as_str() {
            "bloom" => info_of::<Bits, C>(conn, name, item, max),
            "counting" => info_of::<Counters, C>(conn, name, item, max),
            "cuckoo" => info_of::<Cuckoo, C>(conn, name, item, max),
            // Any other kind is the metadata check's to refuse.
            _ => info_of::<Scalable, C>(conn, name, item, max),
        },
        [(a, _), (b, _), ..] => Err(Error::Mismatch {
            name: name.to_owned(),
            field: "kind",
            existing: format!(
                "{a} (at {}) and {b} (at {})",
                forms[0].meta(),
                forms[1].meta()
            ),
            requested: "one filter of this name".to_owned(),
        }),
    }
}

/// [`inspect`] of the filter `name` of kind `K` and items named `item`.
fn info_of<K: Variant, C: Connection>(
    conn: C,
    name: &str,
    item: &str,
    max_bytes: u64,
) -> Result<Info, Error> {
    let open = K::setup(K::keys(name)?, Start::Open, item.to_owned(), max_bytes);
    let mut handle = Handle::<(), C, K::Inner>::start(conn, open)?;
    handle.run(Inner::info)
}
