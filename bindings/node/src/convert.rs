//! Values across the boundary, without allocation where it matters.

use std::ptr;

use napi::bindgen_prelude::{ToNapiValue, TypeName, ValueType};
use napi::sys;

use crate::error::{napi_failed, range, wrong_type, JsResult};

fn check(status: sys::napi_status, what: &str) -> JsResult<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(napi_failed(what))
    }
}

fn type_of(env: sys::napi_env, v: sys::napi_value) -> JsResult<sys::napi_valuetype> {
    let mut t = 0;
    // SAFETY: env and v come from the current callback.
    check(unsafe { sys::napi_typeof(env, v, &mut t) }, "napi_typeof")?;
    Ok(t)
}

/// A `bigint` in `[0, 2^64)`. A `number` (which loses ids past 2^53), a
/// negative or a larger value is the range gate, never wrapped.
pub fn u64_from_bigint(env: sys::napi_env, v: sys::napi_value) -> JsResult<u64> {
    let (mut value, mut lossless) = (0u64, false);
    // One call: N-API itself answers `bigint_expected` for any other type.
    // SAFETY: v is a value of the current callback.
    match unsafe { sys::napi_get_value_bigint_uint64(env, v, &mut value, &mut lossless) } {
        sys::Status::napi_ok => {}
        sys::Status::napi_bigint_expected => {
            return Err(range("64-bit values are bigint (a number loses precision past 2^53)"));
        }
        _ => return Err(napi_failed("bigint")),
    }
    if !lossless {
        return Err(range("a snowflake is a bigint in [0, 2^64)"));
    }
    Ok(value)
}

/// Unix milliseconds as a `number` (like `Date.now()`) or a `bigint`.
/// Fractions are floored; NaN, infinities and bigints outside i64 are the range gate.
pub fn millis(env: sys::napi_env, v: sys::napi_value) -> JsResult<i64> {
    match type_of(env, v)? {
        sys::ValueType::napi_number => {
            let mut f = 0.0;
            // SAFETY: v is a number of the current callback.
            check(unsafe { sys::napi_get_value_double(env, v, &mut f) }, "number")?;
            if !f.is_finite() || f.abs() >= 9.2e18 {
                return Err(range("a time in unix ms is a finite number"));
            }
            Ok(f.floor() as i64)
        }
        sys::ValueType::napi_bigint => {
            let (mut value, mut lossless) = (0i64, false);
            // SAFETY: v is a bigint of the current callback.
            check(unsafe { sys::napi_get_value_bigint_int64(env, v, &mut value, &mut lossless) }, "bigint")?;
            if !lossless {
                return Err(range("a time in unix ms fits a signed 64-bit integer"));
            }
            Ok(value)
        }
        _ => Err(wrong_type("a time in unix ms is a number or a bigint")),
    }
}

/// A small non-negative integer argument (a node, a count).
pub fn small_int(env: sys::napi_env, v: sys::napi_value, max: u32, what: &'static str) -> JsResult<u32> {
    if type_of(env, v)? != sys::ValueType::napi_number {
        return Err(wrong_type(what));
    }
    let mut f = 0.0;
    // SAFETY: v is a number of the current callback.
    check(unsafe { sys::napi_get_value_double(env, v, &mut f) }, "number")?;
    if f.fract() != 0.0 || !(0.0..=max as f64).contains(&f) {
        return Err(range(what));
    }
    Ok(f as u32)
}

const STACK: usize = 256;

/// The bytes of a `string` (its UTF-8, as Node's `Buffer.from(s)` would send
/// it: a lone surrogate becomes U+FFFD) or of a `Uint8Array`/`Buffer` (borrowed).
/// The large stack variant is the point: short strings never touch the heap.
#[allow(clippy::large_enum_variant)]
pub enum Bytes {
    Stack([u8; STACK], usize),
    Heap(Vec<u8>),
    Borrowed(*const u8, usize),
}

impl Bytes {
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Stack(buf, n) => &buf[..*n],
            Bytes::Heap(v) => v,
            // SAFETY: a typed array's data, alive for the current callback.
            Bytes::Borrowed(p, n) => {
                if *n == 0 {
                    &[]
                } else {
                    unsafe { std::slice::from_raw_parts(*p, *n) }
                }
            }
        }
    }

    pub fn is_string(&self) -> bool {
        !matches!(self, Bytes::Borrowed(..))
    }
}

