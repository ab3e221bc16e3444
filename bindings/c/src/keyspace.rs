//! The keyspace (`emq-keyspace/2`) into a caller's buffer: keys built and
//! parsed, the reserve, prefixes.

use crate::status::{branded_status, bytes, guard, non_null};

/// The longest key the keyspace builds, in bytes: a buffer of this size always fits.
/// (A literal so cbindgen can write it; the assertion keeps it equal to the core's.)
pub const EMQ_MAX_KEY_LEN: usize = 279;
const _: () = assert!(EMQ_MAX_KEY_LEN == emq_id::MAX_KEY_LEN);

/// Builds the key of `queue` of type `kind`, written as the bus writes it
/// (`"pending"`, `"g:vip:pending"`, `"job:JOB0KHTOWnGLuC:lock"`); pass `id`
/// NULL. The `emq-keyspace/1` form `kind = "job"` with a non-NULL `id` is kept.
/// Errors in the order queue (`EMQ_ERR_QUEUE`), then the type: `EMQ_ERR_KIND`
/// (no such family, a bad name, an id of another namespace) or the id's gate.
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
        // SAFETY: the caller's promise for `out`, `cap` and `len_out`.
        unsafe { write_out(key.as_bytes(), out, cap, len_out) }
    })
}

/// Writes `bytes` to the caller's buffer `(out, cap)` and their length to
/// `len_out`; when `cap` is too small, only the length (`EMQ_ERR_BUFFER`);
/// a NULL `len_out`, or a NULL `out` that would be written, is `EMQ_ERR_NULL`.
///
/// # Safety
/// `out` writable for `cap` bytes when non-NULL; `len_out` writable when non-NULL.
pub(crate) unsafe fn write_out(
    bytes: &[u8],
    out: *mut u8,
    cap: usize,
    len_out: *mut usize,
) -> Result<(), branded_status> {
    // SAFETY: the caller's promise, passed on.
    unsafe { write_parts(&[bytes], out, cap, len_out) }
}

/// [`write_out`] of several parts laid end to end (no allocation to join them).
///
/// # Safety
/// As for [`write_out`].
pub(crate) unsafe fn write_parts(
    parts: &[&[u8]],
    out: *mut u8,
    cap: usize,
    len_out: *mut usize,
) -> Result<(), branded_status> {
    let total = parts.iter().map(|p| p.len()).sum::<usize>();
    non_null(len_out)?;
    // SAFETY: non-NULL and writable by the caller's promise.
    unsafe { len_out.write_unaligned(total) };
    if total > cap {
        return Err(branded_status::EMQ_ERR_BUFFER);
    }
    non_null(out)?;
    let mut at = 0;
    for part in parts {
        // SAFETY: `out` is non-NULL and writable for `cap >= total` bytes; `at + part.len() <= total`.
        unsafe { std::ptr::copy_nonoverlapping(part.as_ptr(), out.add(at), part.len()) };
        at += part.len();
    }
    Ok(())
}

/// A queue key read back by `emq_parse_key`: byte ranges into the key given.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct emq_parsed_key {
    /// Where the queue starts in the key, and its length.
    pub queue_offset: usize,
    /// The queue's length in bytes.
    pub queue_len: usize,
    /// The family: an index for `emq_family_pattern` (the core's table of
    /// families, which only ever grows at its end, so an index keeps its meaning).
    pub family: u32,
    /// Where the family's parameter (a name or a job id) starts; 0 with `param_len` 0 for none.
    pub param_offset: usize,
    /// The parameter's length; 0 when the family takes none (a parameter is never empty).
    pub param_len: usize,
}

/// Reads a queue key back (the exact inverse of `emq_key`): `EMQ_ERR_QUEUE`
/// when it is not `emq:{Q}:<type>` with a valid queue, else the type's error
/// as `emq_key` gives it. On `BRANDED_OK` writes the parts to `out`.
///
/// # Safety
/// `key` readable for `len` bytes (NULL only with `len` 0); `out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_parse_key(key: *const u8, len: usize, out: *mut emq_parsed_key) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises `len` readable bytes.
        let key = unsafe { bytes(key, len)? };
        let parsed = emq_id::parse_key(key)?;
        non_null(out)?;
        let offset = |part: &[u8]| part.as_ptr() as usize - key.as_ptr() as usize;
        let family =
            emq_id::Family::ALL.iter().position(|f| *f == parsed.family).ok_or(branded_status::EMQ_ERR_PANIC)?;
        let family = family as u32;
        let (param_offset, param_len) = parsed.param.map_or((0, 0), |p| (offset(p), p.len()));
        let parts = emq_parsed_key {
            queue_offset: offset(parsed.queue),
            queue_len: parsed.queue.len(),
            family,
            param_offset,
            param_len,
        };
        // SAFETY: non-NULL and writable by the caller's promise.
        unsafe { out.write_unaligned(parts) };
        Ok(())
    })
}

