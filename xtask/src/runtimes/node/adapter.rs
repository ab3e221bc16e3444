//! The `node` and `node-wasm` targets: conformance/node/adapter.js over the
//! Node package, on its addon or on its WebAssembly fallback. The same script
//! runs the WASM package (`wasm-node`) when given its directory.

use std::process::Command;

use anyhow::Result;

use crate::conformance::adapter::{Adapter, ProcessAdapter};
use crate::root;

/// The adapter script's command, over `package` (default: the Node package).
pub fn command(package: Option<&str>) -> Command {
    let mut cmd = Command::new("node");
    cmd.arg(root().join("conformance/node/adapter.js"));
    if let Some(p) = package {
        cmd.env("EMQ_ID_PACKAGE", root().join(p));
    }
    cmd
}

pub fn prepare() -> Result<Box<dyn Adapter>> {
    super::build::package()?;
    Ok(Box::new(ProcessAdapter { command: command(None) }))
}

/// The same package, told to use its WebAssembly fallback.
pub fn prepare_wasm_backend() -> Result<Box<dyn Adapter>> {
    super::build::package()?;
    let mut command = command(None);
    command.env("EMQ_ID_BACKEND", "wasm");
    Ok(Box::new(ProcessAdapter { command }))
}
