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
/// The longest queue name, in bytes.
///
/// ```
/// assert!(emq_id::check_queue(&[b'q'; emq_id::MAX_QUEUE_LEN]).is_ok());
/// assert!(emq_id::check_queue(&[b'q'; emq_id::MAX_QUEUE_LEN + 1]).is_err());
/// ```
pub const MAX_QUEUE_LEN: usize = 128;

/// A kind of key in the keyspace: a name and whether it is addressed by a job id.
///
/// ```
/// use emq_id::Kind;
/// assert_eq!(Kind::parse(b"job").unwrap(), Kind::JOB);
/// assert!(Kind::JOB.takes_id() && !Kind::PENDING.takes_id());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kind {
    name: &'static str,
    takes_id: bool,
}

impl Kind {
    /// `emq:{Q}:pending`, the queue's waiting jobs.
    ///
    /// ```
    /// assert_eq!(emq_id::queue_key(b"orders", emq_id::Kind::PENDING).unwrap().as_str(), "emq:{orders}:pending");
    /// ```
    pub const PENDING: Kind = Kind { name: "pending", takes_id: false };
    /// `emq:{Q}:active`, the queue's jobs being worked.
    ///
    /// ```
    /// assert_eq!(emq_id::Kind::ACTIVE.name(), "active");
    /// ```
    pub const ACTIVE: Kind = Kind { name: "active", takes_id: false };
    /// `emq:{Q}:job:<ID>`, one job's record; takes a `JOB` id.
    ///
    /// ```
    /// assert_eq!(emq_id::queue_key(b"orders", emq_id::Kind::JOB).unwrap_err().gate(), emq_id::Gate::Kind);
    /// ```
    pub const JOB: Kind = Kind { name: "job", takes_id: true };

    /// The kinds of `emq-keyspace/1`, kept for its three-argument
    /// [`key`]; every family of keys is in [`Family::ALL`].
    ///
    /// ```
    /// let names: Vec<&str> = emq_id::Kind::ALL.iter().map(|k| k.name()).collect();
    /// assert_eq!(names, ["pending", "active", "job"]);
    /// ```
    pub const ALL: &'static [Kind] = &[Kind::PENDING, Kind::ACTIVE, Kind::JOB];

    /// The kind with this name, or [`Gate::Kind`].
    ///
    /// ```
    /// use emq_id::{Gate, Kind};
    /// assert_eq!(Kind::parse(b"active").unwrap(), Kind::ACTIVE);
    /// assert_eq!(Kind::parse(b"done").unwrap_err().gate(), Gate::Kind);
    /// ```
    pub fn parse(name: &[u8]) -> Result<Kind> {
        Kind::ALL
            .iter()
            .copied()
            .find(|k| k.name.as_bytes() == name)
            .ok_or(Error::new(Gate::Kind, "unknown key kind (known: pending, active, job)"))
    }

    /// The kind's name as it appears in keys.
    ///
    /// ```
    /// assert_eq!(emq_id::Kind::PENDING.name(), "pending");
    /// ```
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Whether keys of this kind end with a job id.
    ///
    /// ```
    /// assert!(emq_id::Kind::JOB.takes_id());
    /// ```
    pub const fn takes_id(&self) -> bool {
        self.takes_id
    }
}

/// The namespace a job key's id must carry.
///
/// ```
/// assert!(emq_id::job_key(b"orders", &emq_id::Id::new(emq_id::JOB_NS, 1).unwrap().to_bytes()).is_ok());
/// ```
pub const JOB_NS: &[u8; 3] = b"JOB";

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
    /// assert_eq!(emq_id::queue_key(b"orders", emq_id::Kind::ACTIVE).unwrap().as_str(), "emq:{orders}:active");
    /// ```
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(self.as_bytes()).expect("keys are ASCII by construction")
    }

    pub(crate) fn new(parts: &[&[u8]]) -> Key {
        let mut k = Key { buf: [0; MAX_KEY_LEN], len: 0 };
        for part in parts {
            let at = k.len as usize;
            k.buf[at..at + part.len()].copy_from_slice(part);
            k.len += part.len() as u16;
        }
        k
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
    if ty == Kind::JOB.name.as_bytes() {
        // emq-keyspace/1: a job key without an id is the empty id (`length`).
        return job_key(queue, id.unwrap_or_default());
    }
    if id.is_some() {
        return Err(Error::new(Gate::Kind, "this kind of key takes no id"));
    }
    Family::of_type(ty)?;
    Ok(Key::new(&[PREFIX, queue, b"}:", ty]))
}

/// The key of an id-less `kind` for `queue` (`emq:{Q}:pending`, `emq:{Q}:active`).
///
/// ```
/// use emq_id::{queue_key, Kind};
/// assert_eq!(queue_key(b"orders", Kind::ACTIVE).unwrap().as_str(), "emq:{orders}:active");
/// ```
pub fn queue_key(queue: &[u8], kind: Kind) -> Result<Key> {
    check_queue(queue)?;
    if kind.takes_id {
        return Err(Error::new(Gate::Kind, "this kind of key needs an id: use job_key"));
    }
    Ok(Key::new(&[PREFIX, queue, b"}:", kind.name.as_bytes()]))
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
    Ok(Key::new(&[PREFIX, queue, b"}:job:", id]))
}

/// `emq:{Q}:job:`, the prefix the bus's scripts append job ids to.
///
/// ```
/// assert_eq!(emq_id::job_prefix(b"orders").unwrap().as_str(), "emq:{orders}:job:");
/// ```
pub fn job_prefix(queue: &[u8]) -> Result<Key> {
    check_queue(queue)?;
    Ok(Key::new(&[PREFIX, queue, b"}:job:"]))
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
    Ok(Key::new(&[RESERVE, name]))
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
