//! Minting in SQL: one mint state per server, in shared memory, so concurrent
//! backends never mint the same id and the server's ids keep the contract's
//! order. The node comes from the `emq_id.node` setting.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use pgrx::prelude::*;
use pgrx::{pg_shmem_init, GucContext, GucFlags, GucRegistry, GucSetting, PgAtomic, PgSqlErrorCode};

use crate::error::{refuse, snowflake};

// SAFETY: PgAtomic::new asks for a shared-memory name no other one takes: this is
// the extension's only one, prefixed with its name.
static STATE: PgAtomic<AtomicU64> = unsafe { PgAtomic::new(c"emq_id_mint_state") };
static NODE: GucSetting<i32> = GucSetting::<i32>::new(-1);
/// Set when the library was preloaded and the shared state exists.
static SHARED: AtomicBool = AtomicBool::new(false);

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
    // SAFETY: read once, while PostgreSQL loads preloaded libraries.
    if unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        pg_shmem_init!(STATE);
        SHARED.store(true, Ordering::Release);
    }
}

fn config_error(message: String, hint: &str) -> ! {
    ereport!(ERROR, PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, message, hint.to_string());
}

/// The shared state and this server's node, or an ERROR that says what to configure.
fn minter() -> (&'static AtomicU64, u16) {
    if !SHARED.load(Ordering::Acquire) {
        config_error(
            "emq_id: minting needs the shared mint state: add emq_id to shared_preload_libraries".to_string(),
            "Without it, backends could mint duplicate ids, so minting is refused. Set shared_preload_libraries = 'emq_id' and restart.",
        );
    }
    let Ok(node) = u16::try_from(NODE.get()) else {
        config_error(
            format!("emq_id: minting needs emq_id.node (0-{}) in postgresql.conf", emq::MAX_NODE),
            "Give every server that mints its own node, e.g. emq_id.node = 1, then reload.",
        );
    };
    // The setting's bounds keep it at most emq::MAX_NODE; the core's step checks it again.
    (STATE.get(), node)
}

fn mint_snowflake() -> u64 {
    let (state, node) = minter();
    emq::step_shared(state, node, emq::now_ms()).unwrap_or_else(|e| refuse(e))
}

/// A new id of namespace `ns` (the text form).
#[pg_extern(volatile, parallel_restricted, strict)]
pub fn emq_mint(ns: &str) -> String {
    // Refused before a snowflake is spent, as encode would refuse it afterwards.
    emq::check_namespace(ns.as_bytes()).unwrap_or_else(|e| refuse(e));
    let text = emq::encode(ns.as_bytes(), mint_snowflake()).unwrap_or_else(|e| refuse(e));
    String::from_utf8_lossy(&text).into_owned()
}

/// A new snowflake (the integer form a table stores).
#[pg_extern(volatile, parallel_restricted)]
fn emq_mint_snowflake() -> i64 {
    mint_snowflake() as i64
}

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
