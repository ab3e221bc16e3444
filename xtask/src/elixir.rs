//! The Elixir binding: Erlang/Elixir from Debian (installed when missing),
//! the Mix project (whose compiler task builds the NIF with cargo), its
//! ExUnit tests, and the conformance adapter.

use std::path::PathBuf;
use std::process::Command;

use crate::{root, setup, sh};

pub const PROJECT: &str = "bindings/elixir";

/// Elixir 1.14 / OTP 25 (NIF 2.16) and jiffy, Debian's JSON codec for the adapter.
fn prerequisites() -> Result<(), String> {
    setup::apt(&["elixir", "erlang-dev", "erlang-nox", "erlang-jiffy"], "the Elixir binding")
}

fn mix(args: &[&str]) -> Command {
    let mut cmd = Command::new("mix");
    cmd.current_dir(project()).args(args);
    cmd
}

fn project() -> PathBuf {
    root().join(PROJECT)
}

/// `mix compile`: the NIF (cargo) into priv/, then the Elixir modules.
pub fn build() -> Result<(), String> {
    prerequisites()?;
    sh(&mut mix(&["compile"]))
}

/// `mix format --check-formatted`, then `mix test` (ExUnit, with the
/// doctests) in a claim directory of its own.
pub fn tests() -> Result<(), String> {
    prerequisites()?;
    sh(&mut mix(&["format", "--check-formatted"]))?;
    let claims = root().join("target/elixir-test-claims");
    let _ = std::fs::remove_dir_all(&claims);
    sh(mix(&["test"]).env("EMQ_NODE_DIR", &claims).env_remove("EMQ_NODE"))
}

/// `cargo xtask bench elixir`: NIF calls beside the empty NIF and pure-Elixir anchors.
pub fn bench() -> Result<(), String> {
    build()?;
    sh(mix(&["run", "--no-start", "--no-compile", "bench/bench.exs"])
        .env("EMQ_NODE_DIR", root().join("target/bench-claims")))
}

/// The conformance adapter: the compiled application, the adapter script on stdin/stdout.
pub fn adapter() -> Result<Command, String> {
    build()?;
    let script = root().join("conformance/elixir/adapter.exs");
    let mut cmd = mix(&["run", "--no-start", "--no-compile"]);
    cmd.arg(script);
    Ok(cmd)
}
