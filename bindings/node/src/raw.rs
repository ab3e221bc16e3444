//! The hot functions as plain N-API callbacks. napi-rs's generated glue costs
//! more per call than these functions' whole work (measured in BENCHMARKS.md),
//! so `hash32`, `encode`, `decode`, `slot` and friends are registered by hand:
//! one `napi_get_cb_info`, the argument conversions of [`convert`], the core
//! call, one value back. Errors go through the same [`crate::error`] helper.

use std::cell::Cell;
use std::ffi::CStr;
use std::ptr;

use napi::sys;
use napi_derive::napi;

use napi::bindgen_prelude::{Env, Object};
use napi::JsValue;

use crate::convert;
use crate::error::{gate, JsError, JsResult};

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

/// The first `N` arguments (missing ones are `undefined`).
unsafe fn args<const N: usize>(env: sys::napi_env, info: sys::napi_callback_info) -> [sys::napi_value; N] {
    let mut argv = [ptr::null_mut(); N];
    let mut argc = N;
    // SAFETY: argv has room for N values.
    unsafe { sys::napi_get_cb_info(env, info, &mut argc, argv.as_mut_ptr(), ptr::null_mut(), ptr::null_mut()) };
    if argc < N {
        let mut undefined = ptr::null_mut();
        // SAFETY: env is the current callback's.
        unsafe { sys::napi_get_undefined(env, &mut undefined) };
        for slot in &mut argv[argc..] {
            *slot = undefined;
        }
    }
    argv
}

/// Throws `e` (code = the gate) and returns NULL, as N-API expects after a throw.
unsafe fn throw(env: sys::napi_env, e: JsError) -> sys::napi_value {
    let (mut code, mut msg, mut err) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    let c = e.status.0;
    // SAFETY: env is the current callback's; the strings outlive the calls.
    unsafe {
        sys::napi_create_string_utf8(env, c.as_ptr().cast(), c.len() as isize, &mut code);
        sys::napi_create_string_utf8(env, e.reason.as_ptr().cast(), e.reason.len() as isize, &mut msg);
        sys::napi_create_error(env, code, msg, &mut err);
        sys::napi_throw(env, err);
    }
    ptr::null_mut()
}

/// Runs `body`; a refusal is thrown, a panic never crosses into Node.
unsafe fn run(env: sys::napi_env, body: impl FnOnce() -> JsResult<sys::napi_value>) -> sys::napi_value {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => unsafe { throw(env, e) },
        Err(_) => unsafe { throw(env, crate::error::napi_failed("a panic in emq-id (a bug: please report it)")) },
    }
}

/// A created value, or an error when N-API could not create it (only while
/// the environment is tearing down, or out of memory).
fn created(status: sys::napi_status, v: sys::napi_value, what: &str) -> JsResult<sys::napi_value> {
    if status == sys::Status::napi_ok {
        Ok(v)
    } else {
        Err(crate::error::napi_failed(what))
    }
}

fn number(env: sys::napi_env, n: f64) -> JsResult<sys::napi_value> {
    let mut v = ptr::null_mut();
    // SAFETY: env is the current callback's.
    created(unsafe { sys::napi_create_double(env, n, &mut v) }, v, "napi_create_double")
}

fn bigint(env: sys::napi_env, n: u64) -> JsResult<sys::napi_value> {
    let mut v = ptr::null_mut();
    // SAFETY: env is the current callback's.
    created(unsafe { sys::napi_create_bigint_uint64(env, n, &mut v) }, v, "napi_create_bigint_uint64")
}

fn ascii(env: sys::napi_env, text: &[u8]) -> JsResult<sys::napi_value> {
    let mut v = ptr::null_mut();
    // SAFETY: ASCII is Latin-1; text outlives the call.
    let status = unsafe { sys::napi_create_string_latin1(env, text.as_ptr().cast(), text.len() as isize, &mut v) };
    created(status, v, "napi_create_string_latin1")
}

