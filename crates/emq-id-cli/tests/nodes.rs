//! One node, one mint state, across processes of one host: two live `emq-id
//! mint` processes never share a node, a killed holder frees it, and the
//! duplicate count that proves it can fail (a negative control).

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A claim directory of this test's own (under one per test run; each test removes its own).
fn claim_dir(name: &str) -> PathBuf {
    let dir = run_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run_dir() -> PathBuf {
    std::env::temp_dir().join(format!("emq-id-nodes-test-{}", std::process::id()))
}

/// `EMQ_NODE=node emq-id mint JOB -n count`, its stdout piped: a holder that
/// stops minting (and stays alive) once nobody reads the pipe.
fn mint(node: &str, dir: &Path, count: u64) -> Child {
    Command::new(env!("CARGO_BIN_EXE_emq-id"))
        .args(["mint", "JOB", "-n", &count.to_string()])
        .env("EMQ_NODE", node)
        .env("EMQ_NODE_DIR", dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn duplicates<'a>(sets: impl IntoIterator<Item = &'a Vec<String>>) -> usize {
    let mut seen = HashSet::new();
    sets.into_iter().flatten().filter(|id| !seen.insert(id.as_str())).count()
}

#[test]
fn a_second_live_process_is_refused_and_a_killed_holder_frees_the_node() {
    let dir = claim_dir("kill");
    let mut holder = mint("2", &dir, u64::MAX);
    let mut out = BufReader::new(holder.stdout.take().unwrap()).lines();
    let mut first = vec![out.next().unwrap().unwrap()]; // it minted, so it holds node 2

    let second = mint("2", &dir, 20_000).wait_with_output().unwrap();
    let refusal = String::from_utf8_lossy(&second.stderr).trim().to_string();
    assert_eq!(second.status.code(), Some(2));
    assert!(second.stdout.is_empty());
    assert!(
        refusal.starts_with("error: node: ") && refusal.contains(&format!("node 2 (held by pid {})", holder.id())),
        "{refusal}"
    );

    holder.kill().unwrap(); // SIGKILL
    first.extend(out.map(Result::unwrap));
    holder.wait().unwrap();
    let third = mint("2", &dir, 20_000).wait_with_output().unwrap();
    assert!(third.status.success(), "node 2 was not freed by its holder's death");
    let after: Vec<String> = String::from_utf8(third.stdout).unwrap().lines().map(str::to_string).collect();
    let dups = duplicates([&first, &after]);
    println!(
        "cli sibling processes, node 2: holder minted {}, second refused ({refusal}), after SIGKILL the next minted {}, duplicates {dups}",
        first.len(),
        after.len()
    );
    assert_eq!(after.len(), 20_000);
    assert_eq!(dups, 0);
    let _ = std::fs::remove_dir_all(dir);
}

/// Two `EMQ_NODE=3 emq-id mint JOB -n 200000` started at once; their ids and refusals.
fn at_once(dir_a: &Path, dir_b: &Path) -> (Vec<String>, Vec<String>, usize) {
    let children = [mint("3", dir_a, 200_000), mint("3", dir_b, 200_000)];
    let [a, b] = children.map(|c| std::thread::spawn(move || c.wait_with_output().unwrap()));
    let (a, b) = (a.join().unwrap(), b.join().unwrap());
    let refused = [&a, &b].iter().filter(|o| !o.status.success()).count();
    let ids = |o: &std::process::Output| String::from_utf8_lossy(&o.stdout).lines().map(str::to_string).collect();
    (ids(&a), ids(&b), refused)
}

#[test]
fn the_same_node_twice_at_once_gives_no_duplicates_unless_the_guard_is_blind() {
    let shared = claim_dir("shared");
    let (a, b, refused) = at_once(&shared, &shared);
    let dups = duplicates([&a, &b]);
    println!(
        "cli same EMQ_NODE at once, one claim directory: {} ids, {refused} refused, {dups} duplicates",
        a.len() + b.len()
    );
    assert_eq!(dups, 0);

    // Negative control: a claim directory each, so neither sees the other's claim.
    let (a, b, refused) = at_once(&claim_dir("blind-a"), &claim_dir("blind-b"));
    let dups = duplicates([&a, &b]);
    println!(
        "cli same EMQ_NODE at once, blind guard (negative control): {} ids, {refused} refused, {dups} duplicates",
        a.len() + b.len()
    );
    assert!(dups > 0, "the negative control found no duplicates: the count cannot tell");
    for name in ["shared", "blind-a", "blind-b"] {
        let _ = std::fs::remove_dir_all(run_dir().join(name));
    }
}

#[test]
fn with_every_node_of_the_host_held_a_drawn_node_is_refused_not_shared() {
    let dir = claim_dir("all");
    let _all: Vec<emq_id::NodeClaim> =
        (0..=emq_id::MAX_NODE).map(|n| emq_id::NodeClaim::take_in(&dir, n).unwrap()).collect();
    let o = Command::new(env!("CARGO_BIN_EXE_emq-id"))
        .args(["mint", "JOB"])
        .env_remove("EMQ_NODE")
        .env("EMQ_NODE_DIR", &dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("every node 0..=1023 is held by a live process on this host"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_new_holder_starts_after_the_mark_its_predecessor_recorded() {
    let dir = claim_dir("mark");
    let mark = emq_id::now_ms() + 5_000; // a predecessor that minted 5 s ahead of the clock
    let claim = emq_id::NodeClaim::take_in(&dir, 8).unwrap();
    claim.record_high_water(mark).unwrap();
    drop(claim);
    let o = mint("8", &dir, 1).wait_with_output().unwrap();
    let id = emq_id::Id::parse(String::from_utf8(o.stdout).unwrap().trim().as_bytes()).unwrap();
    assert!(id.unix_ms() as i64 > mark, "the first id ({}) must sort after the mark ({mark})", id.unix_ms());
    // And without a mark, the next millisecond after the claim: never one a dead holder may have used.
    let before = emq_id::now_ms();
    let o = mint("9", &claim_dir("fresh"), 1).wait_with_output().unwrap();
    let id = emq_id::Id::parse(String::from_utf8(o.stdout).unwrap().trim().as_bytes()).unwrap();
    assert!(id.unix_ms() as i64 > before);
    for name in ["mark", "fresh"] {
        let _ = std::fs::remove_dir_all(run_dir().join(name));
    }
}
