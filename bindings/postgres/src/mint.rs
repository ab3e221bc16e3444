//! Minting in SQL: one mint state per server, in shared memory, so concurrent
//! backends never mint the same id and the server's ids keep the contract's
//! order. The node comes from the `emq_id.node` setting; no id passes the
//! durable mark the `emq_id mark` worker keeps ([`crate::mark`]). A hot
//! standby refuses to mint (gate `node`) unless `emq_id.standby_node` gives it
//! a node of its own (SPEC.md §5.3).

use std::ffi::CString;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use pgrx::prelude::*;
use pgrx::{pg_shmem_init, GucContext, GucFlags, GucRegistry, GucSetting, PgAtomic, PgSqlErrorCode};

use crate::error::{refuse, snowflake};
use crate::mark;

// SAFETY: PgAtomic::new asks for a shared-memory name no other one takes,
// prefixed with the extension's name.
static STATE: PgAtomic<AtomicU64> = unsafe { PgAtomic::new(c"emq_id_mint_state") };
static NODE: GucSetting<i32> = GucSetting::<i32>::new(-1);
static STANDBY_NODE: GucSetting<i32> = GucSetting::<i32>::new(-1);
static LEAD_MS: GucSetting<i32> = GucSetting::<i32>::new(1000);
static DATABASE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(c"postgres"));
static IGNORE_MARK: GucSetting<bool> = GucSetting::<bool>::new(false);
static IGNORE_RECOVERY: GucSetting<bool> = GucSetting::<bool>::new(false);
/// Set when the library was preloaded and the shared state exists.
static SHARED: AtomicBool = AtomicBool::new(false);
/// Set once this process has seen recovery over: it never begins again for
/// a process (PostgreSQL caches it the same way), so the hot path skips the call.
static RECOVERED: AtomicBool = AtomicBool::new(false);

pub fn init() {
    GucRegistry::define_int_guc(
        c"emq_id.node",
        // The bounds (pg_settings' min_val and max_val) come from the core.
        c"The node number this server stamps into the ids it mints.",
        c"Every server (and every other minter) that mints ids must have its own node. -1: not set (minting refused).",
        &NODE,
        -1,
        i32::from(emq::MAX_NODE),
        GucContext::Sighup,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"emq_id.standby_node",
        c"The node a hot standby mints on, while in recovery (-1: a standby refuses to mint).",
        c"A standby copies the primary's emq_id.node: minting on it would repeat the primary's ids, so it is refused unless this names a node of the standby's own, never one the primary mints on. After promotion the server mints on emq_id.node again.",
        &STANDBY_NODE,
        -1,
        i32::from(emq::MAX_NODE),
        GucContext::Sighup,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"emq_id.mark_lead",
        c"How far ahead of the highest id the durable high-water mark is kept.",
        c"The mark is raised when less than half of this is left. A standby whose replay lags less than half of it is covered at a failover under asynchronous replication.",
        &LEAD_MS,
        100,
        600_000,
        GucContext::Sighup,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_bool_guc(
        c"emq_id.unsafe_ignore_mark",
        c"Test control only: mint without the durable mark (duplicates after a restart with the clock behind).",
        c"Exists so the live tests can show what the mark prevents. Never set it in production.",
        &IGNORE_MARK,
        GucContext::Sighup,
        GucFlags::NO_SHOW_ALL,
    );
    GucRegistry::define_bool_guc(
        c"emq_id.unsafe_ignore_recovery",
        c"Test control only: let a standby mint on emq_id.node (the primary's ids, again).",
        c"Exists so the live tests can show what the standby refusal prevents. Never set it in production.",
        &IGNORE_RECOVERY,
        GucContext::Sighup,
        GucFlags::NO_SHOW_ALL,
    );
    // SAFETY: read once, while PostgreSQL loads preloaded libraries.
    if unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        // A postmaster-only setting may be defined only while preloading.
        GucRegistry::define_string_guc(
            c"emq_id.database",
            c"The database where the emq_id mark worker keeps the durable mark (CREATE EXTENSION emq_id there).",
            c"Minting waits for the mark; without the extension in this database it is refused.",
            &DATABASE,
            GucContext::Postmaster,
            GucFlags::default(),
        );
        pg_shmem_init!(STATE);
        mark::init_shared();
        SHARED.store(true, Ordering::Release);
    }
}

/// The shared mint state (the worker raises it past the durable mark).
pub fn state() -> &'static AtomicU64 {
    STATE.get()
}

/// `emq_id.node`, if set.
pub fn primary_node() -> Option<u16> {
    u16::try_from(NODE.get()).ok()
}

/// `emq_id.standby_node`, if set.
pub fn standby_node() -> Option<u16> {
    u16::try_from(STANDBY_NODE.get()).ok()
}

pub fn lead_ms() -> i64 {
    i64::from(LEAD_MS.get())
}

pub fn database() -> String {
    DATABASE.get().map_or_else(|| "postgres".to_string(), |c| c.to_string_lossy().into_owned())
}

pub fn ignore_mark() -> bool {
    IGNORE_MARK.get()
}

/// Whether the server is in recovery (a hot standby), asked of PostgreSQL
/// until it first answers no.
pub fn in_recovery() -> bool {
    if RECOVERED.load(Ordering::Relaxed) {
        return false;
    }
    // SAFETY: reads the recovery state, as any backend may.
    let recovery = unsafe { pg_sys::RecoveryInProgress() };
    if !recovery {
        RECOVERED.store(true, Ordering::Relaxed);
    }
    recovery
}

fn config_error(message: String, hint: &str) -> ! {
    ereport!(ERROR, PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, message, hint.to_string());
}

