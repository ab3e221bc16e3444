//! The package's functions. Each converts its arguments, calls the core, and
//! converts the answer back; names are the JS spelling of the core's.

use napi::bindgen_prelude::{Either, Uint8Array};
use napi_derive::napi;

use crate::convert::{Arg, Ascii, BigU64};
use crate::error::{gate, range, Code, JsError};

/// A whole number that fits a node's type; the core decides whether it is a node (`MAX_NODE`).
pub fn node_arg(node: Arg) -> Result<u16, JsError> {
    let node = node.small_int(u32::MAX, "a node is a whole number")?;
    u16::try_from(node).map_err(|_| range("the node is outside 0..=MAX_NODE"))
}

/// `minFor(unixMs: number | bigint): bigint`
#[napi]
pub fn min_for(unix_ms: Arg) -> Result<BigU64, JsError> {
    Ok(BigU64(emq_id::min_for(unix_ms.millis()?).map_err(gate)?))
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

/// `key(queue, type, id?)`: the general builder, a type as the bus writes it (and
/// `job` with an id, as in emq-keyspace/1); errors in the order queue, then type.
#[napi]
pub fn key(queue: Arg, kind: Arg, id: Option<Arg>) -> Result<Ascii<{ emq_id::MAX_KEY_LEN }>, JsError> {
    let queue = queue.bytes("a queue is a string")?;
    let kind = kind.bytes("a kind is a string")?;
    let id = id.map(|id| id.bytes("an id is a string or a Uint8Array")).transpose()?;
    let key = emq_id::key(queue.as_slice(), kind.as_slice(), id.as_ref().map(|b| b.as_slice())).map_err(gate)?;
    Ok(Ascii::new(key.as_bytes()))
}

/// `version`: the package's version, the workspace's (its package.json says the same).
#[napi]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Where the process-wide minter's node came from.
#[napi(object)]
pub struct ProcessNode {
    pub node: u32,
    /// `"env"` (from `EMQ_NODE`), `"set"` (from `setNode`) or `"fallback"`
    /// (drawn: unique on this host, collisions possible across hosts).
    pub source: String,
}

fn report(p: &emq_id::ProcessMinter) -> ProcessNode {
    let source = match p.source() {
        emq_id::NodeSource::Env => "env",
        emq_id::NodeSource::Explicit => "set",
        _ => "fallback",
    };
    ProcessNode { node: p.node() as u32, source: source.into() }
}

/// `processNode(): { node, source }` — takes the process's node on first use:
/// throws `range` when `EMQ_NODE` is invalid, `node` when another live process
/// of this host holds it.
#[napi]
pub fn process_node() -> Result<ProcessNode, JsError> {
    Ok(report(emq_id::process_minter().map_err(gate)?))
}

/// `setNode(node): { node, source }` — makes `node` this process's node in
/// place of `EMQ_NODE` (taking its host-local claim); `node` when another live
/// process holds it or this process already mints with another node.
#[napi]
pub fn set_node(node: Arg) -> Result<ProcessNode, JsError> {
    Ok(report(emq_id::set_process_node(node_arg(node)?).map_err(gate)?))
}

/// `selfCheck(): void` — throws (code `self_check`) when this build disagrees with the contract.
#[napi]
pub fn self_check() -> Result<(), JsError> {
    emq_id::self_check().map_err(|m| napi::Error::new(Code("self_check"), m.to_string()))
}

/// The contract's pure mint step: `mintStep(state, node, nowMs): [state', snowflake]`.
#[napi]
pub fn mint_step(state: Arg, node: Arg, now_ms: Arg) -> Result<Vec<BigU64>, JsError> {
    let state = state.u64()?;
    let node = node_arg(node)?;
    let (next, s) = emq_id::step(state, node, now_ms.millis()?).map_err(gate)?;
    Ok(vec![BigU64(next), BigU64(s)])
}

/// A queue key read back.
#[napi(object)]
pub struct ParsedKey {
    pub queue: String,
    /// The family as a pattern: `pending`, `g:<name>:pending`, `job:<id>:lock`.
    pub family: String,
    /// The family's parameter (a name or a job id), when it takes one.
    pub param: Option<String>,
}

/// `parseKey(key): { queue, family, param? }` — the exact inverse of `key`.
#[napi]
pub fn parse_key(key: Arg) -> Result<ParsedKey, JsError> {
    let key = key.bytes("a key is a string or a Uint8Array")?;
    let p = emq_id::parse_key(key.as_slice()).map_err(gate)?;
    // A parsed key's parts are ASCII by the keyspace's grammar.
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    Ok(ParsedKey { queue: text(p.queue), family: p.family.pattern().to_string(), param: p.param.map(text) })
}

/// `reserve(name): string` — `{emq}:<name>`.
#[napi]
pub fn reserve(name: Arg) -> Result<Ascii<{ emq_id::MAX_KEY_LEN }>, JsError> {
    let name = name.bytes("a name is a string")?;
    Ok(Ascii::new(emq_id::reserve(name.as_slice()).map_err(gate)?.as_bytes()))
}

/// `queuePrefix(queue): string` — `emq:{queue}:`.
#[napi]
pub fn queue_prefix(queue: Arg) -> Result<Ascii<{ emq_id::MAX_KEY_LEN }>, JsError> {
    let queue = queue.bytes("a queue is a string")?;
    Ok(Ascii::new(emq_id::queue_prefix(queue.as_slice()).map_err(gate)?.as_bytes()))
}

/// `jobPrefix(queue): string` — `emq:{queue}:job:`.
#[napi]
pub fn job_prefix(queue: Arg) -> Result<Ascii<{ emq_id::MAX_KEY_LEN }>, JsError> {
    let queue = queue.bytes("a queue is a string")?;
    Ok(Ascii::new(emq_id::job_prefix(queue.as_slice()).map_err(gate)?.as_bytes()))
}

/// `prefixBytes(queue, type): number`
#[napi]
pub fn prefix_bytes(queue: Arg, ty: Arg) -> Result<u32, JsError> {
    let queue = queue.bytes("a queue is a string")?;
    let ty = ty.bytes("a type is a string")?;
    Ok(emq_id::prefix_bytes(queue.as_slice(), ty.as_slice()).map_err(gate)? as u32)
}

/// `xaddId(id): string` — the stream entry id of an `EVT` id.
#[napi]
pub fn xadd_id(id: Arg) -> Result<String, JsError> {
    let id = id.bytes("an id is a string or a Uint8Array")?;
    Ok(emq_id::xadd_id(id.as_slice()).map_err(gate)?.to_string())
}

/// `fromXaddId(entry, ns = 'EVT'): string` — the id behind a stream entry id.
#[napi]
pub fn from_xadd_id(entry: Arg, ns: Option<Arg>) -> Result<String, JsError> {
    let entry = entry.bytes("an entry id is a string")?;
    let ns = ns.map(|ns| ns.bytes("a namespace is a string")).transpose()?;
    let ns = ns.as_ref().map_or(&emq_id::EVENT_NS[..], |n| n.as_slice());
    Ok(emq_id::from_xadd_id(entry.as_slice(), ns).map_err(gate)?.to_string())
}
