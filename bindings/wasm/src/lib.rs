//! The WebAssembly binding of emq-id, through wasm-bindgen.
//!
//! Thin on purpose: each export converts its arguments, calls the core and
//! converts back. Two things are explicit here because wasm-bindgen would do
//! them silently: 64-bit arguments are taken as `JsValue` and checked (a
//! `u64` parameter would wrap −1 to 2^64 − 1), and refusals are thrown as
//! `"<gate>: <message>"` strings that the package's JS turns into
//! `EmqIdError`s. Strings arrive as their UTF-8 (TextEncoder: a lone surrogate
//! becomes U+FFFD); `*_str` and `*_bytes` pairs let the JS pick without a copy.

#![cfg_attr(target_arch = "wasm32", no_std)]

extern crate alloc;

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use wasm_bindgen::prelude::*;

// In the browser build: no std, so neither std's panic machinery (and the
// formatting it drags in) nor its allocator end up in the `.wasm`. The
// allocator is lol_alloc's free list (sorted by address, coalescing): a few
// hundred bytes where dlmalloc is ~4.5 KB. Allocations here are few and
// short-lived; the package's tests check that memory stays bounded.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
// SAFETY: wasm32 without threads runs one thread.
static ALLOCATOR: lol_alloc::AssumeSingleThreaded<lol_alloc::FreeListAllocator> =
    unsafe { lol_alloc::AssumeSingleThreaded::new(lol_alloc::FreeListAllocator::new()) };

/// The core never panics on any input (a property the tests check); should
/// one slip through, trap rather than format a message.
#[cfg(target_arch = "wasm32")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}

type Js<T> = Result<T, JsValue>;

/// The one error helper: a refusal as the string the JS layer re-throws.
/// (Pushed by hand, not `format!` or `concat`: their machinery would grow the `.wasm`.)
fn gate(e: emq_id::Error) -> JsValue {
    let Some((got, wanted)) = e.acknowledged() else {
        return refusal(e.code(), e.detail());
    };
    // An unacknowledged lease write: the counts the core's `message()` puts
    // before the detail, written here without `core::fmt` (which costs the
    // `.wasm` some 6 KB); the package's tests hold it to the native message.
    let mut text = String::new();
    let (mut a, mut b) = ([0; 20], [0; 20]);
    let counts = [
        e.code(),
        ": acknowledged by ",
        decimal(u64::from(got), &mut a),
        " of ",
        decimal(u64::from(wanted), &mut b),
        if wanted == 1 { " replica: " } else { " replicas: " },
        e.detail(),
    ];
    for part in counts {
        text.push_str(part);
    }
    JsValue::from_str(&text)
}

fn range(detail: &str) -> JsValue {
    refusal("range", detail)
}

fn refusal(code: &str, detail: &str) -> JsValue {
    let mut text = String::with_capacity(code.len() + 2 + detail.len());
    text.push_str(code);
    text.push_str(": ");
    text.push_str(detail);
    JsValue::from_str(&text)
}

/// A bigint in [0, 2^64); a number, a negative or a larger value is `range`.
/// An id's text, which is ASCII by construction.
fn ascii(text: &[u8]) -> String {
    core::str::from_utf8(text).unwrap_or_default().to_owned()
}

fn u64_arg(v: JsValue) -> Js<u64> {
    u64::try_from(v).map_err(|_| range("64-bit values are bigint in [0, 2^64) (a number loses precision past 2^53)"))
}

/// Unix ms as a finite number (floored) or a bigint that fits i64.
fn millis(v: JsValue) -> Js<i64> {
    if let Some(f) = v.as_f64() {
        return floor_ms(f).ok_or_else(|| range("a time in unix ms is a finite number"));
    }
    i64::try_from(v).map_err(|_| range("a time in unix ms is a number or a bigint that fits 64 bits"))
}

/// A finite number of unix ms, floored; `None` for one that is not finite or does not fit i64.
fn floor_ms(f: f64) -> Option<i64> {
    if !f.is_finite() || f.abs() >= 9.2e18 {
        return None;
    }
    // Floor by hand: `f64::floor` lives in std. |f| < 2^63, so the cast is exact enough.
    let t = f as i64;
    Some(if (t as f64) > f { t - 1 } else { t })
}

