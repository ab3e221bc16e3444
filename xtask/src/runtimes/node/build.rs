//! `cargo xtask node-build`: the addon, the WebAssembly build the package
//! falls back to, and the package's copy of the shared JavaScript layer.

use std::process::Command;

use anyhow::{Context, Result};

use super::PACKAGE;
use crate::runtimes::wasm;
use crate::{root, setup, sh};

/// Builds the addon and places it in the package as `emq-id.linux-x64-gnu.node`,
/// with the WebAssembly build the package falls back to where no addon fits
/// (`wasm/`) and its copy of the shared JavaScript layer.
pub fn package() -> Result<()> {
    package_with(&[])
}

/// [`package`] with the addon built with `features` (the benchmark's `bench`).
pub fn package_with(features: &[&str]) -> Result<()> {
    setup::require("node", "install Node.js 18 or later")?;
    let mut cargo = Command::new("cargo");
    cargo.args(["build", "--quiet", "--release", "-p", "emq-id-node"]);
    if !features.is_empty() {
        cargo.arg("--features").arg(features.join(","));
    }
    sh(&mut cargo)?;
    let from = root().join("target/release/libemq_id_node.so");
    let to = root().join(PACKAGE).join("emq-id.linux-x64-gnu.node");
    std::fs::copy(&from, &to).with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    wasm::build::package()?;
    let fallback = root().join(PACKAGE).join("wasm");
    crate::mkdir(&fallback)?;
    for file in ["emq_id_wasm.js", "emq_id_wasm_bg.wasm", "package.json"] {
        let from = root().join(wasm::PACKAGE).join("node").join(file);
        std::fs::copy(&from, fallback.join(file)).with_context(|| format!("copying {}", from.display()))?;
    }
    Ok(())
}
