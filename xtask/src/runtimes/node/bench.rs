//! `cargo xtask bench node`: the Node package (its addon, raw and through the
//! public API) beside N-API floors and the pure-JS anchors, in one run of
//! bindings/node/bench/bench.js. The WASM package's table is its room's
//! (`cargo xtask bench wasm`), whose anchors are installed here.

use std::process::Command;

use anyhow::Result;

use super::{npm, PACKAGE};
use crate::{root, sh, sh_out};

/// The package's dev dependencies (the benchmark anchors, and ioredis and
/// node-redis for the lease holder's live tests), installed by `npm ci` when
/// one is missing or differs from the version package.json pins.
pub fn dev_dependencies() -> Result<()> {
    let dir = root().join(PACKAGE);
    let wanted = crate::load(&dir.join("package.json"))?;
    let stale = wanted["devDependencies"].as_object().into_iter().flatten().any(|(name, spec)| {
        let version = crate::load(&dir.join("node_modules").join(name).join("package.json")).ok();
        match (version.as_ref().and_then(|v| v["version"].as_str()), spec.as_str()) {
            (None, _) => true,
            // An exact pin must be what is installed; a range, whatever npm ci put there.
            (Some(have), Some(pin)) if pin.starts_with(|c: char| c.is_ascii_digit()) => have != pin,
            _ => false,
        }
    });
    if stale {
        eprintln!("xtask: installing the Node package's dev dependencies (npm ci)");
        sh(npm(&dir).arg("ci"))?;
    }
    Ok(())
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
