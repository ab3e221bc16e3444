//! [`Id`]: a branded id held as its parts, ordered as its text.

use core::fmt;
use core::str::FromStr;

use crate::codec::{decode, encode, ID_LEN, NS_LEN};
use crate::error::{Error, Result};
use crate::{hash::hash32, snowflake};

/// The length of an id's binary form ([`Id::to_binary`]): the namespace's
/// bytes and the snowflake's eight.
///
/// ```
/// assert_eq!(emq_id::Id::parse(b"USR0KHTOWnGLuC").unwrap().to_binary().len(), emq_id::BINARY_LEN);
/// ```
pub const BINARY_LEN: usize = NS_LEN + 8;

/// A branded id: a namespace of three bytes `A`–`Z` and a snowflake below 2^63.
///
/// Its derived order (namespace, then snowflake) is the byte order of its
/// 14-byte text, because base62 digits are in ASCII order: sorting `Id`s and
/// sorting their texts under a byte collation give the same sequence.
///
/// ```
/// use emq_id::Id;
/// let id: Id = "USR0KHTOWnGLuC".parse().unwrap();
/// assert_eq!(id.ns_str(), "USR");
/// assert_eq!(id.snowflake(), 274557032793636864);
/// assert_eq!(id.to_string(), "USR0KHTOWnGLuC");
/// assert!(id < "USR0NgWEfAEJfs".parse().unwrap());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Id {
    ns: [u8; NS_LEN],
    snowflake: u64,
}

impl Id {
    /// An id from its parts; the same gates as [`encode`](crate::encode).
    ///
    /// ```
    /// use emq_id::{Gate, Id};
    /// assert_eq!(Id::new(b"USR", 274557032793636864).unwrap().to_string(), "USR0KHTOWnGLuC");
    /// assert_eq!(Id::new(b"usr", 0).unwrap_err().gate(), Gate::Range);
    /// ```
    pub fn new(ns: &[u8], snowflake: u64) -> Result<Id> {
        encode(ns, snowflake)?;
        Ok(Id { ns: [ns[0], ns[1], ns[2]], snowflake })
    }

    /// Parses the 14-byte text form; the same gates as [`decode`](crate::decode).
    ///
    /// ```
    /// use emq_id::{Gate, Id};
    /// assert_eq!(Id::parse(b"USR0KHTOWnGLuC").unwrap().snowflake(), 274557032793636864);
    /// assert_eq!(Id::parse(b"USR0KHTOWnGL!C").unwrap_err().gate(), Gate::Charset);
    /// ```
    pub fn parse(text: &[u8]) -> Result<Id> {
        let (ns, snowflake) = decode(text)?;
        Ok(Id { ns, snowflake })
    }

    /// The namespace bytes.
    ///
    /// ```
    /// assert_eq!(emq_id::Id::parse(b"USR0KHTOWnGLuC").unwrap().ns(), *b"USR");
    /// ```
    pub const fn ns(&self) -> [u8; NS_LEN] {
        self.ns
    }

    /// The namespace as text (always ASCII `A`–`Z`).
    ///
    /// ```
    /// assert_eq!(emq_id::Id::parse(b"JOB0KHTOWnGLuC").unwrap().ns_str(), "JOB");
    /// ```
    pub fn ns_str(&self) -> &str {
        core::str::from_utf8(&self.ns).expect("a namespace is ASCII by construction")
    }

    /// The snowflake.
    ///
    /// ```
    /// assert_eq!(emq_id::Id::new(b"USR", 42).unwrap().snowflake(), 42);
    /// ```
    pub const fn snowflake(&self) -> u64 {
        self.snowflake
    }

    /// The 14-byte text form.
    ///
    /// ```
    /// assert_eq!(&emq_id::Id::new(b"USR", 274557032793636864).unwrap().to_bytes(), b"USR0KHTOWnGLuC");
    /// ```
    pub fn to_bytes(&self) -> [u8; ID_LEN] {
        encode(&self.ns, self.snowflake).expect("an Id holds only valid parts")
    }

