//! The process-wide minter: one mint state per process, on a node the process
//! holds exclusively on its host (EMQ_NODE, else drawn; or given). A child
//! forked after the node was taken is told so by a `pthread_atfork` handler,
//! registered on first use, and refuses to mint until it takes its own node.

use std::ffi::c_char;
use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(unix)]
use std::sync::Once;

use crate::status::{branded_status, bytes, guard, non_null};

/// Where the process's node came from, as `emq_process_node` reports it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum emq_node_source {
    /// From the `EMQ_NODE` environment variable.
    EMQ_NODE_FROM_ENV = 0,
    /// Drawn: no other live process of this host holds it, but another host may.
    EMQ_NODE_DRAWN = 1,
    /// Given with `emq_process_set_node`.
    EMQ_NODE_SET = 2,
}

/// Takes this process's node now if it has none (else nothing changes) and
/// writes it, with where it came from, to the outputs.
///
/// Returns `BRANDED_ERR_RANGE` when `EMQ_NODE` is not a decimal in 0..=`EMQ_MAX_NODE`,
/// and `EMQ_ERR_NODE` when no node could be taken: another live process of
/// this host holds it, every node is held, or the claim directory
/// (`EMQ_NODE_DIR`, default `/tmp/emq-id`) cannot be used. Then, unlike
/// elsewhere in this ABI, `node_out` receives the refused node (`EMQ_NO_NODE`
/// when the refusal names none) and `holder_pid_out` the holder's pid (0 when
/// unknown or not held), so the host can say who. On `BRANDED_OK`,
/// `holder_pid_out` receives this process's pid.
///
/// # Safety
/// The three outputs must be writable.
#[no_mangle]
pub unsafe extern "C" fn emq_process_node(
    node_out: *mut u16,
    source_out: *mut emq_node_source,
    holder_pid_out: *mut u32,
) -> branded_status {
    guard(|| {
        non_null(node_out)?;
        non_null(source_out)?;
        non_null(holder_pid_out)?;
        register_fork_handler()?;
        let (node, source, pid, status) = match emq_id::process_minter() {
            Ok(p) => (p.node(), source(p.source()), this_pid(), branded_status::BRANDED_OK),
            Err(e) if e.gate() == emq_id::Gate::Node => {
                let node = e.node().unwrap_or(EMQ_NO_NODE);
                (node, emq_node_source::EMQ_NODE_FROM_ENV, e.holder_pid().unwrap_or(0), e.into())
            }
            Err(e) => return Err(e.into()),
        };
        // SAFETY: all three are non-NULL and writable by the caller's promise.
        unsafe {
            node_out.write_unaligned(node);
            holder_pid_out.write_unaligned(pid);
            if status == branded_status::BRANDED_OK {
                source_out.write_unaligned(source);
            }
        }
        match status {
            branded_status::BRANDED_OK => Ok(()),
            refused => Err(refused),
        }
    })
}

/// This process's id, as its claim records it (in the Go module's core, the host process's).
fn this_pid() -> u32 {
    #[cfg(all(target_arch = "wasm32", feature = "go-wasm"))]
    return crate::wasm_host::host_pid();
    #[cfg(not(all(target_arch = "wasm32", feature = "go-wasm")))]
    std::process::id()
}

/// Makes `node` this process's node in place of `EMQ_NODE`, taking its
/// host-local claim: for hosts that get their node elsewhere, and for a forked
/// child, which must take a node of its own before it mints.
///
/// Returns `BRANDED_ERR_RANGE` for a node above `EMQ_MAX_NODE` and `EMQ_ERR_NODE` when
/// another live process of this host holds it, or when this process already
/// mints with another node (a process keeps its node for its lifetime).
#[no_mangle]
pub extern "C" fn emq_process_set_node(node: u16) -> branded_status {
    guard(|| {
        register_fork_handler()?;
        emq_id::set_process_node(node)?;
        Ok(())
    })
}

