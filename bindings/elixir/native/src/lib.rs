//! The Elixir NIF over emq-id: each function converts terms to the core's
//! types and back, and every refusal becomes `{:error, gate}` through one
//! helper ([`refused`], in `error.rs`); `contract.rs` hands Elixir the
//! contract's facts (gates, highest node, self-check vectors) so it copies none;
//! `lease.rs` the node-lease protocol (scripts, keys, reply parsers, the
//! leased minter as a resource); `keeper.rs` the lease keeper (what a write
//! came to, which write is due, the keeper as a resource).
//! Calls of bounded work are regular NIFs; a batch (`minter_next_many`), a key
//! past 64 KiB (`slot_dirty`, `hashtag_dirty`) and taking the process's node
//! (file I/O on its claim) run on dirty schedulers. rustler catches a panic and
//! raises it in the calling Erlang process, which is all a panic can do here:
//! it never takes the VM down.

use rustler::{Binary, Encoder, Env, NifResult, ResourceArc, Term};

mod contract;
mod error;
mod keeper;
mod lease;

use error::{refused, refused_saying};

mod atoms {
    rustler::atoms! { ok, error, env, set, fallback, lt, eq, gt }
}

/// `{:ok, value}`.
fn ok<'a>(env: Env<'a>, value: impl Encoder) -> Term<'a> {
    (atoms::ok(), value).encode(env)
}

/// `{:ok, value}`, or `{:error, gate}` for a refusal.
fn answer<'a, T: Encoder>(env: Env<'a>, result: emq_id::Result<T>) -> Term<'a> {
    match result {
        Ok(v) => ok(env, v),
        Err(e) => refused(env, e),
    }
}

/// ASCII text the core built (ids, keys, entry ids) as an Elixir binary.
fn text<'a>(env: Env<'a>, bytes: &[u8]) -> Term<'a> {
    core::str::from_utf8(bytes).unwrap_or_default().encode(env)
}

#[rustler::nif]
fn encode<'a>(env: Env<'a>, ns: Binary<'a>, snowflake: u64) -> Term<'a> {
    answer(env, emq_id::encode(ns.as_slice(), snowflake).map(|id| text(env, &id)))
}

/// `{:ok, {ns, snowflake}}`: the namespace a sub-binary of the input (no copy).
#[rustler::nif]
fn parse<'a>(env: Env<'a>, id: Binary<'a>) -> NifResult<Term<'a>> {
    Ok(match emq_id::decode(id.as_slice()) {
        Ok((_, s)) => ok(env, (id.make_subbinary(0, emq_id::NS_LEN)?, s)),
        Err(e) => refused(env, e),
    })
}

#[rustler::nif]
fn valid(id: Binary<'_>) -> bool {
    emq_id::is_valid(id.as_slice())
}

/// `{:ok, :lt | :eq | :gt}`: two ids by namespace, then snowflake (`a` refused first).
#[rustler::nif]
fn compare<'a>(env: Env<'a>, a: Binary<'a>, b: Binary<'a>) -> Term<'a> {
    match emq_id::compare(a.as_slice(), b.as_slice()) {
        Ok(core::cmp::Ordering::Less) => ok(env, atoms::lt()),
        Ok(core::cmp::Ordering::Equal) => ok(env, atoms::eq()),
        Ok(core::cmp::Ordering::Greater) => ok(env, atoms::gt()),
        Err(e) => refused(env, e),
    }
}

#[rustler::nif]
fn hash32(snowflake: u64) -> u32 {
    emq_id::hash32(snowflake)
}

/// `{unix_ms, node, seq}` of a snowflake (total over u64).
#[rustler::nif]
fn fields(snowflake: u64) -> (u64, u16, u16) {
    (emq_id::unix_ms(snowflake), emq_id::node(snowflake), emq_id::seq(snowflake))
}

