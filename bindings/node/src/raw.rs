//! The hot functions as plain N-API callbacks. napi-rs's generated glue costs
//! more per call than these functions' whole work (measured: `hash32` took
//! 107 ns and `decode` 1,038 ns through it), so `hash32`, `encode`,
//! `decode`, `slot` and friends are registered by hand: one
//! `napi_get_cb_info`, the argument conversions of [`convert`], the core
//! call, one value back. Errors go through the same [`crate::error`] helper.
//!
//! Each callback is one `unsafe` block around [`call`], which makes the
//! call's [`Cx`] and [`Arg`]s; every N-API status is checked, and a failed
//! call is thrown as `napi_failed` (or leaves JS's own pending exception).

use std::cell::Cell;
use std::ffi::CStr;
use std::ptr;

use napi::sys;
use napi_derive::napi;

use napi::bindgen_prelude::{Env, Object};
use napi::JsValue;

use crate::convert::{check, Arg, Cx};
use crate::error::{gate, napi_failed, range, wrong_type, JsError, JsResult};

pub(crate) type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

/// The first `N` arguments (missing ones are `undefined`).
///
/// # Safety
/// `info` is the callback info N-API passed with `cx`'s env to the callback in progress.
unsafe fn args<const N: usize>(cx: Cx, info: sys::napi_callback_info) -> JsResult<[Arg; N]> {
    let mut argv = [ptr::null_mut(); N];
    let mut argc = N;
    // SAFETY: env and info are the call in progress's (the caller's promise); argv has
    // room for argc = N values, and N-API writes at most that many.
    let status = unsafe {
        sys::napi_get_cb_info(cx.raw(), info, &mut argc, argv.as_mut_ptr(), ptr::null_mut(), ptr::null_mut())
    };
    check(status, "napi_get_cb_info")?;
    // argc is now the number of arguments passed, which may be more than N.
    if argc < N {
        let undefined = cx.undefined()?;
        for slot in &mut argv[argc..] {
            *slot = undefined;
        }
    }
    // SAFETY: every element is an argument of the call in progress or its `undefined`.
    Ok(argv.map(|v| unsafe { cx.arg(v) }))
}

/// Throws `e` (code = the gate) and returns NULL, as N-API expects after a
/// throw. When JS's own exception is pending (a getter or setter that threw
/// during the call), that one is left to propagate. Should N-API fail to make
/// the error, nothing more can be reported: the call still answers NULL.
fn throw(cx: Cx, e: JsError) -> sys::napi_value {
    let mut pending = false;
    // SAFETY: cx is the live env of the call in progress (Cx's invariant); pending is a valid out-pointer.
    let status = unsafe { sys::napi_is_exception_pending(cx.raw(), &mut pending) };
    if status == sys::Status::napi_ok && pending {
        return ptr::null_mut();
    }
    let _ = (|| -> JsResult<()> {
        let code = cx.ascii(e.status.0.as_bytes())?;
        let mut msg = ptr::null_mut();
        // SAFETY: cx is the live env of the call in progress; N-API reads reason.len()
        // bytes of UTF-8 from the reason, which outlives the call.
        let status = unsafe {
            sys::napi_create_string_utf8(cx.raw(), e.reason.as_ptr().cast(), e.reason.len() as isize, &mut msg)
        };
        check(status, "napi_create_string_utf8")?;
        let mut err = ptr::null_mut();
        // SAFETY: cx is the live env of the call in progress; code and msg are strings it created.
        check(unsafe { sys::napi_create_error(cx.raw(), code, msg, &mut err) }, "napi_create_error")?;
        // SAFETY: cx is the live env of the call in progress; err is an error it created.
        check(unsafe { sys::napi_throw(cx.raw(), err) }, "napi_throw")
    })();
    ptr::null_mut()
}

