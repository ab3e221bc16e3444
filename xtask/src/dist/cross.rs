//! Cross builds with zig: one linker for every [`Platform`] from this x86-64
//! Debian host, which links a glibc platform against the floor's symbols
//! (2.17) and a musl platform against the musl it ships. The pinned tools:
//! zig from PyPI (`ziglang`, into a virtual environment beside maturin, whose
//! `--zig` builds the wheels), `cargo-zigbuild` from crates.io for every other
//! crate, and the Rust standard library of each target from rustup.

use std::path::PathBuf;
use std::process::Command;

use anyhow::Result;

use super::platform::{Libc, Platform};
use crate::runtimes::python::{self, Venv};
use crate::{root, sh, sh_out};

/// zig, from PyPI's `ziglang` wheel (the zig release, repackaged).
pub const ZIGLANG: &str = "ziglang==0.15.2";
/// cargo-zigbuild: cargo with zig as the C compiler and linker.
pub const CARGO_ZIGBUILD: &str = "0.24.1";

/// How a crate's output links its C library.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Linkage {
    /// A shared object a host process loads (a Node addon, a Python module):
    /// on musl it must load the host's libc, so musl's default of a
    /// self-contained static libc is turned off.
    Loaded,
    /// A program or a static library, as the target links it by default
    /// (on musl: self-contained, no dynamic loader).
    Default,
}

/// The toolchain for `platform`, installed when missing; answers the virtual
/// environment that holds zig and maturin.
pub fn tools(platform: &Platform) -> Result<Venv> {
    crate::runtimes::wasm::setup::target(platform.triple)?;
    let have = sh_out(Command::new("cargo-zigbuild").arg("--version")).unwrap_or_default();
    if !have.contains(CARGO_ZIGBUILD) {
        eprintln!("xtask: installing cargo-zigbuild {CARGO_ZIGBUILD} (cross builds with zig; found {:?})", have.trim());
        sh(Command::new("cargo").args(["install", "cargo-zigbuild", "--version", CARGO_ZIGBUILD, "--locked"]))?;
    }
    python::setup::venv(
        "zig",
        &[ZIGLANG, &python::maturin_requirement()?],
        "cross builds: zig links every platform, maturin --zig builds the wheels",
    )
}

/// A command that finds the zig of [`tools`]: cargo-zigbuild and maturin
/// look for `python3 -m ziglang` on PATH, so the environment's `bin` goes first.
pub fn with_zig(env: &Venv, command: &mut Command) {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![env.dir.join("bin")];
    dirs.extend(std::env::split_paths(&path));
    command.env("PATH", std::env::join_paths(dirs).expect("PATH entries hold no separator"));
}

/// Where a cross build of `platform` with `linkage` lands: its own target
/// directory per linkage, so switching between the two never rebuilds.
pub fn release_dir(platform: &Platform, linkage: Linkage) -> PathBuf {
    let dir = match (platform.libc, linkage) {
        (Libc::Musl, Linkage::Loaded) => "target/cross-loaded",
        _ => "target/cross",
    };
    root().join(dir).join(platform.triple).join("release")
}

/// `cargo zigbuild --release -p <package>` for `platform`; answers the
/// release directory the outputs are in.
pub fn build(platform: &Platform, package: &str, linkage: Linkage) -> Result<PathBuf> {
    let env = tools(platform)?;
    let out = release_dir(platform, linkage);
    let target_dir = out.parent().and_then(|p| p.parent()).expect("release_dir is <dir>/<triple>/release");
    let mut cargo = Command::new("cargo");
    cargo
        .args(["zigbuild", "--quiet", "--release", "-p", package, "--target", &platform.zig_target()])
        .arg("--target-dir")
        .arg(target_dir);
    if platform.libc == Libc::Musl && linkage == Linkage::Loaded {
        let var = format!("CARGO_TARGET_{}_RUSTFLAGS", platform.triple.to_uppercase().replace('-', "_"));
        // RUSTFLAGS, when set, would win over the target's own variable.
        cargo.env(var, "-C target-feature=-crt-static").env_remove("RUSTFLAGS");
    }
    with_zig(&env, &mut cargo);
    sh(&mut cargo)?;
    Ok(out)
}

/// `strip` for `platform`'s objects: the host's binutils read only x86-64, so
/// arm64 objects take Debian's `binutils-aarch64-linux-gnu`.
pub fn strip(platform: &Platform) -> Result<Command> {
    if platform.native_here() {
        return Ok(Command::new("strip"));
    }
    let prefix = platform.multiarch();
    crate::setup::apt(&[&format!("binutils-{prefix}")], "stripping arm64 libraries for their packages")?;
    Ok(Command::new(format!("{prefix}-strip")))
}
