//! The `emq-keyspace/2` key builders: every key of a queue is born with the
//! queue name braced, so all of a queue's keys hash to `slot(queue)` and a
//! queue's multi-key scripts never cross slots. The families of keys are
//! the table in `family.rs`; this file builds, parses and measures keys.

use core::fmt;

use crate::error::{Error, Gate, Result};
use crate::family::{check_job_id, is_word, Family, Param, MAX_NAME_LEN};

/// The keyspace's version tag, as written in the vector file.
///
/// ```
/// assert_eq!(emq_id::KEYSPACE, "emq-keyspace/2");
/// ```
pub const KEYSPACE: &str = "emq-keyspace/2";
/// The longest queue name, in bytes: a queue name is checked as every name
/// of the family table is ([`MAX_NAME_LEN`]), so the two are one bound, and
/// the key buffer ([`MAX_KEY_LEN`]) is sized from it.
///
/// ```
/// assert!(emq_id::check_queue(&[b'q'; emq_id::MAX_QUEUE_LEN]).is_ok());
/// assert!(emq_id::check_queue(&[b'q'; emq_id::MAX_QUEUE_LEN + 1]).is_err());
/// ```
pub const MAX_QUEUE_LEN: usize = MAX_NAME_LEN;

/// The type whose keys carry a job id (`emq:{Q}:job:<id>`), which `key`
/// builds from its `emq-keyspace/1` form.
const JOB_TYPE: &[u8] = b"job";

const PREFIX: &[u8] = b"emq:{";
pub(crate) const RESERVE: &[u8] = b"{emq}:";

/// The reserve's version fence, `{emq}:version`.
///
/// ```
/// assert_eq!(emq_id::slot(emq_id::VERSION_KEY.as_bytes()), emq_id::slot(b"emq"));
/// ```
pub const VERSION_KEY: &str = "{emq}:version";
/// What the bus stores at [`VERSION_KEY`].
///
/// ```
/// assert!(emq_id::BUS_VERSION.starts_with("echomq:2."));
/// ```
pub const BUS_VERSION: &str = "echomq:2.0.0";

/// Longest key: `emq:{` + queue + `}:` + the longest type of any family.
///
/// ```
/// // The longest queue, with the longest type: a stream's archive of the longest name.
/// let name = [b'n'; emq_id::MAX_NAME_LEN];
/// let ty = [&b"stream:"[..], &name, b":archived"].concat();
/// let key = emq_id::key(&[b'q'; emq_id::MAX_QUEUE_LEN], &ty, None).unwrap();
/// assert_eq!(key.as_bytes().len(), emq_id::MAX_KEY_LEN);
/// ```
pub const MAX_KEY_LEN: usize = PREFIX.len() + MAX_QUEUE_LEN + 2 + longest_type();

const fn longest_type() -> usize {
    let mut longest = 0;
    let mut i = 0;
    while i < Family::ALL.len() {
        let f = Family::ALL[i];
        let param = match f.param() {
            Param::None => 0,
            Param::Name => MAX_NAME_LEN,
            Param::JobId => crate::codec::ID_LEN,
        };
        let len = f.head().len() + param + f.tail().len();
        if len > longest {
            longest = len;
        }
        i += 1;
    }
    longest
}

/// A built key, held inline (no allocation); ASCII by construction.
///
/// ```
/// let key = emq_id::reserve(b"locks").unwrap();
/// assert_eq!(format!("{key} {key:?}"), "{emq}:locks \"{emq}:locks\"");
/// assert_eq!(emq_id::slot(key.as_ref()), emq_id::slot(b"emq"));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    buf: [u8; MAX_KEY_LEN],
    len: u16,
}