/// A whole number that fits a node's type; the core decides whether it is a
/// node (`MAX_NODE`). The package's JS has checked that it is a whole number.
fn node_arg(v: JsValue) -> Js<u16> {
    match v.as_f64() {
        Some(f) if (0.0..=65535.0).contains(&f) && (f as u16) as f64 == f => Ok(f as u16),
        _ => Err(range("the node is outside 0..=MAX_NODE")),
    }
}

/// A buffer in the module's memory that the package's JS writes short ASCII
/// inputs into and reads the 14-byte ids from, so the common calls cross the
/// boundary with no allocation and no TextEncoder/TextDecoder (whose fixed
/// cost is several times a decode). Other inputs take the `*_str` exports.
/// Only in the wasm32 build: the package's JS reaches it through the
/// module's memory, which no other target has.
#[cfg(target_arch = "wasm32")]
pub const SCRATCH_LEN: usize = 256;

#[cfg(target_arch = "wasm32")]
mod scratch {
    use core::cell::UnsafeCell;
    use core::sync::atomic::{AtomicBool, Ordering};

    use super::SCRATCH_LEN;

    /// The bytes, and whether a `&mut` to them is out (held by [`with`]).
    struct Scratch {
        bytes: UnsafeCell<[u8; SCRATCH_LEN]>,
        busy: AtomicBool,
    }

    // SAFETY: the bytes are reached only through `with`, which hands out at most
    // one `&mut` at a time (the `busy` flag, taken with an atomic swap, is the lock),
    // and through the raw address the JS reads and writes between calls, when no
    // `&mut` is out: the build has one thread (no `atomics`, checked below).
    unsafe impl Sync for Scratch {}

    static SCRATCH: Scratch = Scratch { bytes: UnsafeCell::new([0; SCRATCH_LEN]), busy: AtomicBool::new(false) };

    /// Runs `f` over the first `len` scratch bytes: `None` when `len` is past the
    /// buffer or the buffer is already lent (a nested call), so two `&mut` never coexist.
    pub fn with<R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> Option<R> {
        if len > SCRATCH_LEN || SCRATCH.busy.swap(true, Ordering::Acquire) {
            return None;
        }
        // SAFETY: `busy` was false and is now ours: no other reference to the bytes
        // exists until it is released below, and the JS side touches them only
        // between calls into the module (one thread).
        let bytes = unsafe { &mut *SCRATCH.bytes.get() };
        let answer = f(&mut bytes[..len]);
        SCRATCH.busy.store(false, Ordering::Release);
        Some(answer)
    }

    /// The buffer's address in the module's memory.
    pub fn address() -> usize {
        SCRATCH.bytes.get() as usize
    }
}

// The allocator and the scratch buffer assume one thread (see their SAFETY comments).
#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
compile_error!("emq-id-wasm assumes a single-threaded module: build without the `atomics` target feature");

/// How long the scratch buffer is.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = scratchLen)]
pub fn scratch_len() -> usize {
    SCRATCH_LEN
}

/// Where the scratch buffer is, in the module's memory.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = scratchPtr)]
pub fn scratch_ptr() -> usize {
    scratch::address()
}

/// The module's memory, for the scratch buffer's view.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

// The scratch entry points answer plain numbers (a `Result` costs a return
// slot and a table entry per call): −1 means "refused", and the JS then
// repeats the call through the `*_str`/`*_bytes` export, which throws the
// gate with its message. Refusals are rare; the common path stays lean.

/// decode over the first `len` scratch bytes: the snowflake, or −1.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = decodeScratch)]
pub fn decode_scratch(len: usize) -> i64 {
    match scratch::with(len, |b| emq_id::decode(b)) {
        Some(Ok((_, s))) => s as i64, // below 2^63 by the range gate
        _ => -1,
    }
}

/// slot over the first `len` scratch bytes (at most the buffer's length).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = slotScratch)]
pub fn slot_scratch(len: usize) -> u16 {
    scratch::with(len.min(SCRATCH_LEN), |b| emq_id::slot(b)).unwrap_or(0)
}

// hashtagScratch packs two offsets into the scratch buffer in one u32.
#[cfg(target_arch = "wasm32")]
const _: () = assert!(SCRATCH_LEN < 1 << 16);

