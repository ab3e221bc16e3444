//! The library built for WebAssembly on WASI (`emqid.wasm`, the Go module's
//! pure-Go backend runs it with wazero): what the host supplies and what the
//! host calls besides the C ABI.
//!
//! - Imports, module `emq_host`: `pid` and `claim_lock`/`claim_unlock` (an
//!   advisory lock on a claim file's path, taken by the host on the same file
//!   a native process locks, released by the operating system when the host
//!   process dies). The core's claim logic runs here unchanged; only these
//!   two facts come from outside (see the core's `ClaimHost`).
//! - Exports: `emq_wasm_alloc`/`emq_wasm_free`, memory for the host to pass
//!   inputs and receive outputs through the C ABI's pointers.

use std::alloc::{alloc, dealloc, Layout};
use std::path::Path;

#[link(wasm_import_module = "emq_host")]
extern "C" {
    fn pid() -> u32;
    /// 0: locked; 1: another process holds it; 2: it cannot be locked.
    fn claim_lock(path: *const u8, len: usize) -> i32;
    fn claim_unlock(path: *const u8, len: usize);
}

/// The host process's id.
pub(crate) fn host_pid() -> u32 {
    // SAFETY: an import of the embedding host, declared with the signature it is given by.
    unsafe { pid() }
}

struct Host;

impl emq_id::ClaimHost for Host {
    fn pid(&self) -> u32 {
        host_pid()
    }

    fn lock(&self, path: &Path) -> Result<bool, ()> {
        let path = path.to_str().ok_or(())?;
        // SAFETY: the host reads `len` bytes at `path`, which this borrow keeps alive for the call.
        match unsafe { claim_lock(path.as_ptr(), path.len()) } {
            0 => Ok(true),
            1 => Ok(false),
            _ => Err(()),
        }
    }

    fn unlock(&self, path: &Path) {
        if let Some(path) = path.to_str() {
            // SAFETY: as in `lock`.
            unsafe { claim_unlock(path.as_ptr(), path.len()) }
        }
    }
}

/// Gives the core its claim host (before the process-wide minter takes a node).
pub(crate) fn install() {
    emq_id::set_claim_host(&Host);
}

/// `len` bytes (aligned to 8) for the host to write inputs or read outputs;
/// NULL when `len` is 0 or memory is exhausted.
#[no_mangle]
pub extern "C" fn emq_wasm_alloc(len: usize) -> *mut u8 {
    match Layout::from_size_align(len, 8) {
        // SAFETY: the layout's size is not zero.
        Ok(layout) if len > 0 => unsafe { alloc(layout) },
        _ => std::ptr::null_mut(),
    }
}

/// Frees what `emq_wasm_alloc(len)` returned.
///
/// # Safety
/// `ptr` is NULL or came from `emq_wasm_alloc` with this very `len`, and is freed once.
#[no_mangle]
pub unsafe extern "C" fn emq_wasm_free(ptr: *mut u8, len: usize) {
    if let (false, Ok(layout)) = (ptr.is_null(), Layout::from_size_align(len, 8)) {
        // SAFETY: the caller's promise: allocated by emq_wasm_alloc with this layout.
        unsafe { dealloc(ptr, layout) }
    }
}
