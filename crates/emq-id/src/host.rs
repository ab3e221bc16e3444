//! What the core asks of the operating system when it is built for a
//! WebAssembly host that is not WASI (feature `host` on wasm32: the Go
//! module's core, translated to Go source). The host supplies exactly this,
//! as imports of the module `emq_host`: the two clocks, the two node settings
//! of the environment, the process id, and the claim file's operations. The
//! claim's logic (the retry over a replaced file, the record, the hand-over,
//! the refusals) stays in `claim.rs`, the same on every target; only the
//! system calls come from outside.
//!
//! Handles of claim files are the host's (an open file it keeps, locked by
//! it); closing one releases its lock, as closing a native file does.
#![allow(unsafe_code)] // the calls into the host: nowhere else in the core

use std::io::{Error as IoError, ErrorKind};

#[link(wasm_import_module = "emq_host")]
extern "C" {
    /// The wall clock in Unix nanoseconds.
    fn now_ns() -> i64;
    /// Nanoseconds on the host process's monotonic clock, from one origin
    /// for the whole process (every instance of the module agrees).
    fn monotonic_ns() -> i64;
    /// The environment variable `name` into `buf` (at most `cap` bytes): -1
    /// when unset, else its length, written only when it fits.
    fn env(name: *const u8, name_len: usize, buf: *mut u8, cap: usize) -> i32;
    /// The host process's id.
    fn pid() -> u32;
    /// Opens, creating as SPEC.md §5.1 says, the claim file at `path`: a
    /// handle (≥ 0), or -1 it cannot be created, -2 a symbolic link, -3 the
    /// path is not absolute on the host.
    fn claim_open(path: *const u8, len: usize) -> i32;
    /// Locks the open claim without waiting: 0 locked, 1 another process
    /// holds it, 2 it cannot be locked.
    fn claim_lock(handle: i32) -> i32;
    /// 1 when `path` still names the open claim (not a file created in its place).
    fn claim_names(handle: i32, path: *const u8, len: usize) -> i32;
    /// Reads at most `cap` bytes of the claim from its first: their count, or -1.
    fn claim_read(handle: i32, buf: *mut u8, cap: usize) -> i32;
    /// Rewrites the claim from its first byte to exactly `len` bytes: 0, or -1.
    fn claim_write(handle: i32, buf: *const u8, len: usize) -> i32;
    /// Closes the claim (its lock goes with it).
    fn claim_close(handle: i32);
    /// Reads at most `cap` bytes of the file at `path` (another's claim): their count, or -1.
    fn claim_peek(path: *const u8, len: usize, buf: *mut u8, cap: usize) -> i32;
}

/// The host's wall clock in Unix nanoseconds.
pub(crate) fn wall_ns() -> i64 {
    // SAFETY: an import of the embedding host, declared with the signature it is given by.
    unsafe { now_ns() }
}

/// The host's monotonic clock in nanoseconds.
pub(crate) fn monotonic() -> u64 {
    // SAFETY: as in `wall_ns`.
    unsafe { monotonic_ns() as u64 }
}

/// The host process's id.
pub(crate) fn process_id() -> u32 {
    // SAFETY: as in `wall_ns`.
    unsafe { pid() }
}

/// The environment variable `name`, as the host reads it now (set but not
/// UTF-8: set and empty, which the core refuses as a natively read one).
pub(crate) fn var(name: &str) -> Option<String> {
    let mut buf = vec![0u8; 64];
    loop {
        // SAFETY: the host reads `name` and writes at most `buf.len()` bytes into `buf`, both alive for the call.
        let n = unsafe { env(name.as_ptr(), name.len(), buf.as_mut_ptr(), buf.len()) };
        let n = usize::try_from(n).ok()?;
        if n <= buf.len() {
            buf.truncate(n);
            return Some(String::from_utf8(buf).unwrap_or_default());
        }
        buf.resize(n, 0); // it did not fit: ask again with room for it
    }
}

/// A claim file the host holds open.
#[derive(Debug)]
pub(crate) struct ClaimFile(i32);

/// Why a claim file was not opened.
pub(crate) enum OpenError {
    Unwritable,
    Linked,
    Relative,
}

impl ClaimFile {
    pub(crate) fn open(path: &str) -> Result<ClaimFile, OpenError> {
        // SAFETY: the host reads `len` bytes at `path`, alive for the call.
        match unsafe { claim_open(path.as_ptr(), path.len()) } {
            handle if handle >= 0 => Ok(ClaimFile(handle)),
            -2 => Err(OpenError::Linked),
            -3 => Err(OpenError::Relative),
            _ => Err(OpenError::Unwritable),
        }
    }

    /// `Ok(true)` locked, `Ok(false)` another process holds it, `Err` it cannot be locked.
    pub(crate) fn lock(&self) -> Result<bool, IoError> {
        // SAFETY: as in `wall_ns`.
        match unsafe { claim_lock(self.0) } {
            0 => Ok(true),
            1 => Ok(false),
            _ => Err(ErrorKind::Unsupported.into()),
        }
    }

    pub(crate) fn named_by(&self, path: &str) -> bool {
        // SAFETY: as in `open`.
        unsafe { claim_names(self.0, path.as_ptr(), path.len()) == 1 }
    }

    /// The first bytes of the claim (at most 64: a record is shorter).
    pub(crate) fn head(&self) -> Option<String> {
        let mut buf = [0u8; 64];
        // SAFETY: the host writes at most `buf.len()` bytes into `buf`, alive for the call.
        let n = unsafe { claim_read(self.0, buf.as_mut_ptr(), buf.len()) };
        String::from_utf8(buf.get(..usize::try_from(n).ok()?)?.to_vec()).ok()
    }

    pub(crate) fn rewrite(&self, bytes: &[u8]) -> std::io::Result<()> {
        // SAFETY: the host reads `bytes.len()` bytes at `bytes`, alive for the call.
        match unsafe { claim_write(self.0, bytes.as_ptr(), bytes.len()) } {
            0 => Ok(()),
            _ => Err(ErrorKind::Other.into()),
        }
    }
}

impl Drop for ClaimFile {
    fn drop(&mut self) {
        // SAFETY: as in `wall_ns`; the handle is closed once, here.
        unsafe { claim_close(self.0) }
    }
}

/// The first bytes of the file at `path` (another process's claim).
pub(crate) fn peek(path: &str) -> Option<String> {
    let mut buf = [0u8; 64];
    // SAFETY: the host reads `path` and writes at most `buf.len()` bytes into `buf`, both alive for the call.
    let n = unsafe { claim_peek(path.as_ptr(), path.len(), buf.as_mut_ptr(), buf.len()) };
    String::from_utf8(buf.get(..usize::try_from(n).ok()?)?.to_vec()).ok()
}
