//! The Elixir binding (bindings/elixir): a rustler NIF in a Mix project whose
//! compiler task builds the NIF with cargo. Its prerequisites, build, ExUnit
//! tests, conformance adapter, benchmark, API reference (markdown, from the
//! compiled modules' docs), and its package (a source tarball a `mix.exs`
//! depends on by path).

pub mod adapter;
pub mod bench;
pub mod build;
pub mod dist;
pub mod holder;
pub mod reference;
pub mod setup;
pub mod tests;

use std::process::Command;

use crate::root;

pub const PROJECT: &str = "bindings/elixir";

/// `mix <args>` in the project.
fn mix(args: &[&str]) -> Command {
    let mut cmd = Command::new("mix");
    cmd.current_dir(root().join(PROJECT)).args(args);
    cmd
}
