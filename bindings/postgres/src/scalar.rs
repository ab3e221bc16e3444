//! Functions over `bigint` snowflakes, `text` ids and `bytea` keys.

use pgrx::prelude::*;

use crate::error::{bad_text, refuse};

/// Microseconds between the Unix epoch and PostgreSQL's (2000-01-01).
const PG_EPOCH_US: i64 = 946_684_800_000_000;

fn ascii(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The text id of `(ns, snowflake)`.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_encode(ns: &str, snowflake: i64) -> String {
    let s = crate::error::snowflake(snowflake);
    ascii(&emq::encode(ns.as_bytes(), s).unwrap_or_else(|e| refuse(e)))
}
extension_sql!(
    "COMMENT ON FUNCTION emq_encode(text, bigint) IS 'The text id (14 characters) of namespace ns and a snowflake. Errors: range (ns not three letters A-Z, or a negative snowflake).';",
    name = "emq_encode_comment",
    requires = [emq_encode],
);

/// `emq_encode` for snowflakes a `bigint` cannot hold (unsigned 64-bit values
/// from other systems): 2^63 and up are the range gate, as the contract says,
/// instead of a cast error. (A separate name: an overload would make
/// `emq_encode('USR', 1)` ambiguous.)
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_encode_numeric(ns: &str, snowflake: AnyNumeric) -> String {
    // The conversion rounds a fraction; a snowflake with one is refused, not rounded.
    let whole = i64::try_from(snowflake.clone()).ok().filter(|s| AnyNumeric::from(*s) == snowflake);
    let s = whole.unwrap_or_else(|| {
        refuse(emq::Error::from_gate(emq::Gate::Range, "a snowflake is a whole number in [0, 2^63)"))
    });
    emq_encode(ns, s)
}
extension_sql!(
    "COMMENT ON FUNCTION emq_encode_numeric(text, numeric) IS 'emq_encode for a snowflake held as numeric (such as an unsigned 64-bit value from another system). Errors: range (ns not three letters A-Z, or a snowflake that is not a whole number in [0, 2^63)).';",
    name = "emq_encode_numeric_comment",
    requires = [emq_encode_numeric],
);

/// The snowflake of a text id (gates: length, namespace, charset, range).
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_decode(id: &str) -> i64 {
    decode(id.as_bytes())
}
extension_sql!(
    "COMMENT ON FUNCTION emq_decode(text) IS 'The snowflake of a text id. Errors (22P02): length, namespace, charset, range.';",
    name = "emq_decode_comment",
    requires = [emq_decode],
);

/// The snowflake of a text id that must be of namespace `ns` (else the namespace gate).
#[pg_extern(immutable, parallel_safe, strict, name = "emq_decode")]
fn emq_decode_ns(id: &str, ns: &str) -> i64 {
    let (got, s) = emq::decode(id.as_bytes()).unwrap_or_else(|e| bad_text(e));
    if got != ns.as_bytes() {
        bad_text(emq::Error::from_gate(emq::Gate::Namespace, "the id is not of the expected namespace"));
    }
    s as i64
}
extension_sql!(
    "COMMENT ON FUNCTION emq_decode(text, text) IS 'The snowflake of a text id that must be of namespace ns. Errors (22P02): length, namespace (also for an id of another namespace), charset, range.';",
    name = "emq_decode_ns_comment",
    requires = [emq_decode_ns],
);

/// The snowflake of raw bytes (for input that is not valid text).
#[pg_extern(immutable, parallel_safe, strict, name = "emq_decode")]
fn emq_decode_bytea(id: &[u8]) -> i64 {
    decode(id)
}
extension_sql!(
    "COMMENT ON FUNCTION emq_decode(bytea) IS 'The snowflake of an id given as raw bytes (for input that is not valid text). Errors (22P02): length, namespace, charset, range.';",
    name = "emq_decode_bytea_comment",
    requires = [emq_decode_bytea],
);

fn decode(bytes: &[u8]) -> i64 {
    emq::decode(bytes).unwrap_or_else(|e| bad_text(e)).1 as i64
}

/// Whether a text is a branded id (decode would accept it); never an error.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_is_valid(id: &str) -> bool {
    emq::is_valid(id.as_bytes())
}
extension_sql!(
    "COMMENT ON FUNCTION emq_is_valid(text) IS 'Whether the text is a branded id, that is whether emq_decode would accept it; never an error.';",
    name = "emq_is_valid_comment",
    requires = [emq_is_valid],
);

/// Whether raw bytes are a branded id.
#[pg_extern(immutable, parallel_safe, strict, name = "emq_is_valid")]
fn emq_is_valid_bytea(id: &[u8]) -> bool {
    emq::is_valid(id)
}
extension_sql!(
    "COMMENT ON FUNCTION emq_is_valid(bytea) IS 'Whether the bytes are a branded id, that is whether emq_decode would accept them; never an error.';",
    name = "emq_is_valid_bytea_comment",
    requires = [emq_is_valid_bytea],
);

