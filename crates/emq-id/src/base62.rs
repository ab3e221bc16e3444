//! The eleven base62 digits of a payload, both ways, in two builds. The
//! default build writes two digits per table lookup, each pair read off a
//! binary fraction by one multiply, and reads a pair of digits as two
//! lookups and one add, with no digit waiting for another; `compact`
//! (always on wasm32, where every byte of tables is downloaded) does one digit
//! per step with ~9 KB less of tables. The Go module's core (feature `host`)
//! reads with the tables and writes compact: translated to Go, that pair
//! measured fastest each way (decode 8.5 ns against 11.5, encode 12.5 against 21). The two answer alike: the vector
//! file runs against both, and the property tests hold both to a naive
//! reference on adversarial bytes.
//!
//! Reading splits the value as `hi·62⁸ + lo` (three digits, then eight), so
//! the range gate is two integer compares on values that cannot wrap: eleven
//! base62 digits can hold more than 2^64.

use crate::snowflake::MAX_SNOWFLAKE;

/// The base62 alphabet, in digit order (which is also ASCII order).
///
/// ```
/// assert_eq!((emq_id::ALPHABET[0], emq_id::ALPHABET[61]), (b'0', b'z'));
/// ```
pub const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// Number of base62 digits after the namespace.
///
/// ```
/// assert_eq!(emq_id::NS_LEN + emq_id::PAYLOAD_LEN, emq_id::ID_LEN);
/// ```
pub const PAYLOAD_LEN: usize = 11;

/// The gate an 11-digit payload fails first: the contract's `charset`, then `range`.
pub(crate) enum Refused {
    Charset,
    Range,
}

const P2: u64 = 62 * 62;
const P4: u64 = P2 * P2;
const P8: u64 = P4 * P4;
/// `MAX_SNOWFLAKE` as `hi·62⁸ + lo`: the greatest accepted pair.
const HI_MAX: u64 = MAX_SNOWFLAKE / P8;
const LO_MAX: u64 = MAX_SNOWFLAKE % P8;

/// `hi·62⁸ + lo`, when it is at most `MAX_SNOWFLAKE`: `hi` alone decides
/// unless it is the greatest (only for the last two hours of the 41-bit clock).
#[inline(always)]
fn within(hi: u64, lo: u64) -> Result<u64, Refused> {
    if hi >= HI_MAX && (hi > HI_MAX || lo > LO_MAX) {
        return Err(Refused::Range);
    }
    Ok(hi * P8 + lo)
}

/// A digit table over every byte: `digit · scale` for the 62 alphabet bytes,
/// `invalid` for the rest. Entries are `u32` though they fit a `u16`: a
/// 32-bit load needs no separate widening before the arithmetic.
#[cfg(not(any(feature = "compact", all(target_arch = "wasm32", not(feature = "host")))))]
const fn digit_table(scale: u32, invalid: u32) -> [u32; 256] {
    let mut table = [invalid; 256];
    let mut i = 0;
    while i < ALPHABET.len() {
        table[ALPHABET[i] as usize] = i as u32 * scale;
        i += 1;
    }
    table
}

/// The first digit of a pair, times 62; `0x8000` for a byte outside the alphabet.
#[cfg(not(any(feature = "compact", all(target_arch = "wasm32", not(feature = "host")))))]
static FIRST: [u32; 256] = digit_table(62, 0x8000);
/// The second digit of a pair (or a lone digit); `0x4000` outside the alphabet.
#[cfg(not(any(feature = "compact", all(target_arch = "wasm32", not(feature = "host")))))]
static SECOND: [u32; 256] = digit_table(1, 0x4000);
/// Every valid pair is below this (62² = 3844); a pair with an invalid byte
/// is at least 0x4000, so one compare of the six pairs' OR finds any invalid byte.
#[cfg(not(any(feature = "compact", all(target_arch = "wasm32", not(feature = "host")))))]
const PAIR_LIMIT: u32 = 0x1000;

/// The value of an 11-digit payload, or the gate its bytes fail first
/// (`charset`, then `range`).
#[cfg(not(any(feature = "compact", all(target_arch = "wasm32", not(feature = "host")))))]
#[inline(always)]
pub(crate) fn read(payload: &[u8; PAYLOAD_LEN]) -> Result<u64, Refused> {
    // One lone digit and five pairs, each pair two lookups and an add; no
    // digit waits for another, and one OR of the six tells any invalid byte.
    let pair = |i: usize| FIRST[payload[i] as usize] + SECOND[payload[i + 1] as usize];
    let (d0, p1, p2, p3, p4, p5) = (SECOND[payload[0] as usize], pair(1), pair(3), pair(5), pair(7), pair(9));
    if d0 | p1 | p2 | p3 | p4 | p5 >= PAIR_LIMIT {
        return Err(Refused::Charset);
    }
    let hi = d0 as u64 * P2 + p1 as u64;
    let lo = p2 as u64 * (P4 * P2) + p3 as u64 * P4 + p4 as u64 * P2 + p5 as u64;
    within(hi, lo)
}

