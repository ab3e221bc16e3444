//! Valkey servers on loopback: one node in cluster mode, or a cluster of three
//! primaries with every slot assigned. Each is stopped and its directory
//! removed when dropped, however the task ends.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{bail, ensure, Context, Result};
use emq_resp::{Connection, Reply};

use super::setup::server_binary;
use crate::root;

/// A free loopback port whose cluster-bus port (+10000) is free too.
fn free_port() -> Result<u16> {
    for _ in 0..100 {
        let l = TcpListener::bind("127.0.0.1:0").context("binding a loopback port")?;
        let port = l.local_addr().context("a loopback port")?.port();
        if port < 55000 && TcpListener::bind(("127.0.0.1", port + 10000)).is_ok() {
            return Ok(port);
        }
    }
    bail!("no free loopback port pair")
}

/// One `valkey-server` in cluster mode on loopback; stopped and cleaned up on drop.
pub struct Node {
    pub addr: String,
    pub port: u16,
    child: Child,
    dir: PathBuf,
    binary: PathBuf,
    extra: Vec<String>,
}

impl Node {
    pub fn start(binary: &Path) -> Result<Node> {
        Node::start_with(binary, &[])
    }

    /// A node started with `extra` settings (`--name value` pairs) after the usual ones.
    pub fn start_with(binary: &Path, extra: &[&str]) -> Result<Node> {
        let port = free_port()?;
        let dir = root().join("target/valkey").join(port.to_string());
        let _ = std::fs::remove_dir_all(&dir);
        crate::mkdir(&dir)?;
        let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        let child = spawn(binary, port, &dir, &extra)?;
        let node = Node { addr: format!("127.0.0.1:{port}"), port, child, dir, binary: binary.to_path_buf(), extra };
        node.wait_for(|c| Ok(c.cmd(&["PING"])? == Reply::Status("PONG".into())), "PING")?;
        Ok(node)
    }

    /// Stops the server now (`SIGKILL`): Valkey going away under its clients.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts a killed server again on its port and directory: its
    /// `nodes.conf` brings it back into its cluster (no data: nothing is saved).
    pub fn restart(&mut self) -> Result<()> {
        self.kill();
        self.child = spawn(&self.binary, self.port, &self.dir, &self.extra)?;
        self.wait_for(|c| Ok(c.cmd(&["PING"])? == Reply::Status("PONG".into())), "PING after a restart")
    }

    /// Sends `SIGSTOP` (`true`) or `SIGCONT` (`false`): a server that stops
    /// answering without closing its sockets, then resumes.
    pub fn pause(&self, stop: bool) -> Result<()> {
        pause(self.child.id(), stop)
    }

    pub fn connect(&self) -> Result<Connection> {
        Connection::open(&self.addr).with_context(|| format!("connecting to valkey {}", self.addr))
    }

    /// Polls until `ready` holds (10 s at most).
    pub fn wait_for(&self, ready: impl Fn(&mut Connection) -> std::io::Result<bool>, what: &str) -> Result<()> {
        let ready = || Connection::open(&self.addr).and_then(|mut c| ready(&mut c)).unwrap_or(false);
        ensure!(
            crate::poll(Duration::from_secs(10), crate::POLL, ready),
            "valkey {}: gave up waiting for {what}",
            self.addr
        );
        Ok(())
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `SIGSTOP` (`true`) or `SIGCONT` (`false`) to process `pid`, quietly.
pub fn pause(pid: u32, stop: bool) -> Result<()> {
    let signal = if stop { "-STOP" } else { "-CONT" };
    let status = Command::new("kill").arg(signal).arg(pid.to_string()).status().context("kill")?;
    anyhow::ensure!(status.success(), "kill {signal} {pid}: {status}");
    Ok(())
}

fn spawn(binary: &Path, port: u16, dir: &Path, extra: &[String]) -> Result<Child> {
    Command::new(binary)
        .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--cluster-enabled", "yes"])
        .args(["--cluster-config-file", "nodes.conf", "--save", "", "--appendonly", "no"])
        .args(["--protected-mode", "yes", "--loglevel", "warning"])
        .arg("--dir")
        .arg(dir)
        .args(extra)
        .stdout(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {}", binary.display()))
}

/// Three primaries on loopback, all 16,384 slots assigned, and every node
/// agreeing on the slot map before it is used.
pub struct Cluster {
    pub nodes: Vec<Node>,
}

impl Cluster {
    pub fn start() -> Result<Cluster> {
        let binary = server_binary()?;
        let nodes = (0..3).map(|_| Node::start(&binary)).collect::<Result<Vec<_>, _>>()?;
        let ranges = [(0, 5460), (5461, 10922), (10923, 16383)];
        for (node, (a, b)) in nodes.iter().zip(ranges) {
            let reply = node.connect()?.cmd(&["CLUSTER", "ADDSLOTSRANGE", &a.to_string(), &b.to_string()]);
            expect_ok(reply, "CLUSTER ADDSLOTSRANGE")?;
        }
        for other in &nodes[1..] {
            let reply = nodes[0].connect()?.cmd(&["CLUSTER", "MEET", "127.0.0.1", &other.port.to_string()]);
            expect_ok(reply, "CLUSTER MEET")?;
        }
        let expected: Vec<(u16, u16)> = ranges.to_vec();
        for node in &nodes {
            node.wait_for(
                |c| {
                    let info = c.cmd(&["CLUSTER", "INFO"])?.as_text().unwrap_or_default();
                    let map = emq_resp::slot_map(c)?;
                    Ok(info.contains("cluster_state:ok")
                        && info.contains("cluster_slots_assigned:16384")
                        && info.contains("cluster_known_nodes:3")
                        && map.iter().map(|(a, b, _)| (*a, *b)).collect::<Vec<_>>() == expected)
                },
                "cluster_state:ok and an agreed slot map",
            )?;
        }
        Ok(Cluster { nodes })
    }
}

fn expect_ok(reply: std::io::Result<Reply>, what: &str) -> Result<()> {
    match reply {
        Ok(Reply::Status(s)) if s == "OK" => Ok(()),
        other => bail!("{what}: {other:?}"),
    }
}
