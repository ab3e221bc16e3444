//! Node leases on Valkey (`emq-lease/3`, SPEC.md §5.2): the core's scripts,
//! lease key, reply parsers, terms and leased minter, translated for Elixir
//! (`EmqId.Lease`, `EmqId.LeasedMinter`). Nothing here talks to Valkey or
//! decides anything: the host sends the scripts through its own client, and
//! every refusal is the core's, through [`refused`].

use rustler::{Atom, Binary, Encoder, Env, ResourceArc, Term};

use crate::error::refused;
use crate::{answer, atoms};

/// `emq_id::LEASE_PROTOCOL` (`"emq-lease/3"`).
#[rustler::nif]
fn lease_protocol() -> &'static str {
    emq_id::LEASE_PROTOCOL
}

/// `emq_id::LEASE_NODES`: the nodes a lease can be taken on (`ARGV[4]` of `acquire`).
#[rustler::nif]
fn lease_nodes() -> u16 {
    emq_id::LEASE_NODES
}

/// `emq_id::LEASE_REPLICAS`: the replicas that must acknowledge a lease write
/// (`WAIT`'s numreplicas) unless the deployment says otherwise.
#[rustler::nif]
fn lease_replicas() -> u32 {
    emq_id::LEASE_REPLICAS
}

/// `emq_id::SCRIPTS`, in order: `[{name, text, keys, args}]`.
#[rustler::nif]
fn lease_scripts() -> Vec<(&'static str, &'static str, Vec<&'static str>, Vec<&'static str>)> {
    emq_id::SCRIPTS.iter().map(|s| (s.name, s.text, s.keys.to_vec(), s.args.to_vec())).collect()
}

/// `emq_id::EVERY_NODE_LEASED`: the error reply of `acquire` when no node is free.
#[rustler::nif]
fn lease_every_node_leased() -> &'static str {
    emq_id::EVERY_NODE_LEASED
}

/// `emq_id::LEASE_KEY`: the reserve's one lease key, `KEYS[1]` of every script.
#[rustler::nif]
fn lease_key() -> &'static str {
    emq_id::LEASE_KEY
}