const STANDBY: &str = "this server is a hot standby (in recovery), whose emq_id.node is the primary's: mint on the primary, or give this standby a node of its own with emq_id.standby_node";
const STANDBY_PRIMARY: &str = "emq_id.standby_node names a node the primary mints on (its emq_id.node, or a node in its emq_id_mark table): give this standby a node no primary uses";

/// How this backend mints now: the node, and whether the mark bounds it.
fn minter() -> (u16, bool) {
    if !SHARED.load(Ordering::Acquire) {
        config_error(
            "emq_id: minting needs the shared mint state: add emq_id to shared_preload_libraries".to_string(),
            "Without it, backends could mint duplicate ids, so minting is refused. Set shared_preload_libraries = 'emq_id' and restart.",
        );
    }
    let primary = primary_node();
    if in_recovery() {
        if IGNORE_RECOVERY.get() {
            // The test control: the primary's node, as the primary mints, and
            // no mark (a standby cannot write one): what the refusal prevents.
            if let Some(node) = primary {
                return (node, false);
            }
        } else {
            let Some(node) = standby_node() else {
                refuse(emq::Error::from_gate(emq::Gate::Node, STANDBY));
            };
            if primary == Some(node) || mark::conflicts(node) {
                refuse(emq::Error::from_gate(emq::Gate::Node, STANDBY_PRIMARY));
            }
            return (node, !IGNORE_MARK.get());
        }
    }
    let Some(node) = primary else {
        config_error(
            format!("emq_id: minting needs emq_id.node (0-{}) in postgresql.conf", emq::MAX_NODE),
            "Give every server that mints its own node, e.g. emq_id.node = 1, then reload.",
        );
    };
    // The setting's bounds keep it at most emq::MAX_NODE; the core's step checks it again.
    (node, !IGNORE_MARK.get())
}

fn mint_snowflake() -> u64 {
    let (node, bounded) = minter();
    let state = STATE.get();
    if !bounded {
        return emq::step_shared(state, node, emq::now_ms()).unwrap_or_else(|e| refuse(e));
    }
    let mut started: Option<Instant> = None;
    loop {
        let now = emq::now_ms();
        if let Some(mark) = mark::published(node) {
            match emq::step_shared_under(state, node, now, mark) {
                Ok(Some(s)) => return s,
                Ok(None) => {}
                Err(e) => refuse(e),
            }
        }
        // The next id would pass the mark (or none is published yet): ask the
        // worker for one past it, and wait, boundedly.
        mark::want(now.max(emq::state_ms(state.load(Ordering::Relaxed)) + 1));
        let since = *started.get_or_insert_with(Instant::now);
        if since.elapsed() > mark::WAIT {
            ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                format!(
                    "emq_id mark: the durable high-water mark was not raised within {} s, so no id is minted",
                    mark::WAIT.as_secs()
                ),
                format!(
                    "The emq_id mark worker keeps it in database {:?} (emq_id.database): CREATE EXTENSION emq_id there, and see the server log.",
                    database()
                )
            );
        }
        pg_sys::check_for_interrupts!();
        // SAFETY: pg_usleep only sleeps.
        unsafe { pg_sys::pg_usleep(200) };
    }
}

/// A new id of namespace `ns` (the text form).
#[pg_extern(volatile, parallel_restricted, strict)]
pub fn emq_mint(ns: &str) -> String {
    // Refused before a snowflake is spent, as encode would refuse it afterwards.
    emq::check_namespace(ns.as_bytes()).unwrap_or_else(|e| refuse(e));
    let text = emq::encode(ns.as_bytes(), mint_snowflake()).unwrap_or_else(|e| refuse(e));
    String::from_utf8_lossy(&text).into_owned()
}
extension_sql!(
    "COMMENT ON FUNCTION emq_mint(text) IS 'A new text id of namespace ns, never minted before by this server. Errors: range (ns not three letters A-Z); node on a hot standby without emq_id.standby_node; 55000 without shared_preload_libraries, emq_id.node or the durable mark.';",
    name = "emq_mint_comment",
    requires = [emq_mint],
);

/// A new snowflake (the integer form a table stores).
#[pg_extern(volatile, parallel_restricted)]
fn emq_mint_snowflake() -> i64 {
    mint_snowflake() as i64
}
extension_sql!(
    "COMMENT ON FUNCTION emq_mint_snowflake() IS 'A new snowflake, never minted before by this server: the bigint a table stores. Errors: node on a hot standby without emq_id.standby_node; 55000 without shared_preload_libraries, emq_id.node or the durable mark.';",
    name = "emq_mint_snowflake_comment",
    requires = [emq_mint_snowflake],
);

/// The contract's pure mint step: `(state, node, now_ms) → (state', snowflake)`.
#[pg_extern(immutable, parallel_safe, strict)]
fn emq_mint_step(
    state: i64,
    node: i32,
    now_ms: i64,
) -> TableIterator<'static, (name!(state, i64), name!(snowflake, i64))> {
    // A node no u16 holds is past emq::MAX_NODE too: the core's step refuses it with its own words.
    let node = u16::try_from(node).unwrap_or(u16::MAX);
    let (next, s) = emq::step(snowflake(state), node, now_ms).unwrap_or_else(|e| refuse(e));
    TableIterator::once((next as i64, s as i64))
}
extension_sql!(
    "COMMENT ON FUNCTION emq_mint_step(bigint, integer, bigint) IS 'The contract''s pure mint step: from a state, a node and a clock reading (Unix ms), the next state and its snowflake. Errors: range (a negative state, a node outside 0-1023, a time past the 41-bit limit).';",
    name = "emq_mint_step_comment",
    requires = [emq_mint_step],
);
