//! The package's functions. Each converts its arguments, calls the core, and
//! converts the answer back; names are the JS spelling of the core's.

use napi::bindgen_prelude::{Either, Uint16Array, Uint8Array};
use napi_derive::napi;

use crate::convert::{Arg, Ascii, BigU64};
use crate::error::{gate, range, Code, JsError};

const ID_LEN: usize = emq_id::ID_LEN;

/// `encode(ns: string, snowflake: bigint): string`
#[napi]
pub fn encode(ns: Arg, snowflake: Arg) -> Result<Ascii<ID_LEN>, JsError> {
    let ns = ns.bytes("the namespace is a string")?;
    let s = snowflake.u64()?;
    let text = emq_id::encode(ns.as_slice(), s).map_err(gate)?;
    Ok(Ascii::new(&text))
}

/// What `decode` answers.
#[napi(object)]
pub struct Decoded {
    pub ns: String,
    pub snowflake: BigU64,
    pub unix_ms: f64,
    pub node: u32,
    pub seq: u32,
}

/// `decode(text: string | Uint8Array): Decoded`
#[napi]
pub fn decode(text: Arg) -> Result<Decoded, JsError> {
    let text = text.bytes("an id is a string or a Uint8Array")?;
    let (ns, s) = emq_id::decode(text.as_slice()).map_err(gate)?;
    Ok(Decoded {
        ns: String::from_utf8_lossy(&ns).into_owned(),
        snowflake: BigU64(s),
        unix_ms: emq_id::unix_ms(s) as f64,
        node: emq_id::node(s) as u32,
        seq: emq_id::seq(s) as u32,
    })
}

/// `decodeSnowflake(text): bigint` — decode's gates, only the snowflake.
#[napi]
pub fn decode_snowflake(text: Arg) -> Result<BigU64, JsError> {
    let text = text.bytes("an id is a string or a Uint8Array")?;
    Ok(BigU64(emq_id::decode(text.as_slice()).map_err(gate)?.1))
}

/// `hash32(snowflake: bigint): number`
#[napi]
pub fn hash32(snowflake: Arg) -> Result<u32, JsError> {
    Ok(emq_id::hash32(snowflake.u64()?))
}

/// `unixMs(snowflake: bigint): number` (always below 2^53)
#[napi]
pub fn unix_ms(snowflake: Arg) -> Result<f64, JsError> {
    Ok(emq_id::unix_ms(snowflake.u64()?) as f64)
}

/// `node(snowflake: bigint): number`
#[napi]
pub fn node(snowflake: Arg) -> Result<u32, JsError> {
    Ok(emq_id::node(snowflake.u64()?) as u32)
}

/// `seq(snowflake: bigint): number`
#[napi]
pub fn seq(snowflake: Arg) -> Result<u32, JsError> {
    Ok(emq_id::seq(snowflake.u64()?) as u32)
}

/// `minFor(unixMs: number | bigint): bigint`
#[napi]
pub fn min_for(unix_ms: Arg) -> Result<BigU64, JsError> {
    Ok(BigU64(emq_id::min_for(unix_ms.millis()?).map_err(gate)?))
}

/// `slot(key: string | Uint8Array): number`
#[napi]
pub fn slot(key: Arg) -> Result<u32, JsError> {
    Ok(emq_id::slot(key.bytes("a key is a string or a Uint8Array")?.as_slice()) as u32)
}

/// `hashtag(key)`: a string for a string key (a tag never splits a
/// character: braces are ASCII), a Uint8Array for bytes.
#[napi]
pub fn hashtag(key: Arg) -> Result<Either<String, Uint8Array>, JsError> {
    let key = key.bytes("a key is a string or a Uint8Array")?;
    let tag = emq_id::hashtag(key.as_slice());
    Ok(if key.is_string() {
        Either::A(String::from_utf8_lossy(tag).into_owned())
    } else {
        Either::B(Uint8Array::new(tag.to_vec()))
    })
}

/// `slotMany(keys: Array<string | Uint8Array>): Uint16Array` — one call for a
/// whole batch, for hot paths where the per-call cost dominates.
#[napi]
pub fn slot_many(keys: Vec<Arg>) -> Result<Uint16Array, JsError> {
    let mut out = Vec::with_capacity(keys.len());
    for key in keys {
        out.push(emq_id::slot(key.bytes("a key is a string or a Uint8Array")?.as_slice()));
    }
    Ok(Uint16Array::new(out))
}

