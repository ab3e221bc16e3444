//! One node, one mint state, across the Go module's two kinds of process: a
//! pure-Go process (the core as WebAssembly, its claim's lock taken by the Go
//! host) and a native one (the `emq-id` CLI, the core linked) on one
//! `EMQ_NODE` refuse each other, naming the holder, whichever came first;
//! minting at once, one of them is refused and no id repeats. The negative
//! control gives each its own claim directory (the claim blinded): ids repeat.
//!
//! The pure-Go minter is the package's test binary (`go test -c`), which
//! mints `EMQID_TEST_CHILD` ids through `emqid.Mint` (process_test.go).

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use anyhow::{ensure, Context, Result};

use super::{go_with, Backend};
use crate::runtimes::cli;
use crate::{root, sh};

const NODE: &str = "900";

/// A minter of `count` ids on NODE with claims in `dir`.
fn minter(program: &Path, native: bool, count: u64, dir: &Path) -> Command {
    let mut cmd = Command::new(program);
    if native {
        cmd.args(["mint", "JOB", "-n", &count.to_string()]);
    } else {
        cmd.env("EMQID_TEST_CHILD", count.to_string());
    }
    cmd.env("EMQ_NODE", NODE).env("EMQ_NODE_DIR", dir);
    cmd
}

/// A holder: minting without end into a pipe nobody reads, so it blocks
/// holding the node once the pipe is full; returned once it minted.
fn holder(program: &Path, native: bool, dir: &Path) -> Result<Child> {
    let mut child = minter(program, native, u64::MAX >> 1, dir).stdout(Stdio::piped()).stderr(Stdio::null()).spawn()?;
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().context("its stdout")?).read_line(&mut line)?;
    ensure!(line.starts_with("JOB"), "the holder minted nothing: {line:?}");
    Ok(child)
}

fn ids(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect()
}

pub fn run() -> Result<()> {
    let test_binary = root().join("target/go/emqid-wasm.test");
    sh(go_with("bindings/go", Backend::Wasm).args(["test", "-c", "-o"]).arg(&test_binary).arg("."))?;
    let cli = cli::build()?;
    let kinds: [(&str, PathBuf, bool); 2] = [("pure-Go", test_binary, false), ("native", cli, true)];
    let dir = root().join("target/go/claims-across");
    let _ = std::fs::remove_dir_all(&dir);

    for (first, second) in [(&kinds[0], &kinds[1]), (&kinds[1], &kinds[0])] {
        let mut held = holder(&first.1, first.2, &dir)?;
        let refused = minter(&second.1, second.2, 10, &dir).output()?;
        let said = String::from_utf8_lossy(&refused.stderr);
        let _ = held.kill();
        let _ = held.wait();
        ensure!(
            !refused.status.success() && ids(&refused).is_empty() && said.contains(&held.id().to_string()),
            "a {} process on the node a {} process holds: {:?} {said}",
            second.0,
            first.0,
            refused.status
        );
        println!(
            "go: a {} process on node {NODE}, held by a {} one, was refused naming it: {}",
            second.0,
            first.0,
            said.trim()
        );
    }

    // Both at once: one claim directory, then (the negative control) one each.
    for blind in [false, true] {
        let dirs = [dir.join("a"), if blind { dir.join("b") } else { dir.join("a") }];
        let children: Vec<Child> = kinds
            .iter()
            .zip(&dirs)
            .map(|((_, program, native), d)| {
                minter(program, *native, 1_000_000, d).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()
            })
            .collect::<std::io::Result<_>>()?;
        // Drained at once, so that neither waits on the other's pipe and both mint at full speed.
        let readers: Vec<_> = children.into_iter().map(|c| std::thread::spawn(move || c.wait_with_output())).collect();
        let outs: Vec<Output> =
            readers.into_iter().map(|r| r.join().expect("a reader thread")).collect::<std::io::Result<_>>()?;
        let refused = outs.iter().filter(|o| !o.status.success()).count();
        let all: Vec<String> = outs.iter().flat_map(ids).collect();
        let distinct: HashSet<&String> = all.iter().collect();
        let duplicates = all.len() - distinct.len();
        println!(
            "go: a pure-Go and a native process on node {NODE} at once, {}: {} ids, {refused} refused, {duplicates} duplicates",
            if blind { "each its own claim directory (negative control)" } else { "one claim directory" },
            all.len()
        );
        if blind {
            ensure!(duplicates > 0, "the blinded claim found no duplicate: the count could not fail");
        } else {
            ensure!(duplicates == 0 && refused == 1, "one claim directory: {refused} refused, {duplicates} duplicates");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