impl Key {
    /// The key's bytes.
    ///
    /// ```
    /// assert_eq!(emq_id::job_prefix(b"orders").unwrap().as_bytes(), b"emq:{orders}:job:");
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len as usize]
    }

    /// The key as text.
    ///
    /// ```
    /// assert_eq!(emq_id::queue_key(b"orders", b"active").unwrap().as_str(), "emq:{orders}:active");
    /// ```
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(self.as_bytes()).expect("keys are ASCII by construction")
    }

    /// No key: what [`Key::new`]'s callers with fixed parts answer for a
    /// refusal their parts cannot meet.
    pub(crate) const EMPTY: Key = Key { buf: [0; MAX_KEY_LEN], len: 0 };

    /// The key of `parts`, one after another. One longer than [`MAX_KEY_LEN`]
    /// is refused (`queue`) rather than written past the buffer: every
    /// builder's parts fit by the limits above, and should a limit drift from
    /// the buffer's size, a caller gets an error, never a panic.
    pub(crate) fn new(parts: &[&[u8]]) -> Result<Key> {
        let mut k = Key::EMPTY;
        for part in parts {
            let at = k.len as usize;
            let Some(room) = k.buf.get_mut(at..at + part.len()) else {
                return Err(Error::new(Gate::Queue, "a key is at most MAX_KEY_LEN bytes"));
            };
            room.copy_from_slice(part);
            k.len += part.len() as u16;
        }
        Ok(k)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl AsRef<[u8]> for Key {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// Checks a queue name: 1–128 bytes of `[A-Za-z0-9_.:-]`, so no brace can
/// ever reach a key. The error is [`Gate::Queue`].
///
/// ```
/// assert!(emq_id::check_queue(b"payments:eu-1").is_ok());
/// assert_eq!(emq_id::check_queue(b"").unwrap_err().gate(), emq_id::Gate::Queue);
/// ```
pub fn check_queue(queue: &[u8]) -> Result<()> {
    if is_word(queue, true) {
        Ok(())
    } else {
        Err(Error::new(Gate::Queue, "a queue name is 1-128 bytes of [A-Za-z0-9_.:-]"))
    }
}

/// Builds a key of `queue` from its type, written as the bus writes it
/// (`"pending"`, `"g:vip:pending"`, `"job:JOB0KHTOWnGLuC:lock"`): errors in
/// the order queue ([`Gate::Queue`]), then the type (see [`Family::of_type`]).
///
/// The `emq-keyspace/1` form is kept for its callers: `key(q, b"job", Some(id))`
/// is `job_key(q, id)`, and an id given with any other type is [`Gate::Kind`].
///
/// ```
/// use emq_id::{key, Gate};
/// assert_eq!(key(b"orders", b"pending", None).unwrap().as_str(), "emq:{orders}:pending");
/// assert_eq!(key(b"orders", b"g:vip:pending", None).unwrap().as_str(), "emq:{orders}:g:vip:pending");
/// assert_eq!(
///     key(b"orders", b"job:JOB0KHTOWnGLuC:lock", None).unwrap().as_str(),
///     "emq:{orders}:job:JOB0KHTOWnGLuC:lock"
/// );
/// assert_eq!(
///     key(b"orders", b"job", Some(b"JOB0KHTOWnGLuC")).unwrap().as_str(),
///     "emq:{orders}:job:JOB0KHTOWnGLuC"
/// );
/// assert_eq!(key(b"a{b}", b"pending", None).unwrap_err().gate(), Gate::Queue);
/// assert_eq!(key(b"orders", b"done", None).unwrap_err().gate(), Gate::Kind);
/// assert_eq!(key(b"orders", b"job", Some(b"USR0KHTOWnGLuC")).unwrap_err().gate(), Gate::Kind);
/// ```
pub fn key(queue: &[u8], ty: &[u8], id: Option<&[u8]>) -> Result<Key> {
    check_queue(queue)?;
    if ty == JOB_TYPE {
        // emq-keyspace/1: a job key without an id is the empty id (`length`).
        return job_key(queue, id.unwrap_or_default());
    }
    if id.is_some() {
        return Err(Error::new(Gate::Kind, "this kind of key takes no id"));
    }
    Family::of_type(ty)?;
    Key::new(&[PREFIX, queue, b"}:", ty])
}

/// The key of a type that takes no id, for `queue` (`emq:{Q}:pending`,
/// `emq:{Q}:g:vip:pending`): [`key`] without an id, under the name every
/// binding gives it.
///
/// ```
/// use emq_id::{queue_key, Gate};
/// assert_eq!(queue_key(b"orders", b"active").unwrap().as_str(), "emq:{orders}:active");
/// assert_eq!(queue_key(b"orders", b"done").unwrap_err().gate(), Gate::Kind);
/// ```
pub fn queue_key(queue: &[u8], ty: &[u8]) -> Result<Key> {
    key(queue, ty, None)
}

/// The key of one job, `emq:{Q}:job:<ID>`; `id` must be a valid `JOB` id
/// (its gate, or [`Gate::Kind`] for another namespace).
///
/// ```
/// assert_eq!(
///     emq_id::job_key(b"orders", b"JOB0KHTOWnGLuC").unwrap().as_str(),
///     "emq:{orders}:job:JOB0KHTOWnGLuC"
/// );
/// ```
pub fn job_key(queue: &[u8], id: &[u8]) -> Result<Key> {
    check_queue(queue)?;
    check_job_id(id)?;
    Key::new(&[PREFIX, queue, b"}:job:", id])
}

/// `emq:{Q}:`, the prefix every key of a queue starts with: the bus passes it
/// to its Lua scripts, which append a type (`pending`, `job:<id>`, …) to it.
///
/// ```
/// use emq_id::{queue_prefix, Gate};
/// assert_eq!(queue_prefix(b"orders").unwrap().as_str(), "emq:{orders}:");
/// assert_eq!(queue_prefix(b"").unwrap_err().gate(), Gate::Queue);
/// ```
pub fn queue_prefix(queue: &[u8]) -> Result<Key> {
    check_queue(queue)?;
    Key::new(&[PREFIX, queue, b"}:"])
}

/// `emq:{Q}:job:`, the prefix the bus's scripts append job ids to.
///
/// ```
/// assert_eq!(emq_id::job_prefix(b"orders").unwrap().as_str(), "emq:{orders}:job:");
/// ```
pub fn job_prefix(queue: &[u8]) -> Result<Key> {
    check_queue(queue)?;
    Key::new(&[PREFIX, queue, b"}:job:"])
}

/// The bytes a family's keys spend before their parameter: `emq:{Q}:` and
/// the family's head (`"job:"`, `"g:"`, `"stream:"`, …), or the whole key for
/// a fixed type (`"pending"`). Another type is [`Gate::Kind`].
///
/// ```
/// assert_eq!(emq_id::prefix_bytes(b"orders", b"job:").unwrap(), 17);
/// assert_eq!(emq_id::prefix_bytes(b"orders", b"pending").unwrap(), 20);
/// ```
pub fn prefix_bytes(queue: &[u8], ty: &[u8]) -> Result<usize> {
    check_queue(queue)?;
    // A family's head: a parameterised family's (`job:`) or a fixed family's whole type.
    if !Family::ALL.iter().any(|f| f.head().as_bytes() == ty) {
        return Err(Error::new(Gate::Kind, "not a family's head (job:, g:, de:, repeat:, stream:) or a fixed type"));
    }
    Ok(PREFIX.len() + queue.len() + 2 + ty.len())
}

/// A cross-queue key of the reserve, `{emq}:<name>`: its own hash tag
/// (`emq`), one slot, and disjoint from every queue key by its first byte.
/// The name is 1–128 bytes of `[A-Za-z0-9_.:-]`, else [`Gate::Kind`].
///
/// ```
/// assert_eq!(emq_id::reserve(b"locks").unwrap().as_str(), "{emq}:locks");
/// assert_eq!(emq_id::reserve(b"version").unwrap().as_str(), emq_id::VERSION_KEY);
/// ```
pub fn reserve(name: &[u8]) -> Result<Key> {
    if !is_word(name, true) {
        return Err(Error::new(Gate::Kind, "a reserve name is 1-128 bytes of [A-Za-z0-9_.:-]"));
    }
    Key::new(&[RESERVE, name])
}

/// A queue key read back: its queue, family and parameter.
///
/// ```
/// use emq_id::{parse_key, Family};
/// let parsed = parse_key(b"emq:{orders}:g:vip:pending").unwrap();
/// assert_eq!(parsed.queue, b"orders");
/// assert_eq!(parsed.family, Family::of_type(b"g:x:pending").unwrap().0);
/// assert_eq!(parsed.param, Some(&b"vip"[..]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedKey<'a> {
    /// The queue, the key's hash tag.
    pub queue: &'a [u8],
    /// The family of the key's type.
    pub family: Family,
    /// The family's parameter (a name or a job id), when it takes one.
    pub param: Option<&'a [u8]>,
}

/// Reads a queue key back: the exact inverse of [`key`], refusing anything
/// the keyspace cannot build. A key that is not `emq:{Q}:<type>` with a valid
/// queue is [`Gate::Queue`]; its type is checked as [`key`] checks it.
///
/// ```
/// let k = emq_id::parse_key(b"emq:{orders}:job:JOB0KHTOWnGLuC:lock").unwrap();
/// assert_eq!((k.queue, k.param), (&b"orders"[..], Some(&b"JOB0KHTOWnGLuC"[..])));
/// assert_eq!(k.family.pattern().to_string(), "job:<id>:lock");
/// assert_eq!(emq_id::parse_key(b"{emq}:version").unwrap_err().gate(), emq_id::Gate::Queue);
/// ```
pub fn parse_key(key: &[u8]) -> Result<ParsedKey<'_>> {
    let not_a_queue_key = Error::new(Gate::Queue, "not a queue key: emq:{<queue>}:<type>");
    let rest = key.strip_prefix(PREFIX).ok_or(not_a_queue_key)?;
    let close = rest.iter().position(|&b| b == b'}').ok_or(not_a_queue_key)?;
    let (queue, rest) = (&rest[..close], &rest[close + 1..]);
    check_queue(queue)?;
    let ty = rest.strip_prefix(b":").ok_or(not_a_queue_key)?;
    let (family, param) = Family::of_type(ty)?;
    Ok(ParsedKey { queue, family, param })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_past_the_buffer_is_refused_not_a_panic() {
        let long = [b'q'; MAX_KEY_LEN];
        assert_eq!(Key::new(&[&long]).unwrap().as_bytes().len(), MAX_KEY_LEN);
        assert_eq!(Key::new(&[&long, b"x"]).unwrap_err().gate(), Gate::Queue);
        // The longest queue fits with the longest type: the limits are one bound.
        assert_eq!(MAX_QUEUE_LEN, MAX_NAME_LEN);
        assert!(key(&[b'q'; MAX_QUEUE_LEN], b"pending", None).is_ok());
    }
}
