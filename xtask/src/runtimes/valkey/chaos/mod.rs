//! `cargo xtask chaos`: node leases through Valkey's real failures
//! (SPEC.md §5.2). A live cluster of three primaries with a
//! replica each; a fleet of holders, each a separate process minting
//! steadily into its own file; the harness holds every node but a few, so
//! a lost lease's node is taken again at once; faults on a seeded schedule.
//! Then the files are judged: no id twice, none out of order within a
//! holder, no two owners of a node interleaved, and the availability.
//!
//! The same schedule runs twice: with `replicas: 1` (the default), where
//! every count above must be 0, and with `replicas: 0`, the negative
//! control, whose lossy failover must produce duplicates: proof that the
//! count can fail and that acknowledgement is what prevents them.
//!
//! Before the fleets: the lossy failover and a one-node cluster whose slot
//! map has no host as single `emq-id` commands (`scenario.rs`), then the
//! same live tests for every runtime's one-call holder (`trials.rs`) and
//! the book's lease examples, as written (`readme.rs`). The
//! fleet mixes the runtimes' holders, and its table gives each runtime's
//! ids, duplicates, order violations and availability.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use emq_id::LeaseTerms;

mod cluster;
mod faults;
pub mod holder;
mod readme;
mod scenario;
mod trials;
mod verdict;

use cluster::Replicated;
use faults::Fault;
use holder::{Holder, Orders, Program};
use verdict::Verdict;

use crate::vectors::rng::Rng;

/// Holders at the start; faults add more (replacements, the lossy failover's two).
const HOLDERS: usize = 16;
/// Nodes the harness leaves free at the start: the fleet's, and a few to
/// spare (16 holders, 3 replacements of killed ones, the lossy failover's 2,
/// 4 joining mid-split: 3 to spare, as before the reshardings joined).
const FREE: u64 = 28;
/// 3 s leases fenced 0.5 s early: renewals every second, so a fault's effect shows within seconds.
const TERMS: (u64, u64) = (3_000, 500);
/// The schedule after the lossy failover: shuffled by the seed.
const FAULTS: [(Fault, usize); 4] =
    [(Fault::PrimaryKilled, 5), (Fault::HolderKilled, 3), (Fault::HolderPaused, 2), (Fault::Resharding, 2)];

/// One fault done, with when.
pub struct Event {
    pub fault: Fault,
    pub start_ms: u64,
    pub end_ms: u64,
}

/// A cluster, its holders, and what was done to them.
pub struct Fleet {
    cluster: Replicated,
    holders: Vec<Holder>,
    orders: Orders,
    /// The runtimes' holder programs: holder `i` runs `programs[i % len]`.
    programs: Vec<Program>,
    dir: PathBuf,
    rng: Rng,
    spawned: usize,
}

