//! `emq-id lease` and `emq-id mint --lease`: a node lease on Valkey held at
//! the terminal (SPEC.md §5.2), through the `emq-lease` runner.

use std::io::Write;
use std::sync::mpsc;

use emq_id::LeaseTerms;
use emq_lease::{Lease, LeaseError, LeaseOptions};
use serde_json::json;

use crate::args::Args;
use crate::Failure;

fn failure(e: LeaseError, addr: &str) -> Failure {
    if let LeaseError::Gate(refusal) = &e {
        if refusal.acknowledged().is_some_and(|(got, _)| got == 0) {
            eprintln!(
                "hint: no replica of the reserve's primary acknowledged; a reserve without replicas takes --replicas 0"
            );
        }
    }
    match e {
        LeaseError::Gate(e) => Failure::gate(e, addr.as_bytes()),
        LeaseError::Refused { refusal, reply } => Failure::Gate(refusal, format!("{addr:?} answered {reply:?}")),
        LeaseError::Io(e) => Failure::Io(format!("{addr}: {e}")),
    }
}

/// The terms from `--ttl` and `--margin` (ms), else the core's defaults.
pub fn terms(args: &Args) -> Result<LeaseTerms, Failure> {
    let ms = |flag: &str, default: u64| match args.one(flag) {
        Some(v) => v.parse::<u64>().map_err(|_| Failure::Usage(format!("{flag} takes milliseconds, not {v:?}"))),
        None => Ok(default),
    };
    let ttl = ms("--ttl", LeaseTerms::DEFAULT.ttl_ms)?;
    let terms = match args.one("--margin") {
        Some(_) => LeaseTerms::new(ttl, ms("--margin", 0)?),
        None => LeaseTerms::for_ttl(ttl),
    };
    terms.map_err(|e| Failure::gate(e, format!("--ttl {ttl}").as_bytes()))
}

/// The terms, and `--replicas N` (the replicas that must acknowledge each
/// lease write), else the core's default of one.
pub fn options(args: &Args) -> Result<LeaseOptions, Failure> {
    let replicas = match args.one("--replicas") {
        Some(v) => v.parse::<u32>().map_err(|_| Failure::Usage(format!("--replicas takes a count, not {v:?}")))?,
        None => emq_id::LEASE_REPLICAS,
    };
    Ok(LeaseOptions::new(terms(args)?).replicas(replicas))
}

/// Takes a lease through `seeds` (`HOST:PORT[,HOST:PORT…]`: a standalone
/// server or any nodes of a cluster).
pub fn acquire(seeds: &str, options: LeaseOptions) -> Result<Lease, Failure> {
    Lease::acquire(seeds, options).map_err(|e| failure(e, seeds))
}

/// `emq-id lease --cluster SEEDS`: acquire, print the node as a JSON line,
/// hold it (renewing, and taking another node when it is lost: a line for
/// each) until SIGINT, SIGTERM or SIGHUP, then release.
pub fn hold(args: &Args) -> Result<Vec<Failure>, Failure> {
    let addr = args.one("--cluster").ok_or_else(|| Failure::Usage("lease needs --cluster HOST:PORT".into()))?;
    let (done, interrupted) = mpsc::channel();
    ctrlc::set_handler(move || {
        let _ = done.send(());
    })
    .map_err(|e| Failure::Io(format!("cannot wait for a signal: {e}")))?;
    let lease = acquire(addr, options(args)?)?;
    let mut stdout = std::io::stdout().lock();
    let mut printed = None;
    loop {
        if let Some(held) = lease.held().filter(|h| Some(h.ordinal) != printed) {
            printed = Some(held.ordinal);
            let line = json!({
                "node": held.node,
                "previous_mark": held.previous_mark.map(|m| m.to_string()),
                "lease": held.ordinal,
            });
            writeln!(stdout, "{line}").and_then(|()| stdout.flush()).map_err(|e| Failure::Io(e.to_string()))?;
        }
        match interrupted.recv_timeout(std::time::Duration::from_millis(100)) {
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            _ => break,
        }
    }
    let (node, stats) = (lease.node(), lease.stats());
    let released = lease.release().map_err(|e| failure(e, addr))?;
    let done = json!({
        "node": node,
        "released": released,
        "leases_taken": stats.taken,
        "leases_lost": stats.lost,
        "longest_unleased_ms": stats.longest_unleased.as_millis() as u64,
    });
    writeln!(stdout, "{done}").map_err(|e| Failure::Io(e.to_string()))?;
    Ok(vec![])
}
