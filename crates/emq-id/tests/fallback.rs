//! The random-node fallback takes the host-local claim too: with every node
//! but one held on this host, the drawn node is that one. (With all held,
//! minting is refused: the CLI's `tests/nodes.rs`, in a process of its own.)

use emq_id::{NodeClaim, NodeSource, MAX_NODE};

#[test]
fn a_drawn_node_is_one_no_live_process_of_the_host_holds() {
    let dir = std::env::temp_dir().join(format!("emq-id-fallback-test-{}", std::process::id()));
    std::env::set_var(emq_id::NODE_DIR_ENV, &dir);
    std::env::remove_var(emq_id::NODE_ENV);
    let free = 612;
    let held: Vec<NodeClaim> =
        (0..=MAX_NODE).filter(|&n| n != free).map(|n| NodeClaim::take_in(&dir, n).unwrap()).collect();

    let process = emq_id::process_minter().unwrap();
    assert_eq!((process.node(), process.source()), (free, NodeSource::Fallback));
    assert_eq!(emq_id::mint(b"JOB").unwrap().node(), free);
    drop(held);
}
