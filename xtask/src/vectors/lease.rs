//! The vector file's lease sections (emq-lease/3, SPEC.md §5.2): the scripts
//! byte for byte with their SHA-1, the key, the parsing of every reply, and
//! the arithmetic of a hand-over and of the fence. Every answer is the core's.

use emq_id::{Acquired, LeaseTerms, LeasedMinter, EPOCH_MS, MAX_TS};
use serde_json::{json, Value};

const T: i64 = 1_769_526_697_641;

fn gate(e: emq_id::Error) -> Value {
    json!(e.gate().name())
}

/// Each script: its name, text and SHA-1 (what `SCRIPT LOAD` answers and `EVALSHA` takes).
pub fn scripts() -> Vec<Value> {
    emq_id::SCRIPTS
        .iter()
        .map(|s| json!({ "name": s.name, "sha1": sha1_smol::Sha1::from(s.text).digest().to_string(), "text": s.text }))
        .collect()
}

/// The reserve's one lease key, which every script declares.
pub fn keys() -> Vec<Value> {
    vec![json!({ "lease_key": emq_id::LEASE_KEY })]
}

/// The acquire script's replies `{node, previous}`, read or refused.
pub fn acquire_replies() -> Vec<Value> {
    let last = (EPOCH_MS + MAX_TS) as i64;
    [(0, -1), (7, -1), (1023, T), (512, 0), (5, last), (5, last + 1), (1024, -1), (-1, -1), (5, -2)]
        .into_iter()
        .map(|(node, previous)| {
            let mut case = json!({ "reply_node": node, "reply_previous": previous });
            match emq_id::parse_acquire(node, previous) {
                Ok(Acquired { node, previous_mark }) => {
                    case["node"] = json!(node);
                    case["previous_mark"] = json!(previous_mark);
                }
                Err(e) => case["gate"] = gate(e),
            }
            case
        })
        .collect()
}

/// The renew and release scripts' replies.
pub fn renewals() -> Vec<Value> {
    [1, 0, 2, -1]
        .into_iter()
        .map(|reply| match emq_id::parse_renewal(reply) {
            Ok(()) => json!({ "reply": reply }),
            Err(e) => json!({ "reply": reply, "gate": gate(e) }),
        })
        .collect()
}

/// Error messages an acquire may meet: the script's own refusal (`node`), or not.
pub fn acquire_errors() -> Vec<Value> {
    let refusal = emq_id::EVERY_NODE_LEASED;
    [
        refusal.to_string(),
        format!("ERR {refusal}"),
        "NOSCRIPT No matching script".into(),
        String::new(),
        "EMQLEASE".into(),
    ]
    .into_iter()
    .map(|message| match emq_id::parse_acquire_error(&message) {
        Some(e) => json!({ "message": message, "gate": gate(e) }),
        None => json!({ "message": message, "refusal": false }),
    })
    .collect()
}

/// A minter started on a lease (the acquire sent at monotonic 0): its first
/// id at `now`, its fence, and the mark its first renewal would carry.
pub fn starts() -> Vec<Value> {
    let last = (EPOCH_MS + MAX_TS) as i64;
    let cases: [(u16, Option<u64>, i64, u64, u64); 7] = [
        (3, None, T, 30_000, 5_000),
        (3, Some((T + 35_000) as u64), T, 30_000, 5_000), // the previous owner's clock 5 s ahead
        (3, Some((T - 1_000) as u64), T, 30_000, 5_000),
        (1023, Some(T as u64), T, 3_000, 500),
        (3, None, T, 10, 10),                            // the margin must be below the TTL
        (3, Some((last - 10) as u64), T, 30_000, 5_000), // the mark would pass 41 bits
        (3, None, T, 86_400_001, 5_000),                 // a TTL past a day
    ];
    cases
        .into_iter()
        .map(|(node, previous, now, ttl, margin)| {
            let mut case =
                json!({ "node": node, "previous_mark": previous, "now_ms": now, "ttl_ms": ttl, "margin_ms": margin });
            let started = LeaseTerms::new(ttl, margin)
                .and_then(|terms| LeasedMinter::start(Acquired { node, previous_mark: previous }, now, 0, terms));
            match started.and_then(|m| m.next_at(now, 0).map(|s| (s, m))) {
                Ok((s, m)) => {
                    case["snowflake"] = json!(s.to_string());
                    case["fence_ms"] = json!(m.fence_ms());
                    case["next_mark"] = json!(m.next_mark(now));
                }
                Err(e) => case["gate"] = gate(e),
            }
            case
        })
        .collect()
}

/// A lease write's acknowledgement: the terms' `WAIT` timeout, and the
/// reading of `WAIT`'s reply against the replicas wanted (terms first).
pub fn waits() -> Vec<Value> {
    let cases: [(u64, u64, u32, i64); 10] = [
        (30_000, 5_000, 1, 1),
        (30_000, 5_000, 1, 0), // the lossy failover's acquire: no replica has it
        (30_000, 5_000, 1, 2),
        (30_000, 5_000, 0, 0), // a reserve without replicas, by choice
        (3_000, 500, 2, 1),
        (3_000, 500, 2, 3),
        (3, 1, 1, 1),
        (60_000, 5_000, 1, 1),
        (30_000, 5_000, 1, -1), // no count WAIT gives
        (10, 10, 1, 1),         // terms the core refuses
    ];
    cases
        .into_iter()
        .map(|(ttl, margin, replicas, reply)| {
            let mut case = json!({ "ttl_ms": ttl, "margin_ms": margin, "replicas": replicas, "reply": reply });
            let read = LeaseTerms::new(ttl, margin).and_then(|t| emq_id::parse_wait(reply, replicas).map(|()| t));
            match read {
                Ok(terms) => case["wait_ms"] = json!(terms.wait_ms()),
                Err(e) => case["gate"] = gate(e),
            }
            case
        })
        .collect()
}