/// `queueKey(queue: string, kind: string): string`
#[napi]
pub fn queue_key(queue: Arg, kind: Arg) -> Result<Ascii<{ emq_id::MAX_KEY_LEN }>, JsError> {
    let queue = queue.bytes("a queue is a string")?;
    let kind = kind.bytes("a kind is a string")?;
    let key = emq_id::key(queue.as_slice(), kind.as_slice(), None).map_err(gate)?;
    Ok(Ascii::new(key.as_bytes()))
}

/// `jobKey(queue: string, id: string): string`
#[napi]
pub fn job_key(queue: Arg, id: Arg) -> Result<Ascii<{ emq_id::MAX_KEY_LEN }>, JsError> {
    let queue = queue.bytes("a queue is a string")?;
    let id = id.bytes("an id is a string or a Uint8Array")?;
    let key = emq_id::job_key(queue.as_slice(), id.as_slice()).map_err(gate)?;
    Ok(Ascii::new(key.as_bytes()))
}

/// `key(queue, kind, id?)`: the general builder (errors in the order queue, kind, id).
#[napi]
pub fn key(queue: Arg, kind: Arg, id: Option<Arg>) -> Result<Ascii<{ emq_id::MAX_KEY_LEN }>, JsError> {
    let queue = queue.bytes("a queue is a string")?;
    let kind = kind.bytes("a kind is a string")?;
    let id = id.map(|id| id.bytes("an id is a string or a Uint8Array")).transpose()?;
    let key = emq_id::key(queue.as_slice(), kind.as_slice(), id.as_ref().map(|b| b.as_slice())).map_err(gate)?;
    Ok(Ascii::new(key.as_bytes()))
}

/// `mint(ns: string): string` with the process-wide minter (`EMQ_NODE`).
#[napi]
pub fn mint(ns: Arg) -> Result<Ascii<ID_LEN>, JsError> {
    let ns = ns.bytes("the namespace is a string")?;
    let id = emq_id::mint(ns.as_slice()).map_err(gate)?;
    Ok(Ascii::new(&id.to_bytes()))
}

/// `mintMany(ns: string, n: number): string[]` — n ids in one call.
#[napi]
pub fn mint_many(ns: Arg, count: Arg) -> Result<Vec<Ascii<ID_LEN>>, JsError> {
    let ns = ns.bytes("the namespace is a string")?;
    let count = count.small_int(u32::MAX, "a count is a whole number from 0")?;
    emq_id::encode(ns.as_slice(), 0).map_err(gate)?;
    let minter = emq_id::process_minter().map_err(gate)?.minter();
    let now = emq_id::now_ms();
    (0..count)
        .map(|_| {
            let s = minter.next_at(now).map_err(gate)?;
            Ok(Ascii::new(&emq_id::encode(ns.as_slice(), s).map_err(gate)?))
        })
        .collect()
}

/// Where the process-wide minter's node came from.
#[napi(object)]
pub struct ProcessNode {
    pub node: u32,
    /// `"env"` (from `EMQ_NODE`) or `"fallback"` (drawn: collisions possible).
    pub source: String,
}

/// `processNode(): { node, source }` — throws `range` when `EMQ_NODE` is invalid.
#[napi]
pub fn process_node() -> Result<ProcessNode, JsError> {
    let p = emq_id::process_minter().map_err(gate)?;
    let source = match p.source() {
        emq_id::NodeSource::Env => "env",
        _ => "fallback",
    };
    Ok(ProcessNode { node: p.node() as u32, source: source.into() })
}

/// `selfCheck(): void` — throws (code `self_check`) when this build disagrees with the contract.
#[napi]
pub fn self_check() -> Result<(), JsError> {
    emq_id::self_check().map_err(|m| napi::Error::new(Code("self_check"), m.to_string()))
}

/// An empty call: the floor under every other call, for the benchmarks.
#[napi]
pub fn noop() {}

/// The contract's pure mint step: `mintStep(state, node, nowMs): [state', snowflake]`.
#[napi]
pub fn mint_step(state: Arg, node: Arg, now_ms: Arg) -> Result<Vec<BigU64>, JsError> {
    let state = state.u64()?;
    let node = node.small_int(u32::MAX, "a node is a whole number")?;
    let node = u16::try_from(node).map_err(|_| range("the node is outside 0..=1023"))?;
    let (next, s) = emq_id::step(state, node, now_ms.millis()?).map_err(gate)?;
    Ok(vec![BigU64(next), BigU64(s)])
}
