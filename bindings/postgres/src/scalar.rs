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

/// The snowflake of a text id (gates: length, namespace, charset, range).
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_decode(id: &str) -> i64 {
    decode(id.as_bytes())
}

/// The snowflake of a text id that must be of namespace `ns` (else the namespace gate).
#[pg_extern(immutable, parallel_safe, strict, name = "emq_decode")]
fn emq_decode_ns(id: &str, ns: &str) -> i64 {
    let (got, s) = emq::decode(id.as_bytes()).unwrap_or_else(|e| bad_text(e));
    if got != ns.as_bytes() {
        bad_text(emq::Error::from_gate(emq::Gate::Namespace, "the id is not of the expected namespace"));
    }
    s as i64
}

/// The snowflake of raw bytes (for input that is not valid text).
#[pg_extern(immutable, parallel_safe, strict, name = "emq_decode")]
fn emq_decode_bytea(id: &[u8]) -> i64 {
    decode(id)
}

fn decode(bytes: &[u8]) -> i64 {
    emq::decode(bytes).unwrap_or_else(|e| bad_text(e)).1 as i64
}

/// Whether a text is a branded id (decode would accept it); never an error.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_is_valid(id: &str) -> bool {
    emq::is_valid(id.as_bytes())
}

/// Whether raw bytes are a branded id.
#[pg_extern(immutable, parallel_safe, strict, name = "emq_is_valid")]
fn emq_is_valid_bytea(id: &[u8]) -> bool {
    emq::is_valid(id)
}

/// -1, 0 or 1 as id `a` sorts before, with or after id `b`: by namespace, then
/// snowflake, which is their byte order (`COLLATE "C"`); either one not an id
/// is refused with its gate, `a` first. (`branded_id` values order the same way.)
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_compare(a: &str, b: &str) -> i32 {
    emq::compare(a.as_bytes(), b.as_bytes()).unwrap_or_else(|e| bad_text(e)) as i32
}

/// The namespace of a text id.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_ns(id: &str) -> String {
    ascii(&emq::decode(id.as_bytes()).unwrap_or_else(|e| bad_text(e)).0)
}

/// Unix milliseconds of minting.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_unix_ms(snowflake: i64) -> i64 {
    emq::unix_ms(crate::error::snowflake(snowflake)) as i64
}

/// The instant of minting.
#[pg_extern(immutable, parallel_safe, strict)]
pub fn emq_time(snowflake: i64) -> TimestampWithTimeZone {
    let ms = emq::unix_ms(crate::error::snowflake(snowflake)) as i64;
    TimestampWithTimeZone::try_from(ms * 1000 - PG_EPOCH_US).unwrap_or_else(|_| {
        refuse(emq::Error::from_gate(emq::Gate::Range, "the instant is outside PostgreSQL's timestamps"))
    })
}

/// The minting node (0 to `emq::MAX_NODE`).
#[pg_extern(immutable, parallel_safe, strict)]
pub fn emq_node(snowflake: i64) -> i32 {
    emq::node(crate::error::snowflake(snowflake)) as i32
}

/// The sequence within the millisecond (0 to `emq::MAX_SEQ`).
#[pg_extern(immutable, parallel_safe, strict)]
pub fn emq_seq(snowflake: i64) -> i32 {
    emq::seq(crate::error::snowflake(snowflake)) as i32
}

/// The smallest snowflake minted at or after `t`: the lower bound of a time-range scan.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_min_for(t: TimestampWithTimeZone) -> i64 {
    if t.is_infinity() || t.is_neg_infinity() {
        refuse(emq::Error::from_gate(emq::Gate::Range, "an infinite time has no snowflake"));
    }
    let us: i64 = t.into_inner();
    min_for(us.div_euclid(1000) + PG_EPOCH_US / 1000)
}

/// `emq_min_for` over Unix milliseconds.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_min_for_ms(unix_ms: i64) -> i64 {
    min_for(unix_ms)
}

fn min_for(unix_ms: i64) -> i64 {
    emq::min_for(unix_ms).unwrap_or_else(|e| refuse(e)) as i64
}

/// The contract's placement hash, as a bigint in [0, 2^32).
#[pg_extern(immutable, parallel_safe, strict)]
pub fn emq_hash32(snowflake: i64) -> i64 {
    emq::hash32(crate::error::snowflake(snowflake)) as i64
}

/// The Valkey Cluster slot of a text key (its UTF-8 bytes).
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_slot(key: &str) -> i32 {
    emq::slot(key.as_bytes()) as i32
}

/// The Valkey Cluster slot of a binary key.
#[pg_extern(immutable, parallel_safe, strict, name = "emq_slot")]
fn emq_slot_bytea(key: &[u8]) -> i32 {
    emq::slot(key) as i32
}

/// The part of a text key the cluster hashes.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_hashtag(key: &str) -> String {
    // Braces are ASCII, so a tag of valid UTF-8 is valid UTF-8.
    String::from_utf8_lossy(emq::hashtag(key.as_bytes())).into_owned()
}

/// The part of a binary key the cluster hashes.
#[pg_extern(immutable, parallel_safe, strict, name = "emq_hashtag")]
fn emq_hashtag_bytea(key: &[u8]) -> Vec<u8> {
    emq::hashtag(key).to_vec()
}

/// The key of an id-less type: `emq:{queue}:pending`, `emq:{queue}:g:vip:pending`, …
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_queue_key(queue: &str, kind: &str) -> String {
    key(queue, kind, None)
}

/// The key of one job: `emq:{queue}:job:<id>` (a `JOB` id).
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_job_key(queue: &str, id: &str) -> String {
    key(queue, "job", Some(id))
}

/// The general builder: a type as the bus writes it (and `job` with an id, as in
/// emq-keyspace/1); errors in the order queue, then type.
#[pg_extern(immutable, parallel_safe, name = "emq_key")]
fn emq_key(queue: Option<&str>, kind: Option<&str>, id: default!(Option<&str>, "NULL")) -> Option<String> {
    Some(key(queue?, kind?, id))
}

/// The general builder over a binary queue name (SQL text cannot hold every byte).
#[pg_extern(immutable, parallel_safe, name = "emq_key")]
fn emq_key_bytea(queue: Option<&[u8]>, kind: Option<&str>, id: default!(Option<&str>, "NULL")) -> Option<String> {
    let built = emq::key(queue?, kind?.as_bytes(), id.map(str::as_bytes));
    Some(built.unwrap_or_else(|e| refuse(e)).as_str().to_owned())
}

fn key(queue: &str, kind: &str, id: Option<&str>) -> String {
    let built = emq::key(queue.as_bytes(), kind.as_bytes(), id.map(str::as_bytes));
    built.unwrap_or_else(|e| refuse(e)).as_str().to_owned()
}
