//! The vector file's keeper sections (SPEC.md §5.2): how an error reply to a
//! lease script is read, and what a holder does after each write, as
//! sequences of the keeper's steps. Every answer is the core's.

use emq_id::{read_lease_error, redirect, Keeper, LeaseTerms, Outcome};
use serde_json::{json, Value};
use Outcome::*;
use Step::{Next, Release, Settle};

/// Error replies a lease write may meet, each read fresh and after `ASKING`.
pub fn replies() -> Vec<Value> {
    let errors = [
        "EMQLEASE every node is leased",
        "ERR EMQLEASE every node is leased",
        "ASK 9051 10.0.0.2:7001",
        "ASK 9051 :7001",
        "ASK 9051 ?:7001",
        "ASK 9051 [2001:db8::1]:7001",
        "ASK 16384 10.0.0.2:7001",
        "ASK 9051",
        "MOVED 9051 10.0.0.2:7001",
        "MOVED 9051 2001:db8::1:7001",
        "MOVED 9051 10.0.0.2:70011",
        "READONLY You can't write against a read only replica.",
        "TRYAGAIN Multiple keys request during rehashing of slot",
        "CLUSTERDOWN The cluster is down",
        "CLUSTERDOWN Hash slot not served",
        "LOADING Valkey is loading the dataset in memory",
        "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
        "BUSY Valkey is busy running a script.",
        "NOREPLICAS Not enough good replicas to write.",
        "NOSCRIPT No matching script. Please use EVAL.",
        "ERR Error running script (call to f_0): @user_script:5: Wrong number of args",
        "OOM command not allowed when used memory > 'maxmemory'.",
        "MISCONF Errors writing to the AOF file: No space left on device",
        "TRYAGAINX",
        "",
    ];
    let mut out = vec![];
    for error in errors {
        for asked in [false, true] {
            let mut case = json!({ "error": error, "asked": asked, "outcome": read_lease_error(error, asked).name() });
            case["redirect"] = match redirect(error) {
                Some(r) => json!({ "ask": r.ask, "slot": r.slot, "host": r.host, "port": r.port }),
                None => Value::Null,
            };
            out.push(case);
        }
    }
    out
}

/// One step of a keeper's sequence: the write due at a time, a write's
/// outcome settled, or the lease handed back.
enum Step {
    Next(u64),
    Settle(Outcome, u64, u64),
    Release(u64),
}

/// Sequences of steps from a starting keeper, each with what the keeper answers.
pub fn keepers() -> Vec<Value> {
    let sequences: [(u64, u64, u64, Vec<Step>); 11] = [
        // A lease taken, renewed, renewed unacknowledged, lost, taken again, and expired.
        (
            3_000,
            500,
            0,
            vec![
                Next(0),
                Settle(Counted, 0, 5),
                Next(1_005),
                Settle(Counted, 1_005, 1_010),
                Next(2_010),
                Settle(Unacknowledged, 2_010, 2_020),
                Next(2_160),
                Settle(Gone, 2_160, 2_165),
                Next(2_165),
                Settle(Leased, 2_165, 2_170),
                Next(2_320),
                Settle(Counted, 2_320, 2_330),
                Next(5_319),
                Next(5_320),
                Settle(Counted, 5_320, 5_321),
            ],
        ),
        // The cluster down at the first acquire: tried again within a TTL, then refused by name.
        (
            2_000,
            333,
            100,
            vec![
                Next(100),
                Settle(NotRun, 100, 101),
                Settle(Moved, 201, 202),
                Settle(NotRun, 2_000, 2_099),
                Settle(NotRun, 2_099, 2_100),
                Next(2_100),
            ],
        ),
        // The first acquire follows ASK once; a second ASK gives up.
        (30_000, 5_000, 0, vec![Next(0), Settle(Ask, 0, 1), Settle(Counted, 1, 2), Settle(Ask, 10_002, 10_003)]),
        (30_000, 5_000, 0, vec![Settle(Ask, 0, 1), Settle(Ask, 1, 2)]),
        // The first acquire refused at once: every node leased; not acknowledged; a fault.
        (30_000, 5_000, 0, vec![Settle(Leased, 0, 1)]),
        (30_000, 5_000, 0, vec![Settle(Unacknowledged, 0, 1), Next(2)]),
        (30_000, 5_000, 0, vec![Settle(Fault, 0, 1)]),
        // A held lease through a migration and a failover: followed, rerouted,
        // not run, faults, a pending lease published and one lost.
        (
            3,
            1,
            0,
            vec![
                Settle(Counted, 0, 0),
                Settle(Ask, 1, 1),
                Settle(Ask, 1, 1),
                Settle(Moved, 2, 2),
                Settle(NotRun, 2, 2),
                Settle(Fault, 2, 2),
                Settle(Leased, 2, 2),
                Next(5),
                Settle(Unacknowledged, 5, 5),
                Next(6),
                Settle(Unacknowledged, 6, 6),
                Settle(Counted, 7, 7),
                Next(8),
                Settle(Gone, 8, 8),
                Settle(Unacknowledged, 9, 9),
                Settle(Gone, 10, 10),
                Next(10),
            ],
        ),
        // A release redirected by MOVED, then not run twice: left to its TTL.
        (
            3_000,
            500,
            0,
            vec![
                Settle(Counted, 0, 0),
                Release(10),
                Next(10),
                Settle(Moved, 10, 11),
                Settle(NotRun, 11, 12),
                Settle(NotRun, 162, 163),
            ],
        ),
        // A release followed through ASK; another answered gone; one that faults.
        (30_000, 5_000, 0, vec![Settle(Counted, 0, 0), Release(1), Settle(Ask, 1, 2), Settle(Counted, 2, 3), Next(4)]),
        (30_000, 5_000, 0, vec![Settle(Unacknowledged, 0, 1), Release(2), Settle(Gone, 2, 3), Settle(Fault, 2, 3)]),
    ];
    sequences
        .into_iter()
        .map(|(ttl, margin, since, steps)| {
            let terms = LeaseTerms::new(ttl, margin).expect("the sequences' terms are the contract's");
            let mut keeper = Keeper::starting(terms, since);
            let steps: Vec<Value> = steps
                .into_iter()
                .map(|step| match step {
                    Next(at) => {
                        let next = keeper.next(at);
                        json!({ "at": at, "next": next.name(), "phase": keeper.phase().name() })
                    }
                    Release(at) => {
                        keeper.release();
                        json!({ "at": at, "release": true, "phase": keeper.phase().name() })
                    }
                    Settle(outcome, sent, at) => {
                        let done = keeper.settle(outcome, sent, at);
                        let mut step = json!({ "outcome": outcome.name(), "sent": sent, "at": at,
                            "action": done.action.name(), "after_ms": done.after_ms, "phase": keeper.phase().name() });
                        if done.action == emq_id::Action::GiveUp {
                            step["refusal"] = json!(Keeper::refusal(outcome).map(|e| e.gate().name()));
                        }
                        step
                    }
                })
                .collect();
            json!({ "ttl_ms": ttl, "margin_ms": margin, "since": since,
                "renew_every_ms": terms.renew_every_ms(), "retry_ms": terms.retry_ms(), "steps": steps })
        })
        .collect()
}
