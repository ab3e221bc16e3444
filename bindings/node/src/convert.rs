//! Values across the boundary, without allocation where it matters.
//!
//! Every N-API call of the binding goes through a [`Cx`] or an [`Arg`]
//! (or a `ToNapiValue` impl, which napi-rs calls with its env). Only an
//! `unsafe` constructor makes either, from what N-API passed to the callback
//! in progress; holding one is the proof the calls below need: a live env, on
//! its own thread, and a handle of the current call. Neither is `Send` (raw
//! pointers), and the binding never keeps one past the callback it came from.
//! Every call's status is checked: a failure is [`napi_failed`], never a
//! panic, and no value N-API did not write is used.

use std::ptr;

use napi::bindgen_prelude::{ToNapiValue, TypeName, ValueType};
use napi::sys;

use crate::error::{napi_failed, range, wrong_type, JsResult};

/// `Ok` when N-API answered `napi_ok`, else the binding's `napi_failed` error naming the call.
pub fn check(status: sys::napi_status, what: &str) -> JsResult<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(napi_failed(what))
    }
}

/// The environment of the N-API callback in progress.
#[derive(Clone, Copy)]
pub struct Cx(sys::napi_env);

impl Cx {
    /// # Safety
    /// `env` is the environment N-API passed to the callback in progress, and
    /// the `Cx` is used only on this thread, before that callback returns.
    pub unsafe fn new(env: sys::napi_env) -> Cx {
        Cx(env)
    }

    pub fn raw(self) -> sys::napi_env {
        self.0
    }

    /// One of this call's values.
    ///
    /// # Safety
    /// `value` is a handle of the callback in progress (an argument, or a
    /// value N-API created or returned during it).
    pub unsafe fn arg(self, value: sys::napi_value) -> Arg {
        Arg { env: self, value }
    }

    pub fn undefined(self) -> JsResult<sys::napi_value> {
        let mut v = ptr::null_mut();
        // SAFETY: self is the live env of the call in progress (Cx's invariant); v is a valid out-pointer.
        check(unsafe { sys::napi_get_undefined(self.0, &mut v) }, "napi_get_undefined")?;
        Ok(v)
    }

    pub fn number(self, n: f64) -> JsResult<sys::napi_value> {
        let mut v = ptr::null_mut();
        // SAFETY: self is the live env of the call in progress (Cx's invariant); v is a valid out-pointer.
        check(unsafe { sys::napi_create_double(self.0, n, &mut v) }, "napi_create_double")?;
        Ok(v)
    }

    pub fn bigint(self, n: u64) -> JsResult<sys::napi_value> {
        let mut v = ptr::null_mut();
        // SAFETY: self is the live env of the call in progress (Cx's invariant); v is a valid out-pointer.
        check(unsafe { sys::napi_create_bigint_uint64(self.0, n, &mut v) }, "napi_create_bigint_uint64")?;
        Ok(v)
    }

    /// A string of ASCII (or Latin-1) bytes.
    pub fn ascii(self, text: &[u8]) -> JsResult<sys::napi_value> {
        let mut v = ptr::null_mut();
        let len = isize::try_from(text.len()).map_err(|_| napi_failed("napi_create_string_latin1"))?;
        // SAFETY: self is the live env of the call in progress (Cx's invariant); N-API
        // reads `len` bytes from `text`, which outlives the call (a NULL pointer is
        // never passed: a slice's pointer is non-null even when empty).
        let status = unsafe { sys::napi_create_string_latin1(self.0, text.as_ptr().cast(), len, &mut v) };
        check(status, "napi_create_string_latin1")?;
        Ok(v)
    }
}

/// A value of the callback in progress, with its env. Made by [`Cx::arg`]
/// or by napi-rs's glue (`FromNapiValue`), both `unsafe`: the fields are
/// private so that nothing else can pair an arbitrary pointer with an env.
#[derive(Clone, Copy)]
pub struct Arg {
    env: Cx,
    value: sys::napi_value,
}

impl TypeName for Arg {
    fn type_name() -> &'static str {
        "unknown"
    }
    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

/// A raw argument, converted inside the function so that a bad value is
/// refused with the contract's gate rather than napi-rs's generic error.
impl napi::bindgen_prelude::FromNapiValue for Arg {
    unsafe fn from_napi_value(env: sys::napi_env, v: sys::napi_value) -> napi::Result<Arg> {
        // SAFETY: napi-rs calls this with the env and an argument of the callback in
        // progress (FromNapiValue's contract), and the #[napi] functions use their
        // arguments only before they return.
        Ok(unsafe { Cx::new(env).arg(v) })
    }
}

const STACK: usize = 256;

