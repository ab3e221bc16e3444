//! The `elixir` target: conformance/elixir/adapter.exs, run in the compiled
//! application, speaking JSON lines on stdin and stdout.

use anyhow::Result;

use super::mix;
use crate::conformance::adapter::{Adapter, ProcessAdapter};
use crate::root;

/// Compiles the project, then hands back the adapter script's process.
pub fn prepare() -> Result<Box<dyn Adapter>> {
    super::build::compile()?;
    let mut command = mix(&["run", "--no-start", "--no-compile"]);
    command.arg(root().join("conformance/elixir/adapter.exs"));
    Ok(Box::new(ProcessAdapter { command }))
}