/// Where hashtag finds the tag of the key in the first `len` scratch bytes:
/// `start | length << 16` (both fit 16 bits: the buffer is shorter), or
/// `u32::MAX` when it cannot be lent. The JS cuts the tag from the key it
/// holds, so no bytes come back across the boundary.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = hashtagScratch)]
pub fn hashtag_scratch(len: usize) -> u32 {
    scratch::with(len, |key| {
        let tag = emq_id::hashtag(key);
        let start = tag.as_ptr().addr() - key.as_ptr().addr();
        (start | tag.len() << 16) as u32
    })
    .unwrap_or(u32::MAX)
}

/// encode with the namespace in the first `ns_len` scratch bytes; the id is
/// written to the first 14. 0, or −1 when refused. The JS has checked that
/// `snowflake` is a bigint in [0, 2^64) (a `u64` parameter would wrap anything else).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = encodeScratch)]
pub fn encode_scratch(ns_len: usize, snowflake: u64) -> i32 {
    id_to_scratch(ns_len, |ns| emq_id::encode(ns, snowflake).ok())
}

/// mint (the module-wide state, as [`mint`]) with the namespace in the first
/// `ns_len` scratch bytes; the id is written to the first 14. 0, or −1 when
/// refused: a refused mint leaves the state as it was, so the JS's repeat
/// through [`mint`] meets the same refusal. `now_ms` is `Date.now()`, a number.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = mintScratch)]
pub fn mint_scratch(ns_len: usize, now_ms: f64) -> i32 {
    id_to_scratch(ns_len, |ns| mint_id(ns, floor_ms(now_ms)?).ok())
}

/// The id `make` answers for the namespace in the first `ns_len` scratch
/// bytes, written to the first 14: 0, or −1 when `make` refuses.
#[cfg(target_arch = "wasm32")]
fn id_to_scratch(ns_len: usize, make: impl FnOnce(&[u8]) -> Option<[u8; emq_id::ID_LEN]>) -> i32 {
    let written = scratch::with(SCRATCH_LEN, |buf| {
        let text = make(buf.get(..ns_len)?)?;
        buf[..emq_id::ID_LEN].copy_from_slice(&text);
        Some(())
    });
    match written {
        Some(Some(())) => 0,
        _ => -1,
    }
}

#[wasm_bindgen]
pub fn encode(ns: &[u8], snowflake: JsValue) -> Js<String> {
    let text = emq_id::encode(ns, u64_arg(snowflake)?).map_err(gate)?;
    Ok(ascii(&text))
}

/// decode's gates over raw bytes; answers the snowflake.
#[wasm_bindgen(js_name = decodeBytes)]
pub fn decode_bytes(text: &[u8]) -> Js<u64> {
    Ok(emq_id::decode(text).map_err(gate)?.1)
}

// The hot readers take `u64` directly: a `JsValue` argument costs a trip
// through wasm-bindgen's value table, several times these functions' work.
// The range check that the `u64` conversion would skip (it wraps −1 to
// 2^64 − 1) is made by the package's JS before the call: see `u64` in api.mjs.

#[wasm_bindgen]
pub fn hash32(snowflake: u64) -> u32 {
    emq_id::hash32(snowflake)
}

#[wasm_bindgen(js_name = unixMs)]
pub fn unix_ms(snowflake: u64) -> f64 {
    emq_id::unix_ms(snowflake) as f64
}

#[wasm_bindgen]
pub fn node(snowflake: u64) -> u16 {
    emq_id::node(snowflake)
}

#[wasm_bindgen]
pub fn seq(snowflake: u64) -> u16 {
    emq_id::seq(snowflake)
}

#[wasm_bindgen(js_name = minFor)]
pub fn min_for(unix_ms: JsValue) -> Js<u64> {
    emq_id::min_for(millis(unix_ms)?).map_err(gate)
}

#[wasm_bindgen(js_name = slotBytes)]
pub fn slot_bytes(key: &[u8]) -> u16 {
    emq_id::slot(key)
}

/// Slots of many keys laid back to back in `data` (key i is `lens[i]` bytes):
/// one boundary crossing for a whole batch.
#[wasm_bindgen(js_name = slotPacked)]
pub fn slot_packed(data: &[u8], lens: &[u32]) -> Js<Vec<u16>> {
    let mut rest = data;
    let mut out = Vec::with_capacity(lens.len());
    for &len in lens {
        if len as usize > rest.len() {
            return Err(range("the key lengths run past the packed data"));
        }
        let (key, tail) = rest.split_at(len as usize);
        out.push(emq_id::slot(key));
        rest = tail;
    }
    Ok(out)
}

