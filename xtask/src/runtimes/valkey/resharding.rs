//! Leases while the reserve's slot migrates between primaries (SPEC.md §5.2),
//! on a live three-primary cluster, key batch by key batch as a resharding
//! does it (`SETSLOT … MIGRATING/IMPORTING`, `MIGRATE`, `SETSLOT … NODE`),
//! every script sent the way every cluster client sends it: to the slot's
//! owner, and on `-ASK` again to the named node after `ASKING`.
//!
//! - The control: `emq-lease/2`'s acquire, which reached per-node keys it did
//!   not declare, is granted a node a live owner holds once part of the keys
//!   moved — the hole, seen, so this test can see it.
//! - `emq-lease/3`, whose scripts declare the one key they touch: before the
//!   key moves, after it moved and after the migration ended, acquire,
//!   renew and release find the whole reserve, and no held node is granted.
//! - A Rust holder minting through the migration, paused longer than its TTL
//!   with the key on the target, keeps its lease and its ids in order.

use std::collections::HashSet;
use std::time::Duration;

use anyhow::{bail, ensure, Context, Result};
use emq_id::LeaseTerms;
use emq_lease::{Lease, LeaseOptions};
use emq_resp::{Connection, Reply};

use super::migration::Migration;
use super::reserve;
use super::server::{Cluster, Node};

/// `emq-lease/2`'s acquire, byte for byte: kept here only as the control.
/// It reads and writes `{emq}:node:<n>` and `…:mark`, declaring only the prefix.
const ACQUIRE_V2: &str = "\
local prefix, token, ttl = KEYS[1], ARGV[1], tonumber(ARGV[2])
local start, nodes, now = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
for i = 0, nodes - 1 do
  local n = (start + i) % nodes
  local previous = tonumber(redis.call('GET', prefix .. n .. ':mark') or '-1')
  if previous and redis.call('SET', prefix .. n, token, 'NX', 'PX', ttl) then
    local floor = math.max(now, previous + 1)
    redis.call('SET', prefix .. n .. ':mark', string.format('%d', floor + ttl))
    return {n, previous}
  end
end
return redis.error_reply('EMQLEASE every node is leased')
";

/// The one node no live owner holds in these tests.
const FREE: u16 = 700;

pub fn run() -> Result<()> {
    let cluster = Cluster::start()?;
    let slot = emq_id::slot(emq_id::LEASE_KEY.as_bytes());
    let owner = owner_of(&cluster, slot)?;
    let other = (owner + 1) % cluster.nodes.len();
    undeclared_keys_grant_a_held_node(&cluster, owner, other).context("the control: emq-lease/2 mid-migration")?;
    declared_key_follows_the_migration(&cluster, other, owner).context("emq-lease/3 mid-migration")?;
    holder_through_a_paused_migration(&cluster, owner, other).context("a Rust holder through a migration")
}

/// The index of the node that serves `slot`.
fn owner_of(cluster: &Cluster, slot: u16) -> Result<usize> {
    let map = emq_resp::slot_map(&mut cluster.nodes[0].connect()?)?;
    let addr = emq_resp::owner(&map, slot).context("no owner of the reserve's slot")?;
    cluster.nodes.iter().position(|n| n.addr == addr).context("the owner is not one of the cluster's nodes")
}

/// `EVAL` sent as a cluster client sends it: to the slot's owner `at`, and
/// on `-ASK` to the node named, after `ASKING`. Answers the reply and whether
/// it came from the node `ASK` named.
fn eval(at: &Node, text: &str, keys: &[&str], args: &[String]) -> Result<(Reply, bool)> {
    let count = keys.len().to_string();
    let mut call: Vec<&str> = vec!["EVAL", text, count.as_str()];
    call.extend_from_slice(keys);
    call.extend(args.iter().map(String::as_str));
    let reply = at.connect()?.cmd(&call)?;
    let Some(target) = reply.error().filter(|e| e.starts_with("ASK ")).and_then(|e| e.split_whitespace().nth(2)) else {
        return Ok((reply, false));
    };
    let mut there = Connection::open(target)?;
    let bytes: Vec<&[u8]> = call.iter().map(|a| a.as_bytes()).collect();
    let mut replies = there.pipeline(&[&[b"ASKING"], &bytes])?;
    Ok((replies.pop().context("no reply after ASKING")?, true))
}

