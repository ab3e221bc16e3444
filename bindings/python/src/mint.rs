//! Minting: the `Minter` of one node (lock-free, shared between threads), the
//! contract's pure step, and the process-wide minter (the core's `process.rs`:
//! one mint state per process, on a node held on this host; `set_node`, else
//! `EMQ_NODE`, else a drawn node with a warning).

use core::cell::Cell;
use core::sync::atomic::{AtomicU8, Ordering};
use core::time::Duration;
use std::ffi::CString;

use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyString, PyType};

use crate::error::{answer, refused, ERRORS};
use crate::host::{bytes_in, count_in, i64_in, node_in, text, u64_in};

/// A minter for one node: thread-safe and lock-free (one compare-and-swap per
/// id). Two `Minter`s of one node mint the same ids: give each its own node.
#[pyclass(frozen, module = "emq_id", name = "Minter")]
pub struct Minter(emq_id::Minter);

#[pymethods]
impl Minter {
    /// A fresh minter for `node` in `0..=MAX_NODE` (else `range`).
    #[new]
    fn new(node: &Bound<'_, PyAny>) -> PyResult<Minter> {
        let n = node_in(node, "node")?;
        Ok(Minter(answer(node.py(), emq_id::Minter::new(n))?))
    }

    /// The node this minter stamps into its ids.
    #[getter]
    fn node(&self) -> u16 {
        self.0.node()
    }

    /// Mints a snowflake with the system clock.
    fn next(&self, py: Python<'_>) -> PyResult<u64> {
        answer(py, self.0.next())
    }

    /// Mints with a clock reading (unix ms): the contract's pure step, applied atomically.
    fn next_at(&self, now_ms: &Bound<'_, PyAny>) -> PyResult<u64> {
        let now = i64_in(now_ms, "now_ms")?;
        answer(now_ms.py(), self.0.next_at(now))
    }

    /// `n` snowflakes (0 or more) with one clock reading, in one call, minted
    /// with the GIL released. Increasing; a refused step raises and mints no more.
    fn next_many<'py>(&self, n: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let py = n.py();
        let n = count_in(n, "n")?;
        let mut out: Vec<u64> = Vec::new();
        out.try_reserve_exact(n).map_err(|_| PyMemoryError::new_err(format!("no memory for {n} snowflakes")))?;
        let minted = py.detach(|| {
            let now = emq_id::now_ms();
            for _ in 0..n {
                out.push(self.0.next_at(now)?);
            }
            Ok(out)
        });
        PyList::new(py, answer(py, minted)?)
    }

    fn __repr__(&self) -> String {
        format!("Minter(node={})", self.0.node())
    }
}

/// The contract's pure mint step: `(state', snowflake)` of a minter of `node`
/// in `state`, at clock reading `now_ms`.
#[pyfunction]
pub fn mint_step(state: &Bound<'_, PyAny>, node: &Bound<'_, PyAny>, now_ms: &Bound<'_, PyAny>) -> PyResult<(u64, u64)> {
    let (s, n, now) = (u64_in(state, "state")?, node_in(node, "node")?, i64_in(now_ms, "now_ms")?);
    answer(state.py(), emq_id::step(s, n, now))
}

/// Where this process stands on its node's source: not looked at yet, being
/// looked at by one thread (the others' first mints wait for its outcome), or
/// looked at (and warned, if the node was drawn). A forked child looks again:
/// it takes a node of its own.
static LOOK: AtomicU8 = AtomicU8::new(UNLOOKED);
const UNLOOKED: u8 = 0;
const LOOKING: u8 = 1;
const LOOKED: u8 = 2;

thread_local! {
    /// Whether this thread is the one looking: a mint from inside its own
    /// warning (a `showwarning` or logging handler) goes on, the warning being
    /// shown and not raised, where another thread's first mint waits.
    static LOOKING_HERE: Cell<bool> = const { Cell::new(false) };
}

static NODE_WARNING: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `warnings.warn(NodeWarning)` once per process when its node was drawn.
/// Where warnings are errors (`filterwarnings("error", category=NodeWarning)`)
/// the warning raises, every time: a drawn node is then never minted with.
///
/// One thread looks at a time, and only a look that did not raise lets the
/// process mint: the warning may run Python code that releases the GIL
/// (filters, `showwarning`), and a first mint in another thread meanwhile
/// waits for the outcome instead of minting. After a raise the next first
/// mint looks again, in its own thread, and raises again where warnings are
/// still errors.
fn look_at_source(py: Python<'_>, minter: &emq_id::ProcessMinter) -> PyResult<()> {
    loop {
        match LOOK.compare_exchange(UNLOOKED, LOOKING, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => break,
            Err(LOOKED) => return Ok(()),
            Err(_) if LOOKING_HERE.get() => return Ok(()),
            Err(_) => {
                // Another thread is looking: wait for its outcome, with the GIL released.
                py.detach(|| std::thread::sleep(Duration::from_millis(1)));
                py.check_signals()?;
            }
        }
    }
    let looking = Looking::start();
    warn_if_drawn(py, minter)?;
    looking.done();
    Ok(())
}

