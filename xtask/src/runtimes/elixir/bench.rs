//! `cargo xtask bench elixir`: bindings/elixir/bench/bench.exs, NIF calls
//! beside the empty NIF and pure-Elixir anchors.

use anyhow::Result;

use super::mix;
use crate::sh;

/// `cargo xtask bench elixir`: NIF calls beside the empty NIF and pure-Elixir anchors.
pub fn run() -> Result<()> {
    super::build::compile()?;
    sh(mix(&["run", "--no-start", "--no-compile", "bench/bench.exs"]).env("EMQ_NODE_DIR", crate::bench::claims()))
}
