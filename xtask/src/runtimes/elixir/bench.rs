//! `cargo xtask bench elixir`: bindings/elixir/bench/bench.exs, NIF calls
//! beside the empty NIF and pure-Elixir anchors.

use anyhow::Result;

use super::mix;
use crate::sh_out;

/// `cargo xtask bench elixir`: NIF calls beside the empty NIF and pure-Elixir anchors.
pub fn run() -> Result<()> {
    super::build::compile()?;
    let tables = sh_out(
        mix(&["run", "--no-start", "--no-compile", "bench/bench.exs"])
            .env("EMQ_NODE_DIR", crate::bench::record::claims()),
    )?;
    crate::bench::record::write("elixir", &tables)
}
