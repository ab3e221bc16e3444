//! One slot moving from one primary to another, key batch by key batch, as
//! a resharding moves it (`valkey-cli --cluster reshard`): `SETSLOT …
//! IMPORTING` on the target, `MIGRATING` on the source, `MIGRATE` of the
//! slot's keys in batches, then `SETSLOT … NODE` everywhere. Between the
//! batches each side holds part of the slot's keys: what the tests look at.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use emq_resp::{Connection, Reply};

use super::server::Node;

/// A migration under way, by the nodes' addresses (the cluster's nodes stay
/// free to be killed, paused or restarted meanwhile).
pub struct Migration {
    slot: String,
    from: String,
    to: String,
    to_id: String,
    all: Vec<String>,
}

fn connect(addr: &str) -> Result<Connection> {
    Connection::open(addr).with_context(|| format!("valkey {addr}"))
}

impl Migration {
    /// Starts moving the reserve's slot (that of `{emq}:leases`) from
    /// `nodes[from]` to `nodes[to]`, both primaries of one cluster.
    pub fn begin(nodes: &[Node], from: usize, to: usize) -> Result<Migration> {
        let slot = emq_id::slot(emq_id::LEASE_KEY.as_bytes()).to_string();
        let (from, to) = (nodes[from].addr.clone(), nodes[to].addr.clone());
        let id = |addr: &str| -> Result<String> { connect(addr)?.cmd(&["CLUSTER", "MYID"])?.as_text().context("MYID") };
        let (from_id, to_id) = (id(&from)?, id(&to)?);
        ok(connect(&to)?.cmd(&["CLUSTER", "SETSLOT", &slot, "IMPORTING", &from_id])?, "SETSLOT IMPORTING")?;
        ok(connect(&from)?.cmd(&["CLUSTER", "SETSLOT", &slot, "MIGRATING", &to_id])?, "SETSLOT MIGRATING")?;
        Ok(Migration { slot, from, to, to_id, all: nodes.iter().map(|n| n.addr.clone()).collect() })
    }

    /// `MIGRATE`s `keys` from the source to the target in one batch.
    pub fn move_keys(&self, keys: &[String]) -> Result<()> {
        let (host, port) = self.to.rsplit_once(':').context("the target's address")?;
        // REPLACE: a test may leave keys of its own on the target.
        let mut call = vec!["MIGRATE", host, port, "", "0", "5000", "REPLACE", "KEYS"];
        call.extend(keys.iter().map(String::as_str));
        match connect(&self.from)?.cmd(&call)? {
            Reply::Status(s) if s == "OK" || s == "NOKEY" => Ok(()),
            other => bail!("MIGRATE: {other:?}"),
        }
    }

    /// Up to `count` keys the source still holds in the slot.
    pub fn keys_left(&self, count: usize) -> Result<Vec<String>> {
        let reply = connect(&self.from)?.cmd(&["CLUSTER", "GETKEYSINSLOT", &self.slot, &count.to_string()])?;
        Ok(reply.as_array().context("GETKEYSINSLOT")?.iter().filter_map(Reply::as_text).collect())
    }

    /// Every key the source still holds in the slot, in batches of `batch`,
    /// `pause` apart (a resharding's pace).
    pub fn move_the_rest(&self, batch: usize, pause: Duration) -> Result<()> {
        loop {
            let keys = self.keys_left(batch)?;
            if keys.is_empty() {
                return Ok(());
            }
            self.move_keys(&keys)?;
            std::thread::sleep(pause);
        }
    }

    /// Moves what is left, then gives the slot to the target: on the target
    /// and the source (which must take it), then on every other node that
    /// answers (a replica or a stopped node learns it from the others).
    pub fn finish(self) -> Result<()> {
        self.move_the_rest(100, Duration::ZERO)?;
        let node = ["CLUSTER", "SETSLOT", &self.slot, "NODE", &self.to_id];
        ok(connect(&self.to)?.cmd(&node)?, "SETSLOT NODE on the target")?;
        ok(connect(&self.from)?.cmd(&node)?, "SETSLOT NODE on the source")?;
        for other in self.all.iter().filter(|a| **a != self.to && **a != self.from) {
            if let Ok(mut c) = connect(other) {
                let _ = c.cmd(&node);
            }
        }
        Ok(())
    }
}

fn ok(reply: Reply, what: &str) -> Result<()> {
    match reply {
        Reply::Status(s) if s == "OK" => Ok(()),
        other => bail!("{what}: {other:?}"),
    }
}
