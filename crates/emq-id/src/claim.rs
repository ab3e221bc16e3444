//! The host-local claim on a node: an exclusive advisory lock (`flock` on
//! Unix, `LockFileEx` on Windows) on one file per node in a directory every
//! process of the host shares.
//!
//! The operating system releases the lock when the last descriptor of the
//! file closes: when its holder dies in any way (`SIGKILL` included). A child
//! forked by the holder would share the descriptor; the C ABI's fork handler
//! points the child's copy elsewhere (see `process_claim_fd`). The file itself is
//! never deleted (deleting a lock file races with a process that opened it):
//! at most 1,024 small files, each holding `<pid> <high-water Unix ms>`.

use std::fs::TryLockError;
#[cfg(not(all(target_arch = "wasm32", feature = "host")))]
use std::fs::{File, OpenOptions};
#[cfg(not(all(target_arch = "wasm32", feature = "host")))]
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::claim_host::{process_id, try_lock, unlock};
use crate::error::{Error, Gate, Result};
#[cfg(all(target_arch = "wasm32", feature = "host"))]
use crate::host::ClaimFile as File;
use crate::snowflake::MAX_NODE;

/// The environment variable naming the directory of the host's node claims
/// (an absolute path). Unset, it is `/tmp/emq-id` on Unix, whatever `TMPDIR`
/// says (processes of one host must meet in one place), and `emq-id` in the
/// temporary directory elsewhere.
///
/// ```
/// assert_eq!(emq_id::NODE_DIR_ENV, "EMQ_NODE_DIR");
/// ```
pub const NODE_DIR_ENV: &str = "EMQ_NODE_DIR";

const HELD: &str =
    "another live process on this host mints with this node: give each minting process its own node (EMQ_NODE)";
const UNWRITABLE: &str =
    "the host-local claim file could not be created: point EMQ_NODE_DIR at a directory every minting process can write";
const UNLOCKABLE: &str = "the host-local claim file could not be locked (a file system without locks?): point EMQ_NODE_DIR at a local directory";
const RELATIVE: &str = "EMQ_NODE_DIR must be an absolute path, the same for every process of the host";
const LINKED: &str = "the claim directory or file is a symbolic link: refused, as another user could point it anywhere";
const NO_HOST: &str =
    "this WebAssembly host gives no file locks: claims need a host that supplies them (emq_id::set_claim_host)";
const BAD_MARK: &str =
    "the claim file records a high-water mark no snowflake can follow (past the 41-bit limit): check the file";

/// The directory of this host's node claims: `EMQ_NODE_DIR`, else
/// `/tmp/emq-id` on Unix (`emq-id` in the temporary directory elsewhere).
///
/// ```
/// let dir = emq_id::claim_dir();
/// match std::env::var_os(emq_id::NODE_DIR_ENV) {
///     Some(set) if !set.is_empty() => assert_eq!(dir.as_os_str(), set),
///     _ => assert!(dir.ends_with("emq-id")),
/// }
/// ```
pub fn claim_dir() -> PathBuf {
    // A host of the `host` feature answers its own default: the module knows
    // no temporary directory. Its empty answer is a setting that is not UTF-8:
    // an empty path, which every claim refuses as not absolute.
    #[cfg(all(target_arch = "wasm32", feature = "host"))]
    return PathBuf::from(crate::host::var(NODE_DIR_ENV).unwrap_or_default());
    #[cfg(not(all(target_arch = "wasm32", feature = "host")))]
    match std::env::var_os(NODE_DIR_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ if cfg!(unix) => PathBuf::from("/tmp/emq-id"),
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
    /// The claim file's path, by which a WebAssembly host's lock is released
    /// (natively, closing the file releases it; no allocation is kept for it).
    #[cfg(target_os = "wasi")]
    path: PathBuf,
    /// What the previous holder recorded as its high-water mark.
    inherited: Option<i64>,
}

impl NodeClaim {
    /// Claims `node` in [`claim_dir`]. Refused with [`Gate::Node`] when
    /// another open claim holds it (the error names the holder's pid when it
    /// could be read) or when the claim file cannot be created or locked;
    /// [`Gate::Range`] for a node above 1023.
    ///
    /// ```
    /// // Node 1024 does not exist: refused before any file is touched.
    /// assert_eq!(emq_id::NodeClaim::take(1024).unwrap_err().gate(), emq_id::Gate::Range);
    /// ```
    pub fn take(node: u16) -> Result<NodeClaim> {
        NodeClaim::take_in(&claim_dir(), node)
    }

    /// Claims `node` in the directory `dir` (created when missing).
    ///
    /// ```
    /// // Every process of the host must name one directory: a relative one is refused.
    /// let err = emq_id::NodeClaim::take_in(std::path::Path::new("claims"), 1).unwrap_err();
    /// assert_eq!((err.gate(), err.node()), (emq_id::Gate::Node, Some(1)));
    /// ```
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
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("emq-id-doc-{}-node", std::process::id()));
    /// assert_eq!(emq_id::NodeClaim::take_in(&dir, 1023).unwrap().node(), 1023);
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn node(&self) -> u16 {
        self.node
    }

    /// The claim file's descriptor (for a fork handler; see `process_claim_fd`).
    #[cfg(unix)]
    pub(crate) fn raw_fd(&self) -> i32 {
        std::os::unix::io::AsRawFd::as_raw_fd(&self.file)
    }

    /// The high-water mark (Unix ms) the node's previous holders recorded:
    /// ids of this node may have been minted up to that millisecond, so a new
    /// mint state for it must start after it.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("emq-id-doc-{}-high-water", std::process::id()));
    /// let first = emq_id::NodeClaim::take_in(&dir, 2).unwrap();
    /// assert_eq!(first.high_water(), None); // never held before
    /// first.record_high_water(1769526697641).unwrap();
    /// drop(first);
    /// assert_eq!(emq_id::NodeClaim::take_in(&dir, 2).unwrap().high_water(), Some(1769526697641));
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn high_water(&self) -> Option<i64> {
        self.inherited
    }

    /// Records that ids of this node may be minted up to `unix_ms`, before
    /// they are, so that the node's next holder starts after every id of this
    /// one even when this process dies without a word. A mark never goes
    /// back: the larger of the inherited mark and `unix_ms` is written.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("emq-id-doc-{}-record", std::process::id()));
    /// let claim = emq_id::NodeClaim::take_in(&dir, 2).unwrap();
    /// claim.record_high_water(1769526697641).unwrap();
    /// drop(claim);
    /// // The next holder records an earlier mark: the inherited one stays.
    /// let claim = emq_id::NodeClaim::take_in(&dir, 2).unwrap();
    /// claim.record_high_water(1769526690000).unwrap();
    /// drop(claim);
    /// assert_eq!(emq_id::NodeClaim::take_in(&dir, 2).unwrap().high_water(), Some(1769526697641));
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn record_high_water(&self, unix_ms: i64) -> std::io::Result<()> {
        let mark = self.inherited.map_or(unix_ms, |old| old.max(unix_ms));
        rewrite(&self.file, format!("{} {mark}\n", process_id()).as_bytes())
    }
}

