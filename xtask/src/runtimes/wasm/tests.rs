//! The WASM package's own tests (`node --test`).

use std::process::Command;

use anyhow::Result;

use super::PACKAGE;
use crate::{root, sh};

/// The WASM package's own tests: the node rule, bounded memory, its version
/// (what it shares with the Node package is tested over both by the JS step).
pub fn run() -> Result<()> {
    super::build::package()?;
    sh(Command::new("node").current_dir(root().join(PACKAGE)).args(["--test", "test/"]))
}
