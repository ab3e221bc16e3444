//! `emq-id lease` and `emq-id mint --lease`: a node lease on Valkey held at
//! the terminal (SPEC.md §5.2), through the `emq-lease` runner.

use std::io::Write;
use std::sync::mpsc;

use emq_id::LeaseTerms;
use emq_lease::{Lease, LeaseError};
use serde_json::json;

use crate::args::Args;
use crate::Failure;

fn failure(e: LeaseError, addr: &str) -> Failure {
    match e {
        LeaseError::Gate(e) => Failure::gate(e, addr.as_bytes()),
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

/// Takes a lease on `addr` (a standalone server or any node of a cluster).
pub fn acquire(addr: &str, terms: LeaseTerms) -> Result<Lease, Failure> {
    Lease::acquire(addr, terms).map_err(|e| failure(e, addr))
}

/// `emq-id lease --cluster HOST:PORT`: acquire, print the node as a JSON
/// line, hold it (renewing) until SIGINT, SIGTERM or SIGHUP, then release.
pub fn hold(args: &Args) -> Result<Vec<Failure>, Failure> {
    let addr = args.one("--cluster").ok_or_else(|| Failure::Usage("lease needs --cluster HOST:PORT".into()))?;
    let (done, interrupted) = mpsc::channel();
    ctrlc::set_handler(move || {
        let _ = done.send(());
    })
    .map_err(|e| Failure::Io(format!("cannot wait for a signal: {e}")))?;
    let lease = acquire(addr, terms(args)?)?;
    let held = json!({ "node": lease.node(), "previous_mark": lease.previous_mark().map(|m| m.to_string()) });
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{held}").and_then(|()| stdout.flush()).map_err(|e| Failure::Io(e.to_string()))?;
    let _ = interrupted.recv();
    let node = lease.node();
    let released = lease.release().map_err(|e| failure(e, addr))?;
    writeln!(stdout, "{}", json!({ "node": node, "released": released })).map_err(|e| Failure::Io(e.to_string()))?;
    Ok(vec![])
}
