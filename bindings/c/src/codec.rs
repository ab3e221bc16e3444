//! The bus's four symbols, unchanged, the snowflake's fields, and the codec
//! in batches (`emq_decode_many`, `emq_encode_many`) for hosts whose per-call
//! cost dominates.

use std::ffi::c_char;

use crate::status::{branded_status, bytes, counted, guard, guard_value, non_null, packed};

/// Writes the 14-byte text of `(ns, snowflake)` to `out`, with no terminator.
///
/// Returns `BRANDED_ERR_RANGE` for a snowflake ≥ 2^63 and for a namespace that
/// is not three bytes A-Z (the contract's table; see SPEC.md §3), and
/// `EMQ_ERR_NULL` for a NULL pointer. `out` is written only on `BRANDED_OK`.
///
/// # Safety
/// `ns` must be readable for 3 bytes and `out` writable for 14 bytes.
#[no_mangle]
pub unsafe extern "C" fn branded_encode(ns: *const c_char, snowflake: u64, out: *mut c_char) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises 3 readable bytes at a non-NULL `ns`.
        let ns = unsafe { bytes(non_null(ns)?.cast(), 3)? };
        let text = emq_id::encode(ns, snowflake)?;
        non_null(out)?;
        // SAFETY: `out` is non-NULL and the caller promises 14 writable bytes.
        unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), out.cast(), text.len()) };
        Ok(())
    })
}

/// Reads `len` bytes at `id` as a branded id: the gates `length`, `namespace`,
/// `charset`, `range` in that order. On `BRANDED_OK` writes the namespace (3
/// bytes, no terminator) to `ns_out` and the snowflake to `snowflake_out`;
/// otherwise writes nothing. `id` may be NULL only when `len` is 0.
///
/// # Safety
/// `id` must be readable for `len` bytes, `ns_out` writable for 3 bytes and
/// `snowflake_out` writable for one `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn branded_decode(
    id: *const c_char,
    len: usize,
    ns_out: *mut c_char,
    snowflake_out: *mut u64,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises `len` readable bytes at `id`.
        let text = unsafe { bytes(id.cast(), len)? };
        let (ns, snowflake) = emq_id::decode(text)?;
        non_null(ns_out)?;
        non_null(snowflake_out)?;
        // SAFETY: both outputs are non-NULL and writable by the caller's promise.
        unsafe {
            std::ptr::copy_nonoverlapping(ns.as_ptr(), ns_out.cast(), 3);
            snowflake_out.write_unaligned(snowflake);
        }
        Ok(())
    })
}

/// [`branded_decode`] returning the snowflake itself, or the negated status
/// (`-BRANDED_ERR_LENGTH`, …) when the bytes fail a gate. The namespace is the
/// input's first three bytes whenever the result is non-negative. For hosts
/// where out-parameters are costly (cgo).
///
/// # Safety
/// `id` must be readable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn emq_parse_i64(id: *const c_char, len: usize) -> i64 {
    guard_value(|| {
        // SAFETY: the caller promises `len` readable bytes at `id`.
        let text = unsafe { bytes(id.cast(), len)? };
        let (_, snowflake) = emq_id::decode(text)?;
        Ok(snowflake as i64) // below 2^63 by the range gate
    })
}

/// Decodes `count` ids in one call (for hosts whose per-call cost dominates,
/// like cgo). The ids lie back to back in `data`, as `emq_slot_many` takes
/// keys: id `i` is `lens[i]` bytes long, so each meets every gate of
/// [`branded_decode`] on its own, `length` included. Writes id `i`'s snowflake
/// to `snowflakes_out[i]`; its namespace is its own first three bytes.
///
/// Stops at the first id that fails a gate and returns that gate's status.
/// `count_out` is written on every return but a NULL `count_out`
/// (`EMQ_ERR_NULL`): the number of snowflakes written, which on a refusal is
/// the index of the id refused. The snowflakes before it are written, those
/// from it on are untouched. With `count` 0 nothing else is read or written
/// and the other pointers may be NULL; otherwise a NULL `lens` or
/// `snowflakes_out` is `EMQ_ERR_NULL`, `data` may be NULL only when every
/// length is 0, and lengths whose sum overflows `size_t` are
/// `BRANDED_ERR_RANGE` before any id is read (`count_out` 0).
///
/// # Safety
/// `lens` must be readable for `count` values, `data` for their sum,
/// `snowflakes_out` writable for `count` values and `count_out` for one; the
/// outputs must not overlap the inputs.
#[no_mangle]
pub unsafe extern "C" fn emq_decode_many(
    data: *const c_char,
    lens: *const usize,
    count: usize,
    snowflakes_out: *mut u64,
    count_out: *mut usize,
) -> branded_status {
    guard(|| {
        let decode = |done: &mut usize| {
            // SAFETY: the caller promises `count` writable snowflakes.
            let out = unsafe { std::slice::from_raw_parts_mut(non_null(snowflakes_out)? as *mut u64, count) };
            // SAFETY: the caller promises `count` lengths and the ids' total length at `data`.
            let texts = unsafe { packed(data.cast(), lens, count)? };
            for (snowflake, text) in out.iter_mut().zip(texts) {
                *snowflake = emq_id::decode(text)?.1;
                *done += 1;
            }
            Ok(())
        };
        // SAFETY: `count_out` is writable by the caller's promise.
        unsafe { counted(count, count_out, decode) }
    })
}