/// `{:ok, {node, previous_mark | nil}}` of `acquire`'s reply `{node, previous}`.
#[rustler::nif]
fn lease_parse_acquire(env: Env<'_>, node: i64, previous: i64) -> Term<'_> {
    answer(env, emq_id::parse_acquire(node, previous).map(|a| (a.node, a.previous_mark)))
}

/// `{:error, :node}` for `acquire`'s "every node is leased" (with or without
/// `ERR `), `nil` for any other error text (not the script's: the caller's
/// connection or server problem). Text that is not UTF-8 is not the script's.
#[rustler::nif]
fn lease_parse_acquire_error<'a>(env: Env<'a>, text: Binary<'a>) -> Term<'a> {
    match core::str::from_utf8(text.as_slice()).ok().and_then(emq_id::parse_acquire_error) {
        Some(e) => refused(env, e),
        None => rustler::types::atom::nil().encode(env),
    }
}

/// `:ok` for `renew`'s or `release`'s `1`; `{:error, :node}` for `0`.
#[rustler::nif]
fn lease_parse_renewal(env: Env<'_>, reply: i64) -> Term<'_> {
    match emq_id::parse_renewal(reply) {
        Ok(()) => atoms::ok().encode(env),
        Err(e) => refused(env, e),
    }
}

/// `:ok` when `WAIT`'s reply says at least `replicas` replicas acknowledged
/// the lease write; `{:error, :node}` for fewer, `{:error, :range}` for a
/// negative reply.
#[rustler::nif]
fn lease_parse_wait(env: Env<'_>, acknowledged: i64, replicas: u32) -> Term<'_> {
    match emq_id::parse_wait(acknowledged, replicas) {
        Ok(()) => atoms::ok().encode(env),
        Err(e) => refused(env, e),
    }
}

/// `emq_id::LeaseTerms::DEFAULT` as `{ttl_ms, margin_ms}`.
#[rustler::nif]
fn lease_default_terms() -> (u64, u64) {
    let t = emq_id::LeaseTerms::DEFAULT;
    (t.ttl_ms, t.margin_ms)
}

/// `{:ok, {ttl_ms, margin_ms}}` when the core accepts the terms.
#[rustler::nif]
fn lease_terms(env: Env<'_>, ttl_ms: u64, margin_ms: u64) -> Term<'_> {
    answer(env, emq_id::LeaseTerms::new(ttl_ms, margin_ms).map(|t| (t.ttl_ms, t.margin_ms)))
}

/// `{:ok, wait_ms}`: the `WAIT` timeout of terms the core accepts.
#[rustler::nif]
fn lease_wait_ms(env: Env<'_>, ttl_ms: u64, margin_ms: u64) -> Term<'_> {
    answer(env, emq_id::LeaseTerms::new(ttl_ms, margin_ms).map(|t| t.wait_ms()))
}

/// `{:ok, {ttl_ms, margin_ms}}` of `LeaseTerms::for_ttl`: the default margin,
/// kept to a sixth of a short TTL.
#[rustler::nif]
fn lease_terms_for_ttl(env: Env<'_>, ttl_ms: u64) -> Term<'_> {
    answer(env, emq_id::LeaseTerms::for_ttl(ttl_ms).map(|t| (t.ttl_ms, t.margin_ms)))
}

/// A minter on a leased node, shared between Erlang processes (lock-free:
/// the renewer updates it while others mint).
pub struct Leased(emq_id::LeasedMinter);

#[rustler::resource_impl]
impl rustler::Resource for Leased {}

/// `LeasedMinter::start`. The acquired node and mark and the terms come in
/// as numbers and go through the core's own readers again (`parse_acquire`,
/// `LeaseTerms::new`), so a hand-built map is held to the same gates as a
/// parsed reply. `previous` is `-1` for a node never leased.
#[rustler::nif]
fn leased_start(
    env: Env<'_>,
    node: i64,
    previous: i64,
    now_ms: i64,
    sent_mono_ms: u64,
    ttl_ms: u64,
    margin_ms: u64,
) -> Term<'_> {
    let started = emq_id::parse_acquire(node, previous).and_then(|acquired| {
        let terms = emq_id::LeaseTerms::new(ttl_ms, margin_ms)?;
        emq_id::LeasedMinter::start(acquired, now_ms, sent_mono_ms, terms)
    });
    answer(env, started.map(|m| ResourceArc::new(Leased(m))))
}

#[rustler::nif]
fn leased_node(minter: ResourceArc<Leased>) -> u16 {
    minter.0.node()
}

/// `{ttl_ms, margin_ms}` of the minter's terms.
#[rustler::nif]
fn leased_terms(minter: ResourceArc<Leased>) -> (u64, u64) {
    let t = minter.0.terms();
    (t.ttl_ms, t.margin_ms)
}

#[rustler::nif]
fn leased_next_at(env: Env<'_>, minter: ResourceArc<Leased>, now_ms: i64, mono_ms: u64) -> Term<'_> {
    answer(env, minter.0.next_at(now_ms, mono_ms))
}

#[rustler::nif]
fn leased_next_mark(minter: ResourceArc<Leased>, now_ms: i64) -> u64 {
    minter.0.next_mark(now_ms)
}

/// `:ok` (the core's `renewed` cannot refuse).
#[rustler::nif]
fn leased_renewed(minter: ResourceArc<Leased>, sent_mono_ms: u64, mark: u64) -> Atom {
    minter.0.renewed(sent_mono_ms, mark);
    atoms::ok()
}

/// `:ok`.
#[rustler::nif]
fn leased_stop(minter: ResourceArc<Leased>) -> Atom {
    minter.0.stop();
    atoms::ok()
}

#[rustler::nif]
fn leased_high_water(minter: ResourceArc<Leased>) -> u64 {
    minter.0.high_water()
}

#[rustler::nif]
fn leased_fence_ms(minter: ResourceArc<Leased>) -> u64 {
    minter.0.fence_ms()
}
