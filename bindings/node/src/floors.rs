//! Benchmark floors: for each signature of the hot functions, a callback that
//! converts the same arguments and answers a value of the same type, doing
//! none of the work. A call's cost divided by its own floor is what the
//! binding adds over N-API's fixed price for that signature (the performance page);
//! the empty `noop` cannot say that, since no real call takes nothing and
//! returns nothing. Registered beside the hot functions only in a build with
//! the `bench` feature, which no package ships.

use super::raw::{call, decode_scratch, Callback};
use napi::sys;
use std::ffi::CStr;

/// bigint → number, as `hash32`, `unixMs`, `node`, `seq`.
unsafe extern "C" fn number_of_bigint(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe { call(env, info, |cx, [s]| cx.number(s.u64()? as u32 as f64)) }
}

/// (string, bigint) → 14-byte string, as `encode`.
unsafe extern "C" fn string_of_string_bigint(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe {
        call(env, info, |cx, [ns, s]| {
            let ns = ns.bytes("the namespace is a string")?;
            let mut text = *b"JOB00000000000";
            text[13] = b'0' + (s.u64()? % 10) as u8 + (ns.as_slice().len() & 1) as u8;
            cx.ascii(&text)
        })
    }
}

/// string → bigint, as `decodeSnowflake`.
unsafe extern "C" fn bigint_of_string(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe {
        call(env, info, |cx, [text]| {
            cx.bigint(text.bytes("an id is a string or a Uint8Array")?.as_slice().len() as u64)
        })
    }
}

/// string → bigint and the scratch array's four fields, as `decodeInto`.
unsafe extern "C" fn scratch_of_string(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe {
        call(env, info, |cx, [text]| {
            let len = text.bytes("an id is a string or a Uint8Array")?.as_slice().len();
            decode_scratch(cx, [len as f64, 0.0, 0.0, 0.0], len as u64)
        })
    }
}

/// string → number, as `slot`.
unsafe extern "C" fn number_of_string(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API calls this callback with its env and info.
    unsafe {
        call(env, info, |cx, [key]| cx.number(key.bytes("a key is a string or a Uint8Array")?.as_slice().len() as f64))
    }
}

/// The empty call: N-API's fixed price, under every signature.
unsafe extern "C" fn noop(_env: sys::napi_env, _info: sys::napi_callback_info) -> sys::napi_value {
    std::ptr::null_mut()
}

pub const FLOORS: &[(&CStr, Callback)] = &[
    (c"noop", noop),
    (c"floorNumberOfBigint", number_of_bigint),
    (c"floorStringOfStringBigint", string_of_string_bigint),
    (c"floorBigintOfString", bigint_of_string),
    (c"floorScratchOfString", scratch_of_string),
    (c"floorNumberOfString", number_of_string),
];
