//! The `emq-keyspace/1` key builders: every key of a queue is born with the
//! queue name braced, so all of a queue's keys hash to `slot(queue)` and a
//! queue's multi-key scripts never cross slots.

use core::fmt;

use crate::codec::{decode, ID_LEN};
use crate::error::{Error, Gate, Result};

/// The keyspace's version tag, as written in the vector file.
pub const KEYSPACE: &str = "emq-keyspace/1";
/// The longest queue name, in bytes.
pub const MAX_QUEUE_LEN: usize = 128;

/// A kind of key in the keyspace: a name and whether it is addressed by a job id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kind {
    name: &'static str,
    takes_id: bool,
}

impl Kind {
    /// `emq:{Q}:pending`, the queue's waiting jobs.
    pub const PENDING: Kind = Kind { name: "pending", takes_id: false };
    /// `emq:{Q}:active`, the queue's jobs being worked.
    pub const ACTIVE: Kind = Kind { name: "active", takes_id: false };
    /// `emq:{Q}:job:<ID>`, one job's record; takes a `JOB` id.
    pub const JOB: Kind = Kind { name: "job", takes_id: true };

    /// Every kind the keyspace knows. Adding a kind is adding a row here.
    pub const ALL: &'static [Kind] = &[Kind::PENDING, Kind::ACTIVE, Kind::JOB];

    /// The kind with this name, or [`Gate::Kind`].
    pub fn parse(name: &[u8]) -> Result<Kind> {
        Kind::ALL
            .iter()
            .copied()
            .find(|k| k.name.as_bytes() == name)
            .ok_or(Error::new(Gate::Kind, "unknown key kind (known: pending, active, job)"))
    }

    /// The kind's name as it appears in keys.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Whether keys of this kind end with a job id.
    pub const fn takes_id(&self) -> bool {
        self.takes_id
    }
}

/// The namespace a job key's id must carry.
pub const JOB_NS: &[u8; 3] = b"JOB";

const PREFIX: &[u8] = b"emq:{";
/// Longest key: `emq:{` + queue + `}:` + longest kind name + `:` + id.
pub const MAX_KEY_LEN: usize = PREFIX.len() + MAX_QUEUE_LEN + 2 + longest_kind_name() + 1 + ID_LEN;

const fn longest_kind_name() -> usize {
    let mut longest = 0;
    let mut i = 0;
    while i < Kind::ALL.len() {
        if Kind::ALL[i].name.len() > longest {
            longest = Kind::ALL[i].name.len();
        }
        i += 1;
    }
    longest
}

/// A built key, held inline (no allocation); ASCII by construction.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    buf: [u8; MAX_KEY_LEN],
    len: u8,
}

impl Key {
    /// The key's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len as usize]
    }

    /// The key as text.
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(self.as_bytes()).expect("keys are ASCII by construction")
    }

    fn push(&mut self, bytes: &[u8]) {
        let at = self.len as usize;
        self.buf[at..at + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len() as u8;
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
pub fn check_queue(queue: &[u8]) -> Result<()> {
    let ok = !queue.is_empty()
        && queue.len() <= MAX_QUEUE_LEN
        && queue.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(Error::new(Gate::Queue, "a queue name is 1-128 bytes of [A-Za-z0-9_.:-]"))
    }
}

/// Builds the key of `kind` (by name) for `queue`, with `id` for kinds that
/// take one. Errors are checked in the order queue, kind, id:
/// [`Gate::Queue`]; [`Gate::Kind`] for an unknown kind or an id given to a
/// kind that takes none; then the id's own gate (a missing id is the empty
/// text, so [`Gate::Length`]), and [`Gate::Namespace`] for an id whose
/// namespace is not `JOB`.
///
/// ```
/// use emq_id::{key, Gate};
/// assert_eq!(key(b"orders", b"pending", None).unwrap().as_str(), "emq:{orders}:pending");
/// assert_eq!(
///     key(b"orders", b"job", Some(b"JOB0KHTOWnGLuC")).unwrap().as_str(),
///     "emq:{orders}:job:JOB0KHTOWnGLuC"
/// );
/// assert_eq!(key(b"a{b}", b"pending", None).unwrap_err().gate(), Gate::Queue);
/// assert_eq!(key(b"orders", b"done", None).unwrap_err().gate(), Gate::Kind);
/// assert_eq!(key(b"orders", b"job", Some(b"USR0KHTOWnGLuC")).unwrap_err().gate(), Gate::Namespace);
/// ```
pub fn key(queue: &[u8], kind: &[u8], id: Option<&[u8]>) -> Result<Key> {
    check_queue(queue)?;
    let kind = Kind::parse(kind)?;
    if !kind.takes_id && id.is_some() {
        return Err(Error::new(Gate::Kind, "this kind of key takes no id"));
    }
    build(queue, kind, id)
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
    build(queue, kind, None)
}

/// The key of one job, `emq:{Q}:job:<ID>`; `id` must be a valid `JOB` id.
///
/// ```
/// assert_eq!(
///     emq_id::job_key(b"orders", b"JOB0KHTOWnGLuC").unwrap().as_str(),
///     "emq:{orders}:job:JOB0KHTOWnGLuC"
/// );
/// ```
pub fn job_key(queue: &[u8], id: &[u8]) -> Result<Key> {
    check_queue(queue)?;
    build(queue, Kind::JOB, Some(id))
}

fn build(queue: &[u8], kind: Kind, id: Option<&[u8]>) -> Result<Key> {
    let id = if kind.takes_id {
        let text = id.unwrap_or_default();
        let (ns, _) = decode(text)?;
        if &ns != JOB_NS {
            return Err(Error::new(Gate::Namespace, "a job key takes an id of namespace JOB"));
        }
        Some(text)
    } else {
        None
    };
    let mut k = Key { buf: [0; MAX_KEY_LEN], len: 0 };
    k.push(PREFIX);
    k.push(queue);
    k.push(b"}:");
    k.push(kind.name.as_bytes());
    if let Some(id) = id {
        k.push(b":");
        k.push(id);
    }
    Ok(k)
}
