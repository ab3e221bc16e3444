//! What the fleet's files say: ids per runtime, duplicates, ids out of order
//! within a holder, owners of one node whose ids interleave, leases taken
//! and re-acquired, and availability (the share of 100 ms windows in which
//! each holder minted, and the longest gap around each kind of fault).

use std::collections::BTreeMap;

use anyhow::{Context, Result};

use super::holder::{Holder, RECORD};
use super::Event;

/// A window of availability.
const WINDOW_MS: u64 = 100;

/// One runtime's figures.
#[derive(Default)]
pub struct Figures {
    pub holders: usize,
    pub ids: usize,
    /// This runtime's ids that another holder (of any runtime) minted too.
    pub duplicates: usize,
    pub out_of_order: usize,
    pub leases: usize,
    pub reacquired: usize,
    pub lost: u64,
    /// Each holder's share of windows with an id, by its label.
    pub availability: Vec<(String, f64)>,
}

/// The fleet's verdict.
pub struct Verdict {
    pub per_runtime: BTreeMap<&'static str, Figures>,
    pub ids: usize,
    pub duplicates: usize,
    pub out_of_order: usize,
    pub owner_violations: usize,
    /// The longest gap of any holder overlapping each kind of fault (or none), ms.
    pub longest_gap: BTreeMap<&'static str, Gap>,
    /// The kinds of fault done, in the order first done.
    pub kinds: Vec<&'static str>,
}

/// A holder's longest time without an id around a kind of fault.
#[derive(Clone, Default)]
pub struct Gap {
    pub ms: u64,
    /// The holder, and the ms from the fault's start to the gap's start.
    pub holder: String,
    pub after_fault_ms: i64,
}

/// One id a holder minted: the snowflake, the unix ms it was minted at, the ordinal of its lease.
pub struct Record {
    pub snowflake: u64,
    pub at: u64,
    pub lease: u32,
}

/// A holder's file, read (a partial last record, from a holder killed mid-write, is left out).
pub fn read(holder: &Holder) -> Result<Vec<Record>> {
    let bytes = std::fs::read(&holder.file).unwrap_or_default();
    let whole = bytes.len() / RECORD * RECORD; // a holder killed mid-write leaves a partial record
    bytes[..whole]
        .chunks_exact(RECORD)
        .map(|r| {
            let word = |a: usize, b: usize| r.get(a..b).context("a record");
            Ok(Record {
                snowflake: u64::from_le_bytes(word(0, 8)?.try_into()?),
                at: u64::from_le_bytes(word(8, 16)?.try_into()?),
                lease: u32::from_le_bytes(word(16, 20)?.try_into()?),
            })
        })
        .collect()
}