#[rustler::nif]
fn min_for(env: Env<'_>, unix_ms: i64) -> Term<'_> {
    answer(env, emq_id::min_for(unix_ms))
}

#[rustler::nif]
fn slot(key: Binary<'_>) -> u16 {
    emq_id::slot(key.as_slice())
}

/// `slot` for a key long enough to hold a scheduler (the Elixir side picks it past 64 KiB).
#[rustler::nif(name = "slot_dirty", schedule = "DirtyCpu")]
fn slot_dirty(key: Binary<'_>) -> u16 {
    emq_id::slot(key.as_slice())
}

/// The hashtag, a sub-binary of the key (no copy).
#[rustler::nif]
fn hashtag<'a>(key: Binary<'a>) -> NifResult<Binary<'a>> {
    tag_of(key)
}

#[rustler::nif(name = "hashtag_dirty", schedule = "DirtyCpu")]
fn hashtag_dirty<'a>(key: Binary<'a>) -> NifResult<Binary<'a>> {
    tag_of(key)
}

fn tag_of(key: Binary<'_>) -> NifResult<Binary<'_>> {
    let tag = emq_id::hashtag(key.as_slice());
    let offset = tag.as_ptr() as usize - key.as_slice().as_ptr() as usize;
    key.make_subbinary(offset, tag.len())
}

#[rustler::nif]
fn key<'a>(env: Env<'a>, queue: Binary<'a>, ty: Binary<'a>) -> Term<'a> {
    answer(env, emq_id::key(queue.as_slice(), ty.as_slice(), None).map(|k| text(env, k.as_bytes())))
}

/// The emq-keyspace/1 form: `key(queue, "job", id)` (another type with an id is `kind`).
#[rustler::nif]
fn key_with_id<'a>(env: Env<'a>, queue: Binary<'a>, ty: Binary<'a>, id: Binary<'a>) -> Term<'a> {
    answer(env, emq_id::key(queue.as_slice(), ty.as_slice(), Some(id.as_slice())).map(|k| text(env, k.as_bytes())))
}

/// `{:ok, {queue, family, param | nil}}`, queue and param sub-binaries of the key.
#[rustler::nif]
fn parse_key<'a>(env: Env<'a>, key: Binary<'a>) -> NifResult<Term<'a>> {
    let bytes = key.as_slice();
    let parsed = match emq_id::parse_key(bytes) {
        Ok(p) => p,
        Err(e) => return Ok(refused(env, e)),
    };
    let sub = |part: &[u8]| key.make_subbinary(part.as_ptr() as usize - bytes.as_ptr() as usize, part.len());
    let queue = sub(parsed.queue)?;
    let family = parsed.family.pattern().to_string();
    let param = parsed.param.map(sub).transpose()?;
    Ok(ok(env, (queue, family, param)))
}

#[rustler::nif]
fn reserve<'a>(env: Env<'a>, name: Binary<'a>) -> Term<'a> {
    answer(env, emq_id::reserve(name.as_slice()).map(|k| text(env, k.as_bytes())))
}

#[rustler::nif]
fn queue_prefix<'a>(env: Env<'a>, queue: Binary<'a>) -> Term<'a> {
    answer(env, emq_id::queue_prefix(queue.as_slice()).map(|k| text(env, k.as_bytes())))
}

#[rustler::nif]
fn job_prefix<'a>(env: Env<'a>, queue: Binary<'a>) -> Term<'a> {
    answer(env, emq_id::job_prefix(queue.as_slice()).map(|k| text(env, k.as_bytes())))
}

#[rustler::nif]
fn prefix_bytes<'a>(env: Env<'a>, queue: Binary<'a>, ty: Binary<'a>) -> Term<'a> {
    answer(env, emq_id::prefix_bytes(queue.as_slice(), ty.as_slice()))
}

#[rustler::nif]
fn xadd_id<'a>(env: Env<'a>, id: Binary<'a>) -> Term<'a> {
    answer(env, emq_id::xadd_id(id.as_slice()).map(|entry| text(env, entry.as_str().as_bytes())))
}