/// Encodes `count` snowflakes of one namespace in one call (for hosts whose
/// per-call cost dominates, like cgo): the 14-byte text of `(ns,
/// snowflakes[i])` at `out + 14 * i`, back to back with no terminators.
///
/// Stops at the first snowflake [`branded_encode`] would refuse and returns
/// its status (`BRANDED_ERR_RANGE`: a snowflake ≥ 2^63, or a namespace that is
/// not three bytes A-Z, which is refused at index 0). `count_out` is written
/// on every return but a NULL `count_out` (`EMQ_ERR_NULL`): the number of
/// texts written, which on a refusal is the index of the snowflake refused.
/// The texts before it are written, those from it on are untouched. With
/// `count` 0 nothing else is read or written and the other pointers may be
/// NULL; otherwise a NULL `ns`, `snowflakes` or `out` is `EMQ_ERR_NULL`.
///
/// # Safety
/// `ns` must be readable for 3 bytes, `snowflakes` for `count` values, `out`
/// writable for `14 * count` bytes and `count_out` for one `size_t`; `out`
/// must not overlap `snowflakes` (the namespace is copied first, so `ns` may
/// lie in `out`, as [`branded_encode`] allows).
#[no_mangle]
pub unsafe extern "C" fn emq_encode_many(
    ns: *const c_char,
    snowflakes: *const u64,
    count: usize,
    out: *mut c_char,
    count_out: *mut usize,
) -> branded_status {
    guard(|| {
        let encode = |done: &mut usize| {
            // SAFETY: the caller promises 3 readable bytes at a non-NULL `ns`,
            // `count` readable snowflakes and `14 * count` writable bytes at `out`.
            let (ns, snowflakes, out) = unsafe {
                (
                    // Copied before anything is written: a caller may pass a
                    // namespace that lies in `out`, which the first texts
                    // would overwrite (and a shared view of it may not live
                    // across a write there).
                    <[u8; emq_id::NS_LEN]>::try_from(bytes(non_null(ns)?.cast(), emq_id::NS_LEN)?).expect("3 bytes"),
                    std::slice::from_raw_parts(non_null(snowflakes)?, count),
                    std::slice::from_raw_parts_mut(non_null(out)? as *mut [u8; emq_id::ID_LEN], count),
                )
            };
            for (text, &snowflake) in out.iter_mut().zip(snowflakes) {
                emq_id::encode_into(&ns, snowflake, text)?;
                *done += 1;
            }
            Ok(())
        };
        // SAFETY: `count_out` is writable by the caller's promise.
        unsafe { counted(count, count_out, encode) }
    })
}

/// The contract's 32-bit placement hash of a snowflake. Total; cannot fail.
///
/// # Safety
/// None needed: integers in, an integer out.
#[no_mangle]
pub extern "C" fn branded_hash32(key: u64) -> u32 {
    emq_id::hash32(key)
}

/// Unix milliseconds at which `snowflake` was minted. Total; cannot fail.
///
/// # Safety
/// None needed: integers in, an integer out.
#[no_mangle]
pub extern "C" fn branded_unix_ms(snowflake: u64) -> u64 {
    emq_id::unix_ms(snowflake)
}

/// The node (0..=`EMQ_MAX_NODE`) that minted `snowflake`. Total; cannot fail.
///
/// # Safety
/// None needed: integers in, an integer out.
#[no_mangle]
pub extern "C" fn emq_node(snowflake: u64) -> u16 {
    emq_id::node(snowflake)
}

/// The sequence (0-4095) of `snowflake` within its millisecond. Total; cannot fail.
///
/// # Safety
/// None needed: integers in, an integer out.
#[no_mangle]
pub extern "C" fn emq_seq(snowflake: u64) -> u16 {
    emq_id::seq(snowflake)
}

/// The smallest snowflake minted at or after Unix instant `unix_ms`: the lower
/// bound of a time-range scan. Before the epoch it is 0; past the 41-bit time
/// limit, `BRANDED_ERR_RANGE`.
///
/// # Safety
/// `snowflake_out` must be writable for one `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn emq_min_for(unix_ms: i64, snowflake_out: *mut u64) -> branded_status {
    guard(|| {
        let s = emq_id::min_for(unix_ms)?;
        non_null(snowflake_out)?;
        // SAFETY: non-NULL and writable by the caller's promise.
        unsafe { snowflake_out.write_unaligned(s) };
        Ok(())
    })
}
