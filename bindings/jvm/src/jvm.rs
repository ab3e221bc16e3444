//! The crossing: how a native method reads its arguments, answers, throws, and
//! keeps a panic on this side.
//!
//! Two kinds of entry point. Raw ones ([`guard`], [`with_bytes`], [`write_bytes`],
//! [`refuse_raw`]) take the `JNIEnv` pointer the JVM passes and call its function
//! table directly, for the calls whose work is a few nanoseconds. Safe ones
//! ([`call`]) run in the `jni` crate's frame and may build arrays and strings.
//! Every unsafe block of the crate that touches the JVM is in this file.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr::null_mut;

use jni::errors::ThrowRuntimeExAndDefault;
use jni::objects::{JByteArray, JLongArray};
use jni::sys::{jarray, jbyteArray, jsize, JNIEnv, JNI_ABORT};
use jni::{Env, EnvUnowned};

/// The `JNIEnv` the JVM passes to a raw entry point: valid on the calling
/// thread for the duration of the native call.
pub type RawEnv = *mut JNIEnv;

/// Inputs up to this many bytes are copied onto the stack (one JNI call);
/// longer ones are read in place, pinned.
const ON_STACK: usize = 256;

/// A failure of a safe entry point: the core refused (thrown as
/// `EmqIdException`), or the JVM did (its exception is already pending).
pub enum Fail {
    Refused(emq_id::Error),
    Jni(jni::errors::Error),
}

impl From<emq_id::Error> for Fail {
    fn from(e: emq_id::Error) -> Fail {
        Fail::Refused(e)
    }
}

impl From<jni::errors::Error> for Fail {
    fn from(e: jni::errors::Error) -> Fail {
        Fail::Jni(e)
    }
}

/// Runs a safe entry point's body: a refusal is thrown as `EmqIdException`,
/// a JNI failure leaves (or raises) its Java exception, a panic becomes a
/// `RuntimeException` naming it; each returns `T::default()` to a caller
/// that then sees the exception.
pub fn call<'local, T: Default>(
    mut unowned: EnvUnowned<'local>,
    body: impl FnOnce(&mut Env<'local>) -> Result<T, Fail>,
) -> T {
    unowned
        .with_env(|env| -> jni::errors::Result<T> {
            body(env).map_err(|fail| match fail {
                Fail::Refused(e) => crate::error::throw(env, &e),
                Fail::Jni(e) => e,
            })
        })
        .resolve::<ThrowRuntimeExAndDefault>()
}

/// Runs a raw entry point's body, catching a panic: it is thrown as a
/// `RuntimeException` and the caller gets `T::default()`.
pub fn guard<T: Default>(env: RawEnv, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(answer) => answer,
        // SAFETY: `env` is the calling thread's JNIEnv, valid for this native call.
        Err(payload) => unsafe { EnvUnowned::from_raw(env) }
            .with_env(|_| -> jni::errors::Result<T> { resume_unwind(payload) })
            .resolve::<ThrowRuntimeExAndDefault>(),
    }
}

/// Throws the core's refusal from a raw entry point; the caller returns
/// `T::default()`, which Java never sees.
pub fn refuse_raw<T: Default>(env: RawEnv, e: &emq_id::Error) -> T {
    // SAFETY: `env` is the calling thread's JNIEnv, valid for this native call.
    unsafe { EnvUnowned::from_raw(env) }
        .with_env(|env| -> jni::errors::Result<T> { Err(crate::error::throw(env, e)) })
        .resolve::<ThrowRuntimeExAndDefault>()
}

/// An answer or the core's refusal, from a raw entry point.
pub fn answer_raw<T: Default>(env: RawEnv, result: emq_id::Result<T>) -> T {
    result.unwrap_or_else(|e| refuse_raw(env, &e))
}

/// Runs `body` over the bytes of a Java `byte[]` (never null: the Java side
/// passes arrays it made); `None` when the JVM could not pin a long array (an
/// `OutOfMemoryError` is then pending).
pub fn with_bytes<R>(env: RawEnv, array: jbyteArray, body: impl FnOnce(&[u8]) -> R) -> Option<R> {
    // Reads stay within the array's own length; while it is pinned no JNI function is called
    // (`body` is the core's pure code), and the release runs even if `body` panics.
    // SAFETY: `env` is the calling thread's JNIEnv and `array` a live byte[] the caller passed.
    unsafe {
        let table = &**env;
        let len = (table.v1_1.GetArrayLength)(env, array) as usize;
        if len <= ON_STACK {
            let mut buffer = [0u8; ON_STACK];
            (table.v1_1.GetByteArrayRegion)(env, array, 0, len as jsize, buffer.as_mut_ptr().cast());
            return Some(body(&buffer[..len]));
        }
        let pinned = (table.v1_2.GetPrimitiveArrayCritical)(env, array, null_mut());
        if pinned.is_null() {
            return None;
        }
        let answered = catch_unwind(AssertUnwindSafe(|| body(std::slice::from_raw_parts(pinned.cast(), len))));
        (table.v1_2.ReleasePrimitiveArrayCritical)(env, array, pinned, JNI_ABORT);
        Some(answered.unwrap_or_else(|payload| resume_unwind(payload)))
    }
}

