//! The one place an `emq_id::Error` becomes an Elixir value: `{:error, gate}`,
//! the gate the core names, as an atom (SPEC.md §9). Every NIF that can be
//! refused answers through [`refused`] (taking the process's node through
//! [`refused_saying`], which adds the message); `gate_refusal` lets the
//! gate-coverage test see what the helper makes of each gate of the core.

use rustler::{Atom, Encoder, Env, Term};

use crate::atoms;

/// `{:error, gate}`: the one error helper.
pub fn refused(env: Env<'_>, e: emq_id::Error) -> Term<'_> {
    (atoms::error(), gate_atom(env, e.gate())).encode(env)
}

/// `{:error, gate, message}`: the helper's form for taking the process's node,
/// whose message names the node and its holder (the remedy is configuration).
pub fn refused_saying(env: Env<'_>, e: emq_id::Error) -> Term<'_> {
    (atoms::error(), gate_atom(env, e.gate()), e.message().to_string()).encode(env)
}

/// A gate as the atom of its name: `Gate::Range` is `:range`.
pub fn gate_atom(env: Env<'_>, gate: emq_id::Gate) -> Atom {
    Atom::from_str(env, gate.name()).expect("gate names are valid atoms")
}

/// The mapping's probe: `{name, refusal}` for gate `index` of the core's list
/// (`Gate::ALL`, the contract's order), the name as the core spells it and the
/// refusal as [`refused`] builds it for an error of that gate. An index past
/// the last gate raises `ArgumentError`. The gate-coverage test walks every
/// index, so a gate added to the core fails that test until Elixir maps it.
#[rustler::nif]
fn gate_refusal(env: Env<'_>, index: usize) -> rustler::NifResult<(&'static str, Term<'_>)> {
    let gate = *emq_id::Gate::ALL.get(index).ok_or(rustler::Error::BadArg)?;
    Ok((gate.name(), refused(env, emq_id::Error::from_gate(gate, "the mapping's probe"))))
}
