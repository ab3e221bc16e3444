//! Node leases on live servers (SPEC.md §5.2), each proof printing its
//! counts: a full cluster of 1,100 acquirers, a holder killed outright, a
//! thousand hand-overs under clock skew, leases taken from Rust and Node at
//! once, a holder whose Valkey goes away, and the reserve's slot migrating
//! (`resharding`).

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use emq_id::{LeaseTerms, LeasedMinter};
use emq_lease::{Lease, LeaseError, LeaseOptions};
use emq_resp::{Connection, Reply};

use super::reserve;
use super::server::Cluster;
use crate::root;
use crate::runtimes::{cli, node};

pub fn run() -> Result<()> {
    let cluster = Cluster::start()?;
    let addr = cluster.nodes[0].addr.clone(); // any node: the runner follows the slot map
    scripts_as_the_server_names_them(&addr).context("SCRIPT LOAD")?;
    capacity(&addr).context("1,100 acquirers")?;
    handovers(&addr).context("1,000 hand-overs under skew")?;
    killed_holder(&addr).context("a holder killed with SIGKILL")?;
    across_runtimes(&addr).context("leases from Rust and Node at once")?;
    drop(cluster);
    fenced_when_valkey_goes_away().context("a holder whose Valkey goes away")?;
    super::resharding::run().context("leases while the reserve's slot migrates")
}

/// The server's own SHA-1 of each script (`SCRIPT LOAD`, what `EVALSHA`
/// takes) is the one the vector file pins: the oracle is Valkey, not our hash.
fn scripts_as_the_server_names_them(addr: &str) -> Result<()> {
    let file = crate::load(&root().join(crate::vectors::PATH))?;
    let pinned = file["lease_scripts"].as_array().context("the vector file's lease_scripts")?;
    let mut c = reserve_primary(addr)?;
    for script in emq_id::SCRIPTS {
        let sha = c.cmd(&["SCRIPT", "LOAD", script.text])?.as_text().context("SCRIPT LOAD answers a digest")?;
        let case = pinned
            .iter()
            .find(|p| p["name"] == script.name)
            .with_context(|| format!("{} is not pinned", script.name))?;
        ensure!(
            case["sha1"] == sha.as_str() && case["text"] == script.text,
            "{}: the server names it {sha}, the file pins {}",
            script.name,
            case["sha1"]
        );
    }
    println!("leases: the three scripts' SHA-1 as Valkey's SCRIPT LOAD answers them = the vector file's pins");
    Ok(())
}

/// 1,100 concurrent acquirers on 1,024 nodes: 1,024 distinct holders, 76
/// clear refusals; 10 released let exactly 10 more in.
fn capacity(addr: &str) -> Result<()> {
    let terms = LeaseTerms::new(120_000, 20_000)?;
    let start = Arc::new(Barrier::new(1_100));
    let tries: Vec<_> = (0..1_100)
        .map(|_| {
            let (start, addr) = (start.clone(), addr.to_string());
            std::thread::spawn(move || {
                start.wait();
                Lease::acquire(&addr, unreplicated(terms))
            })
        })
        .collect();
    let (mut held, mut refused) = (vec![], 0);
    for t in tries {
        match t.join().map_err(|_| anyhow::anyhow!("an acquirer panicked"))? {
            Ok(lease) => held.push(lease),
            Err(LeaseError::Gate(e)) if e.gate() == emq_id::Gate::Node && e.detail().contains("every node") => {
                refused += 1
            }
            Err(e) => bail!("an acquirer failed other than by the node gate: {e}"),
        }
    }
    let nodes: HashSet<u16> = held.iter().filter_map(Lease::node).collect();
    ensure!(
        held.len() == 1_024 && nodes.len() == 1_024 && refused == 76,
        "{} held ({} distinct), {refused} refused",
        held.len(),
        nodes.len()
    );
    let freed: Vec<u16> = held
        .drain(..10)
        .map(|l| {
            let n = l.node().unwrap_or(u16::MAX);
            l.release().map(|released| (n, released))
        })
        .collect::<std::result::Result<Vec<_>, _>>()?
        .into_iter()
        .map(|(n, released)| if released { n } else { u16::MAX })
        .collect();
    let again: Vec<Lease> =
        (0..10).map(|_| Lease::acquire(addr, unreplicated(terms))).collect::<std::result::Result<_, _>>()?;
    let retaken: HashSet<u16> = again.iter().filter_map(Lease::node).collect();
    ensure!(retaken == freed.iter().copied().collect(), "the 10 new holders took {retaken:?}, not the freed {freed:?}");
    let eleventh = Lease::acquire(addr, unreplicated(terms));
    ensure!(matches!(eleventh, Err(LeaseError::Gate(_))), "an 11th acquirer got a node");
    println!("leases: 1,100 concurrent acquirers → 1,024 distinct nodes held, 76 refused (node: every node is leased); 10 released → 10 more in, the 11th refused");
    drop(again);
    drop(held);
    Ok(())
}