#[wasm_bindgen(js_name = hashtagStr)]
pub fn hashtag_str(key: &str) -> String {
    // Braces are ASCII, so a tag of valid UTF-8 is valid UTF-8.
    core::str::from_utf8(emq_id::hashtag(key.as_bytes())).unwrap_or_default().to_owned()
}

#[wasm_bindgen(js_name = hashtagBytes)]
pub fn hashtag_bytes(key: &[u8]) -> Vec<u8> {
    emq_id::hashtag(key).to_vec()
}

/// The general key builder; `id` of `undefined` means none.
#[wasm_bindgen]
pub fn key(queue: &[u8], kind: &[u8], id: Option<Vec<u8>>) -> Js<String> {
    let key = emq_id::key(queue, kind, id.as_deref()).map_err(gate)?;
    Ok(key.as_str().to_owned())
}

#[wasm_bindgen(js_name = jobKey)]
pub fn job_key(queue: &[u8], id: &[u8]) -> Js<String> {
    Ok(emq_id::job_key(queue, id).map_err(gate)?.as_str().to_owned())
}

/// `queue \n family pattern [\n param]` (one string: an array of strings costs
/// kilobytes of glue in the .wasm); the JS side makes the object. None of the
/// parts can hold a newline.
#[wasm_bindgen(js_name = parseKey)]
pub fn parse_key(key: &[u8]) -> Js<String> {
    let p = emq_id::parse_key(key).map_err(gate)?;
    let mut out = ascii(p.queue);
    out.push('\n');
    for part in p.family.pattern_parts() {
        out.push_str(part);
    }
    if let Some(param) = p.param {
        out.push('\n');
        out.push_str(&ascii(param));
    }
    Ok(out)
}

#[wasm_bindgen]
pub fn reserve(name: &[u8]) -> Js<String> {
    Ok(emq_id::reserve(name).map_err(gate)?.as_str().to_owned())
}

#[wasm_bindgen(js_name = queuePrefix)]
pub fn queue_prefix(queue: &[u8]) -> Js<String> {
    Ok(emq_id::queue_prefix(queue).map_err(gate)?.as_str().to_owned())
}

#[wasm_bindgen(js_name = jobPrefix)]
pub fn job_prefix(queue: &[u8]) -> Js<String> {
    Ok(emq_id::job_prefix(queue).map_err(gate)?.as_str().to_owned())
}

#[wasm_bindgen(js_name = prefixBytes)]
pub fn prefix_bytes(queue: &[u8], ty: &[u8]) -> Js<u32> {
    Ok(emq_id::prefix_bytes(queue, ty).map_err(gate)? as u32)
}

#[wasm_bindgen(js_name = xaddId)]
pub fn xadd_id(id: &[u8]) -> Js<String> {
    Ok(emq_id::xadd_id(id).map_err(gate)?.as_str().to_owned())
}

/// The id behind a stream entry id; `ns` of `undefined` is the core's `EVENT_NS`.
#[wasm_bindgen(js_name = fromXaddId)]
pub fn from_xadd_id(entry: &[u8], ns: Option<Vec<u8>>) -> Js<String> {
    let id = emq_id::from_xadd_id(entry, ns.as_deref().unwrap_or(emq_id::EVENT_NS)).map_err(gate)?;
    // encode, not Id::to_bytes: its `expect` would pull the formatting machinery into the .wasm.
    Ok(ascii(&emq_id::encode(&id.ns(), id.snowflake()).map_err(gate)?))
}

/// The contract's pure step: `[state', snowflake]`.
#[wasm_bindgen(js_name = mintStep)]
pub fn mint_step(state: JsValue, node: JsValue, now_ms: JsValue) -> Js<Vec<u64>> {
    let (next, s) = emq_id::step(u64_arg(state)?, node_arg(node)?, millis(now_ms)?).map_err(gate)?;
    Ok(vec![next, s])
}

// No export of the core's own `self_check`: it parses the vectors' integers
// with core's `str::parse`, kilobytes in the `.wasm`, and the package runs
// every one of those lines through this module at load anyway (api.mjs).

