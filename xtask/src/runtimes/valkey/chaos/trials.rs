//! The same live tests for every runtime's one-call holder, run side by side:
//! each runtime's holder program (the fleet's, `holder.rs` says the contract)
//! against real Valkey, judged from its file of ids and its stats.
//!
//! 1. A one-node cluster whose slot map names no host: with `replicas 0` each
//!    acquires, mints and releases; with the default `replicas 1` none mints
//!    (no replica can acknowledge a write).
//! 2. A 3×2 cluster, `replicas 1`: **acquire**; **renew** (minting goes on
//!    over three TTLs on the first lease); **loss** (the node's lease is taken
//!    from under it) and **re-acquire** (a second lease on another node, its
//!    ids after every id of the first); **release** (the lease's token gone, the
//!    node's mark at or past its last id).
//! 3. A resharding, `replicas 1`: the reserve's slot migrates to another
//!    primary with the lease key moved first and the migration left half
//!    done for three TTLs. Each holder **renews** through it (every write
//!    redirected by `ASK`: its first lease kept, minting on); a second
//!    holder of each runtime **acquires** mid-split and mints; the first
//!    ones **release** mid-split (the lease key's token gone on the target).
//! 4. The lossy failover, `replicas 1`: acquires that reached only the
//!    primary (its replica lagging) mint nothing; the primary dies with them;
//!    once the promoted replica has a replica of its own every holder mints,
//!    from after the takeover, and no id repeats.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use emq_id::LeaseTerms;

use super::super::migration::Migration;
use super::super::reserve;
use super::cluster::Replicated;
use super::faults::fill_replica_link;
use super::holder::{now, Holder, Orders, Program};
use super::scenario::empty_host_node;
use super::verdict::{read, Record};

/// Short leases, so renewals, losses and fences show within seconds; not
/// shorter, as seven holder programs on a loaded 2-core machine must each
/// renew within TTL − margin (a 600 ms TTL lost leases to scheduling alone).
const TERMS: (u64, u64) = (1_500, 250);

