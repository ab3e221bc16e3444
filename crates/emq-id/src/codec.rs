//! The 14-byte text form: a 3-letter namespace and 11 base62 digits.
//!
//! Encoding splits the snowflake into three parts that each fit a `u32`
//! (`1 + 5 + 5` digits), so ten of the eleven divisions by 62 are 32-bit ones.
//! Decoding checks the gates in the contract's order and decides `range` by
//! comparing bytes with [`MAX_PAYLOAD`]: eleven base62 digits can hold more
//! than 2^64, so an integer accumulation alone could wrap.

use crate::error::{Error, Gate, Result};
use crate::snowflake::MAX_SNOWFLAKE;

/// The base62 alphabet, in digit order (which is also ASCII order).
pub const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// Length of a branded id's text form, in bytes.
pub const ID_LEN: usize = 14;
/// Length of the namespace prefix.
pub const NS_LEN: usize = 3;
/// Number of base62 digits after the namespace.
pub const PAYLOAD_LEN: usize = 11;
/// `base62(2^63 − 1)`: the greatest payload the contract accepts.
pub const MAX_PAYLOAD: &[u8; PAYLOAD_LEN] = b"AzL8n0Y58m7";

const INVALID: u8 = 0xFF;
/// Digit value of each byte, or `INVALID`.
static DIGIT: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < ALPHABET.len() {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// 62^5, the largest power of 62 below 2^32 that splits the payload evenly enough.
const P5: u64 = 916_132_832;

/// Whether `ns` is a valid namespace: exactly three bytes `A`–`Z`.
#[inline]
pub const fn is_namespace(ns: &[u8]) -> bool {
    ns.len() == NS_LEN
        && ns[0].is_ascii_uppercase()
        && ns[1].is_ascii_uppercase()
        && ns[2].is_ascii_uppercase()
}

/// Writes `value` (below 62^5) as five base62 digits into `out`.
#[inline(always)]
fn put5(out: &mut [u8], mut value: u32) {
    let mut i = 5;
    while i > 0 {
        i -= 1;
        out[i] = ALPHABET[(value % 62) as usize];
        value /= 62;
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
    if !is_namespace(ns) {
        return Err(Error::new(Gate::Range, "a namespace is three bytes A-Z"));
    }
    if snowflake > MAX_SNOWFLAKE {
        return Err(Error::new(Gate::Range, "a snowflake is below 2^63"));
    }
    let mut out = [0u8; ID_LEN];
    out[..NS_LEN].copy_from_slice(ns);
    let low = (snowflake % P5) as u32;
    let rest = snowflake / P5;
    let mid = (rest % P5) as u32;
    let top = (rest / P5) as usize; // < 62 because snowflake < 2^63 < 62^11
    out[NS_LEN] = ALPHABET[top];
    put5(&mut out[NS_LEN + 1..NS_LEN + 6], mid);
    put5(&mut out[NS_LEN + 6..], low);
    Ok(out)
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
    let ns = [text[0], text[1], text[2]];
    if !is_namespace(&ns) {
        return Err(Error::new(Gate::Namespace, "the first three bytes must be A-Z"));
    }
    let payload: &[u8; PAYLOAD_LEN] = text[NS_LEN..].try_into().expect("14 - 3 = 11");
    let mut digits = [0u8; PAYLOAD_LEN];
    let mut bad = 0u8;
    for (d, &b) in digits.iter_mut().zip(payload) {
        *d = DIGIT[b as usize];
        bad |= (*d == INVALID) as u8;
    }
    if bad != 0 {
        return Err(Error::new(Gate::Charset, "the payload holds a byte outside base62 [0-9A-Za-z]"));
    }
    // Alphabet order is ASCII order, so byte order of payloads is numeric order.
    if payload > MAX_PAYLOAD {
        return Err(Error::new(Gate::Range, "the payload is above AzL8n0Y58m7 (2^63 - 1)"));
    }
    let mut value = 0u64;
    for d in digits {
        value = value * 62 + d as u64;
    }
    Ok((ns, value))
}
