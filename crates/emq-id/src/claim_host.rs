//! What the host-local claim needs of the operating system that WASI does
//! not give a WebAssembly module: a process id, and an advisory lock that the
//! operating system releases when the process dies. On WASI an embedding host
//! supplies both through [`set_claim_host`], locking the very file a native
//! process would lock, so native and WebAssembly processes of one host
//! exclude each other. (The Go module's core is built with the `host` feature
//! instead, whose host supplies the whole operating system: see `host.rs`.)
//! Everything else of the claim (the files, their records, the hand-over, the
//! refusals) is the same code on every target.

#[cfg(not(all(target_arch = "wasm32", feature = "host")))]
use std::fs::File;
use std::fs::TryLockError;
use std::path::Path;
use std::sync::OnceLock;

/// The operating system's part of a claim, supplied by a WebAssembly host.
///
/// ```
/// use std::path::Path;
/// use emq_id::ClaimHost;
///
/// /// A host for a single-process embedding: every lock is granted.
/// struct Solo;
/// impl ClaimHost for Solo {
///     fn pid(&self) -> u32 { 1 }
///     fn lock(&self, _path: &Path) -> Result<bool, ()> { Ok(true) }
///     fn unlock(&self, _path: &Path) {}
/// }
/// assert_eq!(Solo.lock(Path::new("/tmp/emq-id/node-1.lock")), Ok(true));
/// ```
pub trait ClaimHost: Sync {
    /// This process's id (the one in the claim file's record).
    fn pid(&self) -> u32;
    /// Takes an exclusive advisory lock on the file at `path` for this
    /// process, released by the operating system when the process dies:
    /// `Ok(true)` taken, `Ok(false)` another process holds it, `Err(())` the
    /// file cannot be locked.
    #[allow(clippy::result_unit_err)]
    fn lock(&self, path: &Path) -> Result<bool, ()>;
    /// Releases the lock this process took on `path`.
    fn unlock(&self, path: &Path);
}

static HOST: OnceLock<&'static dyn ClaimHost> = OnceLock::new();

/// Installs the host of the claims (once; a second call is ignored). A
/// WebAssembly build on WASI refuses every claim with `node` until it has one;
/// native builds never consult it.
///
/// ```
/// # use std::path::Path;
/// # use emq_id::ClaimHost;
/// #
/// # /// A host for a single-process embedding: every lock is granted.
/// # struct Solo;
/// # impl ClaimHost for Solo {
/// #     fn pid(&self) -> u32 { 1 }
/// #     fn lock(&self, _path: &Path) -> Result<bool, ()> { Ok(true) }
/// #     fn unlock(&self, _path: &Path) {}
/// # }
/// emq_id::set_claim_host(&Solo);
/// // A native build still locks the claim file itself.
/// let dir = std::env::temp_dir().join(format!("emq-id-doc-{}-host", std::process::id()));
/// let _claim = emq_id::NodeClaim::take_in(&dir, 5).unwrap();
/// assert!(emq_id::NodeClaim::take_in(&dir, 5).is_err());
/// # drop(_claim);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn set_claim_host(host: &'static dyn ClaimHost) {
    let _ = HOST.set(host);
}

/// This process's id: the operating system's, or on WASI the host's.
pub(crate) fn process_id() -> u32 {
    #[cfg(all(target_arch = "wasm32", feature = "host"))]
    return crate::host::process_id();
    #[cfg(not(all(target_arch = "wasm32", feature = "host")))]
    if cfg!(target_os = "wasi") {
        HOST.get().map_or(0, |host| host.pid())
    } else {
        std::process::id()
    }
}

/// Locks `file` (opened at `path`) for this process.
#[cfg(not(all(target_arch = "wasm32", feature = "host")))]
pub(crate) fn try_lock(file: &File, path: &Path) -> Result<(), TryLockError> {
    if !cfg!(target_os = "wasi") {
        return file.try_lock();
    }
    let unsupported = || TryLockError::Error(std::io::ErrorKind::Unsupported.into());
    match HOST.get().ok_or_else(unsupported)?.lock(path) {
        Ok(true) => Ok(()),
        Ok(false) => Err(TryLockError::WouldBlock),
        Err(()) => Err(unsupported()),
    }
}

/// Releases what [`try_lock`] took, where the lock is the host's (closing
/// the file releases a native lock by itself).
pub(crate) fn unlock(path: &Path) {
    if cfg!(target_os = "wasi") {
        if let Some(host) = HOST.get() {
            host.unlock(path);
        }
    }
}

/// Locks a claim file the host opened.
#[cfg(all(target_arch = "wasm32", feature = "host"))]
pub(crate) fn try_lock(file: &crate::host::ClaimFile, _path: &Path) -> Result<(), TryLockError> {
    match file.lock() {
        Ok(true) => Ok(()),
        Ok(false) => Err(TryLockError::WouldBlock),
        Err(e) => Err(TryLockError::Error(e)),
    }
}