/// These clusters have no replicas: their leases are taken with `replicas: 0`
/// (the failover proofs with replicas are `cargo xtask chaos`).
fn unreplicated(terms: LeaseTerms) -> LeaseOptions {
    LeaseOptions::new(terms).replicas(0)
}

/// The reserve's primary, for the scripts run directly.
fn reserve_primary(addr: &str) -> Result<Connection> {
    emq_lease::connect(addr).with_context(|| format!("the reserve's primary via {addr}"))
}

fn eval(c: &mut Connection, script: &emq_id::Script, keys: &[&str], args: &[String]) -> Result<Reply> {
    let count = keys.len().to_string();
    let mut call = vec!["EVAL", script.text, count.as_str()];
    call.extend_from_slice(keys);
    call.extend(args.iter().map(String::as_str));
    let reply = c.cmd(&call).with_context(|| format!("EVAL {}", script.name))?;
    if let Some(e) = reply.error() {
        bail!("{}: {e}", script.name);
    }
    Ok(reply)
}

/// A thousand owners of one node in turn, their clocks alternately 5 s apart
/// (every 50th dies holding it: its lease runs out on the server): each
/// owner's first id sorts after its predecessor's last, and no id repeats.
fn handovers(addr: &str) -> Result<()> {
    const NODE: u16 = 777;
    let mut c = reserve_primary(addr)?;
    let terms = LeaseTerms::new(30_000, 5_000)?;
    let leases = [emq_id::LEASE_KEY];
    let mut seen = HashSet::new();
    let (mut last, mut crashes) = (0u64, 0);
    for owner in 0..1_000 {
        let skew = if owner % 2 == 1 { -5_000 } else { 0 };
        let now = emq_id::now_ms() + skew;
        let token = format!("owner-{owner}");
        let args = [
            token.clone(),
            terms.ttl_ms.to_string(),
            NODE.to_string(),
            emq_id::LEASE_NODES.to_string(),
            now.to_string(),
        ];
        let reply = eval(&mut c, &emq_id::ACQUIRE, &leases, &args)?;
        let pair = reply.as_array().context("acquire answers a pair")?;
        let acquired = emq_id::parse_acquire(pair[0].as_int().unwrap_or(-1), pair[1].as_int().unwrap_or(-2))?;
        ensure!(acquired.node == NODE, "owner {owner} got node {}, not {NODE}", acquired.node);
        let minter = LeasedMinter::start(acquired, now, emq_id::monotonic_ms(), terms)?;
        for i in 0..50 {
            let s = minter.next_at(emq_id::now_ms() + skew, emq_id::monotonic_ms())?;
            ensure!(i > 0 || s > last, "owner {owner}'s first id {s} does not sort after {last}");
            ensure!(seen.insert(s), "owner {owner} repeated the id {s}");
            last = s;
        }
        if owner % 50 == 49 {
            // Dies holding the node: the server lets the lease run out (made short here).
            eval(&mut c, &emq_id::RENEW, &leases, &[token, "1".into(), "0".into(), NODE.to_string()])?;
            std::thread::sleep(Duration::from_millis(5));
            crashes += 1;
        } else {
            let reply =
                eval(&mut c, &emq_id::RELEASE, &leases, &[token, minter.high_water().to_string(), NODE.to_string()])?;
            emq_id::parse_renewal(reply.as_int().unwrap_or(-1))?;
        }
    }
    println!(
        "leases: 1,000 hand-overs of node {NODE}, clocks alternately 5 s behind, {crashes} owners dying with it: {} ids, 0 duplicates, every owner's first id after its predecessor's last",
        seen.len()
    );
    Ok(())
}