#[cfg(target_os = "wasi")]
impl Drop for NodeClaim {
    fn drop(&mut self) {
        unlock(&self.path);
    }
}

/// Rewrites a claim file from its first byte (the file is its holder's
/// alone): the new record first, then the length, so that a holder killed
/// in between leaves a record that still parses (its first two fields).
#[cfg(not(all(target_arch = "wasm32", feature = "host")))]
fn rewrite(mut file: &File, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(0))?;
    file.write_all(bytes)?;
    file.set_len(bytes.len() as u64)
}

/// Why a claim was not taken: the node is someone else's, or the claim
/// cannot be taken at all (then no other node can be either).
pub(crate) enum Refusal {
    Held(Option<u32>),
    Failed(&'static str),
}

pub(crate) fn attempt(dir: &Path, node: u16) -> core::result::Result<NodeClaim, Refusal> {
    // A host of the `host` feature judges absoluteness by its own paths (`C:\\…` too), when it opens.
    if !cfg!(all(target_arch = "wasm32", feature = "host")) && !dir.is_absolute() {
        return Err(Refusal::Failed(RELATIVE));
    }
    let path = dir.join(format!("node-{node}.lock"));
    // A claim file deleted and created anew while another process holds the
    // old one would be a second lock on the same node: lock, then check the
    // path still names the locked file, else try again.
    for _ in 0..3 {
        let file = open(dir, &path)?;
        match try_lock(&file, &path) {
            Ok(()) if !names(&path, &file) => {
                unlock(&path); // a host's lock on the replaced file; natively, closing the file does it
                continue;
            }
            Ok(()) => {
                let (_, inherited) = record_of(&file).unwrap_or((0, None));
                if inherited.is_some_and(|ms| crate::snowflake::ts_since_epoch(ms) > crate::snowflake::MAX_TS) {
                    return Err(Refusal::Failed(BAD_MARK));
                }
                // The pid serves the refusal message of the next claimant; the
                // inherited mark stays until this holder records its own.
                let line = match inherited {
                    Some(ms) => format!("{} {ms}\n", process_id()),
                    None => format!("{}\n", process_id()),
                };
                #[cfg(target_os = "wasi")]
                let claim = NodeClaim { node, file, path, inherited };
                #[cfg(not(target_os = "wasi"))]
                let claim = NodeClaim { node, file, inherited };
                rewrite(&claim.file, line.as_bytes()).map_err(|_| Refusal::Failed(UNWRITABLE))?;
                return Ok(claim);
            }
            Err(TryLockError::WouldBlock) => return Err(Refusal::Held(holder_pid(&path))),
            Err(TryLockError::Error(e)) if cfg!(target_os = "wasi") && e.kind() == std::io::ErrorKind::Unsupported => {
                return Err(Refusal::Failed(NO_HOST))
            }
            Err(TryLockError::Error(_)) => return Err(Refusal::Failed(UNLOCKABLE)),
        }
    }
    Err(Refusal::Failed(UNLOCKABLE))
}

/// Opens a claim file that every user of the host can lock and write: the
/// directory is made sticky and world-writable like `/tmp` when this process
/// creates it, and a file this process creates is made writable by all.
/// An existing file is opened without `O_CREAT` (Linux's `protected_regular`
/// refuses `O_CREAT` on another user's file in a sticky directory), and a
/// symbolic link, as the directory or the file, is refused.
#[cfg(not(all(target_arch = "wasm32", feature = "host")))]
fn open(dir: &Path, path: &Path) -> core::result::Result<File, Refusal> {
    let unwritable = |_| Refusal::Failed(UNWRITABLE);
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() => return Err(Refusal::Failed(LINKED)),
        Ok(_) => {}
        Err(_) => {
            std::fs::create_dir_all(dir).map_err(unwritable)?;
            shared_permissions(&File::open(dir).map_err(unwritable)?, 0o1777);
        }
    }
    loop {
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Refusal::Failed(LINKED));
        }
        match OpenOptions::new().read(true).write(true).open(path) {
            Ok(file) => return Ok(file),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(unwritable(e)),
        }
        match OpenOptions::new().read(true).write(true).create_new(true).open(path) {
            Ok(file) => {
                shared_permissions(&file, 0o666);
                return Ok(file);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue, // another process was first
            Err(e) => return Err(unwritable(e)),
        }
    }
}