/// Runs `body` over the call's first `N` arguments: its value is the answer,
/// a refusal is thrown, a panic never crosses into Node.
///
/// # Safety
/// `env` and `info` are what N-API passed to the callback in progress.
pub(crate) unsafe fn call<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    body: impl FnOnce(Cx, [Arg; N]) -> JsResult<sys::napi_value>,
) -> sys::napi_value {
    // SAFETY: the caller passes the env of the callback in progress; cx does not outlive it.
    let cx = unsafe { Cx::new(env) };
    // SAFETY: info came with env (the caller's promise).
    let run = || body(cx, unsafe { args::<N>(cx, info) }?);
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => throw(cx, e),
        Err(_) => throw(cx, napi_failed("a panic in emq-id (a bug: please report it)")),
    }
}

/// The readers of one bigint snowflake: one argument in, one number out.
///
/// # Safety
/// As [`call`].
unsafe fn reader(env: sys::napi_env, info: sys::napi_callback_info, read: fn(u64) -> f64) -> sys::napi_value {
    // SAFETY: the caller passes this callback's env and info.
    unsafe { call(env, info, |cx, [s]| cx.number(read(s.u64()?))) }
}

unsafe extern "C" fn hash32(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe { reader(env, info, |s| emq_id::hash32(s) as f64) }
}

unsafe extern "C" fn unix_ms(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe { reader(env, info, |s| emq_id::unix_ms(s) as f64) }
}

unsafe extern "C" fn node(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe { reader(env, info, |s| emq_id::node(s) as f64) }
}

unsafe extern "C" fn seq(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe { reader(env, info, |s| emq_id::seq(s) as f64) }
}

unsafe extern "C" fn encode(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe {
        call(env, info, |cx, [ns, s]| {
            let ns = ns.bytes("the namespace is a string")?;
            cx.ascii(&emq_id::encode(ns.as_slice(), s.u64()?).map_err(gate)?)
        })
    }
}

unsafe extern "C" fn decode_snowflake(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe {
        call(env, info, |cx, [text]| {
            let text = text.bytes("an id is a string or a Uint8Array")?;
            cx.bigint(emq_id::decode(text.as_slice()).map_err(gate)?.1)
        })
    }
}

thread_local! {
    /// The Float64Array `decodeInto` writes `[unixMs, node, seq, ns packed]`
    /// to: a reference to the array the loader hands over once (per thread, so
    /// per env), which keeps it alive (but cannot keep JS from detaching it).
    static SCRATCH: Cell<sys::napi_ref> = const { Cell::new(ptr::null_mut()) };
}

/// The data of a Float64Array of at least 4 elements, else `None` (for any
/// other value, or a detached buffer, whose length is 0).
fn float64x4(array: Arg) -> JsResult<Option<*mut f64>> {
    let array = array.typed_array::<f64>(sys::TypedarrayType::float64_array)?;
    Ok(array.and_then(|(data, len)| (len >= 4).then_some(data)))
}

/// `decodeInto(text)`: decode's gates; returns the snowflake and writes the
/// other fields to the scratch array given to `setScratch`, so no object is
/// built in native code. The array's data is looked up on every call, never
/// kept: JS can detach (transfer) its buffer, and a kept pointer would then be
/// written after the memory is freed.
unsafe extern "C" fn decode_into(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe { call(env, info, |cx, [text]| decode_fields(cx, text)) }
}

fn decode_fields(cx: Cx, text: Arg) -> JsResult<sys::napi_value> {
    let text = text.bytes("an id is a string or a Uint8Array")?;
    let (ns, s) = emq_id::decode(text.as_slice()).map_err(gate)?;
    let fields = [
        emq_id::unix_ms(s) as f64,
        emq_id::node(s) as f64,
        emq_id::seq(s) as f64,
        ((ns[0] as u32) << 16 | (ns[1] as u32) << 8 | ns[2] as u32) as f64,
    ];
    decode_scratch(cx, fields, s)
}

