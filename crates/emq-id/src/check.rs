//! `self_check`: the contract's own vectors, run against this build.

use core::fmt;

use crate::{codec, hash, keyspace, mint, slot, snowflake, stream, Gate};

/// The first contract vector this build disagrees with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Which check failed, e.g. `"encode(USR, 274557032793636864)"`.
    pub check: &'static str,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "emq-id self-check failed: {} disagrees with branded-snowflake/1.0.0", self.check)
    }
}

impl core::error::Error for Mismatch {}

/// Checks this build against the contract's own vectors: encode, decode,
/// every gate, hash32, unix_ms, the largest payload, a mint sequence, CRC16
/// and the hashtag rules, and a keyspace key. Bindings call it at load, so a
/// miscompiled or mislinked library refuses to run instead of minting ids
/// that other runtimes read differently.
///
/// ```
/// emq_id::self_check().unwrap();
/// ```
pub fn self_check() -> Result<(), Mismatch> {
    fn expect(ok: bool, check: &'static str) -> Result<(), Mismatch> {
        if ok {
            Ok(())
        } else {
            Err(Mismatch { check })
        }
    }
    fn gate_of(text: &[u8]) -> Option<Gate> {
        codec::decode(text).err().map(|e| e.gate())
    }
    const S1: u64 = 274_557_032_793_636_864;
    const S2: u64 = 320_636_799_581_945_856;
    expect(codec::encode(b"USR", S1).ok() == Some(*b"USR0KHTOWnGLuC"), "encode(USR, 274557032793636864)")?;
    expect(codec::decode(b"USR0NgWEfAEJfs").ok() == Some((*b"USR", S2)), "decode(USR0NgWEfAEJfs)")?;
    expect(codec::decode(b"USR0KHTOWnGLuC").ok() == Some((*b"USR", S1)), "decode(USR0KHTOWnGLuC)")?;
    expect(hash::hash32(S1) == 234_878_118, "hash32(274557032793636864)")?;
    expect(snowflake::unix_ms(S1) == 1_769_526_697_641, "unix_ms(274557032793636864)")?;
    expect(snowflake::unix_ms(S2) == 1_780_512_970_164, "unix_ms(320636799581945856)")?;
    expect(codec::encode(b"MAX", snowflake::MAX_SNOWFLAKE).ok() == Some(*b"MAXAzL8n0Y58m7"), "base62(2^63 - 1)")?;
    expect(gate_of(b"USRzzzzzzzzzzz") == Some(Gate::Range), "reject USRzzzzzzzzzzz: range")?;
    expect(gate_of(b"usr0KHTOWnGLuC") == Some(Gate::Namespace), "reject usr0KHTOWnGLuC: namespace")?;
    expect(gate_of(b"USR0KHTOWnGLu") == Some(Gate::Length), "reject USR0KHTOWnGLu: length")?;
    expect(gate_of(b"USR0KHTOWnGL!C") == Some(Gate::Charset), "reject USR0KHTOWnGL!C: charset")?;
    expect(codec::encode(b"USR", 1 << 63).err().map(|e| e.gate()) == Some(Gate::Range), "encode(USR, 2^63): range")?;
    // A fresh minter at the first id's instant on node 0 mints that id, then seq 1.
    let first = mint::step(0, 0, 1_769_526_697_641);
    let second = match first {
        Ok((state, _)) => mint::step(state, 0, 1_769_526_697_000).ok().map(|(_, s)| s),
        Err(_) => None,
    };
    expect(first.ok().map(|(_, s)| s) == Some(S1) && second == Some(S1 + 1), "mint step sequence")?;
    expect(slot::crc16(b"123456789") == 0x31C3, "crc16(123456789)")?;
    expect(slot::slot(b"123456789") == 12739, "slot(123456789)")?;
    expect(slot::hashtag(b"foo{{bar}}zap") == b"{bar", "hashtag(foo{{bar}}zap)")?;
    expect(slot::hashtag(b"foo{}{bar}") == b"foo{}{bar}", "hashtag(foo{}{bar})")?;
    let pending = keyspace::key(b"orders", b"pending", None);
    expect(pending.as_ref().map(|k| k.as_bytes() == b"emq:{orders}:pending").unwrap_or(false), "key(orders, pending)")?;
    let lane = keyspace::key(b"orders", b"g:vip:pending", None);
    let lane = lane.as_ref().map(|k| k.as_bytes() == b"emq:{orders}:g:vip:pending").unwrap_or(false);
    expect(lane, "key(orders, g:vip:pending)")?;
    let entry = stream::xadd_id(b"EVT000xY9Wvvcd");
    let entry = entry.as_ref().map(|e| e.as_str() == "1704117200000-1620567").unwrap_or(false);
    expect(entry, "xadd_id(EVT000xY9Wvvcd)")?;
    Ok(())
}
