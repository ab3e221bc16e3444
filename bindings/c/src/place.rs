//! Cluster placement: slot and hashtag over `(const uint8_t *key, size_t len)`.

use crate::status::{branded_status, bytes, guard, guard_value, non_null, packed};

/// The Valkey Cluster hash slot (0-16383) of the `len` bytes at `key`.
/// Keys are bytes: NUL and invalid UTF-8 are fine. `key` may be NULL only
/// when `len` is 0 (the empty key, slot 0).
///
/// # Safety
/// `key` must be readable for `len` bytes and `slot_out` writable for one `uint16_t`.
#[no_mangle]
pub unsafe extern "C" fn emq_slot(key: *const u8, len: usize, slot_out: *mut u16) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises `len` readable bytes at `key`.
        let slot = emq_id::slot(unsafe { bytes(key, len)? });
        non_null(slot_out)?;
        // SAFETY: non-NULL and writable by the caller's promise.
        unsafe { slot_out.write_unaligned(slot) };
        Ok(())
    })
}

/// [`emq_slot`] returning the slot itself (0-16383), or the negated status
/// (`-EMQ_ERR_NULL` for a NULL key with `len > 0`). For hosts where
/// out-parameters are costly (cgo).
///
/// # Safety
/// `key` must be readable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn emq_slot_i32(key: *const u8, len: usize) -> i32 {
    // SAFETY: the caller promises `len` readable bytes at `key`.
    guard_value(|| Ok(emq_id::slot(unsafe { bytes(key, len)? }) as i32)) as i32
}

/// Slots of `count` keys in one call (for hosts whose per-call cost
/// dominates, like cgo). The keys lie back to back in `data`; key `i` is
/// `lens[i]` bytes long. Writes `count` slots to `slots_out`.
///
/// # Safety
/// `lens` must be readable for `count` values, `data` for their sum, and
/// `slots_out` writable for `count` values.
#[no_mangle]
pub unsafe extern "C" fn emq_slot_many(
    data: *const u8,
    lens: *const usize,
    count: usize,
    slots_out: *mut u16,
) -> branded_status {
    guard(|| {
        if count == 0 {
            return Ok(());
        }
        // SAFETY: the caller promises `count` writable output slots.
        let out = unsafe { std::slice::from_raw_parts_mut(non_null(slots_out)? as *mut u16, count) };
        // SAFETY: the caller promises `count` lengths and the keys' total length at `data`.
        let keys = unsafe { packed(data, lens, count)? };
        for (slot, key) in out.iter_mut().zip(keys) {
            *slot = emq_id::slot(key);
        }
        Ok(())
    })
}

/// The part of the key the cluster hashes, as a span of the key itself:
/// writes its offset and length (the whole key when it has no non-empty
/// `{…}` tag). Nothing is copied or allocated.
///
/// # Safety
/// `key` must be readable for `len` bytes; `offset_out` and `len_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_hashtag(
    key: *const u8,
    len: usize,
    offset_out: *mut usize,
    len_out: *mut usize,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises `len` readable bytes at `key`.
        let key = unsafe { bytes(key, len)? };
        let tag = emq_id::hashtag(key);
        non_null(offset_out)?;
        non_null(len_out)?;
        // SAFETY: both non-NULL and writable; the tag is a subslice of `key`.
        unsafe {
            offset_out.write_unaligned(tag.as_ptr().offset_from(key.as_ptr()) as usize);
            len_out.write_unaligned(tag.len());
        }
        Ok(())
    })
}