pub fn run() -> Result<()> {
    let started = Instant::now();
    let seed: u64 = std::env::var("EMQ_CHAOS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(27);
    scenario::run().context("the lossy failover and a one-node cluster, by the CLI")?;
    let terms = LeaseTerms::new(TERMS.0, TERMS.1)?;
    let dir = crate::root().join("target/chaos");
    crate::mkdir(&dir)?;
    let programs = programs(&dir)?;
    trials::run(&programs, &dir).context("the holders' live tests")?;
    readme::run().context("the book's lease examples")?;
    let safe = fleet(1, seed, terms, &programs).context("the fleet with replicas 1")?;
    let control = fleet(0, seed, terms, &programs).context("the negative control, replicas 0")?;
    let (mean, lowest) = safe.availability();
    println!(
        "negative control (replicas 0): {} ids, {} duplicates, {} owner-order violations",
        control.ids, control.duplicates, control.owner_violations
    );
    println!(
        "chaos: {} ids, {} duplicates, {} out of order, {} owner-order violations, availability {:.1}% (lowest holder {:.1}%), seed {seed}, {:.0} s",
        safe.ids,
        safe.duplicates,
        safe.out_of_order,
        safe.owner_violations,
        mean * 100.0,
        lowest * 100.0,
        started.elapsed().as_secs_f64()
    );
    ensure!(safe.ids > 0, "the fleet minted nothing");
    ensure!(safe.duplicates == 0, "{} ids minted twice with replicas 1", safe.duplicates);
    ensure!(safe.out_of_order == 0, "{} ids out of order within a holder", safe.out_of_order);
    ensure!(safe.owner_violations == 0, "{} owners' ids interleaved on a node", safe.owner_violations);
    ensure!(control.duplicates > 0, "the negative control found no duplicate: the count could not fail");
    // The holders' files and the binary copy (kept when a check fails, to look at).
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Every runtime's holder program, built once for both fleets.
fn programs(dir: &std::path::Path) -> Result<Vec<Program>> {
    let mut programs = vec![Program::rust(dir)?, crate::runtimes::go::holder::chaos_holder()?];
    programs.extend(crate::runtimes::python::holder::chaos_holders()?);
    programs.extend(crate::runtimes::node::holder::chaos_holders()?);
    programs.push(crate::runtimes::elixir::holder::chaos_holder()?);
    programs.extend(crate::runtimes::jvm::holder::chaos_holders()?);
    Ok(programs)
}

/// One fleet on a fresh cluster through the whole schedule; its verdict.
fn fleet(replicas: u32, seed: u64, terms: LeaseTerms, programs: &[Program]) -> Result<Verdict> {
    let cluster = Replicated::start()?;
    let dir = crate::root().join("target/chaos").join(format!("replicas-{replicas}"));
    let _ = std::fs::remove_dir_all(&dir);
    crate::mkdir(&dir)?;
    let orders = Orders { seeds: cluster.seeds(), replicas, terms };
    let programs = programs.to_vec();
    let mut fleet = Fleet { cluster, holders: vec![], orders, programs, dir, rng: Rng::new(seed), spawned: 0 };
    fleet.hold_all_but_a_few()?;
    for _ in 0..HOLDERS {
        let h = fleet.spawn_holder()?;
        fleet.holders.push(h);
    }
    fleet.wait_all_minting()?;
    let mut schedule: Vec<Fault> = FAULTS.iter().flat_map(|&(f, n)| std::iter::repeat_n(f, n)).collect();
    for i in (1..schedule.len()).rev() {
        let j = fleet.rng.below(i as u64 + 1) as usize;
        schedule.swap(i, j);
    }
    schedule.insert(0, Fault::LossyFailover);
    let mut events = vec![];
    for fault in schedule {
        let start_ms = holder::now();
        fleet.inflict(fault).with_context(|| fault.name())?;
        events.push(Event { fault, start_ms, end_ms: holder::now() });
        std::thread::sleep(Duration::from_millis(1_000));
    }
    std::thread::sleep(Duration::from_millis(1_000));
    // No holder gives up: every one the harness did not kill is still running.
    let quit: Vec<&str> = fleet
        .holders
        .iter_mut()
        .filter_map(|h| (h.ended_ms.is_none() && h.has_ended()).then_some(h.label.as_str()))
        .collect();
    ensure!(quit.is_empty(), "holders that exited by themselves: {quit:?}");
    for h in &mut fleet.holders {
        h.finish();
    }
    let verdict = verdict::judge(&fleet.holders, &events, terms.ttl_ms)?;
    println!(
        "\nchaos fleet, replicas {replicas} (3 primaries + 3 replicas, {} holder processes, TTL {} ms, margin {} ms, seed {seed}):",
        fleet.holders.len(),
        terms.ttl_ms,
        terms.margin_ms
    );
    verdict.print();
    println!(
        "replicas {replicas}: {} ids, {} duplicates, {} out of order, {} owner-order violations",
        verdict.ids, verdict.duplicates, verdict.out_of_order, verdict.owner_violations
    );
    Ok(verdict)
}

impl Fleet {
    /// The harness leases every node but `FREE` drawn ones itself (replicated
    /// before any fault), so the fleet's nodes are dense.
    fn hold_all_but_a_few(&mut self) -> Result<()> {
        let mut free = vec![];
        while free.len() < FREE as usize {
            let n = self.rng.below(u64::from(emq_id::LEASE_NODES)) as u16;
            if !free.contains(&n) {
                free.push(n);
            }
        }
        let held: Vec<u16> = (0..emq_id::LEASE_NODES).filter(|n| !free.contains(n)).collect();
        let mut c = self.cluster.connect(self.cluster.reserve_primary()?)?;
        self.cluster.hold(&mut c, &held, 600_000)?;
        Ok(())
    }

    fn spawn_holder(&mut self) -> Result<Holder> {
        let program = &self.programs[self.spawned % self.programs.len()];
        self.spawned += 1;
        Holder::spawn(format!("{}-{:02}", program.runtime, self.spawned), &self.dir, program, &self.orders)
    }

    /// Polls (20 s at most) until every holder has written an id.
    fn wait_all_minting(&self) -> Result<()> {
        let waiting = || {
            let unminted = |h: &&Holder| std::fs::metadata(&h.file).map_or(true, |m| m.len() < holder::RECORD as u64);
            self.holders.iter().filter(unminted).count()
        };
        ensure!(
            crate::poll(Duration::from_secs(20), crate::POLL, || waiting() == 0),
            "{} holders minted nothing in 20 s",
            waiting()
        );
        Ok(())
    }
}
