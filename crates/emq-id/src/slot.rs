//! Valkey Cluster placement: the `{hashtag}` of a key and its hash slot.
//!
//! The CRC is CRC16-XMODEM (poly 0x1021, init 0, no reflection, no final xor).
//! With a zero start it is linear: the CRC of a message is the xor, over its
//! bytes, of the CRC of each byte alone followed by as many zero bytes as
//! follow it in the message. `TABLES[k]` holds those for `k` zero bytes, so
//! the default build hashes data under 16 bytes (a queue name, the usual
//! tag) in one round of independent lookups, and longer data eight bytes
//! at a time ("slicing by 8"), the running CRC entering each block's first
//! two lookups.

/// Number of hash slots in a Valkey or Redis Cluster.
///
/// ```
/// assert!(emq_id::slot(b"any key at all") < emq_id::SLOTS);
/// ```
pub const SLOTS: u16 = 16384;

const POLY: u16 = 0x1021;

/// The CRC of each byte alone: the byte-at-a-time table.
const fn byte_table() -> [u16; 256] {
    let mut t = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        let mut crc = (b as u16) << 8;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ POLY } else { crc << 1 };
            bit += 1;
        }
        t[b] = crc;
        b += 1;
    }
    t
}

/// Data shorter than this is hashed in one round of lookups.
#[cfg(not(any(feature = "compact", all(target_arch = "wasm32", not(target_os = "wasi"), not(feature = "host")))))]
const ONE_ROUND: usize = 16;

/// `TABLES[k][b]`: the CRC of byte `b` followed by `k` zero bytes, for every
/// `k` a byte of one round can have after it.
#[cfg(not(any(feature = "compact", all(target_arch = "wasm32", not(target_os = "wasi"), not(feature = "host")))))]
static TABLES: [[u16; 256]; ONE_ROUND - 1] = {
    let mut t = [[0u16; 256]; ONE_ROUND - 1];
    t[0] = byte_table();
    let mut k = 1;
    while k < ONE_ROUND - 1 {
        let mut b = 0;
        while b < 256 {
            let prev = t[k - 1][b];
            t[k][b] = (prev << 8) ^ t[0][(prev >> 8) as usize];
            b += 1;
        }
        k += 1;
    }
    t
};

/// The byte-at-a-time table alone, for the `compact` build.
#[cfg(any(feature = "compact", all(target_arch = "wasm32", not(target_os = "wasi"), not(feature = "host"))))]
static TABLE: [u16; 256] = byte_table();

/// CRC16-XMODEM of `data`, one byte per step (the `compact` build).
///
/// ```
/// assert_eq!(emq_id::crc16(b"123456789"), 0x31C3);
/// ```
#[cfg(any(feature = "compact", all(target_arch = "wasm32", not(target_os = "wasi"), not(feature = "host"))))]
#[inline]
pub fn crc16(data: &[u8]) -> u16 {
    data.iter().fold(0u16, |crc, &b| (crc << 8) ^ TABLE[((crc >> 8) as u8 ^ b) as usize])
}

/// The CRC of `N < ONE_ROUND` bytes: byte `i` looked up alone, in the
/// table of the `N − 1 − i` bytes after it. The lookups are xored in two
/// chains (even and odd bytes), so the last loads wait on two short chains
/// of xors rather than one long one.
#[cfg(not(any(feature = "compact", all(target_arch = "wasm32", not(target_os = "wasi"), not(feature = "host")))))]
#[inline(always)]
fn one_round<const N: usize>(bytes: &[u8]) -> u16 {
    const { assert!(N < ONE_ROUND) };
    let bytes: &[u8; N] = bytes.try_into().expect("N bytes");
    let (mut even, mut odd) = (0, 0);
    let mut i = 0;
    while i + 1 < N {
        even ^= TABLES[N - 1 - i][bytes[i] as usize];
        odd ^= TABLES[N - 2 - i][bytes[i + 1] as usize];
        i += 2;
    }
    if i < N {
        even ^= TABLES[0][bytes[i] as usize];
    }
    even ^ odd
}