/// Whether `path` still names the open `file` (not a file created in its place).
#[cfg(all(unix, not(all(target_arch = "wasm32", feature = "host"))))]
fn names(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

#[cfg(not(any(unix, all(target_arch = "wasm32", feature = "host"))))]
fn names(path: &Path, _: &File) -> bool {
    path.exists()
}

/// Sets the mode through the open handle (never through a path a link could redirect).
#[cfg(unix)]
fn shared_permissions(file: &File, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    // Best effort: it fails harmlessly on a file another user owns.
    let _ = file.set_permissions(std::fs::Permissions::from_mode(mode));
}

#[cfg(not(any(unix, all(target_arch = "wasm32", feature = "host"))))]
fn shared_permissions(_: &File, _: u32) {}

/// The record read through the locked handle itself (on Windows another
/// handle cannot read a locked region): `<pid> [<high-water Unix ms>]`.
#[cfg(not(all(target_arch = "wasm32", feature = "host")))]
fn record_of(mut file: &File) -> Option<(u32, Option<i64>)> {
    use std::io::{Read, Seek, SeekFrom};
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.take(64).read_to_string(&mut text).ok()?;
    parse_record(&text)
}

/// The holder's pid, read by path (best effort, for the refusal's message).
#[cfg(not(all(target_arch = "wasm32", feature = "host")))]
fn holder_pid(path: &Path) -> Option<u32> {
    parse_record(&std::fs::read_to_string(path).ok()?).map(|(pid, _)| pid)
}

fn parse_record(text: &str) -> Option<(u32, Option<i64>)> {
    let mut fields = text.split_ascii_whitespace();
    let pid = fields.next()?.parse().ok().filter(|&pid| pid != 0)?;
    Some((pid, fields.next().and_then(|ms| ms.parse().ok())))
}

// The same operations through the host's claim files (feature `host` on wasm32):
// the host opens with the policy of `open` above (a shared sticky directory,
// files writable by all, no symbolic links) and locks as a native process does.

#[cfg(all(target_arch = "wasm32", feature = "host"))]
fn open(_dir: &Path, path: &Path) -> core::result::Result<File, Refusal> {
    use crate::host::OpenError;
    File::open(path.to_str().ok_or(Refusal::Failed(UNWRITABLE))?).map_err(|e| match e {
        OpenError::Unwritable => Refusal::Failed(UNWRITABLE),
        OpenError::Linked => Refusal::Failed(LINKED),
        OpenError::Relative => Refusal::Failed(RELATIVE),
    })
}

#[cfg(all(target_arch = "wasm32", feature = "host"))]
fn names(path: &Path, file: &File) -> bool {
    path.to_str().is_some_and(|path| file.named_by(path))
}

#[cfg(all(target_arch = "wasm32", feature = "host"))]
fn record_of(file: &File) -> Option<(u32, Option<i64>)> {
    parse_record(&file.head()?)
}

#[cfg(all(target_arch = "wasm32", feature = "host"))]
fn holder_pid(path: &Path) -> Option<u32> {
    parse_record(&crate::host::peek(path.to_str()?)?).map(|(pid, _)| pid)
}

#[cfg(all(target_arch = "wasm32", feature = "host"))]
fn rewrite(file: &File, bytes: &[u8]) -> std::io::Result<()> {
    file.rewrite(bytes)
}
