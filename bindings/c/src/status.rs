//! `branded_status`, the only status type of the ABI, the guard that keeps
//! panics on this side of the boundary, and the pointer helpers every entry
//! point shares (one pointer, bytes, a batch's packed items and its count).

use std::panic::{catch_unwind, AssertUnwindSafe};

/// The result of every fallible call. 0 to 4 are exactly the bus's
/// `branded_status`; the library's additions follow, so one switch covers all.
/// A host built against the bus's header sees an addition as "not OK".
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum branded_status {
    /// Success; outputs were written.
    BRANDED_OK = 0,
    /// Gate `length`: the input is not exactly 14 bytes.
    BRANDED_ERR_LENGTH = 1,
    /// Gate `namespace`: one of the first three bytes is outside A-Z.
    BRANDED_ERR_NAMESPACE = 2,
    /// Gate `charset`: a payload byte is outside base62.
    BRANDED_ERR_CHARSET = 3,
    /// Gate `range`: a value outside the contract's range.
    BRANDED_ERR_RANGE = 4,
    /// Error `queue`: a queue name outside `[A-Za-z0-9_.:-]{1,128}`.
    EMQ_ERR_QUEUE = 5,
    /// Error `kind`: a key type no family has (or an id given to a type that
    /// takes none), a bad name in a key or reserve name, a job id of another
    /// namespace, a stream entry id asked of an id that is not `EVT`.
    EMQ_ERR_KIND = 6,
    /// A required pointer was NULL.
    EMQ_ERR_NULL = 7,
    /// The caller's buffer is too small; the needed length was written.
    EMQ_ERR_BUFFER = 8,
    /// A panic was caught inside the library (a bug: please report it).
    EMQ_ERR_PANIC = 9,
    /// `emq_self_check` found this build disagreeing with the contract.
    EMQ_ERR_SELF_CHECK = 10,
    /// Error `node`: the process-wide minter has no node it may mint with: the
    /// node is held by another live process of this host, every node is held,
    /// the claim directory (`EMQ_NODE_DIR`) cannot be used or its high-water
    /// mark written, or this process is a child forked after taking it. For a
    /// node lease (`emq-lease/3`): every node is leased, the lease is gone or
    /// another's, a lease write is not acknowledged by enough replicas, or a
    /// leased minter's fence has closed or its mark is reached.
    EMQ_ERR_NODE = 11,
    /// Not a refusal of the contract: an error reply of Valkey that is not the
    /// lease protocol's (`NOSCRIPT`, `BUSY`, `MOVED`, `OOM`, a script error,
    /// …), as `emq_parse_acquire_error` reads it; for `emq_parse_redirect`, a
    /// reply that is not a `MOVED` or `ASK` naming a node. The host handles it
    /// as its Valkey client's error (retry, reconnect, report); no gate answers it.
    EMQ_ERR_VALKEY = 12,
}

use branded_status::*;

impl From<emq_id::Error> for branded_status {
    fn from(e: emq_id::Error) -> branded_status {
        branded_status::from(e.gate())
    }
}

/// The one map from the contract's gates to statuses; `emq_gate_status`
/// exposes it so a host's test can walk every gate.
impl From<emq_id::Gate> for branded_status {
    fn from(gate: emq_id::Gate) -> branded_status {
        match gate {
            emq_id::Gate::Length => BRANDED_ERR_LENGTH,
            emq_id::Gate::Namespace => BRANDED_ERR_NAMESPACE,
            emq_id::Gate::Charset => BRANDED_ERR_CHARSET,
            emq_id::Gate::Range => BRANDED_ERR_RANGE,
            emq_id::Gate::Queue => EMQ_ERR_QUEUE,
            emq_id::Gate::Kind => EMQ_ERR_KIND,
            emq_id::Gate::Node => EMQ_ERR_NODE,
            // A gate added to the core later still reports as a refusal (and
            // fails the ABI test's walk of every gate until it is mapped).
            _ => BRANDED_ERR_RANGE,
        }
    }
}

/// Runs `body`, turning a panic into `EMQ_ERR_PANIC` so no unwind crosses into C.
pub(crate) fn guard(body: impl FnOnce() -> Result<(), branded_status>) -> branded_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => BRANDED_OK,
        Ok(Err(status)) => status,
        Err(_) => EMQ_ERR_PANIC,
    }
}

/// A non-NULL pointer, or `EMQ_ERR_NULL`.
pub(crate) fn non_null<T>(p: *const T) -> Result<*const T, branded_status> {
    if p.is_null() {
        Err(EMQ_ERR_NULL)
    } else {
        Ok(p)
    }
}

/// Writes `value` to `out`, or `EMQ_ERR_NULL`.
///
/// # Safety
/// `out` NULL or writable.
pub(crate) unsafe fn put<T>(out: *mut T, value: T) -> Result<(), branded_status> {
    non_null(out)?;
    // SAFETY: non-NULL and writable by the caller's promise.
    unsafe { out.write_unaligned(value) };
    Ok(())
}

/// Writes `value`, moved to the heap, to `out`: the ABI's allocations (a
/// handle its `_free` function releases with [`unbox`]), or `EMQ_ERR_NULL`
/// with nothing allocated.
///
/// # Safety
/// `out` NULL or writable.
pub(crate) unsafe fn boxed<T>(out: *mut *mut T, value: T) -> Result<(), branded_status> {
    non_null(out)?;
    // SAFETY: non-NULL and writable by the caller's promise.
    unsafe { out.write_unaligned(Box::into_raw(Box::new(value))) };
    Ok(())
}