/// The readers of one bigint snowflake: one argument in, one number out.
unsafe fn reader(env: sys::napi_env, info: sys::napi_callback_info, read: fn(u64) -> f64) -> sys::napi_value {
    let [s] = unsafe { args::<1>(env, info) };
    unsafe { run(env, || number(env, read(convert::u64_from_bigint(env, s)?))) }
}

unsafe extern "C" fn hash32(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe { reader(env, info, |s| emq_id::hash32(s) as f64) }
}

unsafe extern "C" fn unix_ms(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe { reader(env, info, |s| emq_id::unix_ms(s) as f64) }
}

unsafe extern "C" fn node(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe { reader(env, info, |s| emq_id::node(s) as f64) }
}

unsafe extern "C" fn seq(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe { reader(env, info, |s| emq_id::seq(s) as f64) }
}

unsafe extern "C" fn encode(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    let [ns, s] = unsafe { args::<2>(env, info) };
    unsafe {
        run(env, || {
            let ns = convert::bytes(env, ns, "the namespace is a string")?;
            let text = emq_id::encode(ns.as_slice(), convert::u64_from_bigint(env, s)?).map_err(gate)?;
            ascii(env, &text)
        })
    }
}

unsafe extern "C" fn decode_snowflake(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    let [text] = unsafe { args::<1>(env, info) };
    unsafe {
        run(env, || {
            let text = convert::bytes(env, text, "an id is a string or a Uint8Array")?;
            bigint(env, emq_id::decode(text.as_slice()).map_err(gate)?.1)
        })
    }
}

thread_local! {
    /// Where `decodeInto` writes `[unixMs, node, seq, ns packed]`: a Float64Array
    /// the loader hands over once (per thread) and keeps alive for the process.
    static SCRATCH: Cell<*mut f64> = const { Cell::new(ptr::null_mut()) };
}

/// `decodeInto(text)`: decode's gates; returns the snowflake and writes the
/// other fields to the scratch array, so no object is built in native code.
unsafe extern "C" fn decode_into(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    let [text] = unsafe { args::<1>(env, info) };
    unsafe {
        run(env, || {
            let text = convert::bytes(env, text, "an id is a string or a Uint8Array")?;
            let (ns, s) = emq_id::decode(text.as_slice()).map_err(gate)?;
            let scratch = SCRATCH.get();
            if scratch.is_null() {
                return Err(crate::error::napi_failed("decodeInto before setScratch"));
            }
            let fields = [
                emq_id::unix_ms(s) as f64,
                emq_id::node(s) as f64,
                emq_id::seq(s) as f64,
                ((ns[0] as u32) << 16 | (ns[1] as u32) << 8 | ns[2] as u32) as f64,
            ];
            // SAFETY: setScratch checked it is a Float64Array of at least 4
            // elements, and holds a reference so it is never collected.
            std::ptr::copy_nonoverlapping(fields.as_ptr(), scratch, 4);
            bigint(env, s)
        })
    }
}

unsafe extern "C" fn set_scratch(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    let [array] = unsafe { args::<1>(env, info) };
    unsafe {
        run(env, || {
            let (mut kind, mut len, mut data) = (0, 0usize, ptr::null_mut());
            let (mut buffer, mut offset) = (ptr::null_mut(), 0usize);
            let mut is_typed = false;
            sys::napi_is_typedarray(env, array, &mut is_typed);
            if !is_typed {
                return Err(crate::error::wrong_type("setScratch takes a Float64Array(4)"));
            }
            sys::napi_get_typedarray_info(env, array, &mut kind, &mut len, &mut data, &mut buffer, &mut offset);
            if kind != sys::TypedarrayType::float64_array || len < 4 {
                return Err(crate::error::wrong_type("setScratch takes a Float64Array(4)"));
            }
            // Keep it alive for the life of the process: it is written on every decode.
            let mut reference = ptr::null_mut();
            sys::napi_create_reference(env, array, 1, &mut reference);
            SCRATCH.set(data.cast());
            let mut undefined = ptr::null_mut();
            sys::napi_get_undefined(env, &mut undefined);
            Ok(undefined)
        })
    }
}