/// The value of an 11-digit payload, one digit per step (the `compact` build).
#[cfg(any(feature = "compact", all(target_arch = "wasm32", not(feature = "host"))))]
#[inline]
pub(crate) fn read(payload: &[u8; PAYLOAD_LEN]) -> Result<u64, Refused> {
    /// Each byte's digit; digits are below 62, so `0x80` marks an invalid byte.
    static DIGIT: [u8; 256] = {
        let mut table = [0x80; 256];
        let mut i = 0;
        while i < ALPHABET.len() {
            table[ALPHABET[i] as usize] = i as u8;
            i += 1;
        }
        table
    };
    let (mut hi, mut lo, mut seen) = (0u64, 0u64, 0u8);
    for (i, &byte) in payload.iter().enumerate() {
        let digit = DIGIT[byte as usize];
        seen |= digit;
        // Wrapping: garbage from an invalid byte is discarded below, never used.
        let part = if i < 3 { &mut hi } else { &mut lo };
        *part = part.wrapping_mul(62).wrapping_add(digit as u64);
    }
    if seen & 0x80 != 0 {
        return Err(Refused::Charset);
    }
    within(hi, lo)
}

/// Every two-digit base62 string, `PAIRS[n]` spelling `n < 62²`.
#[cfg(not(any(feature = "compact", target_arch = "wasm32")))]
static PAIRS: [[u8; 2]; P2 as usize] = {
    let mut table = [[0u8; 2]; P2 as usize];
    let mut n = 0;
    while n < P2 as usize {
        table[n] = [ALPHABET[n / 62], ALPHABET[n % 62]];
        n += 1;
    }
    table
};

/// `⌈2^123 / 62¹⁰⌉`, the multiplier that turns a snowflake into its first
/// digit and a binary fraction holding the other ten (see `write`).
#[cfg(not(any(feature = "compact", target_arch = "wasm32")))]
const SPLIT: u64 = {
    let split = (1u128 << 123) / (P8 * P2) as u128 + 1;
    assert!(split < 1 << 64);
    split as u64
};

// The bound `write` is exact by, checked by the compiler: with
// `SPLIT · 62¹⁰ = 2^123 + e`, the fraction's excess over the true one,
// `MAX_SNOWFLAKE · e / (62¹⁰ · 2^123) + 2^-64` at most, is below `62^-10`.
#[cfg(not(any(feature = "compact", target_arch = "wasm32")))]
const _: () = {
    let p10 = (P8 * P2) as u128;
    let e = SPLIT as u128 * p10 - (1 << 123);
    assert!(MAX_SNOWFLAKE as u128 * e + (p10 << 59) < 1 << 123);
};

/// Writes the 11 digits of `snowflake ≤ MAX_SNOWFLAKE` to `out`.
///
/// One product `y = snowflake · SPLIT` gives both parts: its bits from 123
/// up are `snowflake / 62¹⁰` (the first digit, at most 10), and the 64 bits
/// below them are `(snowflake mod 62¹⁰) / 62¹⁰` as a binary fraction. Each
/// following pair of digits is the high word of `fraction · 62²`, the low
/// word being the next fraction. Six multiplies and two shifts: fewer of
/// both than dividing into 4-digit chunks, which took ten multiplies in its
/// source and ten shifts: on x86-64 multiplies and shifts share the
/// ports of the one integer multiplier, the scarce unit here.
///
/// Why it is exact: `SPLIT · 62¹⁰ = 2^123 + e` with `0 < e < 62¹⁰`, so
/// `y / 2^123` exceeds `snowflake / 62¹⁰` by `snowflake · e / (62¹⁰ · 2^123)`,
/// under `2^-60` for a snowflake below `2^63`. Truncating the fraction to 64
/// bits could put it just below a value a pair ends exactly on (the last
/// pair would then come out one low), so it is raised by one unit: it then
/// exceeds the true `r / 62¹⁰` by some `δ ≤ 2^-60 + 2^-64 < 62^-10` (the
/// assertion above) and stays below 1. An error below `62^-10` cannot carry
/// any of the ten digits of `r` over an integer boundary, and multiplying by
/// 62² scales the error and the remaining range alike, so the bound holds at
/// every pair. `tests/properties.rs` holds it to a spelling-out reference
/// next to digit turn-overs under high parts across the range, and fails
/// on a fraction without the raise or a few bits short.
#[cfg(not(any(feature = "compact", target_arch = "wasm32")))]
#[inline(always)]
pub(crate) fn write(snowflake: u64, out: &mut [u8; PAYLOAD_LEN]) {
    let y = snowflake as u128 * SPLIT as u128;
    out[0] = ALPHABET[(y >> 123) as usize];
    let mut fraction = (y >> 59) as u64 + 1;
    for at in [1, 3, 5, 7, 9] {
        let scaled = fraction as u128 * P2 as u128;
        out[at..at + 2].copy_from_slice(&PAIRS[(scaled >> 64) as usize]);
        fraction = scaled as u64;
    }
}

/// Writes the 11 digits of `snowflake ≤ MAX_SNOWFLAKE` to `out`, one
/// digit per step (the `compact` build).
#[cfg(any(feature = "compact", target_arch = "wasm32"))]
#[inline]
pub(crate) fn write(mut snowflake: u64, out: &mut [u8; PAYLOAD_LEN]) {
    for digit in out.iter_mut().rev() {
        *digit = ALPHABET[(snowflake % 62) as usize];
        snowflake /= 62;
    }
}