/// Releases a handle [`boxed`] wrote; NULL is ignored.
///
/// # Safety
/// `handle` NULL, or from [`boxed`] and released once, no other thread using it.
pub(crate) unsafe fn unbox<T>(handle: *mut T) {
    if !handle.is_null() {
        // SAFETY: it came from Box::into_raw in `boxed` and is released once.
        drop(unsafe { Box::from_raw(handle) });
    }
}

/// A static text as `(pointer, length)`: its length to `len_out` when that is non-NULL.
///
/// # Safety
/// `len_out` NULL or writable for one `size_t`.
pub(crate) unsafe fn static_text(text: Option<&'static str>, len_out: *mut usize) -> *const u8 {
    let Some(text) = text else { return std::ptr::null() };
    if !len_out.is_null() {
        // SAFETY: non-NULL, and the caller promises it is writable.
        unsafe { len_out.write_unaligned(text.len()) };
    }
    text.as_ptr()
}

/// The bytes at `(ptr, len)`; NULL is allowed only with `len == 0`.
///
/// # Safety
/// `ptr` must be valid for reads of `len` bytes when non-NULL.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], branded_status> {
    if len == 0 {
        return Ok(&[]);
    }
    // SAFETY: non-NULL, and the caller promises `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(non_null(ptr)?, len) })
}

/// The items a batch call takes laid back to back at `data`, item `i` being
/// `lens[i]` bytes (how `emq_slot_many` takes keys and `emq_decode_many` ids).
/// With `count` 0 nothing is read, whatever the pointers; otherwise a NULL
/// `lens` is `EMQ_ERR_NULL`, and lengths whose sum overflows `size_t`
/// `BRANDED_ERR_RANGE`. `data` may be NULL only when the lengths sum to 0.
///
/// # Safety
/// `lens` must be readable for `count` values and `data` for their sum.
pub(crate) unsafe fn packed<'a>(
    data: *const u8,
    lens: *const usize,
    count: usize,
) -> Result<impl Iterator<Item = &'a [u8]>, branded_status> {
    let lens: &[usize] = if count == 0 {
        &[]
    } else {
        // SAFETY: non-NULL, and the caller promises `count` readable lengths.
        unsafe { std::slice::from_raw_parts(non_null(lens)?, count) }
    };
    let total = lens.iter().try_fold(0usize, |acc, &l| acc.checked_add(l)).ok_or(BRANDED_ERR_RANGE)?;
    // SAFETY: the caller promises the items' total length is readable at `data`.
    let mut rest = unsafe { bytes(data, total)? };
    Ok(lens.iter().map(move |&len| {
        let (item, tail) = rest.split_at(len);
        rest = tail;
        item
    }))
}

/// A batch call's count of items done. `count_out` is set to 0, which is all
/// a batch of none (`count` 0) does: nothing else is read or written, whatever
/// the pointers. Otherwise `body` runs with the count to keep, and the count
/// is written whatever `body` answers: on a refusal it is the index of the
/// item refused. A NULL `count_out` is `EMQ_ERR_NULL` before anything runs.
///
/// # Safety
/// `count_out` must be writable for one `size_t` when non-NULL.
pub(crate) unsafe fn counted(
    count: usize,
    count_out: *mut usize,
    body: impl FnOnce(&mut usize) -> Result<(), branded_status>,
) -> Result<(), branded_status> {
    non_null(count_out)?;
    // SAFETY: non-NULL and writable by the caller's promise.
    unsafe { count_out.write_unaligned(0) };
    if count == 0 {
        return Ok(());
    }
    let mut done = 0;
    let result = body(&mut done);
    // SAFETY: as above.
    unsafe { count_out.write_unaligned(done) };
    result
}

/// The stable lowercase name of a status (`"ok"`, `"length"`, …, `"queue"`,
/// `"null"`, `"buffer"`, `"panic"`, `"self_check"`, `"node"`, `"valkey"`): the contract's gate names,
/// for messages and for bindings that surface them as error codes.
/// Returns a static NUL-terminated string, `"unknown"` for a value that is not
/// a status (it takes an `int`, so any value is safe); never NULL.
///
/// # Safety
/// None needed; the returned string is static and must not be freed.
#[no_mangle]
pub extern "C" fn emq_status_name(status: std::ffi::c_int) -> *const std::ffi::c_char {
    let name: &'static [u8] = match status {
        0 => b"ok\0",
        1 => b"length\0",
        2 => b"namespace\0",
        3 => b"charset\0",
        4 => b"range\0",
        5 => b"queue\0",
        6 => b"kind\0",
        7 => b"null\0",
        8 => b"buffer\0",
        9 => b"panic\0",
        10 => b"self_check\0",
        11 => b"node\0",
        12 => b"valkey\0",
        _ => b"unknown\0",
    };
    name.as_ptr().cast()
}

/// The `_i64`/`_i32` convention for hosts where out-parameters are costly
/// (cgo moves every pointed-to variable to the heap): the value itself when
/// non-negative, else the negated status.
pub(crate) fn value_or_status<T: Into<i64>>(result: Result<T, branded_status>) -> i64 {
    match result {
        Ok(v) => v.into(),
        Err(status) => -(status as i64),
    }
}

/// Like [`guard`], for functions that return a value.
pub(crate) fn guard_value<T: Into<i64>>(body: impl FnOnce() -> Result<T, branded_status>) -> i64 {
    catch_unwind(AssertUnwindSafe(body)).map(value_or_status).unwrap_or(-(EMQ_ERR_PANIC as i64))
}
