//! What the Elixir binding needs from Debian, installed when missing.

use anyhow::Result;

use crate::setup;

/// Elixir 1.14 / OTP 25 (NIF 2.16) and jiffy, Debian's JSON codec for the adapter.
pub fn prerequisites() -> Result<()> {
    setup::apt(&["elixir", "erlang-dev", "erlang-nox", "erlang-jiffy"], "the Elixir binding")
}
