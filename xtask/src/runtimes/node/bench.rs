//! `cargo xtask bench node`: the Node package (its addon, raw and through the
//! public API) beside N-API floors and the pure-JS anchors, in one run of
//! bindings/node/bench/bench.js. The WASM package's table is its room's
//! (`cargo xtask bench wasm`), whose anchors are installed here.

use std::process::Command;

use anyhow::Result;

use super::{npm, PACKAGE};
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

/// The Node package and the pure-JS anchors, in one Node run.
pub fn run() -> Result<()> {
    super::build::package()?;
    dev_dependencies()?;
    let tables = sh_out(
        Command::new("node")
            .arg(root().join("bindings/node/bench/bench.js"))
            .env("EMQ_NODE", "1")
            .env("EMQ_NODE_DIR", crate::bench::claims()),
    )?;
    crate::bench::record("node", &tables)
}