/// The contract's self-check vectors, which the package runs through its own API at load.
#[wasm_bindgen(js_name = selfCheckVectors)]
pub fn self_check_vectors() -> String {
    emq_id::SELF_CHECK_VECTORS.to_owned()
}

/// The core's gates, numbers and names as `gate <name>`, `number <NAME>
/// <value>`, `text <NAME> <value>` and `outcome <name>` lines: the package's
/// constants, its gate list and the lease writes' outcomes, so none is typed in JS.
#[wasm_bindgen]
pub fn facts() -> String {
    let mut out = String::new();
    let mut line = |kind: &str, name: &str, value: &str| {
        for part in [kind, " ", name, if value.is_empty() { "" } else { " " }, value, "\n"] {
            out.push_str(part);
        }
    };
    for gate in emq_id::Gate::ALL {
        line("gate", gate.name(), "");
    }
    for &(name, value) in emq_id::NUMBERS {
        line("number", name, decimal(value, &mut [0; 20]));
    }
    for &(name, value) in emq_id::TEXTS {
        line("text", name, value);
    }
    for outcome in emq_id::Outcome::ALL {
        line("outcome", outcome.name(), "");
    }
    out
}

/// `value` in decimal, written into `buf` (no `format!`: it would grow the `.wasm`).
fn decimal(mut value: u64, buf: &mut [u8; 20]) -> &str {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    core::str::from_utf8(&buf[at..]).unwrap_or_default()
}

/// Throws the refusal of gate `name` through the one error helper: the
/// package's test walks every gate of the core through it.
#[wasm_bindgen(js_name = gateError)]
pub fn gate_error(name: &str) -> Js<()> {
    match emq_id::Gate::from_name(name) {
        Some(g) => Err(gate(emq_id::Error::from_gate(g, "a probe of the error mapping"))),
        None => Err(refusal("ERR_INVALID_ARG_TYPE", "no gate has this name")),
    }
}

/// Whether the bytes are a branded id.
#[wasm_bindgen(js_name = isValid)]
pub fn is_valid(text: &[u8]) -> bool {
    emq_id::is_valid(text)
}

/// -1, 0 or 1: the order of two ids; an invalid one is refused with its gate.
#[wasm_bindgen]
pub fn compare(a: &[u8], b: &[u8]) -> Js<i32> {
    Ok(emq_id::compare(a, b).map_err(gate)? as i32)
}

/// The namespace gate of `mint` (`range`), before any id is minted.
#[wasm_bindgen(js_name = checkNamespace)]
pub fn check_namespace(ns: &[u8]) -> Js<()> {
    emq_id::check_namespace(ns).map_err(gate)
}

/// A minter for one node. The clock reading comes from the caller
/// (`Date.now()` in the package's `next()`): WebAssembly has no clock of its own.
#[wasm_bindgen]
pub struct Minter {
    inner: emq_id::Minter,
}

#[wasm_bindgen]
impl Minter {
    #[wasm_bindgen(constructor)]
    pub fn new(node: JsValue) -> Js<Minter> {
        Ok(Minter { inner: emq_id::Minter::new(node_arg(node)?).map_err(gate)? })
    }

    #[wasm_bindgen(getter)]
    pub fn node(&self) -> u16 {
        self.inner.node()
    }

    #[wasm_bindgen(js_name = nextAt)]
    pub fn next_at(&self, now_ms: JsValue) -> Js<u64> {
        self.inner.next_at(millis(now_ms)?).map_err(gate)
    }
}

/// The module-wide mint state behind `mint(ns)`. It holds no node bits, so
/// one state serves whatever node `setNode` gives: changing the node (or
/// setting the same one again) never restarts it, and ids never repeat.
static MODULE_STATE: AtomicU64 = AtomicU64::new(0);

/// `NODE_SET | node` once a node is given (`| FROM_ENV` when from `EMQ_NODE`); 0 before.
static MODULE_NODE: AtomicU32 = AtomicU32::new(0);
const NODE_SET: u32 = 1 << 17;
const FROM_ENV: u32 = 1 << 16;

#[wasm_bindgen(js_name = setNode)]
pub fn set_node(node: JsValue) -> Js<()> {
    let node = emq_id::Minter::new(node_arg(node)?).map_err(gate)?.node();
    MODULE_NODE.store(NODE_SET | node as u32, Ordering::Release);
    Ok(())
}

