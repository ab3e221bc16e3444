//! `cargo xtask bench [TARGET]...`: which benchmarks run. Each runtime's
//! benchmark, and the table it prints for the performance page
//! (docs/src/performance.md), is in its room (`runtimes/<runtime>/bench.rs`);
//! what they share, one level down ([`record`]).

pub mod record;

use anyhow::{bail, Result};

use crate::runtimes::{elixir, go, jvm, node, postgres, python, rust, wasm};

/// A runtime's benchmark: it runs, prints and records its tables.
type Bench = fn() -> Result<()>;

/// Every benchmark by the name `cargo xtask bench` takes, in the order a full run takes them.
const BENCHES: [(&str, Bench); 8] = [
    ("core", rust::bench::run),
    ("go", go::bench::run),
    ("node", node::bench::run),
    ("wasm", wasm::bench::run),
    ("elixir", elixir::bench::run),
    ("python", python::bench::run),
    ("postgres", postgres::bench::run),
    ("jvm", jvm::bench::run),
];

/// `cargo xtask bench [core|go|node|wasm|elixir|python|postgres|jvm]...` (default: all).
/// `node` is the addon's table; `wasm` the WASM package's, in Node and in headless Chromium.
pub fn run(which: &[String]) -> Result<()> {
    if let Some(unknown) = which.iter().find(|w| !BENCHES.iter().any(|(name, _)| name == w)) {
        let names: Vec<&str> = BENCHES.iter().map(|(name, _)| *name).collect();
        bail!("no benchmark is called {unknown:?}; they are {}", names.join(", "));
    }
    for (name, bench) in BENCHES {
        if which.is_empty() || which.iter().any(|w| w == name) {
            bench()?;
        }
    }
    Ok(())
}
