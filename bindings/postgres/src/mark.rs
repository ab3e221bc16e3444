//! The durable high-water mark (SPEC.md §5.3): a background worker, `emq_id
//! mark`, keeps in the table `emq_id_mark` (in the database `emq_id.database`,
//! where the extension is created) a Unix ms no id of the server's node has
//! passed, raised ahead of the clock in steps and committed with
//! `synchronous_commit = on`, so it is in WAL — on disk and on every standby
//! that replays it — before it is published to shared memory. Backends never
//! mint past the published mark: one whose next id would pass it wakes the
//! worker and waits for a higher one, at most [`WAIT`]. On start (a restart, a
//! crash recovery, a promotion) the worker raises the shared mint state past
//! the durable mark before it publishes anything, so the server starts after
//! every id it may have handed out, whatever its clock says.
//!
//! A standby given a node of its own (`emq_id.standby_node`) cannot write
//! WAL: its mark is a file in its data directory, written and fsynced the
//! same way. The step logic is the core's (`emq::raise_mark`,
//! `emq::state_after`, `emq::step_shared_under`); this file only moves the
//! mark between SQL, a file and shared memory.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use pgrx::bgworkers::{BackgroundWorker, BackgroundWorkerBuilder, BgWorkerStartTime, SignalWakeFlags};
use pgrx::prelude::*;
use pgrx::{pg_shmem_init, PgAtomic};

/// How long a backend waits for the worker to raise the mark before its mint
/// fails with the named error: a commit takes milliseconds; seconds mean the
/// worker is down or cannot commit (a synchronous standby gone, say).
pub const WAIT: Duration = Duration::from_secs(5);

/// The published mark: `(node + 1) << 48 | mark_ms`, 0 while none is.
// SAFETY: a shared-memory name no other one takes, prefixed with the extension's.
static MARK: PgAtomic<AtomicU64> = unsafe { PgAtomic::new(c"emq_id_mark_published") };
/// The latest Unix ms a waiting mint needs the mark to reach (0: none).
// SAFETY: as MARK's, a name of its own.
static WANT: PgAtomic<AtomicU64> = unsafe { PgAtomic::new(c"emq_id_mark_wanted") };
/// The worker's latch (an address in shared memory), 0 before it starts.
// SAFETY: as MARK's, a name of its own.
static LATCH: PgAtomic<AtomicU64> = unsafe { PgAtomic::new(c"emq_id_mark_latch") };
/// `node + 1` when `emq_id.standby_node` names a node the primary mints on.
// SAFETY: as MARK's, a name of its own.
static CONFLICT: PgAtomic<AtomicU64> = unsafe { PgAtomic::new(c"emq_id_mark_conflict") };

const NODE_SHIFT: u32 = 48;

/// Reserves the shared memory and registers the worker (preloading only).
pub fn init_shared() {
    pg_shmem_init!(MARK);
    pg_shmem_init!(WANT);
    pg_shmem_init!(LATCH);
    pg_shmem_init!(CONFLICT);
    BackgroundWorkerBuilder::new("emq_id mark")
        .set_type("emq_id mark")
        .set_library("emq_id")
        .set_function("emq_id_mark_worker")
        .enable_spi_access()
        // After enable_spi_access, which would wait for the end of recovery:
        // a hot standby needs the worker too (its own node's mark, the check
        // of emq_id.standby_node against the replicated marks).
        .set_start_time(BgWorkerStartTime::ConsistentState)
        .set_restart_time(Some(Duration::from_secs(1)))
        .load();
}

/// The mark published for `node`, if any: ids of `node` may reach it.
pub fn published(node: u16) -> Option<i64> {
    let packed = MARK.get().load(Ordering::Acquire);
    ((packed >> NODE_SHIFT) == u64::from(node) + 1).then_some((packed & ((1 << NODE_SHIFT) - 1)) as i64)
}

/// Whether the worker found `node` among the primary's nodes.
pub fn conflicts(node: u16) -> bool {
    CONFLICT.get().load(Ordering::Acquire) == u64::from(node) + 1
}

/// Asks the worker for a mark of at least `ms` and wakes it.
pub fn want(ms: i64) {
    WANT.get().fetch_max(ms.max(0) as u64, Ordering::AcqRel);
    let latch = LATCH.get().load(Ordering::Acquire);
    if latch != 0 {
        // LATCH holds the worker's MyLatch, its PGPROC's latch, which lives in
        // shared memory for the whole life of this memory (a crash restart
        // re-creates both, LATCH at 0).
        // SAFETY: a live latch in shared memory; setting one its owner has left is harmless.
        unsafe { pg_sys::SetLatch(latch as *mut pg_sys::Latch) };
    }
}