/// `setNode` from the text of an `EMQ_NODE` variable (the Node.js main
/// thread): the core's own parser, so an invalid value is `range`, never a fallback.
#[wasm_bindgen(js_name = setNodeText)]
pub fn set_node_text(text: &str) -> Js<()> {
    let node = emq_id::parse_node(text).map_err(gate)?;
    MODULE_NODE.store(NODE_SET | FROM_ENV | node as u32, Ordering::Release);
    Ok(())
}

/// The module-wide minter's node and where it came from: `node | 1 << 16`
/// from `EMQ_NODE`, `node` from `setNode`; the `node` gate before either.
#[wasm_bindgen(js_name = processNode)]
pub fn process_node() -> Js<u32> {
    let node = MODULE_NODE.load(Ordering::Acquire);
    if node & NODE_SET == 0 {
        return Err(gate(no_node()));
    }
    Ok(node & !NODE_SET)
}

fn no_node() -> emq_id::Error {
    emq_id::Error::from_gate(
        emq_id::Gate::Node,
        "no node given: call setNode(node) first. Each instance of this module is a mint state of its own, \
         so each browser tab, web worker and Node worker thread needs a node of its own \
         (in Node, EMQ_NODE is the main thread's alone)",
    )
}

/// `mint(ns, nowMs)`: an id from the module-wide state (`setNode` first).
#[wasm_bindgen]
pub fn mint(ns: &[u8], now_ms: JsValue) -> Js<String> {
    // Refused in the order mint always answered: the namespace, the node, then the time.
    emq_id::check_namespace(ns).map_err(gate)?;
    module_node().map_err(gate)?;
    Ok(ascii(&mint_id(ns, millis(now_ms)?).map_err(gate)?))
}

/// The module-wide node, or the `node` refusal when `setNode` has not run.
fn module_node() -> emq_id::Result<u16> {
    let node = MODULE_NODE.load(Ordering::Acquire);
    if node & NODE_SET == 0 {
        return Err(no_node());
    }
    Ok(node as u16)
}

/// An id from the module-wide state; refused, the state is as it was.
fn mint_id(ns: &[u8], now_ms: i64) -> emq_id::Result<[u8; emq_id::ID_LEN]> {
    emq_id::check_namespace(ns)?;
    let s = emq_id::step_shared(&MODULE_STATE, module_node()?, now_ms)?;
    emq_id::encode(ns, s)
}

// ---------------------------------------------------------------- leases (emq-lease/3)
// Numbers arrive as `f64` (the package's JS has checked they are whole and
// finite); each is converted here and the core decides the rest.

fn whole(v: f64) -> Js<i64> {
    if v.is_finite() && v == (v as i64) as f64 && (-9.0e15..9.0e15).contains(&v) {
        Ok(v as i64)
    } else {
        Err(range("lease numbers are whole milliseconds or nodes"))
    }
}

fn lease_node(v: f64) -> Js<u16> {
    u16::try_from(whole(v)?).map_err(|_| range("the node is outside 0..=MAX_NODE"))
}

fn lease_ms(v: f64) -> Js<u64> {
    u64::try_from(whole(v)?).map_err(|_| range("milliseconds are not negative"))
}

/// `<name>\n<text>` per script, joined by NUL.
#[wasm_bindgen(js_name = leaseScripts)]
pub fn lease_scripts() -> String {
    let mut out = String::new();
    for (i, s) in emq_id::SCRIPTS.iter().enumerate() {
        if i > 0 {
            out.push('\0');
        }
        out.push_str(s.name);
        out.push('\n');
        out.push_str(s.text);
    }
    out
}

/// The package's version, the workspace's (its package.json says the same).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// The node of an acquire reply (the previous mark is read by `parseAcquirePrevious`):
/// two number answers, where an array would cost kilobytes of glue in the `.wasm`.
#[wasm_bindgen(js_name = parseAcquireNode)]
pub fn parse_acquire_node(node: f64, previous: f64) -> Js<u16> {
    Ok(emq_id::parse_acquire(whole(node)?, whole(previous)?).map_err(gate)?.node)
}

/// The previous mark of an acquire reply, or -1 for none.
#[wasm_bindgen(js_name = parseAcquirePrevious)]
pub fn parse_acquire_previous(node: f64, previous: f64) -> Js<f64> {
    let a = emq_id::parse_acquire(whole(node)?, whole(previous)?).map_err(gate)?;
    Ok(a.previous_mark.map_or(-1.0, |m| m as f64))
}