/// Writes `fields` to the scratch array given to `setScratch` and answers
/// `snowflake` as a bigint: the output half of `decodeInto` (and its floor's).
pub(crate) fn decode_scratch(cx: Cx, fields: [f64; 4], snowflake: u64) -> JsResult<sys::napi_value> {
    let reference = SCRATCH.get();
    if reference.is_null() {
        return Err(napi_failed("decodeInto before setScratch"));
    }
    let mut array = ptr::null_mut();
    // SAFETY: cx is the live env of the call in progress (Cx's invariant); reference is
    // one setScratch created in this env (the thread's), deleted only once replaced.
    let status = unsafe { sys::napi_get_reference_value(cx.raw(), reference, &mut array) };
    check(status, "napi_get_reference_value")?;
    // SAFETY: array is a handle N-API returned during this call (NULL if the array
    // was collected, which napi_get_typedarray_info then refuses).
    let Some(data) = float64x4(unsafe { cx.arg(array) })? else {
        return Err(napi_failed("the scratch array of decodeInto is gone or detached"));
    };
    // SAFETY: float64x4 just read the array's live data: at least 4 aligned f64s,
    // not detached, and no JS runs between that look-up and this write.
    unsafe { std::ptr::copy_nonoverlapping(fields.as_ptr(), data, 4) };
    cx.bigint(snowflake)
}

unsafe extern "C" fn set_scratch(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe { call(env, info, |cx, [array]| keep_scratch(cx, array)) }
}

fn keep_scratch(cx: Cx, array: Arg) -> JsResult<sys::napi_value> {
    if float64x4(array)?.is_none() {
        return Err(wrong_type("setScratch takes a Float64Array(4)"));
    }
    // Keep it alive for the life of the env: it is written on every decode.
    let mut reference = ptr::null_mut();
    // SAFETY: cx and array are the call in progress's (Cx's and Arg's invariants);
    // reference is a valid out-pointer.
    let status = unsafe { sys::napi_create_reference(cx.raw(), array.raw(), 1, &mut reference) };
    check(status, "napi_create_reference")?;
    let previous = SCRATCH.replace(reference);
    if !previous.is_null() {
        // SAFETY: previous is a reference setScratch created in this env, now
        // unused (replaced above), deleted once.
        check(unsafe { sys::napi_delete_reference(cx.raw(), previous) }, "napi_delete_reference")?;
    }
    cx.undefined()
}

unsafe extern "C" fn slot(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe {
        call(env, info, |cx, [key]| {
            let key = key.bytes("a key is a string or a Uint8Array")?;
            cx.number(emq_id::slot(key.as_slice()) as f64)
        })
    }
}

/// `slotMany(keys)`: one call for a batch, answered as a Uint16Array.
unsafe extern "C" fn slot_many(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe { call(env, info, |cx, [keys]| slots(cx, keys)) }
}