    /// The binary form: the namespace bytes, then the snowflake as 8 bytes
    /// big-endian (PostgreSQL's `branded_id` on the wire: COPY BINARY, the
    /// binary protocol). Ordered as the text form, byte by byte.
    ///
    /// ```
    /// use emq_id::{Gate, Id};
    /// let id: Id = "USR0KHTOWnGLuC".parse().unwrap();
    /// let wire = id.to_binary();
    /// assert_eq!(&wire[..3], b"USR");
    /// assert_eq!(Id::from_binary(&wire).unwrap(), id);
    /// assert_eq!(Id::from_binary(&wire[..10]).unwrap_err().gate(), Gate::Length);
    /// let mut high = wire;
    /// high[3] |= 0x80; // 2^63 and above is out of range
    /// assert_eq!(Id::from_binary(&high).unwrap_err().gate(), Gate::Range);
    /// ```
    pub fn to_binary(&self) -> [u8; BINARY_LEN] {
        let mut out = [0u8; BINARY_LEN];
        out[..NS_LEN].copy_from_slice(&self.ns);
        out[NS_LEN..].copy_from_slice(&self.snowflake.to_be_bytes());
        out
    }

    /// Reads the binary form from the front of `wire` (a message's unread
    /// bytes: what follows the first [`BINARY_LEN`] bytes is the caller's).
    /// Fewer bytes are `length`; then the gates of [`Id::new`], encode's (a
    /// namespace that is not three letters `A`–`Z` is `range`, SPEC.md §3).
    ///
    /// ```
    /// use emq_id::Id;
    /// let mut wire = b"USR".to_vec();
    /// wire.extend_from_slice(&274557032793636864u64.to_be_bytes());
    /// wire.push(0xFF); // the next field of the message, left to the caller
    /// assert_eq!(Id::from_binary(&wire).unwrap().to_string(), "USR0KHTOWnGLuC");
    /// ```
    pub fn from_binary(wire: &[u8]) -> Result<Id> {
        let Some((ns, value)) = wire.get(..BINARY_LEN).map(|b| b.split_at(NS_LEN)) else {
            return Err(Error::from_gate(
                crate::Gate::Length,
                "a binary branded id is 3 namespace bytes and an 8-byte big-endian snowflake",
            ));
        };
        let mut be = [0u8; 8];
        be.copy_from_slice(value);
        Id::new(ns, u64::from_be_bytes(be))
    }

    /// Unix milliseconds of minting; see [`unix_ms`](crate::unix_ms).
    ///
    /// ```
    /// assert_eq!(emq_id::Id::parse(b"USR0KHTOWnGLuC").unwrap().unix_ms(), 1769526697641);
    /// ```
    pub const fn unix_ms(&self) -> u64 {
        snowflake::unix_ms(self.snowflake)
    }

    /// The minting node; see [`node`](crate::node).
    ///
    /// ```
    /// assert_eq!(emq_id::Id::new(b"USR", emq_id::compose(0, 42, 7).unwrap()).unwrap().node(), 42);
    /// ```
    pub const fn node(&self) -> u16 {
        snowflake::node(self.snowflake)
    }

    /// The sequence within the millisecond; see [`seq`](crate::seq).
    ///
    /// ```
    /// assert_eq!(emq_id::Id::new(b"USR", emq_id::compose(0, 42, 7).unwrap()).unwrap().seq(), 7);
    /// ```
    pub const fn seq(&self) -> u16 {
        snowflake::seq(self.snowflake)
    }

    /// The placement hash of the snowflake; see [`hash32`](crate::hash32).
    ///
    /// ```
    /// let id = emq_id::Id::parse(b"USR0KHTOWnGLuC").unwrap();
    /// assert_eq!(id.hash32(), emq_id::hash32(id.snowflake()));
    /// ```
    pub const fn hash32(&self) -> u32 {
        hash32(self.snowflake)
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = self.to_bytes();
        f.write_str(core::str::from_utf8(&bytes).expect("the text form is ASCII"))
    }
}

impl FromStr for Id {
    type Err = Error;
    fn from_str(s: &str) -> Result<Id> {
        Id::parse(s.as_bytes())
    }
}