fn acquire_args(token: &str, start: u16) -> Vec<String> {
    let now = emq_id::now_ms().to_string();
    vec![token.into(), "60000".into(), start.to_string(), emq_id::LEASE_NODES.to_string(), now]
}

/// The node and previous mark an acquire answered, or its error.
fn granted(reply: &Reply) -> Result<(u16, Option<u64>)> {
    if let Some(e) = reply.error() {
        bail!("acquire: {e}");
    }
    let pair = reply.as_array().filter(|p| p.len() == 2).context("acquire answers a pair")?;
    let a = emq_id::parse_acquire(pair[0].as_int().unwrap_or(-1), pair[1].as_int().unwrap_or(-2))?;
    Ok((a.node, a.previous_mark))
}

/// Every node but [`FREE`] held by a live owner under `emq-lease/2`'s keys;
/// the keys of nodes 300 to 1023 moved; the old acquire, following `ASK`,
/// is granted a node whose live lease is still on the source.
fn undeclared_keys_grant_a_held_node(cluster: &Cluster, from: usize, to: usize) -> Result<()> {
    let source = &cluster.nodes[from];
    let mut c = source.connect()?;
    let mark = emq_id::now_ms().to_string();
    let mut writes: Vec<Vec<String>> = vec![];
    for n in (0..emq_id::LEASE_NODES).filter(|&n| n != FREE) {
        writes.push(vec![
            "SET".into(),
            format!("{{emq}}:node:{n}"),
            format!("owner-{n}"),
            "PX".into(),
            "600000".into(),
        ]);
        writes.push(vec!["SET".into(), format!("{{emq}}:node:{n}:mark"), mark.clone()]);
    }
    let calls: Vec<Vec<&[u8]>> = writes.iter().map(|w| w.iter().map(|a| a.as_bytes()).collect()).collect();
    c.pipeline(&calls.iter().map(Vec::as_slice).collect::<Vec<_>>())?;

    let migration = Migration::begin(&cluster.nodes, from, to)?;
    let moved: Vec<String> = (300..emq_id::LEASE_NODES)
        .filter(|&n| n != FREE)
        .flat_map(|n| [format!("{{emq}}:node:{n}"), format!("{{emq}}:node:{n}:mark")])
        .collect();
    for batch in moved.chunks(100) {
        migration.move_keys(batch)?;
    }
    let (reply, redirected) = eval(source, ACQUIRE_V2, &["{emq}:node:"], &acquire_args("intruder", 0))?;
    let (node, previous) = granted(&reply)?;
    let owner = c.cmd(&["GET", &format!("{{emq}}:node:{node}")])?.as_text();
    ensure!(
        redirected && node != FREE && owner.is_some(),
        "the control is blind: emq-lease/2 mid-migration was granted node {node} (redirected: {redirected}, its owner on the source: {owner:?})"
    );
    println!(
        "resharding: control: emq-lease/2's acquire, following ASK mid-migration, was granted node {node}, which {} holds on the source (its mark read as {previous:?}): two live owners",
        owner.unwrap_or_default()
    );
    migration.finish()?;
    // Every key of the old protocol now on the target: gone, for the next test.
    let mut t = cluster.nodes[to].connect()?;
    let keys: Vec<String> = (0..emq_id::LEASE_NODES)
        .flat_map(|n| [format!("{{emq}}:node:{n}"), format!("{{emq}}:node:{n}:mark")])
        .collect();
    for batch in keys.chunks(200) {
        let mut call = vec!["DEL"];
        call.extend(batch.iter().map(String::as_str));
        t.cmd(&call)?;
    }
    Ok(())
}