/// Mints an id in namespace `ns` (3 bytes A-Z) with the process-wide minter
/// and writes its 14 bytes (no terminator) to `out`. The first call takes the
/// process's node (see `emq_process_node`).
///
/// Returns `BRANDED_ERR_RANGE` for a bad namespace or `EMQ_NODE`, and
/// `EMQ_ERR_NODE` when the node is held by another live process of this host
/// or this process is a child forked after taking it.
///
/// # Safety
/// `ns` must be readable for 3 bytes and `out` writable for 14 bytes.
#[no_mangle]
pub unsafe extern "C" fn emq_mint(ns: *const c_char, out: *mut c_char) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises 3 readable bytes at a non-NULL `ns`.
        let ns = unsafe { bytes(non_null(ns)?.cast(), 3)? };
        non_null(out)?;
        register_fork_handler()?;
        let id = emq_id::mint(ns)?.to_bytes();
        // SAFETY: `out` is non-NULL and the caller promises 14 writable bytes.
        unsafe { std::ptr::copy_nonoverlapping(id.as_ptr(), out.cast(), id.len()) };
        Ok(())
    })
}

fn source(source: emq_id::NodeSource) -> emq_node_source {
    match source {
        emq_id::NodeSource::Env => emq_node_source::EMQ_NODE_FROM_ENV,
        emq_id::NodeSource::Explicit => emq_node_source::EMQ_NODE_SET,
        _ => emq_node_source::EMQ_NODE_DRAWN,
    }
}

/// In a forked child: points the inherited claim descriptor at `/dev/null`,
/// so the child holds no share of its parent's lock (a lock lives while any
/// descriptor of its file is open: a child that never mints would otherwise
/// keep its parent's node held after the parent died). `open`, `dup2` and
/// `close` are async-signal-safe, as a `pthread_atfork` child handler needs.
#[cfg(unix)]
fn release_inherited_claim() {
    use std::ffi::{c_char, c_int};
    extern "C" {
        fn open(path: *const c_char, flags: c_int, ...) -> c_int;
        fn dup2(old: c_int, new: c_int) -> c_int;
        fn close(fd: c_int) -> c_int;
    }
    let fd = emq_id::process_claim_fd();
    if fd < 0 {
        return;
    }
    // O_RDONLY is 0 on every Unix.
    // SAFETY: a NUL-terminated static path and a plain flag; `open` has no other preconditions.
    let null = unsafe { open(c"/dev/null".as_ptr(), 0) };
    if null >= 0 {
        // `fd` is the claim's descriptor, open here since the fork and closed later by the core's
        // claim: `dup2` changes what it refers to but keeps the number valid for that close.
        // SAFETY: both descriptors are open in this process; `null` is ours and closed once.
        unsafe {
            dup2(null, fd);
            close(null);
        }
    }
}

/// `node_out` of `emq_process_node` for a refusal that names no node.
pub const EMQ_NO_NODE: u16 = 0xFFFF;

/// Registers, once, a `pthread_atfork` child handler that tells the core the
/// process was forked: the child inherits the parent's node and mint state,
/// and minting on with them would repeat the parent's ids. When it cannot be
/// registered, the process-wide minter refuses (`EMQ_ERR_NODE`) instead of
/// risking a child that mints the parent's ids.
fn register_fork_handler() -> Result<(), branded_status> {
    static REGISTERED: AtomicBool = AtomicBool::new(!cfg!(unix));
    #[cfg(unix)]
    static ONCE: Once = Once::new();
    #[cfg(unix)]
    ONCE.call_once(|| {
        extern "C" fn forked_child() {
            emq_id::process_forked(); // one atomic store: async-signal-safe
            release_inherited_claim();
        }
        extern "C" {
            fn pthread_atfork(
                prepare: Option<extern "C" fn()>,
                parent: Option<extern "C" fn()>,
                child: Option<extern "C" fn()>,
            ) -> std::ffi::c_int;
        }
        // The handler lives as long as the library (never unloaded while the process forks) and
        // makes only async-signal-safe calls: an atomic store, open, dup2, close.
        // SAFETY: pthread_atfork is the C library's, declared with the signature POSIX gives it.
        let status = unsafe { pthread_atfork(None, None, Some(forked_child)) };
        REGISTERED.store(status == 0, Ordering::Release);
    });
    if REGISTERED.load(Ordering::Acquire) {
        Ok(())
    } else {
        Err(branded_status::EMQ_ERR_NODE)
    }
}
