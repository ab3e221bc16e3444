//! The keyspace beyond the builders of `scalar.rs` (`emq-keyspace/2`): keys
//! read back, the reserve, prefixes, and stream entry ids.

use pgrx::prelude::*;

use crate::error::refuse;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A queue key read back: `(queue, family, param)`, the family as a pattern
/// (`g:<name>:pending`), `param` NULL for a family that takes none.
/// `SELECT * FROM emq_parse_key('emq:{orders}:job:JOB0KHTOWnGLuC:lock')`.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_parse_key(
    key: &str,
) -> TableIterator<'static, (name!(queue, String), name!(family, String), name!(param, Option<String>))> {
    let parsed = emq::parse_key(key.as_bytes()).unwrap_or_else(|e| refuse(e));
    TableIterator::once((text(parsed.queue), parsed.family.pattern().to_string(), parsed.param.map(text)))
}

/// The reserve's cross-queue key `{emq}:<name>`.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_reserve(name: &str) -> String {
    text(emq::reserve(name.as_bytes()).unwrap_or_else(|e| refuse(e)).as_bytes())
}

/// `emq:{queue}:job:`, the prefix the bus's scripts append job ids to.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_job_prefix(queue: &str) -> String {
    text(emq::job_prefix(queue.as_bytes()).unwrap_or_else(|e| refuse(e)).as_bytes())
}

/// The bytes a family's keys spend before their parameter.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_prefix_bytes(queue: &str, ty: &str) -> i32 {
    emq::prefix_bytes(queue.as_bytes(), ty.as_bytes()).unwrap_or_else(|e| refuse(e)) as i32
}

/// The stream entry id (`<unix_ms>-<tail22>`) of an `EVT` id.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_xadd_id(id: &str) -> String {
    emq::xadd_id(id.as_bytes()).unwrap_or_else(|e| refuse(e)).as_str().to_owned()
}

/// The id (namespace `ns`, default `EVT`) behind a stream entry id.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_from_xadd_id(entry: &str, ns: default!(&str, "'EVT'")) -> String {
    text(&emq::from_xadd_id(entry.as_bytes(), ns.as_bytes()).unwrap_or_else(|e| refuse(e)).to_bytes())
}