pub fn run(programs: &[Program], dir: &Path) -> Result<()> {
    let terms = LeaseTerms::new(TERMS.0, TERMS.1)?;
    let dir = dir.join("trials");
    let _ = std::fs::remove_dir_all(&dir);
    crate::mkdir(&dir)?;
    let mut passed: BTreeMap<&'static str, Vec<&'static str>> = BTreeMap::new();
    let mut pass = |holders: &[Holder], test: &'static str| {
        for h in holders {
            passed.entry(h.runtime).or_default().push(test);
        }
    };
    pass(&one_node(programs, &dir, terms).context("a one-node cluster")?, "one-node cluster");
    let mut cluster = Replicated::start()?;
    let life = lifecycle(&cluster, programs, &dir, terms).context("acquire, renew, loss, re-acquire, release")?;
    pass(&life, "acquire, renew, loss, re-acquire, release");
    pass(&resharding(&cluster, programs, &dir, terms).context("a resharding")?, "resharding (ASK followed)");
    pass(&lossy_failover(&mut cluster, programs, &dir, terms).context("the lossy failover")?, "lossy failover");
    println!("\nholders, the same live tests in every runtime (TTL {} ms, margin {} ms):", TERMS.0, TERMS.1);
    for (runtime, tests) in &passed {
        println!("  {runtime:<12} passed: {}", tests.join("; "));
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// One holder of each program, started with the same orders.
fn spawn_all(programs: &[Program], dir: &Path, tag: &str, orders: &Orders) -> Result<Vec<Holder>> {
    programs.iter().map(|p| Holder::spawn(format!("{tag}-{}", p.runtime), dir, p, orders)).collect()
}

/// Polls (`within` at most) until `ready` holds for every holder's records.
fn wait_until(holders: &[Holder], within: Duration, what: &str, ready: impl Fn(&[Record]) -> bool) -> Result<()> {
    let waiting = || -> Vec<&str> {
        holders.iter().filter(|h| !read(h).map(|r| ready(&r)).unwrap_or(false)).map(|h| h.label.as_str()).collect()
    };
    ensure!(
        crate::poll(within, crate::POLL, || waiting().is_empty()),
        "{:?}: {what} within {} s",
        waiting(),
        within.as_secs()
    );
    Ok(())
}

fn in_order(h: &Holder, records: &[Record]) -> Result<()> {
    let behind = records.windows(2).filter(|w| w[1].snowflake <= w[0].snowflake).count();
    ensure!(behind == 0, "{}: {behind} ids not after the one before", h.label);
    Ok(())
}

fn one_node(programs: &[Program], dir: &Path, terms: LeaseTerms) -> Result<Vec<Holder>> {
    let node = empty_host_node()?;
    let mut c = node.connect()?;
    let unsafe_orders = Orders { seeds: node.addr.clone(), replicas: 0, terms };
    let mut holders = spawn_all(programs, dir, "one-node", &unsafe_orders)?;
    wait_until(&holders, Duration::from_secs(20), "minted on the one node", |r| r.len() >= 10)?;
    for h in &mut holders {
        h.finish();
        let records = read(h)?;
        in_order(h, &records)?;
        let node = emq_id::node(records[0].snowflake);
        ensure!(records.iter().all(|r| r.lease == 1 && emq_id::node(r.snowflake) == node), "{}: one lease", h.label);
        ensure!(reserve::is_released(&mut c, node)?, "{}: node {node} not released", h.label);
    }
    // The default asks a replica to acknowledge every lease write: this node has none.
    let safe_orders = Orders { replicas: 1, ..unsafe_orders };
    let mut refused = spawn_all(programs, dir, "one-node-replicas-1", &safe_orders)?;
    std::thread::sleep(Duration::from_millis(1_500));
    for h in &mut refused {
        ensure!(read(h)?.is_empty(), "{}: minted with replicas 1 and no replica", h.label);
        h.kill();
    }
    Ok(holders)
}

fn lifecycle(cluster: &Replicated, programs: &[Program], dir: &Path, terms: LeaseTerms) -> Result<Vec<Holder>> {
    let orders = Orders { seeds: cluster.seeds(), replicas: 1, terms };
    let mut holders = spawn_all(programs, dir, "lifecycle", &orders)?;
    wait_until(&holders, Duration::from_secs(20), "acquired and minted", |r| !r.is_empty())?;
    // Renew: three TTLs on, each still mints on its first lease.
    let ttl = terms.ttl_ms;
    wait_until(&holders, Duration::from_secs(20), "minted over three TTLs on one lease", |r| {
        r.last().is_some_and(|last| last.lease == 1 && last.at >= r[0].at + 3 * ttl)
    })?;
    let mut first_nodes = vec![];
    for h in &holders {
        let records = read(h)?;
        in_order(h, &records)?;
        let node = emq_id::node(records[0].snowflake);
        ensure!(records.iter().all(|r| r.lease == 1 && emq_id::node(r.snowflake) == node), "{}: one lease", h.label);
        first_nodes.push(node);
    }
    let distinct: HashSet<u16> = first_nodes.iter().copied().collect();
    ensure!(distinct.len() == holders.len(), "two holders on one node: {first_nodes:?}");

    // Loss: another owner takes each node; each holder's next renewal finds it gone.
    let mut c = cluster.connect(cluster.reserve_primary()?)?;
    reserve::hold(&mut c, &first_nodes, "another-owner", 60_000)?;
    wait_until(&holders, Duration::from_secs(20), "re-acquired after the loss", |r| r.iter().any(|x| x.lease == 2))?;
    std::thread::sleep(Duration::from_millis(2 * ttl));
    for h in &mut holders {
        h.finish();
    }
    for (h, &lost) in holders.iter().zip(&first_nodes) {
        let records = read(h)?;
        in_order(h, &records)?;
        let second: Vec<&Record> = records.iter().filter(|r| r.lease == 2).collect();
        let node = emq_id::node(second[0].snowflake);
        ensure!(node != lost, "{}: took its lost node {lost} again while another owner held it", h.label);
        ensure!(second.iter().all(|r| emq_id::node(r.snowflake) == node), "{}: a second lease on one node", h.label);
        ensure!(records.iter().all(|r| r.lease <= 2), "{}: lost its second lease", h.label);
        let stats = h.stats.as_ref().with_context(|| format!("{}: no stats line", h.label))?;
        ensure!(stats["taken"] == 2 && stats["lost"] == 1, "{}: stats {stats}", h.label);
        // Release: the node is free again, its mark at or past the last id minted on it.
        ensure!(reserve::is_released(&mut c, node)?, "{}: node {node} not released", h.label);
        let mark = reserve::mark(&mut c, node)?.with_context(|| format!("{}: node {node} has no mark", h.label))?;
        let last = emq_id::unix_ms(second.last().map_or(0, |r| r.snowflake));
        ensure!(mark >= last, "{}: released with mark {mark}, before its last id ({last})", h.label);
        reserve::free(&mut c, &[lost])?;
    }
    Ok(holders)
}

fn resharding(cluster: &Replicated, programs: &[Program], dir: &Path, terms: LeaseTerms) -> Result<Vec<Holder>> {
    let orders = Orders { seeds: cluster.seeds(), replicas: 1, terms };
    let mut first = spawn_all(programs, dir, "resharding", &orders)?;
    wait_until(&first, Duration::from_secs(20), "acquired and minted", |r| !r.is_empty())?;
    let (p, ttl) = (cluster.reserve_primary()?, terms.ttl_ms);
    let q = cluster.other_primary(p)?;
    let migration = Migration::begin(&cluster.nodes, p, q)?;
    migration.move_keys(&[emq_id::LEASE_KEY.to_string()])?;
    let split = now();
    let mut joining = spawn_all(programs, dir, "resharding-joining", &orders)?;
    // Three TTLs mid-split: the first holders mint on through renewals that
    // ASK redirects, and the joining ones take their nodes the same way.
    wait_until(&first, Duration::from_secs(20), "minted over three TTLs of the split on its first lease", |r| {
        r.last().is_some_and(|last| last.lease == 1 && last.at >= split + 3 * ttl)
    })?;
    wait_until(&joining, Duration::from_secs(20), "acquired mid-split and minted", |r| !r.is_empty())?;
    let mut c = cluster.connect(q)?;
    for h in &mut first {
        h.finish();
        let records = read(h)?;
        in_order(h, &records)?;
        let node = emq_id::node(records[0].snowflake);
        ensure!(records.iter().all(|r| r.lease == 1), "{}: lost its lease mid-split", h.label);
        let stats = h.stats.as_ref().with_context(|| format!("{}: no stats line", h.label))?;
        ensure!(stats["taken"] == 1 && stats["lost"] == 0, "{}: stats {stats}", h.label);
        // Released mid-split: the key, on the target (read after ASKING, the
        // slot still importing there), no longer has its token.
        c.cmd(&["ASKING"])?;
        ensure!(reserve::is_released(&mut c, node)?, "{}: node {node} not released mid-split", h.label);
    }
    migration.finish()?;
    for h in &mut joining {
        h.finish();
        in_order(h, &read(h)?)?;
    }
    cluster.wait_replicated(q)?;
    Ok(first)
}

fn lossy_failover(
    cluster: &mut Replicated,
    programs: &[Program],
    dir: &Path,
    terms: LeaseTerms,
) -> Result<Vec<Holder>> {
    let p = cluster.reserve_primary()?;
    let r = cluster.replica_of(p)?;
    let mut c = cluster.connect(p)?;
    // As many free nodes as holders: the rest held by the harness, replicated.
    let free = reserve::free_nodes(&mut c)?;
    ensure!(free.len() > programs.len(), "{} free nodes", free.len());
    cluster.hold(&mut c, &free[programs.len()..], 600_000)?;
    cluster.nodes[r].pause(true)?;
    let fillers = fill_replica_link(&mut c)?;
    let orders = Orders { seeds: cluster.seeds(), replicas: 1, terms };
    let mut holders = spawn_all(programs, dir, "lossy", &orders)?;
    // Each acquire reaches the primary while its replica is paused, and is refused. A refused
    // acquire hands its node back and tries again, so the free nodes are held in turns: the
    // harness waits until it has seen each of them held on the primary, all at once as a rule.
    // A holder whose turns are long makes that moment rare (it can take past 45 s), so each
    // node seen held at some sample over at least 10 s also ends the wait.
    let watched = free[..programs.len()].to_vec();
    let mut seen_held: HashSet<u16> = HashSet::new();
    let start = Instant::now();
    loop {
        let still_free = reserve::free_nodes(&mut c)?;
        seen_held.extend(watched.iter().filter(|n| !still_free.contains(n)));
        if still_free.is_empty() || (seen_held.len() == watched.len() && start.elapsed() > Duration::from_secs(10)) {
            let how = if still_free.is_empty() { "all at once" } else { "each in turn" };
            println!(
                "holders: the lossy failover: the {} free nodes held on the primary {how} within {} ms",
                watched.len(),
                start.elapsed().as_millis()
            );
            break;
        }
        if start.elapsed() > Duration::from_secs(45) {
            let ended: Vec<&str> =
                holders.iter_mut().filter_map(|h| h.has_ended().then_some(h.label.as_str())).collect();
            // Which clients the primary sees, by library, and what each did last: a holder
            // that never reached it is the one missing here.
            let clients = c.cmd(&["CLIENT", "LIST"]).ok().and_then(|r| r.as_text()).unwrap_or_default();
            bail!(
                "the holders never held each free node on the primary: {still_free:?} free, {:?} seen held; ended: {ended:?}; the primary's clients:\n{clients}",
                seen_held
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(1_000));
    for h in &holders {
        ensure!(read(h)?.is_empty(), "{}: minted on a lease no replica acknowledged", h.label);
    }
    cluster.kill(p);
    cluster.nodes[r].pause(false)?;
    cluster.takeover(r)?;
    let promoted = now();
    let mut c = cluster.connect(r)?;
    let unfill: Vec<&str> = std::iter::once("DEL").chain(fillers.iter().map(String::as_str)).collect();
    c.cmd(&unfill)?;
    cluster.restart(p)?;
    cluster.wait_replicated(r)?;
    wait_until(&holders, Duration::from_secs(20), "minted after the failover", |r| !r.is_empty())?;
    let mut seen = HashSet::new();
    for h in &mut holders {
        h.finish();
        let records = read(h)?;
        in_order(h, &records)?;
        ensure!(records[0].at >= promoted, "{}: minted before the replica took over", h.label);
        for record in &records {
            ensure!(seen.insert(record.snowflake), "{}: an id minted twice", h.label);
        }
    }
    println!(
        "holders: the lossy failover with replicas 1: {} holders minted nothing before the takeover, then {} ids, none twice",
        holders.len(),
        seen.len()
    );
    Ok(holders)
}
