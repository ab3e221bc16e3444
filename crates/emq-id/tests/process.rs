//! The process-wide minter in one process of its own (this test binary): its
//! node from `EMQ_NODE`, held on the host by a claim; a burst past the clock
//! recorded as a high-water mark before its ids are handed out; threads
//! sharing the one state. Sibling processes are tested through the CLI, Go,
//! Node and the C ABI (fork), which run real processes.

use std::collections::HashSet;

use emq_id::{Gate, NodeClaim, NodeSource};

/// One test, so that setting the environment races with no other thread.
#[test]
fn one_node_one_mint_state() {
    // Not TMPDIR-dependent: every process of a host must meet in one place.
    if cfg!(unix) && std::env::var_os(emq_id::NODE_DIR_ENV).is_none() {
        assert_eq!(emq_id::claim_dir(), std::path::PathBuf::from("/tmp/emq-id"));
    }
    a_new_holder_inherits_the_high_water_mark();
    let dir = std::env::temp_dir().join(format!("emq-id-process-test-{}", std::process::id()));
    std::env::set_var(emq_id::NODE_DIR_ENV, &dir);
    std::env::set_var(emq_id::NODE_ENV, "21");

    let id = emq_id::mint(b"JOB").unwrap();
    let process = emq_id::process_minter().unwrap();
    assert_eq!((id.node(), process.node(), process.source()), (21, 21, NodeSource::Env));

    // The node is this process's on the host: another claim is refused, naming the holder.
    let err = NodeClaim::take(21).unwrap_err();
    assert_eq!((err.gate(), err.node(), err.holder_pid()), (Gate::Node, Some(21), Some(std::process::id())));
    assert!(err.to_string().starts_with(&format!("node: node 21 (held by pid {}): ", std::process::id())), "{err}");

    // A process keeps its node.
    assert!(emq_id::set_process_node(21).is_ok());
    let err = emq_id::set_process_node(22).unwrap_err();
    assert_eq!((err.gate(), err.node()), (Gate::Node, Some(21)));
    assert_eq!(emq_id::set_process_node(1024).unwrap_err().gate(), Gate::Range);

    // Threads share the one state: no duplicates.
    let ids: Vec<Vec<u64>> = std::thread::scope(|s| {
        let handles: Vec<_> =
            (0..4).map(|_| s.spawn(|| (0..50_000).map(|_| process.next().unwrap()).collect())).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let unique: HashSet<u64> = ids.iter().flatten().copied().collect();
    assert_eq!(unique.len(), 200_000);

    // The claim file records a mark at or past every id before it is handed
    // out (200,000 ids run far past the clock: 4,096 a millisecond).
    let last = ids.iter().flatten().copied().max().unwrap();
    let recorded = std::fs::read_to_string(dir.join("node-21.lock")).unwrap();
    let mark: i64 = recorded.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(mark >= emq_id::unix_ms(last) as i64, "{recorded} vs {}", emq_id::unix_ms(last));
}

fn a_new_holder_inherits_the_high_water_mark() {
    let dir = std::env::temp_dir().join(format!("emq-id-process-mark-{}", std::process::id()));
    let claim = NodeClaim::take_in(&dir, 5).unwrap();
    assert_eq!(claim.high_water(), None);
    claim.record_high_water(1_900_000_000_000).unwrap();
    drop(claim);
    let next = NodeClaim::take_in(&dir, 5).unwrap();
    assert_eq!(next.high_water(), Some(1_900_000_000_000));
    drop(next);
    // The mark outlives holders that record none, and never goes back.
    let again = NodeClaim::take_in(&dir, 5).unwrap();
    assert_eq!(again.high_water(), Some(1_900_000_000_000));
    again.record_high_water(1_800_000_000_000).unwrap();
    drop(again);
    assert_eq!(NodeClaim::take_in(&dir, 5).unwrap().high_water(), Some(1_900_000_000_000));
    assert_eq!(NodeClaim::take_in(std::path::Path::new("relative"), 5).unwrap_err().gate(), Gate::Node);
    assert_eq!(NodeClaim::take_in(&dir, 1024).unwrap_err().gate(), Gate::Range);
}
