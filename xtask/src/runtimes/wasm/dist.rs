//! `@echomq/emq-id-wasm` as the npm tarball users install, and its proof from
//! outside the tree. Packing and installing are npm's, shared with the Node
//! package (`runtimes::node::dist`).

use anyhow::Result;

use super::PACKAGE;
use crate::dist::{self, Artifact};
use crate::runtimes::node::dist::{install_and_use, pack};

/// The package's name on npm.
pub const NAME: &str = "@echomq/emq-id-wasm";

/// The package's `web/` and `node/` builds and the JS layer, packed.
pub fn build() -> Result<Vec<Artifact>> {
    super::build::package()?;
    Ok(vec![pack(PACKAGE, "WASM")?])
}

/// Installed from its tarball alone, then required and imported in Node (its
/// node entries; the browser entry is the `wasm-browser` conformance target's).
pub fn from_outside(artifacts: &[Artifact]) -> Result<()> {
    let tarball = &dist::find(artifacts, "WASM", ".tgz")?.path;
    install_and_use(tarball, NAME, "wasm", &[(None, "wasm")])
}
