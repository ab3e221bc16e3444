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

pub const PACKAGE: &str = "bindings/node";

/// `npm` in `dir`, quiet.
pub fn npm(dir: &Path) -> Command {
    let mut cmd = Command::new("npm");
    cmd.current_dir(dir).args(["--no-audit", "--no-fund", "--loglevel=error"]);
    cmd
}
