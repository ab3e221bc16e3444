//! The 63-bit snowflake layout: `ts(41) << 22 | node(10) << 12 | seq(12)`.

use crate::error::{Error, Gate, Result};

/// Milliseconds since the Unix epoch of 2024-01-01T00:00:00Z, the snowflake's time zero.
///
/// ```
/// assert_eq!(emq_id::unix_ms(0), emq_id::EPOCH_MS);
/// ```
pub const EPOCH_MS: u64 = 1_704_067_200_000;
/// The largest time field: 41 bits of milliseconds since [`EPOCH_MS`] (about 69 years).
///
/// ```
/// assert_eq!(emq_id::compose(emq_id::MAX_TS, 0, 0).unwrap() >> 22, emq_id::MAX_TS);
/// ```
pub const MAX_TS: u64 = (1 << 41) - 1;
/// The largest node number (10 bits).
///
/// ```
/// assert!(emq_id::Minter::new(emq_id::MAX_NODE + 1).is_err());
/// ```
pub const MAX_NODE: u16 = 1023;
/// The largest sequence number within one millisecond (12 bits).
///
/// ```
/// assert_eq!(emq_id::seq(u64::MAX), emq_id::MAX_SEQ);
/// ```
pub const MAX_SEQ: u16 = 4095;
/// The largest snowflake, `2^63 − 1`.
///
/// ```
/// assert!(emq_id::encode(b"USR", emq_id::MAX_SNOWFLAKE).is_ok());
/// ```
pub const MAX_SNOWFLAKE: u64 = i64::MAX as u64;

/// The sequence's width: also the shift of a mint state's time
/// (`state = ts << SEQ_BITS | seq`, the snowflake without its node).
pub(crate) const SEQ_BITS: u32 = 12;
pub(crate) const NODE_SHIFT: u32 = SEQ_BITS;
pub(crate) const TS_SHIFT: u32 = NODE_SHIFT + 10;

/// The Unix time in milliseconds at which `snowflake` was minted.
///
/// Total over `u64`: only the top bits are read, so a value past `2^63`
/// still answers (it is the caller's gate, not this function's).
///
/// ```
/// assert_eq!(emq_id::unix_ms(274557032793636864), 1769526697641);
/// ```
#[inline]
pub const fn unix_ms(snowflake: u64) -> u64 {
    (snowflake >> TS_SHIFT) + EPOCH_MS
}

/// The node (0–1023) that minted `snowflake`.
///
/// ```
/// assert_eq!(emq_id::node(emq_id::compose(1, 1023, 4095).unwrap()), 1023);
/// ```
#[inline]
pub const fn node(snowflake: u64) -> u16 {
    ((snowflake >> NODE_SHIFT) & MAX_NODE as u64) as u16
}

/// The sequence number (0–4095) of `snowflake` within its millisecond.
///
/// ```
/// assert_eq!(emq_id::seq(emq_id::compose(1, 1023, 17).unwrap()), 17);
/// ```
#[inline]
pub const fn seq(snowflake: u64) -> u16 {
    (snowflake & MAX_SEQ as u64) as u16
}

/// Assembles a snowflake from its fields, refusing any field too wide for its bits.
///
/// ```
/// let s = emq_id::compose(65_459_497_641, 0, 0).unwrap();
/// assert_eq!(s, 274557032793636864);
/// assert_eq!(emq_id::compose(1 << 41, 0, 0).unwrap_err().gate(), emq_id::Gate::Range);
/// ```
pub const fn compose(ts: u64, node: u16, seq: u16) -> Result<u64> {
    if ts > MAX_TS {
        return Err(Error::new(Gate::Range, "the time field is wider than 41 bits"));
    }
    if node > MAX_NODE {
        return Err(Error::new(Gate::Range, "the node is outside 0..=1023"));
    }
    if seq > MAX_SEQ {
        return Err(Error::new(Gate::Range, "the sequence is outside 0..=4095"));
    }
    Ok(ts << TS_SHIFT | (node as u64) << NODE_SHIFT | seq as u64)
}

/// The smallest snowflake minted at or after the Unix instant `unix_ms`:
/// the lower bound of a time-range scan.
///
/// An instant before [`EPOCH_MS`] answers `0` (every snowflake is at or after
/// it). An instant whose time field would not fit 41 bits has no such
/// snowflake and is refused with [`Gate::Range`].
///
/// ```
/// assert_eq!(emq_id::min_for(1769526697641).unwrap(), 274557032793636864);
/// assert_eq!(emq_id::min_for(0).unwrap(), 0);
/// ```
pub const fn min_for(unix_ms: i64) -> Result<u64> {
    let ts = ts_since_epoch(unix_ms);
    if ts > MAX_TS {
        return Err(Error::new(Gate::Range, "the instant is past the 41-bit time limit"));
    }
    Ok(ts << TS_SHIFT)
}

/// Milliseconds since [`EPOCH_MS`], reading any instant before it as the epoch.
#[inline]
pub(crate) const fn ts_since_epoch(unix_ms: i64) -> u64 {
    if unix_ms <= EPOCH_MS as i64 {
        0
    } else {
        (unix_ms as u64) - EPOCH_MS
    }
}
