//! `mix compile`: the NIF (cargo) into priv/, then the Elixir modules.

use anyhow::Result;

use super::mix;
use crate::sh;

/// `mix compile`: the NIF (cargo) into priv/, then the Elixir modules.
pub fn compile() -> Result<()> {
    super::setup::prerequisites()?;
    sh(&mut mix(&["compile"]))
}
