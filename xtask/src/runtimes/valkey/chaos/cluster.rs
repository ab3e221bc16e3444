//! A Valkey Cluster of three primaries with a replica each, on loopback,
//! whose nodes the faults kill, restart, pause and promote; and the reserve
//! (the slot of `{emq}:leases`), read from whichever node still answers.

use std::time::Duration;

use anyhow::{bail, ensure, Context, Result};
use emq_resp::{Connection, Reply, Timeouts};

use super::super::reserve;
use super::super::server::Node;
use super::super::setup::server_binary;
use crate::{poll, POLL};

/// Failures are noticed within a second (`cluster-node-timeout`); a replica
/// may be promoted whatever its lag (`cluster-replica-validity-factor 0`: a
/// paused replica must still be electable); nothing is evicted
/// (`noeviction`, SPEC.md §5.2); a full sync streams straight to the replica.
const SETTINGS: &[&str] = &[
    "--cluster-node-timeout",
    "1000",
    "--cluster-replica-validity-factor",
    "0",
    "--cluster-allow-replica-migration",
    "no",
    "--maxmemory-policy",
    "noeviction",
    "--repl-diskless-sync",
    "yes",
    "--repl-diskless-sync-delay",
    "0",
];

/// Short waits: a node that does not answer in a second is down for the harness.
const QUICK: Timeouts =
    Timeouts { connect: Duration::from_millis(300), read: Duration::from_secs(2), write: Duration::from_secs(2) };

pub struct Replicated {
    pub nodes: Vec<Node>,
    alive: Vec<bool>,
}

impl Replicated {
    /// Six nodes: 0–2 primaries of a third of the slots each, 3–5 their replicas.
    pub fn start() -> Result<Replicated> {
        let binary = server_binary()?;
        let nodes = (0..6).map(|_| Node::start_with(&binary, SETTINGS)).collect::<Result<Vec<_>>>()?;
        let cluster = Replicated { nodes, alive: vec![true; 6] };
        let ranges = [(0, 5460), (5461, 10922), (10923, 16383)];
        for (node, (a, b)) in cluster.nodes.iter().zip(ranges) {
            ok(cluster.cmd(node, &["CLUSTER", "ADDSLOTSRANGE", &a.to_string(), &b.to_string()]), "ADDSLOTSRANGE")?;
        }
        for other in &cluster.nodes[1..] {
            ok(cluster.cmd(&cluster.nodes[0], &["CLUSTER", "MEET", "127.0.0.1", &other.port.to_string()]), "MEET")?;
        }
        for node in &cluster.nodes {
            node.wait_for(|c| Ok(text(&c.cmd(&["CLUSTER", "INFO"])?).contains("cluster_known_nodes:6")), "6 nodes")?;
        }
        for i in 0..3 {
            let id = text(&cluster.cmd(&cluster.nodes[i], &["CLUSTER", "MYID"])?);
            ok(cluster.cmd(&cluster.nodes[i + 3], &["CLUSTER", "REPLICATE", &id]), "CLUSTER REPLICATE")?;
        }
        for i in 0..3 {
            cluster.wait_replicated(i)?;
        }
        for node in &cluster.nodes {
            node.wait_for(
                |c| Ok(text(&c.cmd(&["CLUSTER", "INFO"])?).contains("cluster_state:ok")),
                "cluster_state:ok",
            )?;
        }
        Ok(cluster)
    }

    /// Every node's address: the holders' seeds.
    pub fn seeds(&self) -> String {
        self.nodes.iter().map(|n| n.addr.as_str()).collect::<Vec<_>>().join(",")
    }

    pub fn connect(&self, i: usize) -> Result<Connection> {
        Connection::open_with(&self.nodes[i].addr, QUICK).with_context(|| format!("valkey {}", self.nodes[i].addr))
    }

    fn cmd(&self, node: &Node, args: &[&str]) -> Result<Reply> {
        let mut c = Connection::open_with(&node.addr, QUICK)?;
        Ok(c.cmd(args)?)
    }

    /// The node that serves the reserve's slot as a primary, by its own word
    /// (`ROLE`) and the slot map of a live node.
    pub fn reserve_primary(&self) -> Result<usize> {
        let slot = emq_id::slot(emq_id::LEASE_KEY.as_bytes());
        for node in self.nodes.iter().zip(&self.alive).filter(|(_, alive)| **alive).map(|(n, _)| n) {
            let Ok(mut c) = Connection::open_with(&node.addr, QUICK) else { continue };
            let Ok(map) = emq_resp::slot_map(&mut c) else { continue };
            let Some(owner) = emq_resp::owner(&map, slot) else { continue };
            let Some(j) = self.nodes.iter().position(|n| n.addr == owner) else { continue };
            if self.alive[j] && self.role(j).as_deref() == Some("master") {
                return Ok(j);
            }
        }
        bail!("no live node names a live primary of the reserve's slot")
    }

