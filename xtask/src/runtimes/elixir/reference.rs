//! The Elixir API reference, one markdown page: bindings/elixir/scripts/reference.exs
//! run in the compiled project reads every public module's docs chunk
//! (`Code.fetch_docs`) and typespecs, and writes each module's @moduledoc and
//! each public type, callback and function with its signature, @spec and
//! @doc. ExDoc is not used: it comes from Hex, which this build does without.

use std::path::Path;

use anyhow::{ensure, Result};

use super::mix;
use crate::{root, sh};

/// Compiles the project, then writes its reference to `to` (a path from the
/// workspace root, or absolute). Fails on a public function without a @doc.
pub fn write(to: &Path) -> Result<()> {
    super::build::compile()?;
    let to = root().join(to);
    if let Some(dir) = to.parent() {
        crate::mkdir(dir)?;
    }
    sh(mix(&["run", "--no-start", "--no-compile", "scripts/reference.exs"]).arg(&to))?;
    let page = crate::read(&to)?;
    for module in ["EmqId", "EmqId.Minter", "EmqId.Keyspace", "EmqId.Lease"] {
        ensure!(page.contains(&format!("\n## {module}\n")), "{} has no section for {module}", to.display());
    }
    ensure!(page.contains("### function `EmqId.encode/2`"), "{} lists no EmqId.encode/2", to.display());
    Ok(())
}