/// `emq-id lease` killed with SIGKILL: its node stays leased until the TTL
/// runs out on the server, and is free right after.
fn killed_holder(addr: &str) -> Result<()> {
    let ttl = 3_000u64;
    let mut holder = Command::new(cli::build()?)
        .args(["lease", "--cluster", addr, "--replicas", "0", "--ttl", &ttl.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .context("starting emq-id lease")?;
    let mut line = String::new();
    BufReader::new(holder.stdout.take().context("its stdout")?).read_line(&mut line)?;
    let held: serde_json::Value =
        serde_json::from_str(&line).with_context(|| format!("emq-id lease printed {line:?}"))?;
    let node = held["node"].as_u64().context("a node")? as u16;
    std::thread::sleep(Duration::from_millis(1_500)); // at least one renewal
    holder.kill().context("SIGKILL")?;
    let killed = Instant::now();
    holder.wait()?;
    let mut c = reserve_primary(addr)?;
    let bound = Duration::from_millis(ttl + 1_000);
    let free = || Ok(!reserve::is_held(&mut c, node)?);
    ensure!(
        crate::try_poll(bound.saturating_sub(killed.elapsed()), crate::POLL, free)?,
        "node {node} still leased {:?} after its holder died",
        killed.elapsed()
    );
    let freed = killed.elapsed();
    // Renewals run every TTL/3, so the last one was at most 1 s before the kill.
    ensure!(
        freed >= Duration::from_millis(ttl - ttl / 3 - 100),
        "node {node} was free {freed:?} after the kill, before its TTL"
    );
    // `emq-id mint --lease`: a node for the run, released after it.
    let minted = Command::new(cli::build()?)
        .args(["mint", "JOB", "-n", "3", "--json", "--lease", addr, "--replicas", "0"])
        .output()?;
    ensure!(minted.status.success(), "emq-id mint --lease: {}", String::from_utf8_lossy(&minted.stderr));
    let nodes: HashSet<u64> = String::from_utf8_lossy(&minted.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).ok().and_then(|v| v["node"].as_u64()).unwrap_or(u64::MAX))
        .collect();
    ensure!(nodes.len() == 1 && !nodes.contains(&u64::MAX), "emq-id mint --lease minted on {nodes:?}");
    println!("leases: a holder killed with SIGKILL: node {node} free {} ms after the kill (TTL {ttl} ms, renewed every {} ms), not before; `emq-id mint --lease` minted 3 ids on one leased node", freed.as_millis(), ttl / 3);
    Ok(())
}

/// 400 leases held from Rust while ten Node processes (the holder of
/// examples/lease.js, five over ioredis and five over node-redis, on the
/// addon and on WebAssembly in turn) and a Go process (go-redis) each take
/// one and mint on it: none gets a node Rust holds, and no id repeats across
/// runtimes.
fn across_runtimes(addr: &str) -> Result<()> {
    node::build::package()?;
    node::bench::dev_dependencies()?;
    let terms = LeaseTerms::new(60_000, 10_000)?;
    let rust: Vec<Lease> =
        (0..400).map(|_| Lease::acquire(addr, unreplicated(terms))).collect::<std::result::Result<_, _>>()?;
    let held: HashSet<u16> = rust.iter().filter_map(Lease::node).collect();
    let mut ids = HashSet::new();
    for lease in &rust {
        for _ in 0..50 {
            ensure!(ids.insert(lease.mint(b"JOB")?.to_string()), "a Rust id repeated");
        }
    }
    let example = root().join("bindings/node/examples/lease.js");
    let runs: Vec<_> = (0..10)
        .map(|i| {
            Command::new("node")
                .arg(&example)
                .args(["--cluster", addr, "-n", "2000", "--replicas", "0"])
                .args(["--client", if i < 5 { "ioredis" } else { "node-redis" }])
                .env("EMQ_ID_BACKEND", if i % 2 == 0 { "native" } else { "wasm" })
                .output()
        })
        .collect();
    let mut node_nodes = vec![];
    for run in runs {
        let out = run.context("running the Node example")?;
        ensure!(out.status.success(), "the Node example failed: {}", String::from_utf8_lossy(&out.stderr));
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout).context("the example's JSON")?;
        let n = answer["node"].as_u64().context("a node")? as u16;
        ensure!(!held.contains(&n), "a Node process got node {n}, which Rust holds");
        ensure!(answer["released"] == true, "the Node process did not release its node");
        node_nodes.push(n);
        for id in answer["ids"].as_array().context("ids")? {
            ensure!(ids.insert(id.as_str().unwrap_or_default().to_string()), "an id repeated across runtimes: {id}");
        }
    }
    // And Go, with go-redis (bindings/go/examples/lease): three runtimes, one fleet.
    crate::runtimes::c::build::library()?;
    let go_run = crate::runtimes::go::go("bindings/go/examples/lease")
        .args(["run", ".", "-addr", addr, "-n", "5000", "-replicas", "0"])
        .output()
        .context("running the go-redis example")?;
    let go_err = String::from_utf8_lossy(&go_run.stderr);
    ensure!(go_run.status.success(), "the go-redis example failed: {go_err}");
    let go_node: u16 = go_err
        .split("lease: node ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .with_context(|| format!("no node in the Go example's output: {go_err}"))?;
    ensure!(!held.contains(&go_node), "the Go process got node {go_node}, which Rust holds");
    let mut go_ids = 0;
    for id in String::from_utf8_lossy(&go_run.stdout).lines() {
        ensure!(ids.insert(id.to_string()), "an id repeated across runtimes: {id}");
        go_ids += 1;
    }
    ensure!(go_ids == 5000, "the Go example minted {go_ids} ids, not 5000");
    println!(
        "leases: 400 held by Rust; 10 Node processes (5 over ioredis, 5 over node-redis; 5 native, 5 wasm) and 1 Go process with go-redis on nodes none of them: {} ids from three runtimes, 0 duplicates",
        ids.len()
    );
    drop(rust);
    Ok(())
}

/// A holder minting without pause while the reserve's primary is killed: it
/// stops minting (gate `node`) before its lease could have run out on the server.
fn fenced_when_valkey_goes_away() -> Result<()> {
    let mut cluster = Cluster::start()?;
    let slot = emq_id::slot(emq_id::LEASE_KEY.as_bytes());
    let primary = [5460u16, 10922, 16383].iter().position(|last| slot <= *last).context("the reserve's primary")?;
    let addr = cluster.nodes[primary].addr.clone();
    let terms = LeaseTerms::new(3_000, 500)?;
    let lease = Lease::acquire(&addr, unreplicated(terms))?;
    std::thread::sleep(Duration::from_millis(1_500)); // one renewal accepted
                                                      // The server's own word on when the lease can expire at the earliest:
                                                      // the time its lease has left, read at a monotonic time no later than the server's.
    let asked = emq_id::monotonic_ms();
    let left = reserve::remaining_ms(&mut Connection::open(&addr)?, lease.node().context("a lease held")?)?;
    let earliest_expiry = asked + left.context("the lease is live on the server")?;
    cluster.nodes[primary].kill();
    let gone = emq_id::monotonic_ms();
    let mut minted = 0u64;
    let stopped = loop {
        // A steady 5,000 ids a second: a burst would meet its mark (the other
        // refusal, by design) before the fence this proof measures.
        std::thread::sleep(Duration::from_micros(200));
        match lease.mint(b"JOB") {
            Ok(_) => minted += 1,
            Err(e) if e.gate() == emq_id::Gate::Node => {
                ensure!(e.detail().contains("not renewed in time"), "refused by {:?}, not the fence", e.detail());
                break emq_id::monotonic_ms();
            }
            Err(e) => bail!("minting failed other than by the fence: {}", e.message()),
        }
        ensure!(
            emq_id::monotonic_ms() < gone + terms.ttl_ms + 1_000,
            "still minting {} ms after Valkey went away",
            emq_id::monotonic_ms() - gone
        );
    };
    ensure!(stopped < earliest_expiry, "stopped at {stopped}, after the lease could expire at {earliest_expiry}");
    println!(
        "leases: Valkey killed under a holder: it minted {minted} more ids, stopped {} ms after Valkey went away and {} ms before its lease could expire by the server's clock (TTL {} ms, margin {} ms)",
        stopped - gone,
        earliest_expiry - stopped,
        terms.ttl_ms,
        terms.margin_ms
    );
    Ok(())
}