/// -1, 0 or 1 as id `a` sorts before, with or after id `b`: by namespace, then
/// snowflake, which is their byte order (`COLLATE "C"`); either one not an id
/// is refused with its gate, `a` first. (`branded_id` values order the same way.)
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_compare(a: &str, b: &str) -> i32 {
    emq::compare(a.as_bytes(), b.as_bytes()).unwrap_or_else(|e| bad_text(e)) as i32
}
extension_sql!(
    "COMMENT ON FUNCTION emq_compare(text, text) IS '-1, 0 or 1 as id a sorts before, with or after id b: by namespace, then snowflake, which is their byte order. Errors (22P02): length, namespace, charset, range, for a first.';",
    name = "emq_compare_comment",
    requires = [emq_compare],
);

/// The namespace of a text id.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_ns(id: &str) -> String {
    ascii(&emq::decode(id.as_bytes()).unwrap_or_else(|e| bad_text(e)).0)
}
extension_sql!(
    "COMMENT ON FUNCTION emq_ns(text) IS 'The namespace (three letters A-Z) of a text id. Errors (22P02): length, namespace, charset, range.';",
    name = "emq_ns_comment",
    requires = [emq_ns],
);

/// Unix milliseconds of minting.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_unix_ms(snowflake: i64) -> i64 {
    emq::unix_ms(crate::error::snowflake(snowflake)) as i64
}
extension_sql!(
    "COMMENT ON FUNCTION emq_unix_ms(bigint) IS 'The Unix time in milliseconds at which the snowflake was minted. Errors: range (a negative snowflake).';",
    name = "emq_unix_ms_comment",
    requires = [emq_unix_ms],
);

/// The instant of minting.
#[pg_extern(immutable, parallel_safe, strict)]
pub fn emq_time(snowflake: i64) -> TimestampWithTimeZone {
    let ms = emq::unix_ms(crate::error::snowflake(snowflake)) as i64;
    TimestampWithTimeZone::try_from(ms * 1000 - PG_EPOCH_US).unwrap_or_else(|_| {
        refuse(emq::Error::from_gate(emq::Gate::Range, "the instant is outside PostgreSQL's timestamps"))
    })
}
extension_sql!(
    "COMMENT ON FUNCTION emq_time(bigint) IS 'The instant at which the snowflake was minted. Errors: range (a negative snowflake).';",
    name = "emq_time_comment",
    requires = [emq_time],
);

/// The minting node (0 to `emq::MAX_NODE`).
#[pg_extern(immutable, parallel_safe, strict)]
pub fn emq_node(snowflake: i64) -> i32 {
    emq::node(crate::error::snowflake(snowflake)) as i32
}
extension_sql!(
    "COMMENT ON FUNCTION emq_node(bigint) IS 'The node (0-1023) that minted the snowflake. Errors: range (a negative snowflake).';",
    name = "emq_node_comment",
    requires = [emq_node],
);

/// The sequence within the millisecond (0 to `emq::MAX_SEQ`).
#[pg_extern(immutable, parallel_safe, strict)]
pub fn emq_seq(snowflake: i64) -> i32 {
    emq::seq(crate::error::snowflake(snowflake)) as i32
}
extension_sql!(
    "COMMENT ON FUNCTION emq_seq(bigint) IS 'The sequence (0-4095) of the snowflake within its millisecond. Errors: range (a negative snowflake).';",
    name = "emq_seq_comment",
    requires = [emq_seq],
);

/// The smallest snowflake minted at or after `t`: the lower bound of a time-range scan.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_min_for(t: TimestampWithTimeZone) -> i64 {
    if t.is_infinity() || t.is_neg_infinity() {
        refuse(emq::Error::from_gate(emq::Gate::Range, "an infinite time has no snowflake"));
    }
    let us: i64 = t.into_inner();
    min_for(us.div_euclid(1000) + PG_EPOCH_US / 1000)
}
extension_sql!(
    "COMMENT ON FUNCTION emq_min_for(timestamp with time zone) IS 'The smallest snowflake minted at or after t (0 before the epoch): the lower bound of a time-range scan on a bigint column. Errors: range (an infinite t, or one past the 41-bit time limit).';",
    name = "emq_min_for_comment",
    requires = [emq_min_for],
);

/// `emq_min_for` over Unix milliseconds.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_min_for_ms(unix_ms: i64) -> i64 {
    min_for(unix_ms)
}
extension_sql!(
    "COMMENT ON FUNCTION emq_min_for_ms(bigint) IS 'The smallest snowflake minted at or after a Unix time in milliseconds (0 before the epoch). Errors: range (past the 41-bit time limit).';",
    name = "emq_min_for_ms_comment",
    requires = [emq_min_for_ms],
);

fn min_for(unix_ms: i64) -> i64 {
    emq::min_for(unix_ms).unwrap_or_else(|e| refuse(e)) as i64
}

/// The contract's placement hash, as a bigint in [0, 2^32).
#[pg_extern(immutable, parallel_safe, strict)]
pub fn emq_hash32(snowflake: i64) -> i64 {
    emq::hash32(crate::error::snowflake(snowflake)) as i64
}
extension_sql!(
    "COMMENT ON FUNCTION emq_hash32(bigint) IS 'The placement hash of the snowflake, in [0, 2^32), the same in every runtime. Errors: range (a negative snowflake).';",
    name = "emq_hash32_comment",
    requires = [emq_hash32],
);

