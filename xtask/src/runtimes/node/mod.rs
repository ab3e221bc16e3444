//! The Node package (bindings/node, napi-rs, with a WebAssembly fallback):
//! its build, its tests, the adapter the `node`, `node-wasm` and `wasm-node`
//! targets run, its benchmark, and its npm tarball (with what both npm
//! packages share to ship: `dist.rs`).

pub mod adapter;
pub mod bench;
pub mod build;
pub mod dist;
pub mod holder;
pub mod platforms;
pub mod tests;

use std::path::Path;
use std::process::Command;

use anyhow::Result;

pub const PACKAGE: &str = "bindings/node";

/// `npm` in `dir`, quiet.
pub fn npm(dir: &Path) -> Command {
    let mut cmd = Command::new("npm");
    cmd.current_dir(dir).args(["--no-audit", "--no-fund", "--loglevel=error"]);
    cmd
}

/// The dev dependencies `dir`'s package.json names (`what` they are for),
/// installed by `npm ci` when one is missing or differs from an exact pin.
pub fn npm_dependencies(dir: &Path, what: &str) -> Result<()> {
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
        eprintln!("xtask: installing {what} (npm ci in {})", dir.display());
        crate::sh(npm(dir).arg("ci"))?;
    }
    Ok(())
}
