//! `cargo xtask bench [TARGET]...`: which benchmarks run. Each runtime's
//! benchmark, and the table it prints for BENCHMARKS.md, is in its room
//! (`runtimes/<runtime>/bench.rs`).

use std::path::PathBuf;

use anyhow::Result;

use crate::root;
use crate::runtimes::{elixir, go, node, postgres, rust};

/// `cargo xtask bench [core|go|node|elixir|postgres]...` (default: all; `wasm` is `node`).
pub fn run(which: &[String]) -> Result<()> {
    let all = which.is_empty();
    let named = |names: &[&str]| all || which.iter().any(|w| names.contains(&w.as_str()));
    if named(&["core"]) {
        rust::bench::run()?;
    }
    if named(&["go"]) {
        go::bench::run()?;
    }
    if named(&["node", "wasm"]) {
        node::bench::run()?;
    }
    if named(&["elixir"]) {
        elixir::bench::run()?;
    }
    if named(&["postgres"]) {
        postgres::bench::run()?;
    }
    Ok(())
}

/// Where a benchmark keeps its node claims: apart from the host's, because a
/// benchmark mints far ahead of the clock.
pub fn claims() -> PathBuf {
    root().join("target/bench-claims")
}