/// Copies `bytes` into the start of a Java `byte[]` the Java side sized for them.
pub fn write_bytes(env: RawEnv, array: jbyteArray, bytes: &[u8]) {
    // SAFETY: `env` is the calling thread's JNIEnv and `array` a live byte[];
    // SetByteArrayRegion checks the bounds itself (it throws, never writes past).
    unsafe {
        ((**env).v1_1.SetByteArrayRegion)(env, array, 0, bytes.len() as jsize, bytes.as_ptr().cast());
    }
}

/// Runs `body` over a batch: an input array read in place and an output array
/// written in place (elements of the Java types `A` and `B`: `u8` for `byte[]`,
/// `i32` for `int[]`, `i64` for `long[]`), both pinned for the call, so the
/// batch crosses once with no copy. The output may be the input array itself
/// only if `body` does not read it as input. `None` when the JVM could not pin
/// them (an exception is then pending).
pub fn with_pinned<A: Copy, B: Copy, R>(
    env: RawEnv,
    input: jarray,
    output: jarray,
    body: impl FnOnce(&[A], &mut [B]) -> R,
) -> Option<R> {
    // Each array is viewed with its own length in elements of the Java type the caller named;
    // the critical sections nest (JNI allows it) with no JNI call inside, and are released in
    // reverse order even if `body` panics: the output copied back (mode 0), the input not.
    // SAFETY: `env` is the calling thread's JNIEnv; `input` and `output` live arrays the caller passed.
    unsafe {
        let table = &**env;
        let in_len = (table.v1_1.GetArrayLength)(env, input) as usize;
        let out_len = (table.v1_1.GetArrayLength)(env, output) as usize;
        let pinned_in = (table.v1_2.GetPrimitiveArrayCritical)(env, input, null_mut());
        if pinned_in.is_null() {
            return None;
        }
        let pinned_out = (table.v1_2.GetPrimitiveArrayCritical)(env, output, null_mut());
        if pinned_out.is_null() {
            (table.v1_2.ReleasePrimitiveArrayCritical)(env, input, pinned_in, JNI_ABORT);
            return None;
        }
        let answered = catch_unwind(AssertUnwindSafe(|| {
            body(
                std::slice::from_raw_parts(pinned_in.cast::<A>(), in_len),
                std::slice::from_raw_parts_mut(pinned_out.cast::<B>(), out_len),
            )
        }));
        (table.v1_2.ReleasePrimitiveArrayCritical)(env, output, pinned_out, 0);
        (table.v1_2.ReleasePrimitiveArrayCritical)(env, input, pinned_in, JNI_ABORT);
        Some(answered.unwrap_or_else(|payload| resume_unwind(payload)))
    }
}

/// The bytes of a Java `byte[]`, copied (safe entry points).
pub fn bytes_in(env: &Env<'_>, array: &JByteArray<'_>) -> Result<Vec<u8>, Fail> {
    let len = array.len(env)?;
    let mut buffer = vec![0i8; len];
    array.get_region(env, 0, &mut buffer)?;
    Ok(buffer.into_iter().map(|b| b as u8).collect())
}

/// The bytes of a Java `byte[]` that may be null.
pub fn optional_bytes_in(env: &Env<'_>, array: &JByteArray<'_>) -> Result<Option<Vec<u8>>, Fail> {
    if array.is_null() {
        return Ok(None);
    }
    bytes_in(env, array).map(Some)
}

/// A new Java `byte[]` holding `bytes`.
pub fn bytes_out<'local>(env: &mut Env<'local>, bytes: impl AsRef<[u8]>) -> Result<JByteArray<'local>, Fail> {
    Ok(env.byte_array_from_slice(bytes.as_ref())?)
}

/// Writes `values` into the start of a Java `long[]` (safe entry points).
pub fn longs_out(env: &Env<'_>, array: &JLongArray<'_>, values: &[i64]) -> Result<(), Fail> {
    Ok(array.set_region(env, 0, values)?)
}