fn slots(cx: Cx, keys: Arg) -> JsResult<sys::napi_value> {
    let (env, keys) = (cx.raw(), keys.raw());
    let mut is_array = false;
    // SAFETY: env is the live env of the call in progress (Cx's invariant), keys a
    // handle of it, is_array a valid out-pointer. (The same holds for each call below.)
    check(unsafe { sys::napi_is_array(env, keys, &mut is_array) }, "napi_is_array")?;
    if !is_array {
        return Err(wrong_type("slotMany takes an array of keys"));
    }
    let mut n = 0u32;
    // SAFETY: as above.
    check(unsafe { sys::napi_get_array_length(env, keys, &mut n) }, "napi_get_array_length")?;
    let n = n as usize;
    let (mut data, mut buffer) = (ptr::null_mut(), ptr::null_mut());
    let bytes = n.checked_mul(2).ok_or_else(|| napi_failed("napi_create_arraybuffer"))?;
    // SAFETY: as above.
    check(unsafe { sys::napi_create_arraybuffer(env, bytes, &mut data, &mut buffer) }, "napi_create_arraybuffer")?;
    let data = data.cast::<u16>();
    // An empty buffer may have no data (NULL): nothing is written then.
    if n > 0 && (data.is_null() || !data.is_aligned()) {
        return Err(napi_failed("napi_create_arraybuffer (no aligned data)"));
    }
    for i in 0..n {
        let mut key = ptr::null_mut();
        // SAFETY: as above; i < n <= u32::MAX. A getter may run JS here: it cannot
        // reach `buffer` (not yet returned), and no borrowed bytes live across it.
        check(unsafe { sys::napi_get_element(env, keys, i as u32, &mut key) }, "napi_get_element")?;
        // SAFETY: key is a handle N-API returned during this call.
        let key = unsafe { cx.arg(key) }.bytes("a key is a string or a Uint8Array")?;
        // SAFETY: data holds n aligned u16s (a fresh ArrayBuffer of 2n bytes, checked
        // above) that nothing else can reach yet, and i < n.
        unsafe { data.add(i).write(emq_id::slot(key.as_slice())) };
    }
    let mut array = ptr::null_mut();
    // SAFETY: as above; buffer holds exactly n u16s from offset 0.
    let status =
        unsafe { sys::napi_create_typedarray(env, sys::TypedarrayType::uint16_array, n, buffer, 0, &mut array) };
    check(status, "napi_create_typedarray")?;
    Ok(array)
}

/// `slotPacked(bytes, lens, out)`: writes to `out` (a Uint16Array) the slots
/// of `out.length` keys laid back to back in `bytes` (a Uint8Array), each as
/// long as its entry of `lens` (a Uint32Array): slotMany's one crossing for a
/// batch of ASCII strings, which native.js packs (the WebAssembly export of the
/// same name takes the same layout). Internal, never part of the API.
unsafe extern "C" fn slot_packed(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe { call(env, info, |cx, [bytes, lens, out]| packed_slots(cx, bytes, lens, out)) }
}

fn packed_slots(cx: Cx, bytes: Arg, lens: Arg, out: Arg) -> JsResult<sys::napi_value> {
    let what = "slotPacked takes a Uint8Array, a Uint32Array and a Uint16Array";
    let (bytes, size) = bytes.typed_array::<u8>(sys::TypedarrayType::uint8_array)?.ok_or_else(|| wrong_type(what))?;
    let (lens, m) = lens.typed_array::<u32>(sys::TypedarrayType::uint32_array)?.ok_or_else(|| wrong_type(what))?;
    let (out, n) = out.typed_array::<u16>(sys::TypedarrayType::uint16_array)?.ok_or_else(|| wrong_type(what))?;
    if n == 0 {
        return cx.undefined();
    }
    if m < n {
        return Err(range("fewer key lengths than slots"));
    }
    // Written while the others are read: it must share no byte with them.
    let span = |p: *const u8, len: usize| (p as usize, p as usize + len);
    let written = span(out.cast_const().cast(), 2 * n);
    let apart = |(start, end): (usize, usize)| end <= written.0 || written.1 <= start;
    if !apart(span(bytes.cast_const(), size)) || !apart(span(lens.cast_const().cast(), 4 * n)) {
        return Err(range("the slots would overwrite the keys"));
    }
    // The arrays' data as typed_array read it: non-NULL, aligned, `size` bytes,
    // `m` >= n u32s and `n` u16s, alive as long as the call's arguments.
    // SAFETY: as above; `out` shares no byte with what is read (checked), and no
    // JS runs until this returns, so nothing detaches, reads or writes them.
    let (mut rest, lens, out) = unsafe {
        (
            std::slice::from_raw_parts(bytes.cast_const(), size),
            std::slice::from_raw_parts(lens.cast_const(), n),
            std::slice::from_raw_parts_mut(out, n),
        )
    };
    for (slot, &len) in out.iter_mut().zip(lens) {
        let (key, tail) =
            rest.split_at_checked(len as usize).ok_or_else(|| range("the key lengths run past the packed data"))?;
        *slot = emq_id::slot(key);
        rest = tail;
    }
    cx.undefined()
}