pub fn judge(holders: &[Holder], events: &[Event], ttl_ms: u64) -> Result<Verdict> {
    let mut per_runtime: BTreeMap<&'static str, Figures> = BTreeMap::new();
    // Every id with its holder's runtime: duplicates are counted per runtime too.
    let mut all: Vec<(u64, &'static str)> = vec![];
    // (node) -> every owner's (first minted at, min, max): an owner is one lease of one holder.
    let mut owners: BTreeMap<u16, Vec<(u64, u64, u64)>> = BTreeMap::new();
    let mut longest_gap: BTreeMap<&'static str, Gap> = BTreeMap::new();
    let mut out_of_order_total = 0;
    for holder in holders {
        let records = read(holder)?;
        let figures = per_runtime.entry(holder.runtime).or_default();
        figures.holders += 1;
        figures.ids += records.len();
        let out_of_order = records.windows(2).filter(|w| w[1].snowflake <= w[0].snowflake).count();
        figures.out_of_order += out_of_order;
        out_of_order_total += out_of_order;
        figures.lost += holder.stats.as_ref().and_then(|s| s["lost"].as_u64()).unwrap_or(0);
        let mut leases: BTreeMap<u32, (u16, u64, u64, u64)> = BTreeMap::new();
        for r in &records {
            all.push((r.snowflake, holder.runtime));
            let e = leases.entry(r.lease).or_insert((emq_id::node(r.snowflake), r.at, u64::MAX, 0));
            e.2 = e.2.min(r.snowflake);
            e.3 = e.3.max(r.snowflake);
        }
        figures.leases += leases.len();
        figures.reacquired += leases.keys().filter(|&&ordinal| ordinal >= 2).count();
        for (node, first_at, min, max) in leases.into_values() {
            owners.entry(node).or_default().push((first_at, min, max));
        }
        // Availability over the holder's life, from its spawn to its end.
        let (from, to) = (holder.spawned_ms, holder.ended_ms.unwrap_or(holder.spawned_ms));
        if to > from + WINDOW_MS {
            let windows = (to - from) / WINDOW_MS;
            let mut seen = vec![false; windows as usize];
            for r in &records {
                if let Some(w) = r.at.checked_sub(from).map(|d| d / WINDOW_MS).filter(|&w| w < windows) {
                    seen[w as usize] = true;
                }
            }
            let share = seen.iter().filter(|&&s| s).count() as f64 / windows as f64;
            figures.availability.push((holder.label.clone(), share));
            let times: Vec<u64> =
                std::iter::once(from).chain(records.iter().map(|r| r.at)).chain(std::iter::once(to)).collect();
            for w in times.windows(2) {
                let (a, b) = (w[0], w[1]);
                if b.saturating_sub(a) <= WINDOW_MS {
                    continue;
                }
                // The fault a gap belongs to: the one in force when the gap began
                // (the latest begun by then, give or take a window, whose effects —
                // a TTL past its end — reach it), not a later one it ran into; else
                // the first begun during the gap.
                let reaches = |e: &&Event| a <= e.end_ms + ttl_ms;
                let fault = events
                    .iter()
                    .filter(reaches)
                    .filter(|e| e.start_ms <= a + WINDOW_MS)
                    .max_by_key(|e| e.start_ms)
                    .or_else(|| events.iter().filter(reaches).filter(|e| e.start_ms <= b).min_by_key(|e| e.start_ms));
                let kind = fault.map_or(if a == from { "joining the fleet" } else { "no fault" }, |e| e.fault.name());
                let g = longest_gap.entry(kind).or_default();
                if b - a > g.ms {
                    let after_fault_ms = fault.map_or(0, |e| a as i64 - e.start_ms as i64);
                    *g = Gap { ms: b - a, holder: holder.label.clone(), after_fault_ms };
                }
            }
        }
    }
    let ids = all.len();
    all.sort_unstable();
    let mut duplicates = 0;
    for run in all.chunk_by(|a, b| a.0 == b.0).filter(|run| run.len() > 1) {
        duplicates += run.len() - 1;
        for &(_, runtime) in run {
            per_runtime.entry(runtime).or_default().duplicates += 1;
        }
    }
    let mut owner_violations = 0;
    // Owners of a node in the order they began minting: each one's first id
    // must follow every id of every owner before it.
    for spans in owners.values_mut() {
        spans.sort_unstable();
        let mut highest = None;
        for &(_, min, max) in spans.iter() {
            if highest.is_some_and(|h| min <= h) {
                owner_violations += 1;
            }
            highest = Some(highest.map_or(max, |h: u64| h.max(max)));
        }
    }
    let mut kinds = vec![];
    for e in events {
        if !kinds.contains(&e.fault.name()) {
            kinds.push(e.fault.name());
        }
    }
    Ok(Verdict { per_runtime, ids, duplicates, out_of_order: out_of_order_total, owner_violations, longest_gap, kinds })
}

fn percent(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

impl Verdict {
    /// The fleet's availability: the mean of its holders' shares, and the lowest.
    pub fn availability(&self) -> (f64, f64) {
        let shares: Vec<f64> = self.per_runtime.values().flat_map(|f| f.availability.iter().map(|(_, a)| *a)).collect();
        let mean = shares.iter().sum::<f64>() / shares.len().max(1) as f64;
        (mean, shares.iter().copied().fold(f64::INFINITY, f64::min))
    }

    pub fn print(&self) {
        println!(
            "| runtime | holders | ids | duplicates | out of order | leases taken | re-acquired | lost | availability (mean, lowest) |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
        for (runtime, f) in &self.per_runtime {
            let mean = f.availability.iter().map(|(_, a)| a).sum::<f64>() / f.availability.len().max(1) as f64;
            let low = f.availability.iter().map(|(_, a)| *a).fold(f64::INFINITY, f64::min);
            println!(
                "| {runtime} | {} | {} | {} | {} | {} | {} | {} | {}, {} |",
                f.holders,
                f.ids,
                f.duplicates,
                f.out_of_order,
                f.leases,
                f.reacquired,
                f.lost,
                percent(mean),
                percent(low)
            );
        }
        let mut holders: Vec<&(String, f64)> = self.per_runtime.values().flat_map(|f| &f.availability).collect();
        holders.sort_by(|a, b| a.0.cmp(&b.0));
        let each: Vec<String> = holders.iter().map(|(label, a)| format!("{label} {}", percent(*a))).collect();
        println!("availability per holder: {}", each.join(", "));
        println!("| fault kind | longest gap of a holder around it | holder (gap began, ms after the fault began) |");
        println!("|---|---:|---|");
        let row = |kind: &str, g: &Gap| println!("| {kind} | {} ms | {} ({:+}) |", g.ms, g.holder, g.after_fault_ms);
        for kind in &self.kinds {
            match self.longest_gap.get(kind) {
                Some(gap) => row(kind, gap),
                None => println!("| {kind} | none over {WINDOW_MS} ms | |"),
            }
        }
        for (kind, gap) in self.longest_gap.iter().filter(|(k, _)| !self.kinds.contains(k)) {
            row(kind, gap);
        }
    }
}
