//! The `go`, `go-wasm` and `go-wasm-{arm64,riscv64,s390x}` targets: the Go
//! conformance adapter (conformance/go), a Go program over the `emqid`
//! package, built on each backend (cgo over the C library; the default, the
//! core translated to Go by wasm2go, with `CGO_ENABLED=0`) and run as a
//! JSON-lines process; the last three cross-built and run under Debian's
//! qemu-user (run directly: the host's binfmt settings are left alone). `go-arm64` is the
//! cgo backend over the arm64 `libemqid-dev` (the C ABI on aarch64), linked
//! by zig and run under qemu over Debian's arm64 root.

use std::path::PathBuf;
use std::process::Command;

use anyhow::Result;

use super::{go_with, Backend};
use crate::conformance::adapter::{Adapter, ProcessAdapter};
use crate::runtimes::c;
use crate::{root, setup, sh};

/// Builds the Go conformance adapter on `backend`; returns its path.
fn build(backend: Backend) -> Result<PathBuf> {
    setup::require("go", "install Go to run the go targets")?;
    let out = match backend {
        Backend::Cgo => {
            c::build::library()?;
            root().join("target/conformance-go")
        }
        Backend::Wasm => root().join("target/conformance-go-wasm"),
    };
    sh(go_with("conformance/go", backend).arg("build").arg("-o").arg(&out).arg("."))?;
    Ok(out)
}

pub fn prepare() -> Result<Box<dyn Adapter>> {
    Ok(Box::new(ProcessAdapter { command: Command::new(build(Backend::Cgo)?) }))
}

pub fn prepare_wasm() -> Result<Box<dyn Adapter>> {
    Ok(Box::new(ProcessAdapter { command: Command::new(build(Backend::Wasm)?) }))
}

pub fn prepare_wasm_arm64() -> Result<Box<dyn Adapter>> {
    prepare_wasm_emulated("arm64", "qemu-aarch64")
}

/// The default backend on a 64-bit RISC-V host.
pub fn prepare_wasm_riscv64() -> Result<Box<dyn Adapter>> {
    prepare_wasm_emulated("riscv64", "qemu-riscv64")
}

/// The default backend on a big-endian host: the translated core's memory
/// is little-endian whatever the host's order, and this proves it.
pub fn prepare_wasm_s390x() -> Result<Box<dyn Adapter>> {
    prepare_wasm_emulated("s390x", "qemu-s390x")
}

/// The adapter on the default backend cross-built for linux/`arch` and run
/// under `qemu` (a static Go binary: qemu needs no root of that arch).
fn prepare_wasm_emulated(arch: &str, qemu: &str) -> Result<Box<dyn Adapter>> {
    setup::require("go", "install Go to run the go targets")?;
    setup::apt(&["qemu-user"], &format!("running the linux/{arch} Go build ({qemu})"))?;
    let out = root().join(format!("target/conformance-go-wasm-{arch}"));
    sh(go_with("conformance/go", Backend::Wasm)
        .env("GOOS", "linux")
        .env("GOARCH", arch)
        .arg("build")
        .arg("-o")
        .arg(&out)
        .arg("."))?;
    let mut command = Command::new(qemu);
    command.arg(out);
    Ok(Box::new(ProcessAdapter { command }))
}

/// The arm64 `libemqid-dev` unpacked, the adapter cross-built on the cgo
/// backend with zig as the C compiler (pkg-config reading the package's own
/// emqid.pc under a sysroot), and run under qemu-aarch64 with the package's
/// shared library: every answer comes through the arm64 C ABI.
pub fn prepare_cgo_arm64() -> Result<Box<dyn Adapter>> {
    use crate::dist::{cross, emulated, platform, Selection};
    setup::require("go", "install Go to run the go targets")?;
    let arm64 = platform::named("linux-arm64-gnu");
    let rootfs = emulated::arm64_root()?;
    let built = c::dist::build(&Selection { platforms: vec![arm64], everything: false, runtimes: vec![] })?;
    let deb = built.first().map(|a| a.path.clone()).expect("one .deb for one glibc platform");
    let dir = root().join("target/conformance-go-arm64");
    let _ = std::fs::remove_dir_all(&dir);
    let sysroot = dir.join("libemqid-dev");
    crate::mkdir(&sysroot)?;
    sh(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&sysroot))?;
    let libdir = sysroot.join("usr/lib").join(arm64.multiarch());
    let zig = cross::tools(arm64)?;
    let cc = format!("{} -m ziglang cc -target {}", zig.dir.join("bin/python").display(), arm64.zig_cc_target());
    let out = dir.join("adapter");
    sh(go_with("conformance/go", Backend::Cgo)
        .env("GOOS", "linux")
        .env("GOARCH", "arm64")
        .env("CC", cc)
        .env_remove("PKG_CONFIG_PATH")
        .env("PKG_CONFIG_LIBDIR", libdir.join("pkgconfig"))
        .env("PKG_CONFIG_SYSROOT_DIR", &sysroot)
        .arg("build")
        .arg("-o")
        .arg(&out)
        .arg("."))?;
    let mut command = emulated::qemu(&rootfs, &out);
    command.env("LD_LIBRARY_PATH", &libdir);
    Ok(Box::new(ProcessAdapter { command }))
}
