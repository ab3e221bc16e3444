//! What the fuzz targets share: naive references written from the contract's
//! words (SPEC.md, the Valkey Cluster spec), never from the core's code, and
//! a reader that turns the fuzzer's bytes into arguments.
//!
//! Each reference is the slowest obvious reading of its rule: one byte, one
//! bit or one digit per step, wide integers where the core is careful. A
//! target fails when the core and its reference disagree on any input.
// The references spell out the contract's byte ranges (`b'A'..=b'Z'`) as SPEC.md does.
#![allow(clippy::manual_is_ascii_check)]

use emq_id::Gate;

/// The largest snowflake, `2^63 - 1`, as the contract states it.
const MAX_VALUE: u128 = (1 << 63) - 1;

/// SPEC.md's reading of 14 bytes, one byte at a time: the length, then three
/// letters `A`-`Z`, then eleven base62 digits (`0-9A-Za-z`, in that order),
/// then the value accumulated in a `u128` (which cannot wrap: 62^11 < 2^66)
/// compared with `2^63 - 1`. The gates in the contract's order.
pub fn decode_ref(text: &[u8]) -> Result<([u8; 3], u64), Gate> {
    if text.len() != 14 {
        return Err(Gate::Length);
    }
    let mut ns = [0u8; 3];
    for (i, &b) in text[..3].iter().enumerate() {
        if !(b'A'..=b'Z').contains(&b) {
            return Err(Gate::Namespace);
        }
        ns[i] = b;
    }
    let mut value: u128 = 0;
    for &b in &text[3..] {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'A'..=b'Z' => b - b'A' + 10,
            b'a'..=b'z' => b - b'a' + 36,
            _ => return Err(Gate::Charset),
        };
        value = value * 62 + u128::from(digit);
    }
    if value > MAX_VALUE {
        return Err(Gate::Range);
    }
    Ok((ns, value as u64))
}

/// SPEC.md's binary form of a `branded_id` (PostgreSQL's wire form), one byte
/// at a time from the front of `wire`: fewer than 11 bytes is `length`; then
/// encode's gates, as the parts are an id's parts (§3: a namespace that is not
/// three letters `A`-`Z` is `range`, like a value over `2^63 - 1`, the next
/// eight bytes accumulated most significant first in a `u128`). Bytes after
/// the eleventh are not the id's.
pub fn binary_ref(wire: &[u8]) -> Result<([u8; 3], u64), Gate> {
    if wire.len() < 11 {
        return Err(Gate::Length);
    }
    let mut ns = [0u8; 3];
    for (i, &b) in wire[..3].iter().enumerate() {
        if !(b'A'..=b'Z').contains(&b) {
            return Err(Gate::Range);
        }
        ns[i] = b;
    }
    let mut value: u128 = 0;
    for &b in &wire[3..11] {
        value = value * 256 + u128::from(b);
    }
    if value > MAX_VALUE {
        return Err(Gate::Range);
    }
    Ok((ns, value as u64))
}

/// The cluster spec's hash tag: find the first `{`; then the first `}` after
/// it; a non-empty span between them is the tag, anything else hashes the
/// whole key. Answered as a range of `key`.
pub fn hashtag_ref(key: &[u8]) -> core::ops::Range<usize> {
    let mut open = None;
    for (i, &b) in key.iter().enumerate() {
        if b == b'{' {
            open = Some(i);
            break;
        }
    }
    if let Some(open) = open {
        for (j, &b) in key.iter().enumerate().skip(open + 1) {
            if b == b'}' {
                if j > open + 1 {
                    return open + 1..j;
                }
                break;
            }
        }
    }
    0..key.len()
}

/// CRC16-XMODEM (polynomial 0x1021, initial 0, no reflection), one bit per step.
pub fn crc16_ref(data: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in data {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 };
        }
    }
    crc
}

/// The hash slot: CRC16 of the hash tag, modulo 16384.
pub fn slot_ref(key: &[u8]) -> u16 {
    crc16_ref(&key[hashtag_ref(key)]) % 16384
}

/// A queue name as SPEC.md states it: 1-128 bytes of `[A-Za-z0-9_.:-]`.
pub fn queue_ok_ref(queue: &[u8]) -> bool {
    (1..=128).contains(&queue.len())
        && queue.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b':' || b == b'-')
}

