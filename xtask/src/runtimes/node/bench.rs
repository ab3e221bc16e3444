//! `cargo xtask bench node` (or `wasm`): the Node package, the WASM package
//! beside it and the pure-JS anchors, in one run of bindings/node/bench/bench.js.

use std::process::Command;

use anyhow::Result;

use super::{npm, PACKAGE};
use crate::runtimes::wasm;
use crate::{root, sh, sh_out};

/// The package's dev dependencies (the benchmark anchors, and ioredis for the
/// lease example the live tests run), installed when missing.
pub fn dev_dependencies() -> Result<()> {
    let dir = root().join(PACKAGE);
    if ["cluster-key-slot", "ulid", "ioredis"].iter().any(|m| !dir.join("node_modules").join(m).exists()) {
        eprintln!("xtask: installing the Node package's dev dependencies (npm ci)");
        sh(npm(&dir).arg("ci"))?;
    }
    Ok(())
}

/// The Node package, the WASM package beside it, and the pure-JS anchors, in one Node run.
pub fn run() -> Result<()> {
    super::build::package()?;
    dev_dependencies()?;
    let (raw, gz) = wasm::build::package()?;
    let tables = sh_out(
        Command::new("node")
            .arg(root().join("bindings/node/bench/bench.js"))
            .env("EMQ_ID_PACKAGE", root().join(wasm::PACKAGE))
            .env("EMQ_NODE", "1")
            .env("EMQ_NODE_DIR", crate::bench::claims()),
    )?;
    crate::bench::record("node", &format!("WASM package: emq_id_wasm_bg.wasm {raw} B raw, {gz} B gzip -9\n\n{tables}"))
}