/// `mint(ns)`: an id from the process-wide minter (`EMQ_NODE`).
unsafe extern "C" fn mint(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe {
        call(env, info, |cx, [ns]| {
            let ns = ns.bytes("the namespace is a string")?;
            cx.ascii(&emq_id::mint(ns.as_slice()).map_err(gate)?.to_bytes())
        })
    }
}

/// `mintMany(ns, n)`: n ids from the process-wide minter, one clock reading.
unsafe extern "C" fn mint_many(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe { call(env, info, |cx, [ns, count]| mint_batch(cx, ns, count)) }
}

fn mint_batch(cx: Cx, ns: Arg, count: Arg) -> JsResult<sys::napi_value> {
    let ns = ns.bytes("the namespace is a string")?;
    let count = count.small_int(u32::MAX, "a count is a whole number from 0")?;
    emq_id::check_namespace(ns.as_slice()).map_err(gate)?;
    // Copied out: a setter on Array.prototype may run JS at each napi_set_element
    // below, and that JS could detach a Uint8Array namespace's buffer.
    let ns: [u8; emq_id::NS_LEN] = ns.as_slice().try_into().map_err(|_| napi_failed("check_namespace"))?;
    let minter = emq_id::process_minter().map_err(gate)?;
    let now = emq_id::now_ms();
    let mut array = ptr::null_mut();
    // SAFETY: cx is the live env of the call in progress (Cx's invariant); array is a valid out-pointer.
    let status = unsafe { sys::napi_create_array_with_length(cx.raw(), count as usize, &mut array) };
    check(status, "napi_create_array_with_length")?;
    for i in 0..count {
        let s = minter.next_at(now).map_err(gate)?;
        let text = cx.ascii(&emq_id::encode(&ns, s).map_err(gate)?)?;
        // SAFETY: cx is the live env of the call in progress; array and text are values it created.
        check(unsafe { sys::napi_set_element(cx.raw(), array, i, text) }, "napi_set_element")?;
    }
    Ok(array)
}

const FUNCTIONS: &[(&CStr, Callback)] = &[
    (c"hash32", hash32),
    (c"unixMs", unix_ms),
    (c"node", node),
    (c"seq", seq),
    (c"encode", encode),
    (c"decodeSnowflake", decode_snowflake),
    (c"decodeInto", decode_into),
    (c"setScratch", set_scratch),
    (c"slot", slot),
    (c"slotMany", slot_many),
    (c"slotPacked", slot_packed),
    (c"mint", mint),
    (c"mintMany", mint_many),
];

/// Adds the hand-registered functions to the module's exports.
#[napi(module_exports)]
pub fn register(exports: Object, env: Env) -> napi::Result<()> {
    let (env, exports) = (env.raw(), exports.raw());
    #[cfg(feature = "bench")]
    let functions = FUNCTIONS.iter().chain(crate::floors::FLOORS);
    #[cfg(not(feature = "bench"))]
    let functions = FUNCTIONS.iter();
    for (name, f) in functions {
        let mut function = ptr::null_mut();
        // SAFETY: env and exports come from module registration, on its thread; the
        // name is a static NUL-terminated string of count_bytes() bytes.
        napi::check_status!(unsafe {
            sys::napi_create_function(
                env,
                name.as_ptr(),
                name.count_bytes() as isize,
                Some(*f),
                ptr::null_mut(),
                &mut function,
            )
        })?;
        // SAFETY: as above; function was created in this env just now.
        napi::check_status!(unsafe { sys::napi_set_named_property(env, exports, name.as_ptr(), function) })?;
    }
    Ok(())
}