pub fn bytes(env: sys::napi_env, v: sys::napi_value, what: &'static str) -> JsResult<Bytes> {
    // Strings first, in one call: N-API answers `string_expected` for any other type.
    let mut buf = [0u8; STACK];
    let mut copied = 0usize;
    // SAFETY: buf has STACK bytes; N-API writes at most STACK - 1 plus a NUL.
    let status = unsafe { sys::napi_get_value_string_utf8(env, v, buf.as_mut_ptr().cast(), STACK, &mut copied) };
    // N-API never splits a character, and one is at most 4 bytes: a shorter
    // result is the whole string.
    if status == sys::Status::napi_ok && copied + 4 < STACK - 1 {
        return Ok(Bytes::Stack(buf, copied));
    }
    match type_of(env, v)? {
        sys::ValueType::napi_string => {
            let mut len = 0usize;
            // SAFETY: a NULL buffer asks for the length.
            check(unsafe { sys::napi_get_value_string_utf8(env, v, ptr::null_mut(), 0, &mut len) }, "string")?;
            let mut heap = vec![0u8; len + 1];
            // SAFETY: heap has len + 1 bytes.
            check(
                unsafe { sys::napi_get_value_string_utf8(env, v, heap.as_mut_ptr().cast(), len + 1, &mut copied) },
                "string",
            )?;
            heap.truncate(copied);
            Ok(Bytes::Heap(heap))
        }
        sys::ValueType::napi_object => {
            let mut is_typed = false;
            // SAFETY: v is an object of the current callback.
            check(unsafe { sys::napi_is_typedarray(env, v, &mut is_typed) }, "is_typedarray")?;
            if is_typed {
                let (mut kind, mut len, mut data) = (0, 0usize, ptr::null_mut());
                let (mut buffer, mut offset) = (ptr::null_mut(), 0usize);
                // SAFETY: v is a typed array; every out-pointer is valid.
                check(
                    unsafe {
                        sys::napi_get_typedarray_info(env, v, &mut kind, &mut len, &mut data, &mut buffer, &mut offset)
                    },
                    "typedarray",
                )?;
                if kind == sys::TypedarrayType::uint8_array {
                    return Ok(Bytes::Borrowed(data as *const u8, len));
                }
            }
            Err(wrong_type(what))
        }
        _ => Err(wrong_type(what)),
    }
}

/// A `u64` returned as a `bigint`, created directly (no word vector).
pub struct BigU64(pub u64);

impl TypeName for BigU64 {
    fn type_name() -> &'static str {
        "BigInt"
    }
    fn value_type() -> ValueType {
        ValueType::BigInt
    }
}

impl ToNapiValue for BigU64 {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: env is the current callback's.
        napi::check_status!(unsafe { sys::napi_create_bigint_uint64(env, val.0, &mut out) })?;
        Ok(out)
    }
}

/// ASCII text returned as a `string` straight from the stack (ids and keys are ASCII).
pub struct Ascii<const N: usize> {
    pub buf: [u8; N],
    pub len: usize,
}

impl<const N: usize> Ascii<N> {
    pub fn new(bytes: &[u8]) -> Ascii<N> {
        let mut buf = [0u8; N];
        buf[..bytes.len()].copy_from_slice(bytes);
        Ascii { buf, len: bytes.len() }
    }
}

impl<const N: usize> TypeName for Ascii<N> {
    fn type_name() -> &'static str {
        "String"
    }
    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl<const N: usize> ToNapiValue for Ascii<N> {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: ASCII is Latin-1; the buffer outlives the call.
        napi::check_status!(unsafe {
            sys::napi_create_string_latin1(env, val.buf.as_ptr().cast(), val.len as isize, &mut out)
        })?;
        Ok(out)
    }
}

/// A raw argument, converted inside the function so that a bad value is
/// refused with the contract's gate rather than napi-rs's generic error.
#[derive(Clone, Copy)]
pub struct Arg(pub sys::napi_env, pub sys::napi_value);

impl TypeName for Arg {
    fn type_name() -> &'static str {
        "unknown"
    }
    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl napi::bindgen_prelude::FromNapiValue for Arg {
    unsafe fn from_napi_value(env: sys::napi_env, v: sys::napi_value) -> napi::Result<Arg> {
        Ok(Arg(env, v))
    }
}

impl Arg {
    pub fn u64(self) -> JsResult<u64> {
        u64_from_bigint(self.0, self.1)
    }
    pub fn millis(self) -> JsResult<i64> {
        millis(self.0, self.1)
    }
    pub fn bytes(self, what: &'static str) -> JsResult<Bytes> {
        bytes(self.0, self.1, what)
    }
    pub fn small_int(self, max: u32, what: &'static str) -> JsResult<u32> {
        small_int(self.0, self.1, max, what)
    }
}