#[wasm_bindgen(js_name = parseRenewal)]
pub fn parse_renewal(reply: f64) -> Js<()> {
    emq_id::parse_renewal(whole(reply)?).map_err(gate)
}

/// WAIT's reply after a lease write, against the replicas wanted: `node`
/// (naming both counts) for fewer, `range` for a negative reply.
#[wasm_bindgen(js_name = parseWait)]
pub fn parse_wait(acknowledged: f64, replicas: f64) -> Js<()> {
    let replicas = u32::try_from(whole(replicas)?).map_err(|_| range("a count of replicas is in 0..=2^32-1"))?;
    emq_id::parse_wait(whole(acknowledged)?, replicas).map_err(gate)
}

/// The WAIT timeout of the terms, checked as `leaseMargin` checks them.
#[wasm_bindgen(js_name = leaseWaitMs)]
pub fn lease_wait_ms(ttl: f64, margin: f64) -> Js<f64> {
    Ok(lease_terms(ttl, margin)?.wait_ms() as f64)
}

/// The terms of `ttl` and `margin`, checked by the core; a negative margin
/// asks for the core's default for this TTL.
fn lease_terms(ttl: f64, margin: f64) -> Js<emq_id::LeaseTerms> {
    let terms = if margin < 0.0 {
        emq_id::LeaseTerms::for_ttl(lease_ms(ttl)?)
    } else {
        emq_id::LeaseTerms::new(lease_ms(ttl)?, lease_ms(margin)?)
    };
    terms.map_err(gate)
}

/// The `node` refusal's detail when `message` is the script's "every node is leased", else "".
#[wasm_bindgen(js_name = parseAcquireError)]
pub fn parse_acquire_error(message: &str) -> String {
    emq_id::parse_acquire_error(message).map_or_else(String::new, |e| e.detail().to_owned())
}

/// The terms checked by the core before a node is taken: the margin (a
/// negative one asks for the default for the TTL).
#[wasm_bindgen(js_name = leaseMargin)]
pub fn lease_margin(ttl: f64, margin: f64) -> Js<f64> {
    Ok(lease_terms(ttl, margin)?.margin_ms as f64)
}

/// A minter on a leased node (the core's `LeasedMinter`).
#[wasm_bindgen]
pub struct LeasedMinter {
    inner: emq_id::LeasedMinter,
}

#[wasm_bindgen]
impl LeasedMinter {
    #[wasm_bindgen(constructor)]
    pub fn new(node: f64, previous: f64, now: f64, sent: f64, ttl: f64, margin: f64) -> Js<LeasedMinter> {
        let acquired = emq_id::parse_acquire(i64::from(lease_node(node)?), whole(previous)?).map_err(gate)?;
        let terms = lease_terms(ttl, margin)?;
        let inner = emq_id::LeasedMinter::start(acquired, whole(now)?, lease_ms(sent)?, terms).map_err(gate)?;
        Ok(LeasedMinter { inner })
    }

    #[wasm_bindgen(getter)]
    pub fn node(&self) -> u16 {
        self.inner.node()
    }

    #[wasm_bindgen(js_name = nextAt)]
    pub fn next_at(&self, now: f64, mono: f64) -> Js<u64> {
        self.inner.next_at(whole(now)?, lease_ms(mono)?).map_err(gate)
    }

    #[wasm_bindgen(js_name = nextMark)]
    pub fn next_mark(&self, now: f64) -> Js<f64> {
        Ok(self.inner.next_mark(whole(now)?) as f64)
    }

    pub fn renewed(&self, sent: f64, mark: f64) -> Js<()> {
        self.inner.renewed(lease_ms(sent)?, lease_ms(mark)?);
        Ok(())
    }

    pub fn stop(&self) {
        self.inner.stop();
    }

    #[wasm_bindgen(js_name = highWater)]
    pub fn high_water(&self) -> f64 {
        self.inner.high_water() as f64
    }

    #[wasm_bindgen(js_name = fenceMs)]
    pub fn fence_ms(&self) -> f64 {
        self.inner.fence_ms() as f64
    }
}

// ---------------------------------------------------------------- the lease keeper
// Answers cross as the core's names; a step and a redirect as one string
// each, which the package's JS splits (an object costs glue in the `.wasm`).

