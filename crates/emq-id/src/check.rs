//! `self_check`: the contract's own vectors, run against this build, and the
//! same vectors as text for every binding to run through its host's API.

use core::fmt;

use crate::{codec, hash, keyspace, mint, slot, snowflake, stream};

/// The contract's self-check vectors, one check per line: an operation, its
/// inputs, then its answers, separated by single spaces (`-` is "none"). A
/// binding runs every line through its *public* API at load — its own string,
/// integer and error conversions included — and refuses to load on the first
/// line it answers differently (see SPEC.md §8). Lines:
///
/// - `decode <id> <ns> <snowflake> <unix_ms> <node> <seq> <hash32>`
/// - `encode <ns> <snowflake> <id>`
/// - `reject <input> <gate>`: decoding `<input>` is refused by `<gate>`
/// - `encode_reject <ns> <snowflake> <gate>`
/// - `min_for <unix_ms> <snowflake>`
/// - `mint <node> <now_ms> <now_ms> <snowflake> <snowflake>`: a new minter's
///   first two ids at two clock readings (the second one earlier)
/// - `slot <key> <slot>` and `hashtag <key> <tag>`
/// - `key <queue> <type> <id or -> <key>` and `key_reject <queue> <type> <id or -> <gate>`
/// - `xadd_id <id> <entry id>`
///
/// Every token is printable ASCII without spaces, so any host splits them
/// with its standard library. The mint line's clock readings are in unix ms.
///
/// ```
/// assert!(emq_id::SELF_CHECK_VECTORS.lines().any(|l| l.starts_with("decode USR0KHTOWnGLuC ")));
/// ```
pub const SELF_CHECK_VECTORS: &str = "\
decode USR0KHTOWnGLuC USR 274557032793636864 1769526697641 0 0 234878118
decode USR0NgWEfAEJfs USR 320636799581945856 1780512970164 0 0 3694611501
decode ZZZAzL8n0Y58m7 ZZZ 9223372036854775807 3903090455551 1023 4095 2186628710
encode USR 274557032793636864 USR0KHTOWnGLuC
encode MAX 9223372036854775807 MAXAzL8n0Y58m7
reject USRzzzzzzzzzzz range
reject usr0KHTOWnGLuC namespace
reject USR0KHTOWnGLu length
reject USR0KHTOWnGL!C charset
encode_reject USR 9223372036854775808 range
min_for 1769526697641 274557032793636864
mint 0 1769526697641 1769526697000 274557032793636864 274557032793636865
slot 123456789 12739
slot {fills} 4165
slot emq:{payments}:pending 8507
hashtag foo{{bar}}zap {bar
hashtag foo{}{bar} foo{}{bar}
key orders pending - emq:{orders}:pending
key orders g:vip:pending - emq:{orders}:g:vip:pending
key orders job JOB0Nb1VTbfnu4 emq:{orders}:job:JOB0Nb1VTbfnu4
key_reject ord{e}rs pending - queue
key_reject orders nope - kind
xadd_id EVT000xY9Wvvcd 1704117200000-1620567
";

/// The first contract vector this build disagrees with.
///
/// ```
/// let mismatch = emq_id::Mismatch { check: "crc16(123456789) = 0x31C3" };
/// assert!(mismatch.to_string().contains("crc16(123456789) = 0x31C3"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Which check failed: a line of [`SELF_CHECK_VECTORS`], or the name of
    /// one of the checks made in Rust only (CRC16's check value).
    pub check: &'static str,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "emq-id self-check failed: {} disagrees with branded-snowflake/1.0.0", self.check)
    }
}

impl core::error::Error for Mismatch {}

/// Checks this build against the contract's own vectors: every line of
/// [`SELF_CHECK_VECTORS`] through this crate's API, and CRC16's check value.
/// Bindings run the same lines through their own API at load, so a
/// miscompiled or mislinked library — or a binding whose conversions drift —
/// refuses to run instead of minting ids that other runtimes read differently.
///
/// ```
/// emq_id::self_check().unwrap();
/// ```
pub fn self_check() -> Result<(), Mismatch> {
    if slot::crc16(b"123456789") != 0x31C3 {
        return Err(Mismatch { check: "crc16(123456789) = 0x31C3" });
    }
    match SELF_CHECK_VECTORS.lines().find(|line| !holds(line)) {
        Some(line) => Err(Mismatch { check: line }),
        None => Ok(()),
    }
}