/// Every node but [`FREE`] held by a live owner in the one lease key, and
/// other keys in the reserve's slot; the slot migrates with the lease key
/// still on the source, then moved, then ended. At each stage acquire,
/// renew and release (following `ASK` where it comes) find the whole
/// reserve: [`FREE`] is granted, nothing else, and another's lease is not renewed.
fn declared_key_follows_the_migration(cluster: &Cluster, from: usize, to: usize) -> Result<()> {
    let (source, target) = (&cluster.nodes[from], &cluster.nodes[to]);
    let mut c = source.connect()?;
    let held: Vec<u16> = (0..emq_id::LEASE_NODES).filter(|&n| n != FREE).collect();
    reserve::hold(&mut c, &held, "owner", 600_000)?;
    let fillers: Vec<String> = (0..200).map(|i| format!("{{emq}}:other:{i}")).collect();
    for key in &fillers {
        c.cmd(&["SET", key, "x"])?;
    }
    let key = [emq_id::LEASE_KEY];
    let stage = |at: &Node, name: &str, expect_redirect: bool| -> Result<()> {
        let (reply, redirected) = eval(at, emq_id::ACQUIRE.text, &key, &acquire_args("newcomer", 0))?;
        ensure!(redirected == expect_redirect, "{name}: acquire redirected: {redirected}");
        let (node, _) = granted(&reply)?;
        ensure!(node == FREE, "{name}: granted node {node}, which a live owner holds");
        let renew = |token: &str, node: u16| -> Result<i64> {
            let args = [token.into(), "60000".into(), emq_id::now_ms().to_string(), node.to_string()];
            let (reply, _) = eval(at, emq_id::RENEW.text, &key, &args)?;
            reply.as_int().with_context(|| format!("{name}: renew answered {reply:?}"))
        };
        ensure!(renew("newcomer", FREE)? == 1, "{name}: the newcomer's renewal refused");
        ensure!(renew("newcomer", 0)? == 0, "{name}: the newcomer renewed node 0, which another owns");
        let args = ["newcomer".into(), emq_id::now_ms().to_string(), FREE.to_string()];
        let (released, _) = eval(at, emq_id::RELEASE.text, &key, &args)?;
        ensure!(released.as_int() == Some(1), "{name}: release answered {released:?}");
        println!("resharding: emq-lease/3 {name}: acquire granted node {FREE} (the one free), renew 1 and 0 on another's, release 1");
        Ok(())
    };

    let migration = Migration::begin(&cluster.nodes, from, to)?;
    migration.move_keys(&fillers[..100])?;
    stage(source, "with the slot migrating and the lease key on the source", false)?;
    migration.move_keys(&[emq_id::LEASE_KEY.to_string()])?;
    stage(source, "with the lease key moved, the slot still migrating (ASK followed)", true)?;
    migration.finish()?;
    stage(target, "after the migration", false)?;
    let mut t = target.connect()?;
    t.cmd(&["DEL", emq_id::LEASE_KEY])?;
    for key in &fillers {
        t.cmd(&["DEL", key])?;
    }
    Ok(())
}

/// A holder (TTL 2 s) minting while the slot migrates: the lease key moved
/// and the migration left half done for three TTLs, then ended. It follows
/// `ASK` for its renewals, keeps its first lease and mints throughout.
fn holder_through_a_paused_migration(cluster: &Cluster, from: usize, to: usize) -> Result<()> {
    let seeds = cluster.nodes.iter().map(|n| n.addr.as_str()).collect::<Vec<_>>().join(",");
    let terms = LeaseTerms::new(2_000, 400)?;
    let lease = Lease::acquire(&seeds, LeaseOptions::new(terms).replicas(0))?;
    let node = lease.node().context("a lease held")?;
    let mut ids = HashSet::new();
    let mut last = 0u64;
    let mut mint_for = |ms: u64| -> Result<u64> {
        let (mut minted, until) = (0, std::time::Instant::now() + Duration::from_millis(ms));
        while std::time::Instant::now() < until {
            let id = lease.mint(b"JOB").map_err(|e| anyhow::anyhow!("minting on node {node}: {}", e.message()))?;
            ensure!(id.snowflake() > last && ids.insert(id.snowflake()), "an id out of order or repeated");
            last = id.snowflake();
            minted += 1;
            std::thread::sleep(Duration::from_millis(2));
        }
        Ok(minted)
    };
    let before = mint_for(1_000)?;
    let migration = Migration::begin(&cluster.nodes, from, to)?;
    migration.move_keys(&[emq_id::LEASE_KEY.to_string()])?;
    let during = mint_for(3 * terms.ttl_ms)?;
    migration.finish()?;
    let after = mint_for(2 * terms.ttl_ms)?;
    let stats = lease.stats();
    ensure!(stats.lost == 0 && stats.taken == 1, "the holder lost its lease: {stats:?}");
    ensure!(lease.release()?, "the holder's release was refused");
    let mut c = cluster.nodes[to].connect()?;
    ensure!(reserve::is_released(&mut c, node)?, "node {node} not released");
    println!(
        "resharding: a Rust holder (TTL {} ms) on node {node}: {before} ids before, {during} with the lease key moved and the migration paused {} ms, {after} after; 1 lease taken, 0 lost, 0 duplicates, in order",
        terms.ttl_ms,
        3 * terms.ttl_ms
    );
    Ok(())
}
