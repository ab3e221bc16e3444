//! Valkey stream entry ids from branded `EVT` ids: `<unix_ms>-<tail22>`,
//! where `tail22` is the snowflake's node and sequence (its low 22 bits).
//! For ids of one namespace, text order = snowflake order = entry-id order,
//! so a stream written in mint order never refuses an `XADD`.

use core::fmt;

use crate::codec::decode;
use crate::error::{Error, Gate, Result};
use crate::id::Id;
use crate::snowflake::{unix_ms, EPOCH_MS, MAX_TS, TS_SHIFT};

/// The namespace of the bus's event ids, whose entry ids streams carry.
///
/// ```
/// let id = emq_id::Id::new(emq_id::EVENT_NS, 274557032793636864).unwrap();
/// assert!(emq_id::xadd_id(&id.to_bytes()).is_ok());
/// ```
pub const EVENT_NS: &[u8; 3] = b"EVT";

const TAIL_MASK: u64 = (1 << TS_SHIFT) - 1;
const LEN: usize = 24;

/// The longest entry id: 13 digits of Unix ms, `-`, 7 digits of tail.
///
/// ```
/// let last = emq_id::Id::new(emq_id::EVENT_NS, emq_id::MAX_SNOWFLAKE).unwrap();
/// assert_eq!(emq_id::xadd_id(&last.to_bytes()).unwrap().as_str().len(), emq_id::MAX_ENTRY_ID_LEN);
/// ```
pub const MAX_ENTRY_ID_LEN: usize = 21;
const _: () = assert!(MAX_ENTRY_ID_LEN <= LEN);

/// A stream entry id, held inline: `<unix_ms>-<tail22>`.
///
/// ```
/// let entry = emq_id::xadd_id(b"EVT000xY9Wvvcd").unwrap();
/// assert_eq!(format!("{entry} {entry:?}"), "1704117200000-1620567 \"1704117200000-1620567\"");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntryId {
    buf: [u8; LEN],
    len: u8,
}

impl EntryId {
    /// The entry id's text.
    ///
    /// ```
    /// let entry = emq_id::xadd_id(b"EVT0KHTOWnGLuC").unwrap();
    /// assert_eq!(entry.as_str(), "1769526697641-0");
    /// ```
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.len as usize]).expect("entry ids are ASCII digits and '-'")
    }
}

impl fmt::Display for EntryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for EntryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// The stream entry id of an `EVT` id: the id's gates, then [`Gate::Kind`]
/// for another namespace.
///
/// ```
/// assert_eq!(emq_id::xadd_id(b"EVT000xY9Wvvcd").unwrap().as_str(), "1704117200000-1620567");
/// assert_eq!(emq_id::xadd_id(b"ORD000xY9Wvvcd").unwrap_err().gate(), emq_id::Gate::Kind);
/// ```
pub fn xadd_id(id: &[u8]) -> Result<EntryId> {
    let (ns, snowflake) = decode(id)?;
    if &ns != EVENT_NS {
        return Err(Error::new(Gate::Kind, "a stream entry id is made from an EVT id"));
    }
    let mut out = EntryId { buf: [0; LEN], len: 0 };
    push_decimal(&mut out, unix_ms(snowflake));
    out.buf[out.len as usize] = b'-';
    out.len += 1;
    push_decimal(&mut out, snowflake & TAIL_MASK);
    Ok(out)
}

fn push_decimal(out: &mut EntryId, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let at = out.len as usize;
    out.buf[at..at + digits.len() - i].copy_from_slice(&digits[i..]);
    out.len += (digits.len() - i) as u8;
}

/// The id of namespace `ns` behind a stream entry id: the inverse of
/// [`xadd_id`], so it reads entry ids in their canonical form only: parts that
/// are not decimal digits without leading zeros (or no `-` between them) are
/// [`Gate::Charset`]; a time or tail that no snowflake has (before the
/// epoch, past the 41-bit limit, a tail of 2^22 or more) is [`Gate::Range`];
/// `ns` is checked as [`encode`](crate::encode) checks it.
///
/// ```
/// let id = emq_id::from_xadd_id(b"1704117200000-1620567", b"EVT").unwrap();
/// assert_eq!(id.to_string(), "EVT000xY9Wvvcd");
/// assert_eq!(emq_id::from_xadd_id(b"1704117200000-x", b"EVT").unwrap_err().gate(), emq_id::Gate::Charset);
/// assert_eq!(emq_id::from_xadd_id(b"5-0", b"EVT").unwrap_err().gate(), emq_id::Gate::Range);
/// ```
pub fn from_xadd_id(entry: &[u8], ns: &[u8]) -> Result<Id> {
    let dash = entry.iter().position(|&b| b == b'-');
    let (ms, tail) = match dash {
        Some(at) => (decimal(&entry[..at])?, decimal(&entry[at + 1..])?),
        None => return Err(Error::new(Gate::Charset, "a stream entry id is <unix_ms>-<sequence>, both decimal")),
    };
    let out_of_range = Error::new(Gate::Range, "no snowflake has this time or tail");
    let (Some(ms), Some(tail)) = (ms, tail) else { return Err(out_of_range) };
    if ms < EPOCH_MS || ms - EPOCH_MS > MAX_TS || tail > TAIL_MASK {
        return Err(out_of_range);
    }
    Id::new(ns, (ms - EPOCH_MS) << TS_SHIFT | tail)
}

/// A canonical decimal (digits, no leading zero but `0` itself): its value,
/// or `None` past `u64`.
fn decimal(digits: &[u8]) -> Result<Option<u64>> {
    let canonical =
        !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) && (digits[0] != b'0' || digits.len() == 1);
    if !canonical {
        return Err(Error::new(Gate::Charset, "a stream entry id is <unix_ms>-<sequence>, both decimal"));
    }
    Ok(digits.iter().try_fold(0u64, |n, &d| n.checked_mul(10)?.checked_add((d - b'0') as u64)))
}