fn publish(node: u16, mark: i64) {
    MARK.get().store(((u64::from(node) + 1) << NODE_SHIFT) | mark as u64, Ordering::Release);
}

/// Where the worker keeps the mark of the node it serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Store {
    /// A primary: the table, in WAL.
    Table(u16),
    /// A hot standby on `emq_id.standby_node`: a file of its data directory.
    File(u16),
}

impl Store {
    fn node(self) -> u16 {
        match self {
            Store::Table(n) | Store::File(n) => n,
        }
    }
}

/// The worker's own state: what it serves, the durable mark, the table.
struct Keeper {
    serving: Option<Store>,
    mark: Option<i64>,
    table: Option<String>,
    /// The shared state when the mark was last raised: unchanged means idle.
    seen_state: u64,
    warned: bool,
}

/// The background worker's entry point (registered by name).
#[pg_guard]
#[no_mangle]
pub extern "C-unwind" fn emq_id_mark_worker(_arg: pg_sys::Datum) {
    BackgroundWorker::attach_signal_handlers(SignalWakeFlags::SIGHUP | SignalWakeFlags::SIGTERM);
    let database = crate::mint::database();
    BackgroundWorker::connect_worker_to_spi(Some(&database), None);
    // SAFETY: MyLatch is this process's latch in shared memory, set up before
    // the worker's main function runs.
    LATCH.get().store(unsafe { pg_sys::MyLatch } as u64, Ordering::Release);
    let mut keeper = Keeper { serving: None, mark: None, table: None, seen_state: 0, warned: false };
    loop {
        if BackgroundWorker::sighup_received() {
            // SAFETY: the documented way for a worker to re-read its settings, outside a transaction.
            unsafe { pg_sys::ProcessConfigFile(pg_sys::GucContext::PGC_SIGHUP) };
        }
        keeper.tick();
        let tick = (crate::mint::lead_ms() / 4).clamp(10, 1000) as u64;
        if !BackgroundWorker::wait_latch(Some(Duration::from_millis(tick))) {
            break;
        }
    }
    LATCH.get().store(0, Ordering::Release);
}

impl Keeper {
    fn tick(&mut self) {
        let recovery = crate::mint::in_recovery();
        let target = if recovery {
            crate::mint::standby_node().map(Store::File)
        } else {
            crate::mint::primary_node().map(Store::Table)
        };
        if self.table.is_none() {
            self.table = find_table();
            if self.table.is_none() {
                if !self.warned {
                    warning!(
                        "emq_id: no durable mark, so no minting, until CREATE EXTENSION emq_id runs in database {:?} (emq_id.database)",
                        crate::mint::database()
                    );
                    self.warned = true;
                }
                return;
            }
        }
        if let Some(Store::File(node)) = target {
            let primary = crate::mint::primary_node() == Some(node) || self.primary_nodes().contains(&node);
            CONFLICT.get().store(if primary { u64::from(node) + 1 } else { 0 }, Ordering::Release);
            if primary {
                return;
            }
        }
        if target != self.serving {
            MARK.get().store(0, Ordering::Release);
            self.serving = target;
            self.mark = target.and_then(|store| self.read(store));
            if let Some(mark) = self.mark {
                if !crate::mint::ignore_mark() {
                    match emq::state_after(mark) {
                        Ok(floor) => {
                            crate::mint::state().fetch_max(floor, Ordering::AcqRel);
                        }
                        Err(e) => {
                            warning!("emq_id: the durable mark {mark} of node {:?} is unusable: {e}", target);
                            self.serving = None;
                            return;
                        }
                    }
                }
            }
            self.seen_state = u64::MAX;
        }
        let Some(store) = self.serving else { return };
        let state = crate::mint::state().load(Ordering::Acquire);
        let wanted = WANT.get().swap(0, Ordering::AcqRel) as i64;
        let published = published(store.node()).is_some();
        if state == self.seen_state && wanted == 0 && published {
            return; // idle: an idle server writes no WAL
        }
        match emq::raise_mark(self.mark, emq::now_ms(), state, wanted, crate::mint::lead_ms()) {
            Some(next) => {
                self.write(store, next);
                self.mark = Some(next);
                publish(store.node(), next);
            }
            None => {
                if let (Some(mark), false) = (self.mark, published) {
                    publish(store.node(), mark);
                }
            }
        }
        self.seen_state = state;
    }

