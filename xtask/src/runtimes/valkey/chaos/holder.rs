//! A holder of the chaos fleet: a separate process that holds a lease with
//! the runtime's one-call holder and mints steadily (two ids a millisecond)
//! into its own file until its stdin closes, then releases and prints its
//! stats. Each record is 24 bytes: the snowflake, the wall-clock ms it was
//! minted at, and the ordinal of the lease that minted it (all little-endian).
//!
//! The Rust holder is `cargo xtask chaos-holder` (this file's [`main`]);
//! holders in other runtimes are [`Program`]s that take the same arguments
//! (`--seeds S --replicas N --ttl MS --margin MS --out FILE`) and write the
//! same records: the fleet mixes them, one runtime after another.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use emq_id::LeaseTerms;
use emq_lease::{Lease, LeaseOptions, Timeouts};

/// One record of a holder's file.
pub const RECORD: usize = 24;

/// Ids per millisecond tick.
const PER_TICK: usize = 2;

/// What every holder is told.
#[derive(Clone)]
pub struct Orders {
    pub seeds: String,
    pub replicas: u32,
    pub terms: LeaseTerms,
}

/// A runtime's holder program: what starts one, before the common arguments.
#[derive(Clone, Debug)]
pub struct Program {
    pub runtime: &'static str,
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

impl Program {
    /// The Rust holder: the xtask binary, built (a no-op when it is current)
    /// and copied into `dir`, then `chaos-holder`. A copy, not this process's
    /// own executable, which a rebuild during a long suite may have replaced.
    pub fn rust(dir: &Path) -> Result<Program> {
        crate::sh(Command::new("cargo").args(["build", "--quiet", "-p", "xtask"]))?;
        let built = crate::root().join("target/debug/xtask");
        let copy = dir.join("chaos-holder");
        std::fs::copy(&built, &copy).with_context(|| format!("copying {}", built.display()))?;
        Ok(Program { runtime: "rust", program: copy, args: vec!["chaos-holder".into()], env: vec![] })
    }
}

/// A holder process, seen from the harness.
pub struct Holder {
    pub label: String,
    pub runtime: &'static str,
    pub file: PathBuf,
    /// Unix ms at spawn and at its end (killed, or stopped at the end of the run).
    pub spawned_ms: u64,
    pub ended_ms: Option<u64>,
    child: Child,
    /// The stats line a holder prints when it stops normally.
    pub stats: Option<serde_json::Value>,
}

impl Holder {
    /// Starts a holder of `program`'s runtime, minting into `dir/<label>.bin`.
    pub fn spawn(label: String, dir: &Path, program: &Program, orders: &Orders) -> Result<Holder> {
        let file = dir.join(format!("{label}.bin"));
        let child = Command::new(&program.program)
            .args(&program.args)
            .envs(program.env.iter().map(|(k, v)| (k, v)))
            .args(["--seeds", &orders.seeds, "--replicas", &orders.replicas.to_string()])
            .args(["--ttl", &orders.terms.ttl_ms.to_string(), "--margin", &orders.terms.margin_ms.to_string()])
            .arg("--out")
            .arg(&file)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting a {} chaos holder", program.runtime))?;
        Ok(Holder { label, runtime: program.runtime, file, spawned_ms: now(), ended_ms: None, child, stats: None })
    }

    /// SIGKILL, mid-mint.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.ended_ms.get_or_insert_with(now);
    }

    /// SIGSTOP (`true`) or SIGCONT (`false`).
    pub fn pause(&self, stop: bool) -> Result<()> {
        super::super::server::pause(self.child.id(), stop)
    }

    /// Closes its stdin (it releases and exits) and reads its stats; killed if it hangs.
    /// Whether the program has exited (it should be running).
    pub fn has_ended(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    pub fn finish(&mut self) {
        if self.ended_ms.is_some() {
            return;
        }
        self.ended_ms = Some(now());
        drop(self.child.stdin.take());
        if !crate::poll(Duration::from_secs(10), crate::POLL, || matches!(self.child.try_wait(), Ok(Some(_)))) {
            return self.kill();
        }
        let mut out = String::new();
        if let Some(mut stdout) = self.child.stdout.take() {
            let _ = stdout.read_to_string(&mut out);
        }
        self.stats = serde_json::from_str(out.trim()).ok();
    }
}

impl Drop for Holder {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn now() -> u64 {
    emq_id::now_ms().max(0) as u64
}

/// `cargo xtask chaos-holder --seeds S --replicas N --ttl MS --margin MS --out FILE`.
pub fn main(args: &[String]) -> Result<()> {
    let value = |name: &str| -> Result<&str> {
        let at = args.iter().position(|a| a == name).with_context(|| format!("chaos-holder needs {name}"))?;
        args.get(at + 1).map(String::as_str).with_context(|| format!("{name} needs a value"))
    };
    let terms = LeaseTerms::new(value("--ttl")?.parse()?, value("--margin")?.parse()?)?;
    // A node that does not answer within a second is treated as down: the holder looks elsewhere.
    let timeouts =
        Timeouts { connect: Duration::from_millis(300), read: Duration::from_secs(1), write: Duration::from_secs(1) };
    let options = LeaseOptions::new(terms).replicas(value("--replicas")?.parse()?).timeouts(timeouts);
    let seeds = value("--seeds")?.to_string();
    let closed = Arc::new(AtomicBool::new(false));
    {
        let closed = closed.clone();
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
            closed.store(true, Ordering::Release);
        });
    }
    let mut out = BufWriter::new(File::create(value("--out")?)?);
    // Joining the fleet: the first acquire is refused while no node is free or
    // no replica acknowledges it; a holder keeps asking.
    let lease = loop {
        match Lease::acquire(&seeds, options) {
            Ok(lease) => break lease,
            Err(_) if !closed.load(Ordering::Acquire) => std::thread::sleep(options.retry()),
            Err(e) => return Err(anyhow::anyhow!("no lease before the end: {e}")),
        }
    };
    let mut flushed = Instant::now();
    while !closed.load(Ordering::Acquire) {
        for _ in 0..PER_TICK {
            let Ok(minted) = lease.next() else { break };
            let mut record = [0u8; RECORD];
            record[..8].copy_from_slice(&minted.snowflake.to_le_bytes());
            record[8..16].copy_from_slice(&now().to_le_bytes());
            record[16..20].copy_from_slice(&minted.lease.to_le_bytes());
            out.write_all(&record)?;
        }
        if flushed.elapsed() >= Duration::from_millis(20) {
            out.flush()?;
            flushed = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    out.flush()?;
    let stats = lease.stats();
    lease.release()?;
    println!(
        "{}",
        serde_json::json!({
            "taken": stats.taken,
            "lost": stats.lost,
            "longest_unleased_ms": stats.longest_unleased.as_millis() as u64,
        })
    );
    Ok(())
}
