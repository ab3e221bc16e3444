//! `cargo xtask bench elixir`: bindings/elixir/bench/bench.exs, NIF calls
//! beside the empty NIF and pure-Elixir anchors.

use anyhow::Result;

use super::mix;
use crate::{sh, sh_out};

/// `cargo xtask bench elixir`: NIF calls beside the empty NIF and pure-Elixir anchors.
/// Under `MIX_ENV=bench`, whose NIF is built with the floor (`bench`, mix.exs).
pub fn run() -> Result<()> {
    super::setup::prerequisites()?;
    sh(mix(&["compile"]).env("MIX_ENV", "bench"))?;
    let tables = sh_out(
        mix(&["run", "--no-start", "--no-compile", "bench/bench.exs"])
            .env("MIX_ENV", "bench")
            .env("EMQ_NODE_DIR", crate::bench::record::claims()),
    )?;
    crate::bench::record::write("elixir", &tables)
}
