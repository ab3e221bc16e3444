//! The faults, each done to a live fleet: a failover that loses a lease
//! write, the reserve's primary killed and failed over by the cluster, a
//! holder killed mid-mint, a holder paused past its fence, and a resharding
//! that moves the reserve's slot to another primary and back.

use std::time::Duration;

use anyhow::{ensure, Context, Result};

use super::super::migration::Migration;
use super::super::reserve;
use super::Fleet;
use crate::{poll, POLL};

/// Keys of the reserve's slot besides the lease key, moved in batches of `BATCH`.
const BULK: usize = 400;
const BATCH: usize = 25;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    LossyFailover,
    PrimaryKilled,
    HolderKilled,
    HolderPaused,
    Resharding,
}

impl Fault {
    pub fn name(self) -> &'static str {
        match self {
            Fault::LossyFailover => "lossy failover (replica paused, primary killed, TAKEOVER)",
            Fault::PrimaryKilled => "reserve's primary killed (automatic failover)",
            Fault::HolderKilled => "holder killed mid-mint",
            Fault::HolderPaused => "holder paused past its fence",
            Fault::Resharding => "reserve's slot migrated to another primary and back, paused mid-split",
        }
    }
}

impl Fleet {
    pub fn inflict(&mut self, fault: Fault) -> Result<()> {
        match fault {
            Fault::LossyFailover => self.lossy_failover(),
            Fault::PrimaryKilled => self.primary_killed(),
            Fault::HolderKilled => {
                let i = self.live_holder();
                self.holders[i].kill();
                let replacement = self.spawn_holder()?;
                self.holders.push(replacement);
                Ok(())
            }
            Fault::HolderPaused => {
                let i = self.live_holder();
                self.holders[i].pause(true)?;
                std::thread::sleep(Duration::from_millis(self.orders.terms.ttl_ms + 500));
                self.holders[i].pause(false)
            }
            Fault::Resharding => self.resharding(),
        }
    }

    /// The reserve's slot moved to another primary and back, as a resharding
    /// moves it: the slot's other keys in batches, and half-way each time a
    /// pause longer than a TTL with a new holder starting mid-split. Going,
    /// the lease key moves before the pause (every lease write is redirected
    /// by `ASK` while it lasts); coming back, after it (the writes run on the
    /// source while the other keys are split).
    fn resharding(&mut self) -> Result<()> {
        let p = self.cluster.reserve_primary()?;
        let q = self.cluster.other_primary(p)?;
        let mut c = self.cluster.connect(p)?;
        // Keys of the reserve's slot besides the lease key, for the batches to move.
        let mut fill: Vec<String> = vec!["MSET".into()];
        for i in 0..BULK {
            fill.extend([format!("{{emq}}:chaos:bulk:{i}"), "x".repeat(64)]);
        }
        let fill: Vec<&str> = fill.iter().map(String::as_str).collect();
        ensure!(c.cmd(&fill)? == emq_resp::Reply::Status("OK".into()), "MSET of the slot's other keys");
        let minting: Vec<usize> = (0..self.holders.len()).filter(|&i| self.holders[i].ended_ms.is_none()).collect();
        self.migrate(p, q, true)?;
        self.cluster.wait_replicated(q)?;
        self.migrate(q, p, false)?;
        self.cluster.wait_replicated(p)?;
        // Every holder that minted before the reshardings mints after them,
        // within two TTLs: none gave up, none is stuck on a moved reserve.
        let size = |h: &super::Holder| std::fs::metadata(&h.file).map_or(0, |m| m.len());
        let at_end: Vec<u64> = minting.iter().map(|&i| size(&self.holders[i])).collect();
        let stuck = || -> Vec<&str> {
            minting
                .iter()
                .zip(&at_end)
                .filter(|(&i, &end)| size(&self.holders[i]) <= end)
                .map(|(&i, _)| self.holders[i].label.as_str())
                .collect()
        };
        let ttl = self.orders.terms.ttl_ms;
        ensure!(
            poll(Duration::from_millis(2 * ttl), POLL, || stuck().is_empty()),
            "not minting after the reshardings: {:?}",
            stuck()
        );
        Ok(())
    }

    fn migrate(&mut self, from: usize, to: usize, key_before_the_pause: bool) -> Result<()> {
        let ttl = self.orders.terms.ttl_ms;
        let migration = Migration::begin(&self.cluster.nodes, from, to)?;
        let lease_key = emq_id::LEASE_KEY.to_string();
        let others: Vec<String> = migration.keys_left(4 * BULK)?.into_iter().filter(|k| *k != lease_key).collect();
        for batch in others[..others.len() / 2].chunks(BATCH) {
            migration.move_keys(batch)?;
            std::thread::sleep(Duration::from_millis(10));
        }
        if key_before_the_pause {
            migration.move_keys(&[lease_key])?;
        }
        let joining = self.spawn_holder()?;
        self.holders.push(joining);
        std::thread::sleep(Duration::from_millis(ttl + 500));
        migration.move_the_rest(BATCH, Duration::from_millis(10))?;
        migration.finish()
    }