/// Whether this crate answers one line of the self-check vectors as written.
fn holds(line: &str) -> bool {
    let mut words = line.split(' ');
    let op = words.next().unwrap_or("");
    let mut w = [""; 7];
    for slot in w.iter_mut() {
        *slot = words.next().unwrap_or("");
    }
    let int = |s: &str| s.parse::<u64>().ok();
    let refused_as_written = |r: crate::Result<()>| r.err().is_some_and(|e| e.gate().name() == w_last(line));
    match op {
        "decode" => match codec::decode(w[0].as_bytes()) {
            Ok((ns, s)) => {
                ns == w[1].as_bytes()
                    && Some(s) == int(w[2])
                    && Some(snowflake::unix_ms(s)) == int(w[3])
                    && Some(u64::from(snowflake::node(s))) == int(w[4])
                    && Some(u64::from(snowflake::seq(s))) == int(w[5])
                    && Some(u64::from(hash::hash32(s))) == int(w[6])
            }
            Err(_) => false,
        },
        "encode" => {
            int(w[1]).and_then(|s| codec::encode(w[0].as_bytes(), s).ok()).is_some_and(|t| t == w[2].as_bytes())
        }
        "reject" => refused_as_written(codec::decode(w[0].as_bytes()).map(drop)),
        "encode_reject" => int(w[1]).is_some_and(|s| refused_as_written(codec::encode(w[0].as_bytes(), s).map(drop))),
        "min_for" => {
            let ms = w[0].parse::<i64>().ok();
            ms.and_then(|ms| snowflake::min_for(ms).ok()).is_some_and(|s| Some(s) == int(w[1]))
        }
        "mint" => {
            let (node, t1, t2) = (w[0].parse::<u16>(), w[1].parse::<i64>(), w[2].parse::<i64>());
            let (Ok(node), Ok(t1), Ok(t2)) = (node, t1, t2) else { return false };
            let first = mint::step(0, node, t1);
            let second = first.and_then(|(state, _)| mint::step(state, node, t2));
            first.ok().map(|f| f.1) == int(w[3]) && second.ok().map(|s| s.1) == int(w[4])
        }
        "slot" => Some(u64::from(slot::slot(w[0].as_bytes()))) == int(w[1]),
        "hashtag" => slot::hashtag(w[0].as_bytes()) == w[1].as_bytes(),
        "key" | "key_reject" => {
            let id = (w[2] != "-").then(|| w[2].as_bytes());
            let built = keyspace::key(w[0].as_bytes(), w[1].as_bytes(), id);
            match (op, built) {
                ("key", Ok(key)) => key.as_bytes() == w[3].as_bytes(),
                ("key_reject", Err(e)) => e.gate().name() == w[3],
                _ => false,
            }
        }
        "xadd_id" => stream::xadd_id(w[0].as_bytes()).is_ok_and(|e| e.as_str() == w[1]),
        _ => false,
    }
}

/// The last word of a line: the gate a `reject` line expects.
fn w_last(line: &str) -> &str {
    line.rsplit(' ').next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Gate;

    #[test]
    fn every_line_holds_and_every_gate_of_an_input_is_named() {
        assert_eq!(self_check(), Ok(()));
        for line in SELF_CHECK_VECTORS.lines() {
            assert!(line.split(' ').all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_graphic())), "{line}");
        }
        let named: Vec<&str> = SELF_CHECK_VECTORS.lines().filter(|l| l.contains("reject")).map(w_last).collect();
        for gate in [Gate::Length, Gate::Namespace, Gate::Charset, Gate::Range, Gate::Queue, Gate::Kind] {
            assert!(named.contains(&gate.name()), "no self-check line for gate {gate}");
        }
    }

    #[test]
    fn a_wrong_answer_is_named() {
        assert!(!holds("slot {fills} 4166"));
        assert!(!holds("decode USR0KHTOWnGLuC USR 274557032793636864 1769526697641 0 1 234878118"));
        assert!(!holds("reject USRzzzzzzzzzzz length"));
        assert!(!holds("nonsense 1 2"));
    }
}