/// Arguments read off the fuzzer's bytes, front to back. Past the end every
/// read answers zero (or an empty slice), so any input is a whole call.
pub struct Input<'a> {
    rest: &'a [u8],
}

impl<'a> Input<'a> {
    pub fn new(data: &'a [u8]) -> Input<'a> {
        Input { rest: data }
    }

    /// The next `n` bytes (fewer at the end).
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let (head, tail) = self.rest.split_at(n.min(self.rest.len()));
        self.rest = tail;
        head
    }

    pub fn u8(&mut self) -> u8 {
        self.bytes(1).first().copied().unwrap_or(0)
    }

    pub fn u16(&mut self) -> u16 {
        let mut b = [0u8; 2];
        let got = self.bytes(2);
        b[..got.len()].copy_from_slice(got);
        u16::from_le_bytes(b)
    }

    pub fn u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        let got = self.bytes(8);
        b[..got.len()].copy_from_slice(got);
        u64::from_le_bytes(b)
    }

    pub fn i64(&mut self) -> i64 {
        self.u64() as i64
    }

    /// Bytes up to the next `\n` (not included), or the rest.
    pub fn line(&mut self) -> &'a [u8] {
        match self.rest.iter().position(|&b| b == b'\n') {
            Some(at) => {
                let line = &self.rest[..at];
                self.rest = &self.rest[at + 1..];
                line
            }
            None => self.bytes(self.rest.len()),
        }
    }

    /// Whatever is left.
    pub fn rest(&mut self) -> &'a [u8] {
        self.bytes(self.rest.len())
    }

    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }
}

/// The references against the contract's literal vectors (not the core):
/// each target that uses one runs this once at start, so a reference that
/// drifted fails the run instead of agreeing with a wrong core.
pub fn check_references() {
    assert_eq!(decode_ref(b"USR0KHTOWnGLuC"), Ok((*b"USR", 274557032793636864)));
    assert_eq!(decode_ref(b"USR0NgWEfAEJfs"), Ok((*b"USR", 320636799581945856)));
    assert_eq!(decode_ref(b"JOBAzL8n0Y58m7"), Ok((*b"JOB", (1 << 63) - 1)));
    assert_eq!(decode_ref(b"JOBAzL8n0Y58m8"), Err(Gate::Range));
    assert_eq!(decode_ref(b"USR0KHTOWnGLu"), Err(Gate::Length));
    assert_eq!(decode_ref(b"usr0KHTOWnGLuC"), Err(Gate::Namespace));
    assert_eq!(decode_ref(b"USR0KHTOWnGL!C"), Err(Gate::Charset));
    assert_eq!(binary_ref(b"USR\x03\xcf\x6c\x2a\xaa\x40\x00\x00"), Ok((*b"USR", 274557032793636864)));
    assert_eq!(binary_ref(b"JOB\x7f\xff\xff\xff\xff\xff\xff\xff--"), Ok((*b"JOB", (1 << 63) - 1)));
    assert_eq!(binary_ref(b"JOB\x80\0\0\0\0\0\0\0"), Err(Gate::Range));
    assert_eq!(binary_ref(b"JOB\0\0\0\0\0\0\0"), Err(Gate::Length));
    assert_eq!(binary_ref(b"JoB\0\0\0\0\0\0\0\0"), Err(Gate::Range));
    assert_eq!(crc16_ref(b"123456789"), 0x31C3);
    assert_eq!(slot_ref(b"123456789"), 12739);
    assert_eq!(slot_ref(b""), 0);
    assert_eq!(&b"{user1000}.following"[hashtag_ref(b"{user1000}.following")], b"user1000");
    assert_eq!(hashtag_ref(b"foo{}{bar}"), 0..10);
    assert_eq!(&b"foo{{bar}}zap"[hashtag_ref(b"foo{{bar}}zap")], b"{bar");
    assert_eq!(&b"foo{bar}{zap}"[hashtag_ref(b"foo{bar}{zap}")], b"bar");
    assert!(queue_ok_ref(b"orders") && !queue_ok_ref(b"a{b}") && !queue_ok_ref(b""));
}