    fn live_holder(&mut self) -> usize {
        let live: Vec<usize> = (0..self.holders.len()).filter(|&i| self.holders[i].ended_ms.is_none()).collect();
        live[self.rng.below(live.len() as u64) as usize]
    }

    /// The reserve's primary SIGKILLed; the cluster promotes its replica by
    /// itself; the killed node restarts and rejoins as the new primary's replica.
    fn primary_killed(&mut self) -> Result<()> {
        let p = self.cluster.reserve_primary()?;
        self.cluster.kill(p);
        let q = self.cluster.wait_new_primary(p)?;
        self.cluster.restart(p)?;
        self.cluster.wait_replicated(q)
    }

    /// The lossy failover: a lease write the replica never gets.
    /// Every free node but one is held by the harness (replicated); the
    /// replica is paused and its socket buffers filled, so what follows waits
    /// in the primary's memory; a new holder takes the one free node there;
    /// a second new holder starts and finds every node leased; the primary is
    /// killed just after the first holder renewed, the replica resumed and
    /// promoted by TAKEOVER, and the second holder's next try takes the node
    /// the first one believes it holds. Each step waits for what it needs to
    /// have happened, not for a time: the second holder connected, the
    /// renewal seen, the node taken on the new primary before the harness lets
    /// its other nodes go. A fixed pause let a slow client miss the window.
    fn lossy_failover(&mut self) -> Result<()> {
        let p = self.cluster.reserve_primary()?;
        let r = self.cluster.replica_of(p)?;
        let mut c = self.cluster.connect(p)?;
        let free = reserve::free_nodes(&mut c)?;
        let (&last_free, rest) = free.split_last().context("no free node to lose")?;
        self.cluster.hold(&mut c, rest, 60_000)?;

        self.cluster.nodes[r].pause(true)?;
        let fillers = fill_replica_link(&mut c)?;
        let first = self.spawn_holder()?;
        self.holders.push(first);
        // Its acquire reaches the primary (and stays there): the node's lease appears.
        let taken = poll(Duration::from_secs(2), POLL, || reserve::is_held(&mut c, last_free).unwrap_or(false));
        ensure!(taken, "the lossy failover's first holder never took node {last_free} on the primary");
        // Already asking (every node is leased) when the replica takes over, so it
        // takes the lost node within one retry: its connection to the primary is up.
        let clients = |c: &mut emq_resp::Connection| -> usize {
            c.cmd(&["CLIENT", "LIST", "TYPE", "normal"]).ok().and_then(|r| r.as_text()).map_or(0, |t| t.lines().count())
        };
        let before = clients(&mut c);
        let second = self.spawn_holder()?;
        self.holders.push(second);
        poll(Duration::from_secs(10), POLL, || clients(&mut c) > before);
        std::thread::sleep(Duration::from_millis(100));
        // Killed just after the first holder's renewal (its lease's TTL back near
        // full), so it mints for most of a TTL more: long enough for the second
        // holder to take the node, which is the double holding the control counts.
        let ttl = self.orders.terms.ttl_ms;
        poll(
            Duration::from_millis(ttl),
            POLL,
            || matches!(reserve::remaining_ms(&mut c, last_free), Ok(Some(ms)) if ms > ttl.saturating_sub(250)),
        );
        self.cluster.kill(p);
        self.cluster.nodes[r].pause(false)?;
        self.cluster.takeover(r)?;
        let mut c = self.cluster.connect(r)?;
        // The node taken on the new primary before the harness frees the others.
        poll(Duration::from_secs(10), POLL, || reserve::is_held(&mut c, last_free).unwrap_or(false));
        reserve::free(&mut c, rest)?;
        let unfill: Vec<&str> = std::iter::once("DEL").chain(fillers.iter().map(String::as_str)).collect();
        c.cmd(&unfill)?;
        self.cluster.restart(p)?;
        self.cluster.wait_replicated(r)
    }
}

/// Writes 1 MiB values on the reserve's slot until the paused replica's link
/// holds at least 2 MiB in the primary's memory (`omem`): the kernel's
/// buffers are full, and every later write waits where a SIGKILL loses it.
pub fn fill_replica_link(c: &mut emq_resp::Connection) -> Result<Vec<String>> {
    let value = vec![b'x'; 1 << 20];
    let mut keys = vec![];
    for i in 0..96 {
        let k = format!("{{emq}}:chaos:fill:{i}");
        c.call(&[b"SET", k.as_bytes(), &value])?;
        keys.push(k);
        let clients = c.cmd(&["CLIENT", "LIST", "TYPE", "replica"])?.as_text().unwrap_or_default();
        let omem: u64 =
            clients.split_whitespace().find_map(|f| f.strip_prefix("omem=")).and_then(|n| n.parse().ok()).unwrap_or(0);
        if omem >= 2 << 20 {
            return Ok(keys);
        }
    }
    anyhow::bail!("the paused replica's link never filled (96 MiB written)")
}
