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
    // The holder's live tests start Valkey: the server xtask installs for every live test.
    let valkey = crate::runtimes::valkey::setup::server_binary()?;
    sh(mix(&["test"]).env("EMQ_NODE_DIR", &claims).env("EMQ_VALKEY_SERVER", valkey).env_remove("EMQ_NODE"))
}