    /// The nodes a primary has recorded a mark for (replicated to this standby).
    fn primary_nodes(&self) -> Vec<u16> {
        let Some(table) = &self.table else { return vec![] };
        let sql = format!("SELECT coalesce(string_agg(node::text, ' '), '') FROM {table}");
        let text = read_one::<String>(sql).unwrap_or_default();
        text.split(' ').filter_map(|n| n.parse().ok()).collect()
    }

    fn read(&self, store: Store) -> Option<i64> {
        match store {
            Store::Table(node) => {
                let table = self.table.clone()?;
                let sql = format!("SELECT mark_ms FROM {table} WHERE node = {node}");
                read_one::<i64>(sql)
            }
            Store::File(node) => std::fs::read_to_string(file_of(node)).ok()?.trim().parse().ok(),
        }
    }

    fn write(&self, store: Store, mark: i64) {
        match store {
            Store::Table(node) => {
                let Some(table) = self.table.clone() else { return };
                let sql = format!(
                    "INSERT INTO {table} (node, mark_ms) VALUES ({node}, {mark})
                     ON CONFLICT (node) DO UPDATE SET mark_ms = greatest({table}.mark_ms, excluded.mark_ms)"
                );
                BackgroundWorker::transaction(move || {
                    // In WAL and flushed (and on a synchronous standby, if there is one) before it is published.
                    Spi::run("SET LOCAL synchronous_commit = on")?;
                    Spi::run(&sql)
                })
                .unwrap_or_else(|e| error!("emq_id: the mark could not be written: {e}"));
            }
            Store::File(node) => {
                if let Err(e) = write_file(node, mark) {
                    error!("emq_id: the standby's mark file could not be written: {e}");
                }
            }
        }
    }
}

/// The mark table, schema-qualified, if the extension exists in this database.
fn find_table() -> Option<String> {
    read_one::<String>(
        "SELECT format('%I.emq_id_mark', n.nspname) FROM pg_extension e
         JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'emq_id'"
            .to_string(),
    )
}

/// The first column of the first row `sql` answers, in a read-only
/// transaction of its own (a hot standby can run it: no transaction id).
fn read_one<T: FromDatum + IntoDatum>(sql: String) -> Option<T> {
    BackgroundWorker::transaction(move || {
        Spi::connect(|client| client.select(&sql, Some(1), &[])?.first().get_one::<T>())
    })
    .ok()
    .flatten()
}

/// A standby's own-node mark file, in its data directory (so a base backup
/// of the standby carries it: a higher floor never hurts).
fn file_of(node: u16) -> std::path::PathBuf {
    // SAFETY: DataDir is set once at start-up, before any worker, and never freed.
    let dir = unsafe { std::ffi::CStr::from_ptr(pg_sys::DataDir) }.to_string_lossy().into_owned();
    std::path::Path::new(&dir).join(format!("emq_id_standby_node_{node}.mark"))
}

/// Written beside, fsynced, renamed over, and the directory fsynced: a crash
/// leaves the old mark or the new, never a torn one.
fn write_file(node: u16, mark: i64) -> std::io::Result<()> {
    use std::io::Write;
    let path = file_of(node);
    let next = path.with_extension("next");
    let mut file = std::fs::File::create(&next)?;
    file.write_all(format!("{mark}\n").as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&next, &path)?;
    std::fs::File::open(path.parent().unwrap_or(std::path::Path::new(".")))?.sync_all()
}

/// The largest node (`emq::MAX_NODE`): the bound of the mark table's nodes, so
/// the table's SQL never types the core's number.
#[pg_extern(immutable, parallel_safe)]
fn emq_max_node() -> i32 {
    i32::from(emq::MAX_NODE)
}
extension_sql!(
    "COMMENT ON FUNCTION emq_max_node() IS 'The largest node an id can carry (nodes are 0 to this).';",
    name = "emq_max_node_comment",
    requires = [emq_max_node],
);

extension_sql!(
    r#"
-- The durable high-water mark of each node this cluster's primary mints on
-- (SPEC.md section 5.3), written by the emq_id mark worker of the database
-- emq_id.database. Not for applications.
CREATE TABLE emq_id_mark (
    node int PRIMARY KEY CHECK (node BETWEEN 0 AND emq_max_node()),
    mark_ms bigint NOT NULL
);
COMMENT ON TABLE emq_id_mark IS 'emq_id: per node, a Unix ms no minted id has passed (kept by the emq_id mark worker)';
"#,
    name = "mark_table",
    requires = [emq_max_node],
);
