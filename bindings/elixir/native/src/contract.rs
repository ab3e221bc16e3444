//! The contract's facts, read from the core at run time so the Elixir side
//! copies none of them: its name, its gates, the highest node, and the
//! self-check vectors the module runs through its public API when it loads.

use rustler::{Atom, Env};

use crate::error::gate_atom;

/// `emq_id::CONTRACT` (`"branded-snowflake/1.0.0"`).
#[rustler::nif]
fn contract() -> &'static str {
    emq_id::CONTRACT
}

/// Every gate of the core as its atom, in the contract's order.
#[rustler::nif]
fn gates(env: Env<'_>) -> Vec<Atom> {
    emq_id::Gate::ALL.iter().map(|g| gate_atom(env, *g)).collect()
}

/// The highest node a snowflake can carry (`emq_id::MAX_NODE`).
#[rustler::nif]
fn max_node() -> u16 {
    emq_id::MAX_NODE
}

/// `emq_id::SELF_CHECK_VECTORS`: one check per line (see `EmqId.SelfCheck`).
#[rustler::nif]
fn self_check_vectors() -> &'static str {
    emq_id::SELF_CHECK_VECTORS
}
