//! The `node` and `node-wasm` targets: conformance/node/adapter.js over the
//! Node package, on its addon or on its WebAssembly fallback; and
//! `node-arm64`, the packages npm installs for linux-arm64-gnu, run by
//! Debian's arm64 Node under qemu. The same script runs the WASM package
//! (`wasm-node`) when given its directory.

use std::process::Command;

use anyhow::Result;

use crate::conformance::adapter::{Adapter, ProcessAdapter};
use crate::root;

/// The adapter script's command, over `package` (default: the Node package).
pub fn command(package: Option<&str>) -> Command {
    let mut cmd = Command::new("node");
    cmd.arg(root().join("conformance/node/adapter.js"));
    if let Some(p) = package {
        cmd.env("EMQ_ID_PACKAGE", root().join(p));
    }
    cmd
}

pub fn prepare() -> Result<Box<dyn Adapter>> {
    super::build::package()?;
    Ok(Box::new(ProcessAdapter { command: command(None) }))
}

/// The same package, told to use its WebAssembly fallback.
pub fn prepare_wasm_backend() -> Result<Box<dyn Adapter>> {
    super::build::package()?;
    let mut command = command(None);
    command.env("EMQ_ID_BACKEND", "wasm");
    Ok(Box::new(ProcessAdapter { command }))
}

/// The main tarball and the linux-arm64-gnu package (built by zig against
/// glibc 2.17), installed by npm told it is on linux/arm64/glibc (npm picks
/// the platform package by its os, cpu and libc, as on an arm64 machine),
/// then run by Debian's arm64 Node under qemu-aarch64, held to the addon.
pub fn prepare_arm64() -> Result<Box<dyn Adapter>> {
    use crate::dist::{emulated, platform, Selection};
    let arm64 = platform::named("linux-arm64-gnu");
    let rootfs = emulated::arm64_root()?;
    let artifacts = super::dist::build(&Selection { platforms: vec![arm64], everything: true, runtimes: vec![] })?;
    let main = artifacts.iter().find(|a| a.platform.is_none()).expect("everything builds the main package");
    let package = artifacts.iter().find(|a| a.platform.is_some()).expect("the arm64 package was selected");
    let consumer = root().join("target/conformance-node-arm64");
    let _ = std::fs::remove_dir_all(&consumer);
    crate::mkdir(&consumer)?;
    let served = [(super::platforms::package_name(arm64), package.path.clone())];
    super::dist::install_into(&consumer, &main.path, &served, &["--os=linux", "--cpu=arm64", "--libc=glibc"])?;
    let mut command = emulated::qemu_root_program(&rootfs, "usr/bin/node");
    command
        .arg(root().join("conformance/node/adapter.js"))
        .env("EMQ_ID_PACKAGE", consumer.join("node_modules").join(super::dist::NAME))
        .env("EMQ_ID_BACKEND", "native");
    Ok(Box::new(ProcessAdapter { command }))
}