    /// A live primary other than `p`: where a resharding moves the reserve's slot.
    pub fn other_primary(&self, p: usize) -> Result<usize> {
        (0..self.nodes.len())
            .find(|&i| i != p && self.alive[i] && self.role(i).as_deref() == Some("master"))
            .context("no live primary besides the reserve's")
    }

    fn role(&self, i: usize) -> Option<String> {
        let reply = self.cmd(&self.nodes[i], &["ROLE"]).ok()?;
        reply.as_array().and_then(|r| r.first()).and_then(Reply::as_text)
    }

    /// The replica attached to primary `i` (from its `INFO replication`).
    pub fn replica_of(&self, i: usize) -> Result<usize> {
        let info = text(&self.cmd(&self.nodes[i], &["INFO", "replication"])?);
        let port = info
            .lines()
            .find(|l| l.starts_with("slave0:"))
            .and_then(|l| l.split(',').find_map(|f| f.strip_prefix("port=")))
            .and_then(|p| p.parse::<u16>().ok())
            .with_context(|| format!("primary {} has no replica: {info}", self.nodes[i].addr))?;
        self.nodes.iter().position(|n| n.port == port).context("the replica is not one of the cluster's nodes")
    }

    /// Polls (15 s at most) until primary `i` has a replica online (its
    /// `INFO replication` says so), so that `WAIT 1` can be answered.
    pub fn wait_replicated(&self, i: usize) -> Result<()> {
        let online = || {
            let info = self.cmd(&self.nodes[i], &["INFO", "replication"]).map(|r| text(&r)).unwrap_or_default();
            info.contains("role:master") && info.lines().any(|l| l.starts_with("slave0:") && l.contains("state=online"))
        };
        ensure!(
            poll(Duration::from_secs(15), POLL, online),
            "primary {} has no replica online after 15 s",
            self.nodes[i].addr
        );
        Ok(())
    }

    /// SIGKILL.
    pub fn kill(&mut self, i: usize) {
        self.nodes[i].kill();
        self.alive[i] = false;
    }

    /// Starts a killed node again: it rejoins as a replica of whoever took its slots.
    pub fn restart(&mut self, i: usize) -> Result<()> {
        self.nodes[i].restart()?;
        self.alive[i] = true;
        Ok(())
    }

    /// Polls (15 s at most) until a live node other than `old` serves the reserve.
    pub fn wait_new_primary(&self, old: usize) -> Result<usize> {
        let mut new = None;
        let moved = || {
            new = self.reserve_primary().ok().filter(|p| *p != old);
            new.is_some()
        };
        poll(Duration::from_secs(15), POLL, moved);
        new.context("no failover of the reserve's primary within 15 s")
    }

    /// `CLUSTER FAILOVER TAKEOVER` on replica `i`: it promotes itself without
    /// its primary's agreement or the other primaries' votes.
    pub fn takeover(&self, i: usize) -> Result<()> {
        ok(self.cmd(&self.nodes[i], &["CLUSTER", "FAILOVER", "TAKEOVER"]), "CLUSTER FAILOVER TAKEOVER")?;
        let took = || self.reserve_primary().ok() == Some(i);
        ensure!(poll(Duration::from_secs(15), POLL, took), "replica {} did not take over", self.nodes[i].addr);
        Ok(())
    }
}

/// The token the harness holds its own leases with.
const HARNESS: &str = "chaos-harness";

impl Replicated {
    /// Leases `nodes` for the harness itself (`ttl_ms`) through `c`, a
    /// connection to the reserve's primary, replicated before it answers
    /// (`reserve::free` lets them go again).
    pub fn hold(&self, c: &mut Connection, nodes: &[u16], ttl_ms: u64) -> Result<()> {
        reserve::hold(c, nodes, HARNESS, ttl_ms)?;
        let acknowledged = c.cmd(&["WAIT", "1", "5000"])?;
        ensure!(acknowledged == Reply::Int(1), "the harness's leases were not replicated: {acknowledged:?}");
        Ok(())
    }
}

fn text(reply: &Reply) -> String {
    reply.as_text().unwrap_or_default()
}

fn ok(reply: Result<Reply>, what: &str) -> Result<()> {
    match reply? {
        Reply::Status(s) if s == "OK" => Ok(()),
        other => bail!("{what}: {other:?}"),
    }
}
