//! The lease failover's scenarios as single `emq-id` commands, each checked:
//!
//! 1. A one-node cluster whose `CLUSTER SLOTS` names no host (it has met no
//!    other node): `route`, `lease` and `mint --lease` reach it at the
//!    address they were given.
//! 2. On a 3×2 cluster, every node but 100 leased (a dense fleet), while the
//!    reserve's replica lags: `mint --replicas 1` refuses, naming the
//!    replicas that acknowledged; `--replicas 0` mints; a holder with
//!    `--replicas 1` never mints; after a failover that lost its lease, the
//!    promoted primary refuses until a replica is back, then mints.
//! 3. The same lossy failover with `--replicas 0`: two holders mint on
//!    node 100 at once, and ids repeat (the exposure the rule closes).

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use emq_resp::Reply;

use super::cluster::Replicated;
use super::faults::fill_replica_link;
use crate::runtimes::cli;
use crate::runtimes::valkey::server::Node;
use crate::runtimes::valkey::setup::server_binary;

pub fn run() -> Result<()> {
    let cli = cli::build()?;
    one_node_cluster(&cli).context("a one-node cluster")?;
    lossy_failover(&cli).context("the lossy failover")
}

/// A child process killed when dropped: a check that fails midway leaves none behind.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct Run {
    ok: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn emq_id(cli: &Path, args: &[&str]) -> Result<Run> {
    let out = Command::new(cli).args(args).output().with_context(|| format!("emq-id {}", args.join(" ")))?;
    Ok(Run {
        ok: out.status.success(),
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// A one-node cluster serving every slot whose `CLUSTER SLOTS` names no
/// host (it has met no other node): a client must reach it at the address
/// it was given.
pub fn empty_host_node() -> Result<Node> {
    let node = Node::start(&server_binary()?)?;
    let mut c = node.connect()?;
    ensure!(c.cmd(&["CLUSTER", "ADDSLOTSRANGE", "0", "16383"])? == Reply::Status("OK".into()), "ADDSLOTSRANGE");
    node.wait_for(
        |c| Ok(c.cmd(&["CLUSTER", "INFO"])?.as_text().unwrap_or_default().contains("cluster_state:ok")),
        "ok",
    )?;
    let raw = c.cmd(&["CLUSTER", "SLOTS"])?;
    let host = raw
        .as_array()
        .and_then(|r| r.first())
        .and_then(Reply::as_array)
        .and_then(|r| r.get(2))
        .and_then(Reply::as_array)
        .and_then(|p| p.first())
        .context("CLUSTER SLOTS names a primary")?;
    ensure!(
        matches!(host, Reply::Bulk(None)) || host.as_text().is_some_and(|h| h.is_empty() || h == "?"),
        "the node names its host ({host:?}): this case would test nothing"
    );
    let map = emq_resp::slot_map(&mut c)?;
    ensure!(map == vec![(0, 16383, node.addr.clone())], "the slot map {map:?}, not {}", node.addr);
    Ok(node)
}

fn one_node_cluster(cli: &Path) -> Result<()> {
    let node = empty_host_node()?;
    let route = emq_id(cli, &["route", "orders", "--cluster", &node.addr])?;
    ensure!(route.ok && route.stdout.contains(&format!("\"node\":\"{}\"", node.addr)), "route: {}", route.stdout);
    let minted = emq_id(cli, &["mint", "JOB", "-n", "2", "--lease", &node.addr, "--replicas", "0"])?;
    ensure!(minted.ok && minted.stdout.lines().count() == 2, "mint --lease: {}", minted.stderr);
    // The default asks a replica to acknowledge: this node has none, and says so.
    let safe = emq_id(cli, &["mint", "JOB", "--lease", &node.addr])?;
    ensure!(
        safe.code == Some(2) && safe.stderr.contains("node") && safe.stderr.contains("acknowledged by 0 of 1 replica"),
        "mint --lease without a replica: {:?} {}",
        safe.code,
        safe.stderr
    );
    let mut held = Reaped(
        Command::new(cli)
            .args(["lease", "--cluster", &node.addr, "--replicas", "0"])
            .stdout(Stdio::piped())
            .spawn()
            .context("emq-id lease")?,
    );
    let mut lines = BufReader::new(held.0.stdout.take().context("its stdout")?).lines();
    let first = lines.next().context("lease printed nothing")??;
    crate::sh(Command::new("kill").arg("-TERM").arg(held.0.id().to_string()))?;
    let last = lines.next().context("lease printed no release")??;
    let status = held.0.wait()?;
    ensure!(status.success() && first.contains("\"node\":") && last.contains("\"released\":true"), "{first} / {last}");
    println!(
        "chaos: a one-node cluster whose CLUSTER SLOTS host is empty: route names {}, mint --lease and lease work there, \
         and --replicas 1 refuses (acknowledged by 0 of 1 replica)",
        node.addr
    );
    Ok(())
}

fn node_of(line: &str) -> Result<u16> {
    Ok(emq_id::node(emq_id::decode(line.trim().as_bytes())?.1))
}

fn lossy_failover(cli: &Path) -> Result<()> {
    let mut cluster = Replicated::start()?;
    let seeds = cluster.seeds();
    let p = cluster.reserve_primary()?;
    let r = cluster.replica_of(p)?;
    let mut c = cluster.connect(p)?;
    let all_but_100: Vec<u16> = (0..emq_id::LEASE_NODES).filter(|&n| n != 100).collect();
    cluster.hold(&mut c, &all_but_100, 600_000)?;

    // The replica lags: a lease write stays in the primary's memory.
    cluster.nodes[r].pause(true)?;
    fill_replica_link(&mut c)?;
    let refused = emq_id(cli, &["mint", "JOB", "-n", "3", "--lease", &seeds, "--replicas", "1"])?;
    ensure!(
        refused.code == Some(2)
            && refused.stdout.is_empty()
            && refused.stderr.contains("acknowledged by 0 of 1 replica"),
        "--replicas 1 while the replica lags: {:?} {} {}",
        refused.code,
        refused.stdout,
        refused.stderr
    );
    let unsafe_run = emq_id(cli, &["mint", "JOB", "-n", "3", "--lease", &seeds, "--replicas", "0"])?;
    ensure!(
        unsafe_run.ok && unsafe_run.stdout.lines().count() == 3,
        "--replicas 0 while it lags: {}",
        unsafe_run.stderr
    );
    // Holder A, with the default rule, while the replica still lags: it never mints.
    let a = emq_id(cli, &["mint", "JOB", "-n", "12000000", "--lease", &seeds])?;
    ensure!(a.code == Some(2) && a.stdout.is_empty(), "holder A minted while its lease was unacknowledged");
    println!("chaos: replica lagging: mint --replicas 1 refused ({}); --replicas 0 minted 3; holder A (12,000,000 asked) minted 0", a.stderr.trim());

    // The primary dies with A's writes; the lagging replica takes over and has no replica of its own.
    cluster.kill(p);
    cluster.nodes[r].pause(false)?;
    cluster.takeover(r)?;
    let alone = emq_id(cli, &["mint", "JOB", "-n", "3", "--lease", &seeds])?;
    ensure!(
        alone.code == Some(2) && alone.stderr.contains("acknowledged by 0 of 1 replica"),
        "the promoted primary without a replica: {:?} {}",
        alone.code,
        alone.stderr
    );
    cluster.restart(p)?;
    cluster.wait_replicated(r)?;
    let b = emq_id(cli, &["mint", "JOB", "-n", "3", "--lease", &seeds])?;
    ensure!(b.ok && b.stdout.lines().count() == 3, "holder B once the replica is back: {}", b.stderr);
    for line in b.stdout.lines() {
        ensure!(node_of(line)? == 100, "holder B minted on node {}, not 100", node_of(line)?);
    }
    println!("chaos: after the failover the promoted primary refused until its replica was back, then holder B minted 3 on node 100; 0 ids in common with A (A minted none)");

    // The negative control: the same failover with replicas 0 (the new primary is r, its replica p).
    let (p, r) = (r, p);
    let mut c = cluster.connect(p)?;
    cluster.nodes[r].pause(true)?;
    fill_replica_link(&mut c)?;
    let out = crate::root().join("target/chaos/holder-a.txt");
    crate::mkdir(out.parent().context("a directory")?)?;
    let mut a = Reaped(
        Command::new(cli)
            .args(["mint", "JOB", "-n", "12000000", "--lease", &seeds, "--replicas", "0"])
            .stdout(std::fs::File::create(&out)?)
            .spawn()?,
    );
    let printed = || std::fs::metadata(&out).is_ok_and(|m| m.len() > 0);
    ensure!(crate::poll(Duration::from_secs(10), crate::POLL, printed), "holder A printed nothing");
    cluster.kill(p);
    cluster.nodes[r].pause(false)?;
    cluster.takeover(r)?;
    // Right after the takeover a node may still route to the killed primary:
    // B, a user's command, is run again after such an error, while A mints on
    // its own lease (the CLI's default TTL, far longer than these tries).
    let mut b = emq_id(cli, &["mint", "JOB", "-n", "1000000", "--lease", &seeds, "--replicas", "0"])?;
    for _ in 0..20 {
        if b.ok {
            break;
        }
        eprintln!("chaos: holder B after the takeover: {}", b.stderr.trim());
        std::thread::sleep(Duration::from_millis(250));
        b = emq_id(cli, &["mint", "JOB", "-n", "1000000", "--lease", &seeds, "--replicas", "0"])?;
    }
    // B is done: whatever A mints from here cannot overlap it (A's file holds the overlap).
    let a_status = a.0.try_wait()?;
    drop(a);
    let a_text = std::fs::read_to_string(&out)?;
    let a_ids: HashSet<u64> =
        a_text.lines().filter_map(|l| emq_id::decode(l.as_bytes()).ok().map(|(_, s)| s)).collect();
    let b_ids: Vec<u64> = b.stdout.lines().filter_map(|l| emq_id::decode(l.as_bytes()).ok().map(|(_, s)| s)).collect();
    let both = b_ids.iter().filter(|s| a_ids.contains(s)).count();
    let nodes: HashSet<u16> = a_ids.iter().chain(&b_ids).map(|&s| emq_id::node(s)).collect();
    println!(
        "chaos: the same failover with --replicas 0: holder A minted {} ids ({}), holder B {} (exit {:?}), on nodes {nodes:?}: {both} ids minted by both",
        a_ids.len(),
        a_status.map_or("still minting when B was done: stopped".to_string(), |s| format!("exit {:?}", s.code())),
        b_ids.len(),
        b.code
    );
    ensure!(
        both > 0,
        "replicas 0 did not reproduce the duplicate: the scenario tests nothing (B: {})",
        b.stderr.trim()
    );
    cluster.restart(r)?;
    let _ = std::fs::remove_file(&out);
    Ok(())
}
