//! `cargo xtask bench node`: the Node package (its addon, raw and through the
//! public API) beside N-API floors and the pure-JS anchors, in one run of
//! bindings/node/bench/bench.js. The WASM package's table is its room's
//! (`cargo xtask bench wasm`), whose anchors are installed here.

use std::process::Command;

use anyhow::Result;

use super::PACKAGE;
use crate::{root, sh_out};

/// The package's dev dependencies: the benchmark anchors, and ioredis and
/// node-redis for the lease holder's live tests.
pub fn dev_dependencies() -> Result<()> {
    super::npm_dependencies(&root().join(PACKAGE), "the Node package's dev dependencies")
}

/// The Node package and the pure-JS anchors, in one Node run.
pub fn run() -> Result<()> {
    super::build::package_with(&["bench"])?;
    dev_dependencies()?;
    let tables = sh_out(
        Command::new("node")
            .arg(root().join("bindings/node/bench/bench.js"))
            .env("EMQ_NODE", "1")
            .env("EMQ_NODE_DIR", crate::bench::record::claims()),
    );
    // The package again as it ships, without the floors, whether or not the run succeeded.
    super::build::package()?;
    crate::bench::record::write("node", &tables?)
}
