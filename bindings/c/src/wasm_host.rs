//! The library built for a WebAssembly host that is not WASI (feature
//! `go-wasm` on wasm32: the Go module's core, translated to Go source by
//! wasm2go): what the host calls besides the C ABI, and what it is told.
//!
//! - Imports, module `emq_host`: the core's (clocks, node settings, pid,
//!   claim files: see the core's `host.rs`), and `panic`, which receives a
//!   panic's message just before the module traps, so the host can name it.
//! - Exports: `emq_wasm_init`, called once by the host before anything else;
//!   `emq_wasm_alloc`/`emq_wasm_free`, memory for the host to pass inputs and
//!   receive outputs through the C ABI's pointers.

use std::alloc::{alloc, dealloc, Layout};

#[link(wasm_import_module = "emq_host")]
extern "C" {
    fn pid() -> u32;
    /// The message of the panic about to trap the module.
    fn panic(message: *const u8, len: usize);
}

/// The host process's id.
pub(crate) fn host_pid() -> u32 {
    // SAFETY: an import of the embedding host, declared with the signature it is given by.
    unsafe { pid() }
}

/// Prepares the module: a panic's message goes to the host before the trap
/// (the build aborts on panic, and there is no standard error here).
#[no_mangle]
pub extern "C" fn emq_wasm_init() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        // SAFETY: the host reads `len` bytes at `message`, alive for the call.
        unsafe { panic(message.as_ptr(), message.len()) }
    }));
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