/// The pattern of a family (`"pending"`, `"g:<name>:pending"`, `"job:<id>:lock"`)
/// into `(out, cap)`, its length to `len_out`, as `emq_key` writes keys.
/// `EMQ_ERR_KIND` for an index that names no family.
///
/// # Safety
/// `out` writable for `cap` bytes; `len_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_family_pattern(
    family: u32,
    out: *mut u8,
    cap: usize,
    len_out: *mut usize,
) -> branded_status {
    guard(|| {
        let family = emq_id::Family::ALL.get(family as usize).ok_or(branded_status::EMQ_ERR_KIND)?;
        let [head, placeholder, tail] = family.pattern_parts();
        // SAFETY: the caller's promise for `out`, `cap` and `len_out`.
        unsafe { write_parts(&[head.as_bytes(), placeholder.as_bytes(), tail.as_bytes()], out, cap, len_out) }
    })
}

/// The body of an entry point whose key is built from one input (the reserve's
/// name, a queue for the prefixes): `build`'s key of it, written as `emq_key` writes.
///
/// # Safety
/// `input` readable for `input_len` bytes; `out` writable for `cap`; `len_out` writable.
unsafe fn write_key_of(
    build: fn(&[u8]) -> emq_id::Result<emq_id::Key>,
    input: *const u8,
    input_len: usize,
    out: *mut u8,
    cap: usize,
    len_out: *mut usize,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises `input_len` readable bytes.
        let key = build(unsafe { bytes(input, input_len)? })?;
        // SAFETY: the caller's promise for `out`, `cap` and `len_out`.
        unsafe { write_out(key.as_bytes(), out, cap, len_out) }
    })
}

/// The reserve's cross-queue key `{emq}:<name>`; `EMQ_ERR_KIND` for a name
/// outside 1-128 bytes of `[A-Za-z0-9_.:-]`. Writes as `emq_key` does.
///
/// # Safety
/// `name` readable for `name_len` bytes; `out` writable for `cap`; `len_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_reserve(
    name: *const u8,
    name_len: usize,
    out: *mut u8,
    cap: usize,
    len_out: *mut usize,
) -> branded_status {
    // SAFETY: the caller's promises, passed on.
    unsafe { write_key_of(emq_id::reserve, name, name_len, out, cap, len_out) }
}

/// `emq:{queue}:`, the prefix every key of a queue starts with (the bus's
/// scripts append a type to it). Writes as `emq_key` does.
///
/// # Safety
/// `queue` readable for `queue_len` bytes; `out` writable for `cap`; `len_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_queue_prefix(
    queue: *const u8,
    queue_len: usize,
    out: *mut u8,
    cap: usize,
    len_out: *mut usize,
) -> branded_status {
    // SAFETY: the caller's promises, passed on.
    unsafe { write_key_of(emq_id::queue_prefix, queue, queue_len, out, cap, len_out) }
}

/// `emq:{queue}:job:`, the prefix the bus's scripts append job ids to.
/// Writes as `emq_key` does.
///
/// # Safety
/// `queue` readable for `queue_len` bytes; `out` writable for `cap`; `len_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_job_prefix(
    queue: *const u8,
    queue_len: usize,
    out: *mut u8,
    cap: usize,
    len_out: *mut usize,
) -> branded_status {
    // SAFETY: the caller's promises, passed on.
    unsafe { write_key_of(emq_id::job_prefix, queue, queue_len, out, cap, len_out) }
}

/// The bytes a family's keys spend before their parameter (`emq:{Q}:` and
/// the family's head, e.g. `"job:"`), or a fixed type's whole key length.
///
/// # Safety
/// `queue` and `type` readable for their lengths; `bytes_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_prefix_bytes(
    queue: *const u8,
    queue_len: usize,
    ty: *const u8,
    ty_len: usize,
    bytes_out: *mut usize,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises readable inputs of the given lengths.
        let n = emq_id::prefix_bytes(unsafe { bytes(queue, queue_len)? }, unsafe { bytes(ty, ty_len)? })?;
        non_null(bytes_out)?;
        // SAFETY: non-NULL and writable by the caller's promise.
        unsafe { bytes_out.write_unaligned(n) };
        Ok(())
    })
}
