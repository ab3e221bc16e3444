//! The self-check, for hosts to run once at load: the core's vectors through
//! this ABI's own entry points, so a mislinked library or a drift in the
//! translation of pointers, lengths and statuses is caught, not only a core
//! that disagrees with itself.

use std::ffi::c_char;

use crate::codec::{branded_decode, branded_encode, branded_hash32, branded_unix_ms, emq_min_for, emq_node, emq_seq};
use crate::keyspace::{emq_key, EMQ_MAX_KEY_LEN};
use crate::mint::emq_mint_step;
use crate::place::{emq_hashtag, emq_slot};
use crate::status::{branded_status, emq_status_name, guard};
use crate::stream::{emq_xadd_id, EMQ_MAX_ENTRY_ID_LEN};

/// Checks this build against the contract's own vectors, each line of
/// `emq_self_check_vectors()` run through this ABI's functions. `BRANDED_OK`,
/// or `EMQ_ERR_SELF_CHECK` when the library disagrees with the contract (a
/// host should then refuse to start; the Go binding names the line).
///
/// # Safety
/// None needed: no arguments.
#[no_mangle]
pub extern "C" fn emq_self_check() -> branded_status {
    guard(|| {
        emq_id::self_check().map_err(|_| branded_status::EMQ_ERR_SELF_CHECK)?;
        host_check(emq_id::SELF_CHECK_VECTORS).map_err(|_| branded_status::EMQ_ERR_SELF_CHECK)
    })
}

/// The first line of `vectors` this ABI answers differently, as `Err(line)`.
pub(crate) fn host_check(vectors: &str) -> Result<(), &str> {
    for line in vectors.lines().filter(|l| !l.is_empty()) {
        let w: Vec<&str> = line.split(' ').collect();
        let arg = |i: usize| w.get(i).copied().unwrap_or("");
        let inputs = match arg(0) {
            "decode" | "reject" | "min_for" | "slot" | "hashtag" | "xadd_id" => 1,
            "encode" | "encode_reject" => 2,
            "mint" | "key" | "key_reject" => 3,
            _ => return Err(line),
        };
        let want =
            if arg(0).ends_with("reject") { format!("error {}", arg(1 + inputs)) } else { w[1 + inputs..].join(" ") };
        if answer(&w) != want {
            return Err(line);
        }
    }
    Ok(())
}

fn gate(status: branded_status) -> String {
    // SAFETY: emq_status_name answers a static NUL-terminated string.
    let name = unsafe { std::ffi::CStr::from_ptr(emq_status_name(status as i32)) };
    format!("error {}", name.to_string_lossy())
}