/// This thread's look: ended by `done` (the process has looked), else, when
/// dropped (the warning raised, or a panic), the process is not looked at
/// and its next first mint looks again.
struct Looking;

impl Looking {
    fn start() -> Looking {
        LOOKING_HERE.set(true);
        Looking
    }

    fn done(self) {
        LOOK.store(LOOKED, Ordering::Release);
    }
}

impl Drop for Looking {
    fn drop(&mut self) {
        LOOKING_HERE.set(false);
        // After `done` the process has looked, and the exchange leaves it so.
        let _ = LOOK.compare_exchange(LOOKING, UNLOOKED, Ordering::AcqRel, Ordering::Acquire);
    }
}

/// The warning, when the node was drawn.
fn warn_if_drawn(py: Python<'_>, minter: &emq_id::ProcessMinter) -> PyResult<()> {
    if minter.source() != emq_id::NodeSource::Fallback {
        return Ok(());
    }
    let category = NODE_WARNING.import(py, ERRORS, "NodeWarning")?;
    let message = format!(
        "{} is not set: this process mints with node {}, drawn among the nodes no live process of this host \
         holds; another host can draw it too, and then ids collide. Give each process its own node \
         ({}=0..{}, emq_id.set_node) or use a lease",
        emq_id::NODE_ENV,
        minter.node(),
        emq_id::NODE_ENV,
        emq_id::MAX_NODE
    );
    let message = CString::new(message).unwrap_or_default();
    PyErr::warn(py, category.as_any(), &message, 1)
}

/// An id in namespace `ns` from the process-wide minter.
#[pyfunction]
pub fn mint<'py>(ns: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyString>> {
    let py = ns.py();
    let ns = bytes_in(ns, "ns")?;
    if LOOK.load(Ordering::Acquire) != LOOKED {
        // A first mint: the namespace's refusal first (as the core's mint
        // gives it), then the node, taken with the GIL released (its claim is
        // file I/O), and a warning if it was drawn.
        answer(py, emq_id::check_namespace(ns.as_bytes()))?;
        let taken = py.detach(emq_id::process_minter);
        look_at_source(py, answer(py, taken)?)?;
    }
    let id = answer(py, emq_id::mint(ns.as_bytes()))?;
    Ok(PyString::new(py, text(&id.to_bytes())))
}

/// `(node, source)` of a process minter, `source` being `"env"`, `"set"` or `"fallback"`.
fn reported(py: Python<'_>, minter: emq_id::Result<&emq_id::ProcessMinter>) -> PyResult<(u16, &'static str)> {
    let minter = minter.map_err(|e| refused(py, e))?;
    look_at_source(py, minter)?;
    let source = match minter.source() {
        emq_id::NodeSource::Env => "env",
        emq_id::NodeSource::Explicit => "set",
        _ => "fallback",
    };
    Ok((minter.node(), source))
}

/// The process's node and where it came from, taking it on first use.
/// The node is taken with the GIL released: its claim is file I/O.
#[pyfunction]
pub fn process_node(py: Python<'_>) -> PyResult<(u16, &'static str)> {
    let taken = py.detach(emq_id::process_minter);
    reported(py, taken)
}

/// Makes `node` this process's node in place of `EMQ_NODE` (for its lifetime).
#[pyfunction]
pub fn set_node(node: &Bound<'_, PyAny>) -> PyResult<(u16, &'static str)> {
    let py = node.py();
    let n = node_in(node, "node")?;
    let taken = py.detach(|| emq_id::set_process_node(n));
    reported(py, taken)
}

/// Called in the child of `os.fork()` (`os.register_at_fork`): the child
/// inherited the parent's node and mint state, so the core refuses to mint
/// (`node`) until it takes a node of its own; and it looks at that node's
/// source again.
#[pyfunction]
pub fn _forked() {
    emq_id::process_forked();
    LOOK.store(UNLOOKED, Ordering::Release);
}

/// The descriptor of this process's node claim file, or -1 (the fork handler
/// points a child's copy at `/dev/null`, so the child holds no share of the
/// parent's lock).
#[pyfunction]
pub fn _claim_fd() -> i32 {
    emq_id::process_claim_fd()
}
