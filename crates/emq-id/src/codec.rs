//! The 14-byte text form: a 3-letter namespace and 11 base62 digits.
//!
//! Encoding splits the snowflake into three parts that each fit a `u32`
//! (`3 + 4 + 4` digits) and spells them two digits at a time from a table,
//! so no digit waits for the one before it.
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

/// Marks a byte outside the alphabet; digit values are below 62, so one OR
/// over all eleven lookups tells whether any byte was invalid.
const INVALID: u8 = 0x80;
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

/// Every two-digit base62 string, `PAIRS[2n..2n+2]` spelling `n < 62²`.
#[cfg(not(any(feature = "compact", target_arch = "wasm32")))]
static PAIRS: [u8; 2 * 62 * 62] = {
    let mut table = [0u8; 2 * 62 * 62];
    let mut n = 0;
    while n < 62 * 62 {
        table[2 * n] = ALPHABET[n / 62];
        table[2 * n + 1] = ALPHABET[n % 62];
        n += 1;
    }
    table
};

const P2: u32 = 62 * 62;
const P4: u64 = 62 * 62 * 62 * 62;

/// Whether `ns` is a valid namespace: exactly three bytes `A`–`Z`.
#[inline]
pub const fn is_namespace(ns: &[u8]) -> bool {
    ns.len() == NS_LEN && ns[0].is_ascii_uppercase() && ns[1].is_ascii_uppercase() && ns[2].is_ascii_uppercase()
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

/// Writes `value < 62⁴` as four base62 digits: two independent pair lookups.
#[cfg(not(any(feature = "compact", target_arch = "wasm32")))]
#[inline(always)]
fn put4(out: &mut [u8], value: u32) {
    let (hi, lo) = ((value / P2) as usize, (value % P2) as usize);
    out[..2].copy_from_slice(&PAIRS[2 * hi..2 * hi + 2]);
    out[2..4].copy_from_slice(&PAIRS[2 * lo..2 * lo + 2]);
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
    write_payload(snowflake, (&mut out[NS_LEN..]).try_into().expect("14 - 3 = 11"));
    Ok(())
}

/// The 11 base62 digits of `snowflake < 2^63`, one digit per step (the `compact` build).
#[cfg(any(feature = "compact", target_arch = "wasm32"))]
#[inline]
fn write_payload(mut snowflake: u64, out: &mut [u8; PAYLOAD_LEN]) {
    for digit in out.iter_mut().rev() {
        *digit = ALPHABET[(snowflake % 62) as usize];
        snowflake /= 62;
    }
}

/// The 11 base62 digits of `snowflake < 2^63`, two digits per table lookup.
#[cfg(not(any(feature = "compact", target_arch = "wasm32")))]
#[inline(always)]
fn write_payload(snowflake: u64, out: &mut [u8; PAYLOAD_LEN]) {
    // snowflake = a·62⁸ + b·62⁴ + c; the two divisions are independent of
    // each other, and so are the six pair lookups that follow.
    let q4 = snowflake / P4;
    let q8 = snowflake / (P4 * P4);
    let c = (snowflake - q4 * P4) as u32;
    let b = (q4 - q8 * P4) as u32;
    let a = q8 as u32; // < 2^63 / 62⁸ < 62³: one digit and a pair
    out[0] = ALPHABET[(a / P2) as usize];
    let pair = (a % P2) as usize;
    out[1..3].copy_from_slice(&PAIRS[2 * pair..2 * pair + 2]);
    put4(&mut out[3..7], b);
    put4(&mut out[7..], c);
}

/// Whether an 11-byte payload sorts after [`MAX_PAYLOAD`] byte-wise.
/// Ids minted before 2087 start with a digit below `A`, so the first byte
/// alone usually decides.
#[inline(always)]
fn above_max(payload: &[u8; PAYLOAD_LEN]) -> bool {
    if payload[0] != MAX_PAYLOAD[0] {
        return payload[0] > MAX_PAYLOAD[0];
    }
    let head = |p: &[u8; PAYLOAD_LEN]| u64::from_be_bytes([p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]]);
    let tail = |p: &[u8; PAYLOAD_LEN]| u32::from_be_bytes([0, p[8], p[9], p[10]]);
    (head(payload), tail(payload)) > (head(MAX_PAYLOAD), tail(MAX_PAYLOAD))
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
    let digits: [u8; PAYLOAD_LEN] = core::array::from_fn(|i| DIGIT[payload[i] as usize]);
    if digits.iter().fold(0, |acc, d| acc | d) & INVALID != 0 {
        return Err(Error::new(Gate::Charset, "the payload holds a byte outside base62 [0-9A-Za-z]"));
    }
    // Alphabet order is ASCII order, so byte order of payloads is numeric
    // order. The byte comparison is done as two big-endian integer compares.
    if above_max(payload) {
        return Err(Error::new(Gate::Range, "the payload is above AzL8n0Y58m7 (2^63 - 1)"));
    }
    // value = d0·62¹⁰ + Σ pairᵢ·3844^(5−i): five independent pairs, each scaled
    // by its own constant, so no digit waits for the one before it.
    let pair = |i: usize| (digits[2 * i - 1] as u64) * 62 + digits[2 * i] as u64;
    let p2 = P2 as u64;
    let value = (digits[0] as u64) * (P4 * P4 * p2)
        + pair(1) * (P4 * P4)
        + pair(2) * (P4 * p2)
        + pair(3) * P4
        + pair(4) * p2
        + pair(5);
    Ok((ns, value))
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