/// What this ABI answers for one line, in the words the line expects.
fn answer(w: &[&str]) -> String {
    let text = |i: usize| w.get(i).copied().unwrap_or("");
    let int = |i: usize| text(i).parse::<u64>().unwrap_or(u64::MAX);
    let ms = |i: usize| text(i).parse::<i64>().unwrap_or(i64::MIN);
    match text(0) {
        "decode" | "reject" => {
            let (mut ns, mut s) = ([0 as c_char; 3], 0u64);
            // SAFETY: the id's bytes live in `w`; the outputs are locals of the right size.
            let status = unsafe { branded_decode(text(1).as_ptr().cast(), text(1).len(), ns.as_mut_ptr(), &mut s) };
            if status != branded_status::BRANDED_OK {
                return gate(status);
            }
            let ns: String = ns.iter().map(|&c| c as u8 as char).collect();
            format!("{ns} {s} {} {} {} {}", branded_unix_ms(s), emq_node(s), emq_seq(s), branded_hash32(s))
        }
        "encode" | "encode_reject" => {
            let mut out = [0 as c_char; emq_id::ID_LEN];
            if text(1).len() != 3 {
                return "a namespace of another length".into();
            }
            // SAFETY: the namespace is 3 bytes (checked), `out` 14.
            let status = unsafe { branded_encode(text(1).as_ptr().cast(), int(2), out.as_mut_ptr()) };
            if status != branded_status::BRANDED_OK {
                return gate(status);
            }
            out.iter().map(|&c| c as u8 as char).collect()
        }
        "min_for" => {
            let mut s = 0;
            // SAFETY: `s` is a local u64.
            match unsafe { emq_min_for(ms(1), &mut s) } {
                branded_status::BRANDED_OK => s.to_string(),
                status => gate(status),
            }
        }
        "mint" => {
            let node = u16::try_from(int(1)).unwrap_or(u16::MAX);
            let (mut state, mut a, mut b) = (0, 0, 0);
            // SAFETY: the outputs are locals.
            let first = unsafe { emq_mint_step(0, node, ms(2), &mut state, &mut a) };
            // SAFETY: as above.
            let second = unsafe { emq_mint_step(state, node, ms(3), &mut state, &mut b) };
            match (first, second) {
                (branded_status::BRANDED_OK, branded_status::BRANDED_OK) => format!("{a} {b}"),
                (branded_status::BRANDED_OK, status) | (status, _) => gate(status),
            }
        }
        "slot" => {
            let mut slot = 0;
            // SAFETY: the key's bytes live in `w`; `slot` is a local.
            unsafe { emq_slot(text(1).as_ptr(), text(1).len(), &mut slot) };
            slot.to_string()
        }
        "hashtag" => {
            let (mut at, mut len) = (0, 0);
            // SAFETY: the key's bytes live in `w`; the outputs are locals.
            unsafe { emq_hashtag(text(1).as_ptr(), text(1).len(), &mut at, &mut len) };
            text(1).get(at..at + len).unwrap_or("a tag outside its key").to_string()
        }
        "key" | "key_reject" => {
            // No id is NULL (an empty id would be refused as one).
            let (id, id_len) = if text(3) == "-" { (std::ptr::null(), 0) } else { (text(3).as_ptr(), text(3).len()) };
            let (mut out, mut len) = ([0u8; EMQ_MAX_KEY_LEN], 0);
            // SAFETY: every input lives in `w`; `out` holds EMQ_MAX_KEY_LEN bytes, `len` is a local.
            let status = unsafe {
                emq_key(
                    text(1).as_ptr(),
                    text(1).len(),
                    text(2).as_ptr(),
                    text(2).len(),
                    id,
                    id_len,
                    out.as_mut_ptr(),
                    out.len(),
                    &mut len,
                )
            };
            match status {
                branded_status::BRANDED_OK => String::from_utf8_lossy(&out[..len]).into_owned(),
                status => gate(status),
            }
        }
        "xadd_id" => {
            let (mut out, mut len) = ([0u8; EMQ_MAX_ENTRY_ID_LEN], 0);
            // SAFETY: the id's bytes live in `w`; `out` holds EMQ_MAX_ENTRY_ID_LEN bytes.
            match unsafe { emq_xadd_id(text(1).as_ptr(), text(1).len(), out.as_mut_ptr(), out.len(), &mut len) } {
                branded_status::BRANDED_OK => String::from_utf8_lossy(&out[..len]).into_owned(),
                status => gate(status),
            }
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vectors_pass_through_the_abi_and_a_wrong_line_is_named() {
        assert_eq!(host_check(emq_id::SELF_CHECK_VECTORS), Ok(()));
        assert_eq!(emq_self_check(), branded_status::BRANDED_OK);
        for wrong in [
            "slot {fills} 4166",
            "decode USR0KHTOWnGLuC USR 274557032793636864 1769526697641 0 1 234878118",
            "reject USR0KHTOWnGLu charset",
            "key orders pending - emq:{orders}:active",
            "xadd_id EVT000xY9Wvvcd 1704117200000-1620568",
            "mint 0 1769526697641 1769526697000 274557032793636864 274557032793636864",
            "ulid 01H 5",
        ] {
            let vectors = format!("{}{wrong}\n", emq_id::SELF_CHECK_VECTORS);
            assert_eq!(host_check(&vectors), Err(wrong), "{wrong}");
        }
    }
}
