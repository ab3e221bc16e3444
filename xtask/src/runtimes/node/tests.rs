//! The Node package's tests (`node --test`). The proof that the npm packages
//! work from outside the tree (packed, installed elsewhere, required and
//! imported) is in `dist.rs`.

use std::process::Command;

use anyhow::Result;

use super::PACKAGE;
use crate::{root, sh};

/// `node --test` on the package (its clock-jump test preloads libfaketime;
/// the holder's live tests start the Valkey xtask installs for every live test,
/// over the clients of its dev dependencies, installed here: a fresh clone has none).
pub fn run() -> Result<()> {
    super::build::package()?;
    super::bench::dev_dependencies()?;
    let faketime = crate::setup::faketime()?;
    let valkey = crate::runtimes::valkey::setup::server_binary()?;
    sh(Command::new("node")
        .current_dir(root().join(PACKAGE))
        .args(["--test", "test/"])
        .env("EMQ_FAKETIME_LIB", faketime)
        .env("EMQ_VALKEY_SERVER", valkey))
}