/// The Valkey Cluster slot of a text key (its UTF-8 bytes).
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_slot(key: &str) -> i32 {
    emq::slot(key.as_bytes()) as i32
}
extension_sql!(
    "COMMENT ON FUNCTION emq_slot(text) IS 'The Valkey Cluster slot (0-16383) of a key, over its UTF-8 bytes; never an error.';",
    name = "emq_slot_comment",
    requires = [emq_slot],
);

/// The Valkey Cluster slot of a binary key.
#[pg_extern(immutable, parallel_safe, strict, name = "emq_slot")]
fn emq_slot_bytea(key: &[u8]) -> i32 {
    emq::slot(key) as i32
}
extension_sql!(
    "COMMENT ON FUNCTION emq_slot(bytea) IS 'The Valkey Cluster slot (0-16383) of a binary key; never an error.';",
    name = "emq_slot_bytea_comment",
    requires = [emq_slot_bytea],
);

/// The part of a text key the cluster hashes.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_hashtag(key: &str) -> String {
    // Braces are ASCII, so a tag of valid UTF-8 is valid UTF-8.
    String::from_utf8_lossy(emq::hashtag(key.as_bytes())).into_owned()
}
extension_sql!(
    "COMMENT ON FUNCTION emq_hashtag(text) IS 'The part of a key the cluster hashes: the hash tag between the first { and the next } when it is not empty, or else the whole key; never an error.';",
    name = "emq_hashtag_comment",
    requires = [emq_hashtag],
);

/// The part of a binary key the cluster hashes.
#[pg_extern(immutable, parallel_safe, strict, name = "emq_hashtag")]
fn emq_hashtag_bytea(key: &[u8]) -> Vec<u8> {
    emq::hashtag(key).to_vec()
}
extension_sql!(
    "COMMENT ON FUNCTION emq_hashtag(bytea) IS 'The part of a binary key the cluster hashes: the hash tag between the first { and the next } when it is not empty, or else the whole key; never an error.';",
    name = "emq_hashtag_bytea_comment",
    requires = [emq_hashtag_bytea],
);

/// The key of an id-less type: `emq:{queue}:pending`, `emq:{queue}:g:vip:pending`, …
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_queue_key(queue: &str, kind: &str) -> String {
    key(queue, kind, None)
}
extension_sql!(
    "COMMENT ON FUNCTION emq_queue_key(text, text) IS 'The key of an id-less type of a queue, such as emq:{orders}:pending or emq:{orders}:g:vip:pending. Errors: queue, then kind (an unknown type, or job, which takes an id).';",
    name = "emq_queue_key_comment",
    requires = [emq_queue_key],
);

/// The key of one job: `emq:{queue}:job:<id>` (a `JOB` id).
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_job_key(queue: &str, id: &str) -> String {
    key(queue, "job", Some(id))
}
extension_sql!(
    "COMMENT ON FUNCTION emq_job_key(text, text) IS 'The key of one job, emq:{queue}:job:<id>. Errors: queue, then the id (length, namespace, charset, range), then kind for an id not of namespace JOB.';",
    name = "emq_job_key_comment",
    requires = [emq_job_key],
);

/// The general builder: a type as the bus writes it (and `job` with an id, as in
/// emq-keyspace/1); errors in the order queue, then type.
#[pg_extern(immutable, parallel_safe, name = "emq_key")]
fn emq_key(queue: Option<&str>, kind: Option<&str>, id: default!(Option<&str>, "NULL")) -> Option<String> {
    Some(key(queue?, kind?, id))
}
extension_sql!(
    "COMMENT ON FUNCTION emq_key(text, text, text) IS 'The key of a type of a queue as the bus writes it, with an id for type job; NULL when queue or kind is NULL. Errors: queue, then kind, then the id (length, namespace, charset, range).';",
    name = "emq_key_comment",
    requires = [emq_key],
);

/// The general builder over a binary queue name (SQL text cannot hold every byte).
#[pg_extern(immutable, parallel_safe, name = "emq_key")]
fn emq_key_bytea(queue: Option<&[u8]>, kind: Option<&str>, id: default!(Option<&str>, "NULL")) -> Option<String> {
    let built = emq::key(queue?, kind?.as_bytes(), id.map(str::as_bytes));
    Some(built.unwrap_or_else(|e| refuse(e)).as_str().to_owned())
}
extension_sql!(
    "COMMENT ON FUNCTION emq_key(bytea, text, text) IS 'emq_key over a queue name given as bytes (SQL text cannot hold every byte); NULL when queue or kind is NULL. Errors: queue, then kind, then the id (length, namespace, charset, range).';",
    name = "emq_key_bytea_comment",
    requires = [emq_key_bytea],
);

fn key(queue: &str, kind: &str, id: Option<&str>) -> String {
    let built = emq::key(queue.as_bytes(), kind.as_bytes(), id.map(str::as_bytes));
    built.unwrap_or_else(|e| refuse(e)).as_str().to_owned()
}
