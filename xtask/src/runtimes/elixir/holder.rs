//! The Elixir holder of `cargo xtask chaos`'s fleet: `bindings/elixir/examples/chaos_holder.exs`
//! (`EmqId.Lease.Holder` over the binding's test RESP client, as hex.pm is out of reach), run by
//! `elixir` on the project's compiled modules; and what runs the book's Elixir lease example
//! (written for Redix) the same way.

use std::path::PathBuf;
use std::process::Command;

use anyhow::Result;

use super::PROJECT;
use crate::root;
use crate::runtimes::valkey::chaos::holder::Program;

/// Where `mix compile` put the modules: its environment's build, dev unless MIX_ENV says otherwise.
fn ebin() -> PathBuf {
    let env = std::env::var("MIX_ENV").unwrap_or_else(|_| "dev".into());
    root().join(PROJECT).join("_build").join(env).join("lib/emq_id/ebin")
}

/// The holder program, the project compiled first (`mix compile`: a no-op when it is current).
pub fn chaos_holder() -> Result<Program> {
    super::build::compile()?;
    let script = root().join(PROJECT).join("examples/chaos_holder.exs");
    Ok(Program {
        runtime: "elixir",
        program: "elixir".into(),
        args: vec!["-pa".into(), ebin().to_string_lossy().into_owned(), script.to_string_lossy().into_owned()],
        env: vec![],
    })
}

/// `elixir -e code` on the compiled project (compile it first), with a module
/// `Redix` defined before `code`: the calls of Redix an example makes
/// (`start_link/1` with `:host` and `:port`, `command/2`, `pipeline/2`),
/// over the test RESP client, so an example written for Redix runs as written.
pub fn with_redix_stand_in(code: &str) -> Command {
    let resp = root().join(PROJECT).join("test/support/resp.ex");
    let stand_in = format!(
        "Code.require_file({resp:?})\n\
         defmodule Redix do\n\
         \x20 def start_link(opts), do: EmqId.Test.Resp.start_link([{{opts[:host], opts[:port]}}])\n\
         \x20 defdelegate command(conn, command), to: EmqId.Test.Resp\n\
         \x20 defdelegate pipeline(conn, commands), to: EmqId.Test.Resp\n\
         end\n",
        resp = resp.to_string_lossy()
    );
    let mut cmd = Command::new("elixir");
    cmd.arg("-pa").arg(ebin()).arg("-e").arg(format!("{stand_in}{code}"));
    cmd
}