/// CRC16-XMODEM of `data`.
///
/// ```
/// assert_eq!(emq_id::crc16(b"123456789"), 0x31C3);
/// ```
#[cfg(not(any(feature = "compact", all(target_arch = "wasm32", not(target_os = "wasi"), not(feature = "host")))))]
#[inline]
pub fn crc16(data: &[u8]) -> u16 {
    // One round: each length its own arm, so every table is fixed and a
    // 9-byte tag is nine independent loads, xored in two chains.
    match data.len() {
        0 => return 0,
        1 => return one_round::<1>(data),
        2 => return one_round::<2>(data),
        3 => return one_round::<3>(data),
        4 => return one_round::<4>(data),
        5 => return one_round::<5>(data),
        6 => return one_round::<6>(data),
        7 => return one_round::<7>(data),
        8 => return one_round::<8>(data),
        9 => return one_round::<9>(data),
        10 => return one_round::<10>(data),
        11 => return one_round::<11>(data),
        12 => return one_round::<12>(data),
        13 => return one_round::<13>(data),
        14 => return one_round::<14>(data),
        15 => return one_round::<15>(data),
        _ => {}
    }
    // Longer: blocks of eight, the running CRC xored into the first two
    // bytes of each (feeding a block into a CRC is feeding it into zero
    // with the CRC xored there), then the last few bytes one at a time.
    let mut crc = 0u16;
    let mut blocks = data.chunks_exact(8);
    for b in &mut blocks {
        let [hi, lo] = crc.to_be_bytes();
        crc = TABLES[7][(b[0] ^ hi) as usize]
            ^ TABLES[6][(b[1] ^ lo) as usize]
            ^ TABLES[5][b[2] as usize]
            ^ TABLES[4][b[3] as usize]
            ^ TABLES[3][b[4] as usize]
            ^ TABLES[2][b[5] as usize]
            ^ TABLES[1][b[6] as usize]
            ^ TABLES[0][b[7] as usize];
    }
    for &b in blocks.remainder() {
        crc = (crc << 8) ^ TABLES[0][((crc >> 8) as u8 ^ b) as usize];
    }
    crc
}

/// The part of `key` the cluster hashes: the bytes between the first `{` and
/// the first `}` after it, when that span is non-empty; otherwise the whole key.
///
/// ```
/// use emq_id::hashtag;
/// assert_eq!(hashtag(b"{user1000}.following"), b"user1000");
/// assert_eq!(hashtag(b"foo{}{bar}"), b"foo{}{bar}");
/// assert_eq!(hashtag(b"foo{{bar}}zap"), b"{bar");
/// assert_eq!(hashtag(b"foo{bar}{zap}"), b"bar");
/// ```
#[inline]
pub fn hashtag(key: &[u8]) -> &[u8] {
    if let Some(open) = find(key, b'{') {
        let rest = &key[open + 1..];
        if let Some(close) = find(rest, b'}') {
            if close > 0 {
                return &rest[..close];
            }
        }
    }
    key
}

/// The first position of `needle` in `haystack`, eight bytes per step: a
/// word has a byte equal to the needle iff `word ^ needle·0x01…01` has a zero
/// byte, which the classic `(x − 0x01…01) & !x & 0x80…80` test finds.
#[inline]
fn find(haystack: &[u8], needle: u8) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let pattern = ONES * needle as u64;
    let mut chunks = haystack.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let x = u64::from_le_bytes(chunk.try_into().expect("8 bytes")) ^ pattern;
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero != 0 {
            // The lowest flagged byte is exact; borrows only corrupt higher ones.
            return Some(at + (zero.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    chunks.remainder().iter().position(|&b| b == needle).map(|i| at + i)
}

/// The cluster hash slot (0–16383) of `key`: `crc16(hashtag(key)) mod 16384`.
/// Keys are bytes: NUL, invalid UTF-8 and any length are valid.
///
/// ```
/// assert_eq!(emq_id::slot(b"123456789"), 12739);
/// assert_eq!(emq_id::slot(b""), 0);
/// assert_eq!(emq_id::slot(b"emq:{orders}:pending"), emq_id::slot(b"orders"));
/// ```
#[inline]
pub fn slot(key: &[u8]) -> u16 {
    crc16(hashtag(key)) & (SLOTS - 1)
}
