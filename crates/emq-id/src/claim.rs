//! The host-local claim on a node: an exclusive advisory lock (`flock` on
//! Unix, `LockFileEx` on Windows) on one file per node in a directory every
//! process of the host shares.
//!
//! The operating system releases the lock when the last descriptor of the
//! file closes, so a process that dies in any way (`SIGKILL` included) frees
//! its node, and no stale claim can outlive its holder. The file itself is
//! never deleted (deleting a lock file races with a process that opened it):
//! at most 1,024 small files.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Gate, Result};
use crate::snowflake::MAX_NODE;

/// The environment variable naming the directory of the host's node claims.
/// Unset, it is `emq-id` in the system's temporary directory (`/tmp/emq-id`).
pub const NODE_DIR_ENV: &str = "EMQ_NODE_DIR";

const HELD: &str =
    "another live process on this host mints with this node: give each minting process its own node (EMQ_NODE)";
const UNWRITABLE: &str =
    "the host-local claim file could not be created: point EMQ_NODE_DIR at a directory every minting process can write";
const UNLOCKABLE: &str = "the host-local claim file could not be locked (a file system without locks?): point EMQ_NODE_DIR at a local directory";

/// The directory of this host's node claims: `EMQ_NODE_DIR`, else
/// `<temp dir>/emq-id`.
pub fn claim_dir() -> PathBuf {
    match std::env::var_os(NODE_DIR_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => std::env::temp_dir().join("emq-id"),
    }
}

/// An exclusive claim on one node among the processes of this host, held
/// until it is dropped or the process dies.
///
/// The process-wide minter takes one for its node; a host that keeps a mint
/// state of its own (a server's shared memory, an explicit [`Minter`](crate::Minter)
/// that stands for the process) can take one too.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("emq-id-doc-{}", std::process::id()));
/// let claim = emq_id::NodeClaim::take_in(&dir, 9).unwrap();
/// assert_eq!(claim.node(), 9);
/// // A second claim on node 9 is refused while the first lives, naming the holder.
/// let err = emq_id::NodeClaim::take_in(&dir, 9).unwrap_err();
/// assert_eq!((err.gate(), err.node(), err.holder_pid()), (emq_id::Gate::Node, Some(9), Some(std::process::id())));
/// drop(claim);
/// assert!(emq_id::NodeClaim::take_in(&dir, 9).is_ok());
/// ```
#[derive(Debug)]
pub struct NodeClaim {
    node: u16,
    /// Held open for the lock; closing it (drop, or the process's death) releases the node.
    file: File,
    /// What the previous holder recorded as its high-water mark.
    inherited: Option<i64>,
}

impl NodeClaim {
    /// Claims `node` in [`claim_dir`]. Refused with [`Gate::Node`] when
    /// another open claim holds it (the error names the holder's pid when it
    /// could be read) or when the claim file cannot be created or locked;
    /// [`Gate::Range`] for a node above 1023.
    pub fn take(node: u16) -> Result<NodeClaim> {
        NodeClaim::take_in(&claim_dir(), node)
    }

    /// Claims `node` in the directory `dir` (created when missing).
    pub fn take_in(dir: &Path, node: u16) -> Result<NodeClaim> {
        if node > MAX_NODE {
            return Err(Error::new(Gate::Range, "the node is outside 0..=1023"));
        }
        attempt(dir, node).map_err(|refusal| match refusal {
            Refusal::Held(pid) => Error::about_node(node, pid, HELD),
            Refusal::Failed(detail) => Error::about_node(node, None, detail),
        })
    }

    /// The node this claim holds.
    pub fn node(&self) -> u16 {
        self.node
    }

    /// The high-water mark (Unix ms) the node's previous holders recorded:
    /// ids of this node may have been minted up to that millisecond, so a new
    /// mint state for it must start after it.
    pub fn high_water(&self) -> Option<i64> {
        self.inherited
    }

    /// Records that ids of this node may be minted up to `unix_ms`, before
    /// they are: a minter that runs ahead of the clock (more than 4,096 ids in
    /// a millisecond borrow the next) records how far, so that the node's next
    /// holder starts after it even when this process dies without a word.
    pub fn record_high_water(&self, unix_ms: i64) -> std::io::Result<()> {
        let line = format!("{} {unix_ms}\n", std::process::id());
        rewrite(&self.file, line.as_bytes())
    }
}

/// Rewrites a claim file from its first byte (the file is its holder's alone).
fn rewrite(mut file: &File, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(0))?;
    file.set_len(0)?;
    file.write_all(bytes)
}

/// Why a claim was not taken: the node is someone else's, or the claim
/// cannot be taken at all (then no other node can be either).
pub(crate) enum Refusal {
    Held(Option<u32>),
    Failed(&'static str),
}

pub(crate) fn attempt(dir: &Path, node: u16) -> core::result::Result<NodeClaim, Refusal> {
    let path = dir.join(format!("node-{node}.lock"));
    let file = open(dir, &path).map_err(|_| Refusal::Failed(UNWRITABLE))?;
    match file.try_lock() {
        Ok(()) => {
            let inherited = recorded(&path).and_then(|(_, high_water)| high_water);
            let claim = NodeClaim { node, file, inherited };
            // The pid serves the refusal message of the next claimant; the
            // inherited mark stays until this holder records its own.
            let line = match inherited {
                Some(ms) => format!("{} {ms}\n", std::process::id()),
                None => format!("{}\n", std::process::id()),
            };
            rewrite(&claim.file, line.as_bytes()).map_err(|_| Refusal::Failed(UNWRITABLE))?;
            Ok(claim)
        }
        Err(TryLockError::WouldBlock) => Err(Refusal::Held(recorded(&path).map(|(pid, _)| pid))),
        Err(TryLockError::Error(_)) => Err(Refusal::Failed(UNLOCKABLE)),
    }
}

/// Opens (creating) a claim file that every user of the host can lock: the
/// directory is made sticky and world-writable like `/tmp` when this process
/// creates it. A file another user created may be read-only to us; a lock
/// needs no write access, so it is opened read-only then (no pid recorded).
fn open(dir: &Path, path: &Path) -> std::io::Result<File> {
    if !dir.is_dir() {
        std::fs::create_dir_all(dir)?;
        shared_permissions(dir, 0o1777);
    }
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    match options.open(path) {
        Ok(file) => {
            shared_permissions(path, 0o666);
            Ok(file)
        }
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => File::open(path),
        Err(e) => Err(e),
    }
}

#[cfg(unix)]
fn shared_permissions(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    // Best effort: it fails harmlessly on a file another user owns.
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
}

#[cfg(not(unix))]
fn shared_permissions(_: &Path, _: u32) {}

/// What a claim file records: `<pid> [<high-water Unix ms>]`, when readable.
fn recorded(path: &Path) -> Option<(u32, Option<i64>)> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut fields = text.split_ascii_whitespace();
    let pid = fields.next()?.parse().ok().filter(|&pid| pid != 0)?;
    Some((pid, fields.next().and_then(|ms| ms.parse().ok())))
}
