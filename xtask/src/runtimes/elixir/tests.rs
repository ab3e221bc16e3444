//! The Elixir binding's checks: formatting, then ExUnit with the doctests.

use anyhow::Result;

use super::mix;
use crate::{root, sh};

/// `mix format --check-formatted`, then `mix test` (ExUnit, with the
/// doctests) in a claim directory of its own.
pub fn run() -> Result<()> {
    super::setup::prerequisites()?;
    sh(&mut mix(&["format", "--check-formatted"]))?;
    let claims = root().join("target/elixir-test-claims");
    let _ = std::fs::remove_dir_all(&claims);
    sh(mix(&["test"]).env("EMQ_NODE_DIR", &claims).env_remove("EMQ_NODE"))
}
