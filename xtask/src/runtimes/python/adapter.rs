//! The `python` target: conformance/python/adapter.py in a fresh virtual
//! environment holding only the wheel, speaking JSON lines on stdin and
//! stdout; and `python-arm64`, the manylinux2014 aarch64 wheel run by
//! Debian's arm64 CPython under qemu.

use anyhow::Result;

use crate::conformance::adapter::{Adapter, ProcessAdapter};
use crate::root;

/// Builds the wheel, installs it into a fresh environment
/// (`target/python/conformance`), then hands back the adapter's process.
pub fn prepare() -> Result<Box<dyn Adapter>> {
    let wheel = super::build::wheel()?;
    let env = super::build::fresh("conformance", &wheel)?;
    let mut command = env.python();
    // `-I`: isolated, so nothing but the environment's site-packages (not the
    // checkout, not the user's site) can answer `import emq_id`.
    command.arg("-I").arg(root().join("conformance/python/adapter.py"));
    Ok(Box::new(ProcessAdapter { command }))
}

/// The manylinux2014 aarch64 wheel (zig, glibc 2.17), installed by this
/// host's pip for that platform (`--platform manylinux2014_aarch64`: pip
/// checks the wheel's tags as an arm64 machine's pip would) into a directory,
/// then imported by Debian's arm64 CPython 3.11 under qemu-aarch64.
pub fn prepare_arm64() -> Result<Box<dyn Adapter>> {
    use crate::dist::{emulated, platform};
    let arm64 = platform::named("linux-arm64-gnu");
    let wheel = super::build::platform_wheel(arm64)?;
    let rootfs = emulated::arm64_root()?;
    let site = super::dir("conformance-arm64");
    let _ = std::fs::remove_dir_all(&site);
    crate::sh(
        super::setup::tools()?
            .pip()
            .args(["install", "--quiet", "--no-deps", "--no-index", "--only-binary=:all:"])
            .args(["--platform", "manylinux2014_aarch64", "--python-version", "3.11", "--implementation", "cp"])
            .arg("--target")
            .arg(&site)
            .arg(&wheel),
    )?;
    let mut command = emulated::qemu_root_program(&rootfs, "usr/bin/python3.11");
    // `-s`: no user site; PYTHONPATH holds the installed wheel and nothing else.
    command
        .arg("-s")
        .arg(root().join("conformance/python/adapter.py"))
        .env("PYTHONPATH", &site)
        .env_remove("PYTHONHOME");
    Ok(Box::new(ProcessAdapter { command }))
}
