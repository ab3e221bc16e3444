//! The contract's facts for hosts: its gates and their statuses, the
//! self-check vectors every host runs through its own API at load, and the
//! predicates the bus's libraries offer (`is_valid`, `compare`). The numeric
//! constants (`BRANDED_LEN`, `EMQ_MAX_NODE`, …) are written into the header
//! from the core by `cargo xtask header`.

use std::ffi::{c_char, c_int};

use crate::status::{branded_status, bytes, guard, non_null};

/// How many gates the contract has: `emq_gate_name` and `emq_gate_status`
/// take an index below this. A host's test walks them all, so a gate added to
/// the core fails that test until the host maps it.
///
/// # Safety
/// None needed: no arguments.
#[no_mangle]
pub extern "C" fn emq_gate_count() -> usize {
    emq_id::Gate::ALL.len()
}

/// The stable name of gate `index` (`length`, `namespace`, …): a static
/// string with no terminator whose length is written to `len_out` (when
/// non-NULL), or NULL when `index` is not below `emq_gate_count()`. Compare it
/// with `emq_status_name(emq_gate_status(index))`: they agree for every gate
/// this ABI maps.
///
/// # Safety
/// `len_out` must be NULL or writable for one `size_t`. The string is static
/// and must not be freed.
#[no_mangle]
pub unsafe extern "C" fn emq_gate_name(index: usize, len_out: *mut usize) -> *const u8 {
    let Some(gate) = emq_id::Gate::ALL.get(index) else { return std::ptr::null() };
    let name = gate.name();
    if !len_out.is_null() {
        // SAFETY: non-NULL, and the caller promises it is writable.
        unsafe { len_out.write_unaligned(name.len()) };
    }
    name.as_ptr()
}

/// The status this ABI answers for gate `index` (a refusal by that gate), or
/// `EMQ_ERR_NULL` when `index` is not below `emq_gate_count()`.
///
/// # Safety
/// None needed.
#[no_mangle]
pub extern "C" fn emq_gate_status(index: usize) -> branded_status {
    emq_id::Gate::ALL.get(index).map_or(branded_status::EMQ_ERR_NULL, |g| branded_status::from(*g))
}

/// The contract's self-check vectors (text, one check per line, described in
/// SPEC.md §8): a host runs each line through its own API at load and refuses
/// to start on a mismatch. Answers the static text (no terminator) and writes
/// its length to `len_out` when that is non-NULL.
///
/// # Safety
/// `len_out` must be NULL or writable for one `size_t`. The text is static
/// and must not be freed.
#[no_mangle]
pub unsafe extern "C" fn emq_self_check_vectors(len_out: *mut usize) -> *const u8 {
    let text = emq_id::SELF_CHECK_VECTORS;
    if !len_out.is_null() {
        // SAFETY: non-NULL, and the caller promises it is writable.
        unsafe { len_out.write_unaligned(text.len()) };
    }
    text.as_ptr()
}

/// 1 when the `len` bytes at `id` are a branded id (`branded_decode` would
/// answer `BRANDED_OK`), else 0. `id` may be NULL only when `len` is 0.
///
/// # Safety
/// `id` must be readable for `len` bytes when non-NULL.
#[no_mangle]
pub unsafe extern "C" fn emq_is_valid(id: *const c_char, len: usize) -> c_int {
    // SAFETY: the caller promises `len` readable bytes at `id`.
    let valid = guard(|| emq_id::decode(unsafe { bytes(id.cast(), len)? }).map(drop).map_err(Into::into));
    c_int::from(valid == branded_status::BRANDED_OK)
}

/// Orders two branded ids (by namespace, then snowflake: their byte order).
/// Writes -1, 0 or 1 to `order_out`; an invalid id answers its gate (`a`'s first).
///
/// # Safety
/// `a` and `b` must be readable for `a_len` and `b_len` bytes; `order_out`
/// writable for one `int`.
#[no_mangle]
pub unsafe extern "C" fn emq_compare(
    a: *const c_char,
    a_len: usize,
    b: *const c_char,
    b_len: usize,
    order_out: *mut c_int,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises `a_len` and `b_len` readable bytes.
        let (a, b) = unsafe { (bytes(a.cast(), a_len)?, bytes(b.cast(), b_len)?) };
        let order = emq_id::compare(a, b)? as c_int;
        non_null(order_out)?;
        // SAFETY: non-NULL, and the caller promises it is writable.
        unsafe { order_out.write_unaligned(order) };
        Ok(())
    })
}