unsafe extern "C" fn slot(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    let [key] = unsafe { args::<1>(env, info) };
    unsafe {
        run(env, || {
            let key = convert::bytes(env, key, "a key is a string or a Uint8Array")?;
            number(env, emq_id::slot(key.as_slice()) as f64)
        })
    }
}

/// `slotMany(keys)`: one call for a batch, answered as a Uint16Array.
unsafe extern "C" fn slot_many(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    let [keys] = unsafe { args::<1>(env, info) };
    unsafe {
        run(env, || {
            let mut is_array = false;
            sys::napi_is_array(env, keys, &mut is_array);
            if !is_array {
                return Err(crate::error::wrong_type("slotMany takes an array of keys"));
            }
            let mut n = 0u32;
            sys::napi_get_array_length(env, keys, &mut n);
            let (mut data, mut buffer, mut array) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
            sys::napi_create_arraybuffer(env, n as usize * 2, &mut data, &mut buffer);
            // SAFETY: a fresh ArrayBuffer of n u16s (N-API aligns it).
            let slots = std::slice::from_raw_parts_mut(data.cast::<u16>(), n as usize);
            for (i, slot) in slots.iter_mut().enumerate() {
                let mut key = ptr::null_mut();
                sys::napi_get_element(env, keys, i as u32, &mut key);
                *slot = emq_id::slot(convert::bytes(env, key, "a key is a string or a Uint8Array")?.as_slice());
            }
            sys::napi_create_typedarray(env, sys::TypedarrayType::uint16_array, n as usize, buffer, 0, &mut array);
            Ok(array)
        })
    }
}

/// `mint(ns)`: an id from the process-wide minter (`EMQ_NODE`).
unsafe extern "C" fn mint(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    let [ns] = unsafe { args::<1>(env, info) };
    unsafe {
        run(env, || {
            let ns = convert::bytes(env, ns, "the namespace is a string")?;
            ascii(env, &emq_id::mint(ns.as_slice()).map_err(gate)?.to_bytes())
        })
    }
}

/// `mintMany(ns, n)`: n ids from the process-wide minter, one clock reading.
unsafe extern "C" fn mint_many(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    let [ns, count] = unsafe { args::<2>(env, info) };
    unsafe {
        run(env, || {
            let ns = convert::bytes(env, ns, "the namespace is a string")?;
            let count = convert::small_int(env, count, u32::MAX, "a count is a whole number from 0")?;
            emq_id::check_namespace(ns.as_slice()).map_err(gate)?;
            let minter = emq_id::process_minter().map_err(gate)?;
            let now = emq_id::now_ms();
            let mut array = ptr::null_mut();
            sys::napi_create_array_with_length(env, count as usize, &mut array);
            for i in 0..count {
                let s = minter.next_at(now).map_err(gate)?;
                let text = ascii(env, &emq_id::encode(ns.as_slice(), s).map_err(gate)?)?;
                sys::napi_set_element(env, array, i, text);
            }
            Ok(array)
        })
    }
}

unsafe extern "C" fn noop(_env: sys::napi_env, _info: sys::napi_callback_info) -> sys::napi_value {
    ptr::null_mut()
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
    (c"mint", mint),
    (c"mintMany", mint_many),
    (c"noop", noop),
];

/// Adds the hand-registered functions to the module's exports.
#[napi(module_exports)]
pub fn register(exports: Object, env: Env) -> napi::Result<()> {
    let (env, exports) = (env.raw(), exports.raw());
    for (name, f) in FUNCTIONS {
        let mut function = ptr::null_mut();
        // SAFETY: env and exports come from module registration; the names are static.
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
        napi::check_status!(unsafe { sys::napi_set_named_property(env, exports, name.as_ptr(), function) })?;
    }
    Ok(())
}
