//! The WASM package's own tests (`node --test`).

use std::process::Command;

use anyhow::Result;

use super::PACKAGE;
use crate::{root, sh};

/// The WASM package's own tests: the explicit range checks, the node rule.
pub fn run() -> Result<()> {
    super::build::package()?;
    sh(Command::new("node").current_dir(root().join(PACKAGE)).args(["--test", "test/"]))
}
