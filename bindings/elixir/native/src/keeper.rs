//! The lease keeper (`emq_id::Keeper` and the readers around it, SPEC.md
//! §5.2), translated for Elixir (`EmqId.Lease`, `EmqId.Lease.Keeper`): what
//! a lease write came to, where a redirect sends it, which write is due and
//! what each outcome means. Outcomes, writes, phases and actions are atoms of
//! the core's names; a refusal is the core's, through the one error helper.
//! Nothing here talks to Valkey: `EmqId.Lease.Holder` is the I/O around it.

use std::sync::{Mutex, MutexGuard, PoisonError};

use rustler::{Atom, Binary, Encoder, Env, NifResult, ResourceArc, Term};

use crate::answer;
use crate::error::refused_saying;

/// One of the core's names (an outcome, a write, a phase, an action) as its atom.
fn atom(env: Env<'_>, name: &str) -> Atom {
    Atom::from_str(env, name).expect("the core's names are valid atoms")
}

/// The outcome an atom names; another atom, or a term that is no atom, is `ArgumentError`.
fn outcome(term: Term<'_>) -> NifResult<emq_id::Outcome> {
    emq_id::Outcome::from_name(&term.atom_to_string()?).ok_or(rustler::Error::BadArg)
}

/// Names of the core's, as atoms.
fn atoms(env: Env<'_>, names: impl IntoIterator<Item = &'static str>) -> Vec<Atom> {
    names.into_iter().map(|name| atom(env, name)).collect()
}

/// `emq_id::Outcome::ALL`, as atoms.
#[rustler::nif]
fn lease_outcomes(env: Env<'_>) -> Vec<Atom> {
    atoms(env, emq_id::Outcome::ALL.map(emq_id::Outcome::name))
}

/// `read_lease_error`: text that is not UTF-8 is no reply the protocol gives (`:fault`).
#[rustler::nif]
fn lease_read_error<'a>(env: Env<'a>, text: Binary<'a>, asked: bool) -> Atom {
    let read =
        core::str::from_utf8(text.as_slice()).map_or(emq_id::Outcome::Fault, |t| emq_id::read_lease_error(t, asked));
    atom(env, read.name())
}

/// `{ask, slot, host | nil, port}` of a `MOVED` or `ASK` reply, or `nil`.
#[rustler::nif]
fn lease_redirect<'a>(env: Env<'a>, text: Binary<'a>) -> Term<'a> {
    match core::str::from_utf8(text.as_slice()).ok().and_then(emq_id::redirect) {
        Some(r) => (r.ask, r.slot, r.host, r.port).encode(env),
        None => rustler::types::atom::nil().encode(env),
    }
}

/// `Outcome::of_write`.
#[rustler::nif]
fn lease_write_outcome(env: Env<'_>, held: bool, acknowledged: bool) -> Atom {
    atom(env, emq_id::Outcome::of_write(held, acknowledged).name())
}

/// `{:ok, ms}`: how often a held lease is renewed under terms the core accepts.
#[rustler::nif]
fn lease_renew_every_ms(env: Env<'_>, ttl_ms: u64, margin_ms: u64) -> Term<'_> {
    answer(env, emq_id::LeaseTerms::new(ttl_ms, margin_ms).map(|t| t.renew_every_ms()))
}

/// `{:ok, ms}`: how soon a write that did not count is tried again.
#[rustler::nif]
fn lease_retry_ms(env: Env<'_>, ttl_ms: u64, margin_ms: u64) -> Term<'_> {
    answer(env, emq_id::LeaseTerms::new(ttl_ms, margin_ms).map(|t| t.retry_ms()))
}

/// A holder's keeper. The core's is a value its holder changes (`next`,
/// `settle`); here one holder process owns it, and the lock only keeps a
/// resource that another process was handed from being changed by two at once.
pub struct Keeper(Mutex<emq_id::Keeper>);

#[rustler::resource_impl]
impl rustler::Resource for Keeper {}

impl Keeper {
    /// The keeper; the core's calls cannot panic, so a poisoned lock holds a whole value.
    fn get(&self) -> MutexGuard<'_, emq_id::Keeper> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `{:ok, keeper}` of `Keeper::starting` on terms the core accepts, begun at monotonic `since`.
#[rustler::nif]
fn keeper_start(env: Env<'_>, ttl_ms: u64, margin_ms: u64, since: u64) -> Term<'_> {
    let terms = emq_id::LeaseTerms::new(ttl_ms, margin_ms);
    answer(env, terms.map(|t| ResourceArc::new(Keeper(Mutex::new(emq_id::Keeper::starting(t, since))))))
}

/// `{nexts, phases, actions}`: `Next::ALL`, `Phase::ALL` and `Action::ALL`,
/// as atoms (the keeper's typespecs are checked against them).
#[rustler::nif]
fn keeper_kinds(env: Env<'_>) -> (Vec<Atom>, Vec<Atom>, Vec<Atom>) {
    use emq_id::{Action, Next, Phase};
    (
        atoms(env, Next::ALL.map(Next::name)),
        atoms(env, Phase::ALL.map(Phase::name)),
        atoms(env, Action::ALL.map(Action::name)),
    )
}

/// `:acquire`, `:renew`, `:expired` or `:release`.
#[rustler::nif]
fn keeper_next(env: Env<'_>, keeper: ResourceArc<Keeper>, now: u64) -> Atom {
    atom(env, keeper.get().next(now).name())
}

/// `{action, after_ms}`; an atom that is no outcome is `ArgumentError`.
#[rustler::nif]
fn keeper_settle<'a>(
    env: Env<'a>,
    keeper: ResourceArc<Keeper>,
    settled: Term<'a>,
    sent: u64,
    now: u64,
) -> NifResult<(Atom, u64)> {
    let step = keeper.get().settle(outcome(settled)?, sent, now);
    Ok((atom(env, step.action.name()), step.after_ms))
}

/// `Keeper::release`: the held or pending lease is handed back from now on (`:ok`).
#[rustler::nif]
fn keeper_release(keeper: ResourceArc<Keeper>) -> Atom {
    keeper.get().release();
    rustler::types::atom::ok()
}

#[rustler::nif]
fn keeper_phase(env: Env<'_>, keeper: ResourceArc<Keeper>) -> Atom {
    atom(env, keeper.get().phase().name())
}

#[rustler::nif]
fn keeper_asked(keeper: ResourceArc<Keeper>) -> bool {
    keeper.get().asked()
}

/// `{ttl_ms, margin_ms}` of the keeper's terms.
#[rustler::nif]
fn keeper_terms(keeper: ResourceArc<Keeper>) -> (u64, u64) {
    let t = keeper.get().terms();
    (t.ttl_ms, t.margin_ms)
}

/// `Keeper::refusal`: `{:error, gate, message}` (the helper's form that keeps
/// the message, which the holder follows with the server's reply), or `nil`.
#[rustler::nif]
fn keeper_refusal<'a>(env: Env<'a>, settled: Term<'a>) -> NifResult<Term<'a>> {
    Ok(match emq_id::Keeper::refusal(outcome(settled)?) {
        Some(e) => refused_saying(env, e),
        None => rustler::types::atom::nil().encode(env),
    })
}