/// The bytes of a `string` (its UTF-8, as Node's `Buffer.from(s)` would send
/// it: a lone surrogate becomes U+FFFD) or of a `Uint8Array`/`Buffer`
/// (borrowed for the callback in progress: no JS runs while it is read).
/// The large stack variant is the point: short strings never touch the heap.
/// Only [`Arg::bytes`] makes one: the borrowed pointer is always N-API's.
pub struct Bytes(Repr);

#[allow(clippy::large_enum_variant)]
enum Repr {
    Stack([u8; STACK], usize),
    Heap(Vec<u8>),
    /// A typed array's data and length, from `napi_get_typedarray_info`;
    /// never NULL when the length is not 0 (checked when made).
    Borrowed(*const u8, usize),
}

impl Bytes {
    pub fn as_slice(&self) -> &[u8] {
        match &self.0 {
            Repr::Stack(buf, n) => &buf[..*n],
            Repr::Heap(v) => v,
            // An empty Uint8Array may have a NULL data pointer, which no slice may hold.
            Repr::Borrowed(_, 0) => &[],
            Repr::Borrowed(p, n) => {
                // `p` and `n` are N-API's answer for a Uint8Array argument of the callback
                // in progress (only `Arg::bytes` makes this variant); no JS runs while a
                // `Bytes` is read, so nothing detaches or writes the array meanwhile.
                // SAFETY: `p` is not NULL (n != 0) and points at the array's n live bytes, alive as long as the call's arguments; u8 needs no alignment.
                unsafe { std::slice::from_raw_parts(*p, *n) }
            }
        }
    }

    pub fn is_string(&self) -> bool {
        !matches!(self.0, Repr::Borrowed(..))
    }
}

impl Arg {
    pub fn env(self) -> Cx {
        self.env
    }

    pub fn raw(self) -> sys::napi_value {
        self.value
    }

    fn type_of(self) -> JsResult<sys::napi_valuetype> {
        let mut t = 0;
        // SAFETY: env and value are the call in progress's (Arg's invariant); t is a valid out-pointer.
        check(unsafe { sys::napi_typeof(self.env.0, self.value, &mut t) }, "napi_typeof")?;
        Ok(t)
    }

    /// A `bigint` in `[0, 2^64)`. A `number` (which loses ids past 2^53), a
    /// negative or a larger value is the range gate, never wrapped.
    pub fn u64(self) -> JsResult<u64> {
        let (mut value, mut lossless) = (0u64, false);
        // One call: N-API itself answers `bigint_expected` for any other type.
        // SAFETY: env and value are the call in progress's (Arg's invariant); the out-pointers are valid.
        match unsafe { sys::napi_get_value_bigint_uint64(self.env.0, self.value, &mut value, &mut lossless) } {
            sys::Status::napi_ok => {}
            sys::Status::napi_bigint_expected => {
                return Err(range("64-bit values are bigint (a number loses precision past 2^53)"));
            }
            _ => return Err(napi_failed("napi_get_value_bigint_uint64")),
        }
        if !lossless {
            return Err(range("a snowflake is a bigint in [0, 2^64)"));
        }
        Ok(value)
    }

    /// Unix milliseconds as a `number` (like `Date.now()`) or a `bigint`.
    /// Fractions are floored; NaN, infinities and bigints outside i64 are the range gate.
    pub fn millis(self) -> JsResult<i64> {
        match self.type_of()? {
            sys::ValueType::napi_number => {
                let mut f = 0.0;
                // SAFETY: env and value (a number) are the call in progress's (Arg's invariant).
                check(unsafe { sys::napi_get_value_double(self.env.0, self.value, &mut f) }, "napi_get_value_double")?;
                if !f.is_finite() || f.abs() >= 9.2e18 {
                    return Err(range("a time in unix ms is a finite number"));
                }
                Ok(f.floor() as i64)
            }
            sys::ValueType::napi_bigint => {
                let (mut value, mut lossless) = (0i64, false);
                // SAFETY: env and value (a bigint) are the call in progress's (Arg's invariant).
                let status =
                    unsafe { sys::napi_get_value_bigint_int64(self.env.0, self.value, &mut value, &mut lossless) };
                check(status, "napi_get_value_bigint_int64")?;
                if !lossless {
                    return Err(range("a time in unix ms fits a signed 64-bit integer"));
                }
                Ok(value)
            }
            _ => Err(wrong_type("a time in unix ms is a number or a bigint")),
        }
    }

    /// A small non-negative integer argument (a node, a count).
    pub fn small_int(self, max: u32, what: &'static str) -> JsResult<u32> {
        if self.type_of()? != sys::ValueType::napi_number {
            return Err(wrong_type(what));
        }
        let mut f = 0.0;
        // SAFETY: env and value (a number) are the call in progress's (Arg's invariant).
        check(unsafe { sys::napi_get_value_double(self.env.0, self.value, &mut f) }, "napi_get_value_double")?;
        if f.fract() != 0.0 || !(0.0..=max as f64).contains(&f) {
            return Err(range(what));
        }
        Ok(f as u32)
    }

