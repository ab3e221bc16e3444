//! Stream entry ids from `EVT` ids, and back.

use std::ffi::c_char;

use crate::keyspace::write_out;
use crate::status::{branded_status, bytes, guard, non_null};

/// The longest stream entry id `emq_xadd_id` writes: a buffer of this size always fits.
pub const EMQ_MAX_ENTRY_ID_LEN: usize = 24;
const _: () = assert!(EMQ_MAX_ENTRY_ID_LEN >= emq_id::MAX_ENTRY_ID_LEN);

/// The stream entry id of an `EVT` id, `<unix_ms>-<tail22>`: the id's gates,
/// then `EMQ_ERR_KIND` for another namespace. Writes as `emq_key` does.
///
/// # Safety
/// `id` readable for `len` bytes; `out` writable for `cap`; `len_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_xadd_id(
    id: *const u8,
    len: usize,
    out: *mut u8,
    cap: usize,
    len_out: *mut usize,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises `len` readable bytes.
        let entry = emq_id::xadd_id(unsafe { bytes(id, len)? })?;
        // SAFETY: the caller's promise for `out`, `cap` and `len_out`.
        unsafe { write_out(entry.as_str().as_bytes(), out, cap, len_out) }
    })
}

/// The id of namespace `ns` (`ns_len` bytes: a namespace is three bytes A-Z,
/// anything else `BRANDED_ERR_RANGE`) behind a stream entry id, written as 14
/// bytes to `out`: `BRANDED_ERR_CHARSET` for parts that are not canonical
/// decimals, `BRANDED_ERR_RANGE` for a time or tail no snowflake has. The
/// entry is checked before the namespace, as in every runtime.
///
/// # Safety
/// `entry` readable for `len` bytes; `ns` readable for `ns_len` bytes; `out` writable for 14.
#[no_mangle]
pub unsafe extern "C" fn emq_from_xadd_id(
    entry: *const u8,
    len: usize,
    ns: *const c_char,
    ns_len: usize,
    out: *mut c_char,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises `len` readable bytes at `entry` and `ns_len` at `ns`.
        let (entry, ns) = unsafe { (bytes(entry, len)?, bytes(ns.cast(), ns_len)?) };
        let id = emq_id::from_xadd_id(entry, ns)?.to_bytes();
        non_null(out)?;
        // SAFETY: `out` is non-NULL and the caller promises 14 writable bytes.
        unsafe { std::ptr::copy_nonoverlapping(id.as_ptr(), out.cast(), id.len()) };
        Ok(())
    })
}