/// The outcome named `name`, or `range` (the JS checks the names first, from `facts`).
fn outcome(name: &str) -> Js<emq_id::Outcome> {
    emq_id::Outcome::from_name(name).ok_or_else(|| range("no lease write's outcome has this name"))
}

/// What a lease script's error reply means: the outcome's name.
#[wasm_bindgen(js_name = readLeaseError)]
pub fn read_lease_error(text: &str, asked: bool) -> String {
    emq_id::read_lease_error(text, asked).name().to_owned()
}

/// A write whose script answered without an error: the outcome's name.
#[wasm_bindgen(js_name = leaseOutcome)]
pub fn lease_outcome(held: bool, acknowledged: bool) -> String {
    emq_id::Outcome::of_write(held, acknowledged).name().to_owned()
}

/// The node a `MOVED` or `ASK` reply names, as `ask slot port host` (`ask`
/// is 1 or 0; the host last, empty when the reply leaves it out), or "".
#[wasm_bindgen(js_name = leaseRedirect)]
pub fn lease_redirect(text: &str) -> String {
    let Some(r) = emq_id::redirect(text) else {
        return String::new();
    };
    let (mut slot, mut port) = ([0; 20], [0; 20]);
    let parts = [
        if r.ask { "1" } else { "0" },
        " ",
        decimal(u64::from(r.slot), &mut slot),
        " ",
        decimal(u64::from(r.port), &mut port),
        " ",
        r.host.unwrap_or(""),
    ];
    let mut out = String::new();
    for part in parts {
        out.push_str(part);
    }
    out
}

/// Throws the first acquire's refusal when it gives up on `outcome` (the
/// core's `Keeper::refusal`); returns when the refusal is another's.
#[wasm_bindgen(js_name = leaseRefusal)]
pub fn lease_refusal(name: &str) -> Js<()> {
    match emq_id::Keeper::refusal(outcome(name)?) {
        Some(e) => Err(gate(e)),
        None => Ok(()),
    }
}

/// How often a held lease is renewed under the terms.
#[wasm_bindgen(js_name = leaseRenewEveryMs)]
pub fn lease_renew_every_ms(ttl: f64, margin: f64) -> Js<f64> {
    Ok(lease_terms(ttl, margin)?.renew_every_ms() as f64)
}

/// How soon a write that did not count is tried again under the terms.
#[wasm_bindgen(js_name = leaseRetryMs)]
pub fn lease_retry_ms(ttl: f64, margin: f64) -> Js<f64> {
    Ok(lease_terms(ttl, margin)?.retry_ms() as f64)
}

/// A holder's keeper of leases (the core's `Keeper`).
#[wasm_bindgen]
pub struct LeaseKeeper {
    inner: emq_id::Keeper,
}

#[wasm_bindgen]
impl LeaseKeeper {
    /// `new LeaseKeeper(ttlMs, marginMs (negative: the default), sinceMonoMs)`
    #[wasm_bindgen(constructor)]
    pub fn new(ttl: f64, margin: f64, since: f64) -> Js<LeaseKeeper> {
        Ok(LeaseKeeper { inner: emq_id::Keeper::starting(lease_terms(ttl, margin)?, lease_ms(since)?) })
    }

    /// The write due at monotonic `now`: its name.
    pub fn next(&mut self, now: f64) -> Js<String> {
        Ok(self.inner.next(lease_ms(now)?).name().to_owned())
    }

    /// Settles a write: `<action> <after ms>`.
    pub fn settle(&mut self, name: &str, sent: f64, now: f64) -> Js<String> {
        let step = self.inner.settle(outcome(name)?, lease_ms(sent)?, lease_ms(now)?);
        let mut after = [0; 20];
        let mut out = String::new();
        for part in [step.action.name(), " ", decimal(step.after_ms, &mut after)] {
            out.push_str(part);
        }
        Ok(out)
    }

    /// Begins handing the held or pending lease back: `next` answers
    /// `release`, and `settle` follows, resends or ends it.
    pub fn release(&mut self) {
        self.inner.release();
    }

    #[wasm_bindgen(getter)]
    pub fn phase(&self) -> String {
        self.inner.phase().name().to_owned()
    }

    #[wasm_bindgen(getter)]
    pub fn asked(&self) -> bool {
        self.inner.asked()
    }
}