#[rustler::nif]
fn from_xadd_id<'a>(env: Env<'a>, entry: Binary<'a>, ns: Binary<'a>) -> Term<'a> {
    answer(env, emq_id::from_xadd_id(entry.as_slice(), ns.as_slice()).map(|id| text(env, &id.to_bytes())))
}

/// The contract's pure step: `{:ok, {state', snowflake}}`.
#[rustler::nif]
fn mint_step(env: Env<'_>, state: u64, node: u64, now_ms: i64) -> Term<'_> {
    let node = u16::try_from(node).unwrap_or(u16::MAX); // above MAX_NODE either way: the core's range gate
    answer(env, emq_id::step(state, node, now_ms))
}

/// A minter for one node, shared between Erlang processes (lock-free).
pub struct Minter(emq_id::Minter);

#[rustler::resource_impl]
impl rustler::Resource for Minter {}

#[rustler::nif]
fn minter_new(env: Env<'_>, node: u64) -> Term<'_> {
    let node = u16::try_from(node).unwrap_or(u16::MAX);
    answer(env, emq_id::Minter::new(node).map(|m| ResourceArc::new(Minter(m))))
}

#[rustler::nif]
fn minter_node(minter: ResourceArc<Minter>) -> u16 {
    minter.0.node()
}

#[rustler::nif]
fn minter_next(env: Env<'_>, minter: ResourceArc<Minter>) -> Term<'_> {
    answer(env, minter.0.next())
}

#[rustler::nif]
fn minter_next_at(env: Env<'_>, minter: ResourceArc<Minter>, now_ms: i64) -> Term<'_> {
    answer(env, minter.0.next_at(now_ms))
}

/// `count` snowflakes with one clock reading, on a dirty scheduler (a batch
/// can take longer than a regular NIF may hold a scheduler).
#[rustler::nif(schedule = "DirtyCpu")]
fn minter_next_many(env: Env<'_>, minter: ResourceArc<Minter>, count: usize) -> Term<'_> {
    let now = emq_id::now_ms();
    answer(env, (0..count).map(|_| minter.0.next_at(now)).collect::<emq_id::Result<Vec<u64>>>())
}

/// An id from the process-wide minter (the BEAM's OS process: one node on this host).
#[rustler::nif]
fn mint<'a>(env: Env<'a>, ns: Binary<'a>) -> Term<'a> {
    answer(env, emq_id::mint(ns.as_slice()).map(|id| text(env, &id.to_bytes())))
}

fn process_node_term<'a>(env: Env<'a>, p: emq_id::Result<&emq_id::ProcessMinter>) -> Term<'a> {
    match p {
        Ok(p) => {
            let source = match p.source() {
                emq_id::NodeSource::Env => atoms::env(),
                emq_id::NodeSource::Explicit => atoms::set(),
                _ => atoms::fallback(),
            };
            ok(env, (p.node(), source))
        }
        Err(e) => refused_saying(env, e),
    }
}

/// `{:ok, {node, source}}`, taking the process's node on first use; a refusal
/// is `{:error, gate, message}` (the message names the node and its holder).
/// Dirty I/O: taking a node opens, locks and writes its claim file.
#[rustler::nif(schedule = "DirtyIo")]
fn process_node(env: Env<'_>) -> Term<'_> {
    process_node_term(env, emq_id::process_minter())
}

#[rustler::nif(schedule = "DirtyIo")]
fn set_process_node(env: Env<'_>, node: u64) -> Term<'_> {
    let node = u16::try_from(node).unwrap_or(u16::MAX);
    process_node_term(env, emq_id::set_process_node(node))
}

/// A NIF that does nothing: the floor under every call, for the benchmark;
/// only in a build with the `bench` feature.
#[cfg(feature = "bench")]
#[rustler::nif]
fn noop() {}

/// A panic inside a NIF, for the test that proves it reaches Elixir as an
/// exception and not as a dead VM.
#[rustler::nif]
fn panic_for_test() -> u64 {
    panic!("a panic raised on purpose by the test suite")
}

rustler::init!("Elixir.EmqId.Native");
