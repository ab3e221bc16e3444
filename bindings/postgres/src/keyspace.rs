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
extension_sql!(
    "COMMENT ON FUNCTION emq_parse_key(text) IS 'A queue key read back as (queue, family, param): the family as a pattern such as g:<name>:pending, param NULL for a family that takes none. Errors: queue (not emq:{<queue>}:<type>), kind (a type the keyspace does not have).';",
    name = "emq_parse_key_comment",
    requires = [emq_parse_key],
);

/// The reserve's cross-queue key `{emq}:<name>`.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_reserve(name: &str) -> String {
    text(emq::reserve(name.as_bytes()).unwrap_or_else(|e| refuse(e)).as_bytes())
}
extension_sql!(
    "COMMENT ON FUNCTION emq_reserve(text) IS 'The reserve''s cross-queue key {emq}:<name>. Errors: kind (a name that is not 1-128 bytes of [A-Za-z0-9_.:-]).';",
    name = "emq_reserve_comment",
    requires = [emq_reserve],
);

/// `emq:{queue}:`, the prefix every key of a queue starts with (the bus's
/// scripts append a type to it).
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_queue_prefix(queue: &str) -> String {
    text(emq::queue_prefix(queue.as_bytes()).unwrap_or_else(|e| refuse(e)).as_bytes())
}
extension_sql!(
    "COMMENT ON FUNCTION emq_queue_prefix(text) IS 'emq:{queue}:, the prefix every key of a queue starts with (the bus''s scripts append a type to it). Errors: queue.';",
    name = "emq_queue_prefix_comment",
    requires = [emq_queue_prefix],
);

/// `emq:{queue}:job:`, the prefix the bus's scripts append job ids to.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_job_prefix(queue: &str) -> String {
    text(emq::job_prefix(queue.as_bytes()).unwrap_or_else(|e| refuse(e)).as_bytes())
}
extension_sql!(
    "COMMENT ON FUNCTION emq_job_prefix(text) IS 'emq:{queue}:job:, the prefix the keys of a queue''s jobs share. Errors: queue.';",
    name = "emq_job_prefix_comment",
    requires = [emq_job_prefix],
);

/// The bytes a family's keys spend before their parameter.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_prefix_bytes(queue: &str, ty: &str) -> i32 {
    emq::prefix_bytes(queue.as_bytes(), ty.as_bytes()).unwrap_or_else(|e| refuse(e)) as i32
}
extension_sql!(
    "COMMENT ON FUNCTION emq_prefix_bytes(text, text) IS 'The bytes a family''s keys spend before their parameter: emq:{queue}: and the head ty (such as job: or g:), or the whole key of a fixed type. Errors: queue, then kind.';",
    name = "emq_prefix_bytes_comment",
    requires = [emq_prefix_bytes],
);

/// The stream entry id (`<unix_ms>-<tail22>`) of an `EVT` id.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_xadd_id(id: &str) -> String {
    emq::xadd_id(id.as_bytes()).unwrap_or_else(|e| refuse(e)).as_str().to_owned()
}
extension_sql!(
    "COMMENT ON FUNCTION emq_xadd_id(text) IS 'The stream entry id (<unix_ms>-<tail>) of an EVT id. Errors: the id (length, namespace, charset, range; 22P02), then kind for another namespace.';",
    name = "emq_xadd_id_comment",
    requires = [emq_xadd_id],
);

/// The id (namespace `ns`, default `EVT`) behind a stream entry id.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_from_xadd_id(entry: &str, ns: default!(&str, "'EVT'")) -> String {
    text(&emq::from_xadd_id(entry.as_bytes(), ns.as_bytes()).unwrap_or_else(|e| refuse(e)).to_bytes())
}
extension_sql!(
    "COMMENT ON FUNCTION emq_from_xadd_id(text, text) IS 'The id of namespace ns (EVT by default) behind a stream entry id. Errors: charset (not <digits>-<digits>), range (a time or tail no snowflake has, or ns not three letters A-Z).';",
    name = "emq_from_xadd_id_comment",
    requires = [emq_from_xadd_id],
);
