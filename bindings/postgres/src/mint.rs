//! Minting in SQL: one mint state per server, in shared memory, so concurrent
//! backends never mint the same id and the server's ids keep the contract's
//! order. The node comes from the `emq_id.node` setting.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use pgrx::prelude::*;
use pgrx::{pg_shmem_init, GucContext, GucFlags, GucRegistry, GucSetting, PgAtomic, PgSqlErrorCode};

use crate::error::{bad_value, snowflake};

static STATE: PgAtomic<AtomicU64> = unsafe { PgAtomic::new(c"emq_id_mint_state") };
static NODE: GucSetting<i32> = GucSetting::<i32>::new(-1);
/// Set when the library was preloaded and the shared state exists.
static SHARED: AtomicBool = AtomicBool::new(false);

pub fn init() {
    GucRegistry::define_int_guc(
        c"emq_id.node",
        c"The node number (0-1023) this server stamps into the ids it mints.",
        c"Every server (and every other minter) that mints ids must have its own node. -1: not set (minting refused).",
        &NODE,
        -1,
        1023,
        GucContext::Sighup,
        GucFlags::default(),
    );
    // SAFETY: read once, while PostgreSQL loads preloaded libraries.
    if unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        pg_shmem_init!(STATE);
        SHARED.store(true, Ordering::Release);
    }
}

fn config_error(message: &str, hint: &str) -> ! {
    ereport!(ERROR, PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, message.to_string(), hint.to_string());
}

/// The shared state and this server's node, or an ERROR that says what to configure.
fn minter() -> (&'static AtomicU64, u16) {
    if !SHARED.load(Ordering::Acquire) {
        config_error(
            "emq_id: minting needs the shared mint state: add emq_id to shared_preload_libraries",
            "Without it, backends could mint duplicate ids, so minting is refused. Set shared_preload_libraries = 'emq_id' and restart.",
        );
    }
    let node = NODE.get();
    if !(0..=1023).contains(&node) {
        config_error(
            "emq_id: minting needs emq_id.node (0-1023) in postgresql.conf",
            "Give every server that mints its own node, e.g. emq_id.node = 1, then reload.",
        );
    }
    (STATE.get(), node as u16)
}

fn mint_snowflake() -> u64 {
    let (state, node) = minter();
    emq::step_shared(state, node, emq::now_ms()).unwrap_or_else(|e| bad_value(e))
}

/// A new id of namespace `ns` (the text form).
#[pg_extern(volatile, parallel_restricted, strict)]
pub fn emq_mint(ns: &str) -> String {
    emq::encode(ns.as_bytes(), 0).unwrap_or_else(|e| bad_value(e));
    let text = emq::encode(ns.as_bytes(), mint_snowflake()).unwrap_or_else(|e| bad_value(e));
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
    let node = u16::try_from(node)
        .unwrap_or_else(|_| bad_value(emq::Error::from_gate(emq::Gate::Range, "the node is outside 0..=1023")));
    let (next, s) = emq::step(snowflake(state), node, now_ms).unwrap_or_else(|e| bad_value(e));
    TableIterator::once((next as i64, s as i64))
}
