//! The keyspace builder into a caller's buffer.

use crate::status::{branded_status, bytes, guard, non_null};

/// The longest key the keyspace builds, in bytes: a buffer of this size always fits.
/// (A literal so cbindgen can write it; the assertion keeps it equal to the core's.)
pub const EMQ_MAX_KEY_LEN: usize = 157;
const _: () = assert!(EMQ_MAX_KEY_LEN == emq_id::MAX_KEY_LEN);

/// Builds the `emq-keyspace/1` key of `kind` (`"pending"`, `"active"`, `"job"`)
/// for `queue`, with `id` for kinds that take one (pass NULL for none). Errors
/// in the order queue (`EMQ_ERR_QUEUE`), kind (`EMQ_ERR_KIND`), then the id's
/// gate (`BRANDED_ERR_NAMESPACE` for a non-`JOB` id).
///
/// Writes the key (no terminator) to `out` and its length to `len_out`. When
/// `cap` is too small, returns `EMQ_ERR_BUFFER` and writes only the needed
/// length to `len_out`. `EMQ_MAX_KEY_LEN` bytes always suffice.
///
/// # Safety
/// `queue`, `kind` and (when non-NULL) `id` must be readable for their
/// lengths; `out` writable for `cap` bytes; `len_out` writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn emq_key(
    queue: *const u8,
    queue_len: usize,
    kind: *const u8,
    kind_len: usize,
    id: *const u8,
    id_len: usize,
    out: *mut u8,
    cap: usize,
    len_out: *mut usize,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises readable inputs of the given lengths.
        let (queue, kind) = unsafe { (bytes(queue, queue_len)?, bytes(kind, kind_len)?) };
        // SAFETY: as above; NULL means "no id".
        let id = if id.is_null() { None } else { Some(unsafe { bytes(id, id_len)? }) };
        let key = emq_id::key(queue, kind, id)?;
        let key = key.as_bytes();
        non_null(len_out)?;
        // SAFETY: non-NULL and writable by the caller's promise.
        unsafe { len_out.write_unaligned(key.len()) };
        if key.len() > cap {
            return Err(branded_status::EMQ_ERR_BUFFER);
        }
        non_null(out)?;
        // SAFETY: `out` is non-NULL and writable for `cap >= key.len()` bytes.
        unsafe { std::ptr::copy_nonoverlapping(key.as_ptr(), out, key.len()) };
        Ok(())
    })
}
