//! The bus's four symbols, unchanged, and the snowflake's fields.

use std::ffi::c_char;

use crate::status::{branded_status, bytes, guard, guard_value, non_null};

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