    /// The bytes of a string or a `Uint8Array`; any other type is `what` as a `TypeError`.
    pub fn bytes(self, what: &'static str) -> JsResult<Bytes> {
        let (env, v) = (self.env.0, self.value);
        // Strings first, in one call: N-API answers `string_expected` for any other type.
        let mut buf = [0u8; STACK];
        let mut copied = 0usize;
        // SAFETY: env and v are the call in progress's (Arg's invariant); buf has STACK
        // bytes and N-API writes at most STACK - 1 of them plus a NUL.
        let status = unsafe { sys::napi_get_value_string_utf8(env, v, buf.as_mut_ptr().cast(), STACK, &mut copied) };
        // N-API never splits a character, and one is at most 4 bytes: a shorter
        // result is the whole string.
        if status == sys::Status::napi_ok && copied + 4 < STACK - 1 {
            return Ok(Bytes(Repr::Stack(buf, copied)));
        }
        match self.type_of()? {
            sys::ValueType::napi_string => {
                let mut len = 0usize;
                // SAFETY: as above; a NULL buffer asks for the length only.
                let status = unsafe { sys::napi_get_value_string_utf8(env, v, ptr::null_mut(), 0, &mut len) };
                check(status, "napi_get_value_string_utf8")?;
                let mut heap = vec![0u8; len + 1];
                // SAFETY: as above; heap has len + 1 bytes, room for the string and its NUL.
                let status =
                    unsafe { sys::napi_get_value_string_utf8(env, v, heap.as_mut_ptr().cast(), len + 1, &mut copied) };
                check(status, "napi_get_value_string_utf8")?;
                heap.truncate(copied);
                Ok(Bytes(Repr::Heap(heap)))
            }
            sys::ValueType::napi_object => match self.typed_array::<u8>(sys::TypedarrayType::uint8_array)? {
                Some((data, len)) => Ok(Bytes(Repr::Borrowed(data.cast_const(), len))),
                None => Err(wrong_type(what)),
            },
            _ => Err(wrong_type(what)),
        }
    }

    /// The data and length (in elements) of a typed array of `kind`, whose
    /// elements are `T`s; `None` for any other value, another kind, or data
    /// not aligned for `T`. The pointer already includes the view's byte
    /// offset, and is never NULL: an empty array's (which N-API may give as
    /// NULL) is a dangling aligned one, so a slice can be made of it. It is
    /// valid while the value is and no JS runs (JS can detach the buffer): an
    /// array whose data V8 kept in its heap has it moved out by this look-up,
    /// and data out of the heap never moves.
    pub fn typed_array<T>(self, kind: sys::napi_typedarray_type) -> JsResult<Option<(*mut T, usize)>> {
        let (mut got, mut len, mut data) = (0, 0usize, ptr::null_mut());
        let (mut buffer, mut offset) = (ptr::null_mut(), 0usize);
        // SAFETY: env and value are the call in progress's (Arg's invariant); every
        // out-pointer is valid. N-API answers napi_invalid_arg for a value that is not
        // a typed array, and writes the out-values only on napi_ok.
        let status = unsafe {
            sys::napi_get_typedarray_info(
                self.env.0,
                self.value,
                &mut got,
                &mut len,
                &mut data,
                &mut buffer,
                &mut offset,
            )
        };
        match status {
            sys::Status::napi_ok => {}
            sys::Status::napi_invalid_arg => return Ok(None),
            _ => return Err(napi_failed("napi_get_typedarray_info")),
        }
        let data = data.cast::<T>();
        if got != kind {
            return Ok(None);
        }
        if len == 0 {
            return Ok(Some((ptr::NonNull::dangling().as_ptr(), 0)));
        }
        if data.is_null() {
            return Err(napi_failed("napi_get_typedarray_info (no data)"));
        }
        Ok(data.is_aligned().then_some((data, len)))
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
        // SAFETY: napi-rs calls this with the env of the callback in progress (ToNapiValue's contract).
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
        // The fields are public: a length past the buffer is refused, not read.
        let text = val.buf.get(..val.len).ok_or_else(|| napi::Error::from_reason("Ascii: length past its buffer"))?;
        // SAFETY: napi-rs calls this with the env of the callback in progress
        // (ToNapiValue's contract); ASCII is Latin-1, and N-API reads text.len()
        // bytes of `text`, which outlives the call.
        napi::check_status!(unsafe {
            sys::napi_create_string_latin1(env, text.as_ptr().cast(), text.len() as isize, &mut out)
        })?;
        Ok(out)
    }
}
