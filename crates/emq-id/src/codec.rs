//! The 14-byte text form: a 3-letter namespace and 11 base62 digits. This
//! file holds the gates, in the contract's order; the digit arithmetic of
//! the payload is `base62.rs`.

use crate::base62::{self, Refused, PAYLOAD_LEN};
use crate::error::{Error, Gate, Result};
use crate::snowflake::MAX_SNOWFLAKE;

/// Length of a branded id's text form, in bytes.
///
/// ```
/// assert_eq!(emq_id::encode(b"USR", 0).unwrap().len(), emq_id::ID_LEN);
/// ```
pub const ID_LEN: usize = 14;
/// Length of the namespace prefix.
///
/// ```
/// assert_eq!(emq_id::Id::parse(b"USR0KHTOWnGLuC").unwrap().ns().len(), emq_id::NS_LEN);
/// ```
pub const NS_LEN: usize = 3;
/// `base62(2^63 − 1)`: the greatest payload the contract accepts.
///
/// ```
/// assert_eq!(&emq_id::encode(b"USR", emq_id::MAX_SNOWFLAKE).unwrap()[3..], emq_id::MAX_PAYLOAD);
/// ```
pub const MAX_PAYLOAD: &[u8; PAYLOAD_LEN] = b"AzL8n0Y58m7";

/// Whether `ns` is a valid namespace: exactly three bytes `A`–`Z`.
///
/// ```
/// assert!(emq_id::is_namespace(b"USR"));
/// assert!(!emq_id::is_namespace(b"US1") && !emq_id::is_namespace(b"USRS"));
/// ```
#[inline]
pub const fn is_namespace(ns: &[u8]) -> bool {
    if ns.len() != NS_LEN {
        return false;
    }
    // All three bytes at once: bit 7 of a byte is set by the byte itself (not
    // ASCII), missing after adding 0x3F (below 'A'), or set after adding 0x25
    // (above 'Z'). An ASCII byte plus either constant stays below 0x100, so
    // no carry crosses into its neighbour; a non-ASCII one is refused anyway.
    let x = u32::from_le_bytes([ns[0], ns[1], ns[2], 0]);
    (x | !(x + 0x3F_3F3F) | (x + 0x25_2525)) & 0x80_8080 == 0
}

/// The refusal `encode` gives a namespace that is not three bytes `A`–`Z`
/// (gate `range`: SPEC.md §3), for hosts that take a namespace before they
/// have a snowflake to encode (`mint`, `mintMany`).
///
/// ```
/// assert!(emq_id::check_namespace(b"JOB").is_ok());
/// assert_eq!(emq_id::check_namespace(b"job").unwrap_err().gate(), emq_id::Gate::Range);
/// ```
#[inline]
pub fn check_namespace(ns: &[u8]) -> Result<()> {
    if is_namespace(ns) {
        Ok(())
    } else {
        Err(Error::new(Gate::Range, "a namespace is three bytes A-Z"))
    }
}

/// The text form of `(ns, snowflake)`: 14 bytes, no terminator.
///
/// Refuses with [`Gate::Range`] a snowflake ≥ 2^63 *and* a namespace that is
/// not three bytes `A`–`Z` (the contract's table answers `range` for both;
/// see SPEC.md for why this differs from the bus's C reference).
///
/// ```
/// let text = emq_id::encode(b"USR", 274557032793636864).unwrap();
/// assert_eq!(&text, b"USR0KHTOWnGLuC");
/// assert_eq!(emq_id::encode(b"USR", 1 << 63).unwrap_err().gate(), emq_id::Gate::Range);
/// assert_eq!(emq_id::encode(b"usr", 0).unwrap_err().gate(), emq_id::Gate::Range);
/// ```
#[inline]
pub fn encode(ns: &[u8], snowflake: u64) -> Result<[u8; ID_LEN]> {
    let mut out = [0u8; ID_LEN];
    encode_into(ns, snowflake, &mut out)?;
    Ok(out)
}

/// [`encode`] into a caller's buffer, for hosts that own the memory (the C
/// ABI, batch encoders). On error `out` is left untouched.
///
/// ```
/// let mut buf = [0u8; 14];
/// emq_id::encode_into(b"USR", 274557032793636864, &mut buf).unwrap();
/// assert_eq!(&buf, b"USR0KHTOWnGLuC");
/// ```
#[inline]
pub fn encode_into(ns: &[u8], snowflake: u64, out: &mut [u8; ID_LEN]) -> Result<()> {
    check_namespace(ns)?;
    if snowflake > MAX_SNOWFLAKE {
        return Err(Error::new(Gate::Range, "a snowflake is below 2^63"));
    }
    out[..NS_LEN].copy_from_slice(ns);
    let [_, _, _, payload @ ..] = out;
    base62::write(snowflake, payload);
    Ok(())
}

/// Reads a branded id from arbitrary bytes: a total function that answers
/// `(namespace, snowflake)` or the first gate the bytes fail, in the
/// contract's order `length`, `namespace`, `charset`, `range`.
///
/// ```
/// use emq_id::{decode, Gate};
/// assert_eq!(decode(b"USR0NgWEfAEJfs").unwrap(), (*b"USR", 320636799581945856));
/// assert_eq!(decode(b"USR0KHTOWnGLu").unwrap_err().gate(), Gate::Length);
/// assert_eq!(decode(b"usr0KHTOWnGLuC").unwrap_err().gate(), Gate::Namespace);
/// assert_eq!(decode(b"USR0KHTOWnGL!C").unwrap_err().gate(), Gate::Charset);
/// assert_eq!(decode(b"USRzzzzzzzzzzz").unwrap_err().gate(), Gate::Range);
/// ```
#[inline]
pub fn decode(text: &[u8]) -> Result<([u8; NS_LEN], u64)> {
    let Ok(text) = <&[u8; ID_LEN]>::try_from(text) else {
        return Err(Error::new(Gate::Length, "a branded id is exactly 14 bytes"));
    };
    let [a, b, c, payload @ ..] = text;
    let ns = [*a, *b, *c];
    if !is_namespace(&ns) {
        return Err(Error::new(Gate::Namespace, "the first three bytes must be A-Z"));
    }
    match base62::read(payload) {
        Ok(snowflake) => Ok((ns, snowflake)),
        Err(Refused::Charset) => Err(Error::new(Gate::Charset, "the payload holds a byte outside base62 [0-9A-Za-z]")),
        Err(Refused::Range) => Err(Error::new(Gate::Range, "the payload is above AzL8n0Y58m7 (2^63 - 1)")),
    }
}

/// Whether `text` is a branded id: [`decode`] would accept it.
///
/// ```
/// assert!(emq_id::is_valid(b"USR0KHTOWnGLuC"));
/// assert!(!emq_id::is_valid(b"not-a-branded-id"));
/// ```
#[inline]
pub fn is_valid(text: &[u8]) -> bool {
    decode(text).is_ok()
}

/// Orders two branded ids: by namespace, then by snowflake — which is the
/// order of their bytes, so a host may also compare the texts directly.
/// Either one invalid is refused with its gate (`a` is checked first).
///
/// ```
/// use core::cmp::Ordering;
/// assert_eq!(emq_id::compare(b"USR0KHTOWnGLuC", b"USR0NgWEfAEJfs").unwrap(), Ordering::Less);
/// assert_eq!(emq_id::compare(b"USR0KHTOWnGLuC", b"usr").unwrap_err().gate(), emq_id::Gate::Length);
/// ```
#[inline]
pub fn compare(a: &[u8], b: &[u8]) -> Result<core::cmp::Ordering> {
    Ok(decode(a)?.cmp(&decode(b)?))
}
