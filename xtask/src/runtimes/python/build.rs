//! The wheel and the sdist, built by maturin into `target/python/dist/`, and
//! a wheel installed into a virtual environment.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{ensure, Context, Result};

use super::{dir, Venv, PACKAGE};
use crate::dist::platform::Platform;
use crate::{root, sh};

/// Builds the abi3 wheel (release profile: cargo rebuilds only what changed)
/// and answers its path; once per xtask run, which every step of the run shares.
pub fn wheel() -> Result<PathBuf> {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    if let Some(path) = BUILT.get() {
        return Ok(path.clone());
    }
    let path = maturin("build", &["--release", "--quiet"], "whl", "dist")?;
    Ok(BUILT.get_or_init(|| path).clone())
}

/// The wheel the benchmark installs: [`wheel`] with the `bench` feature's
/// floor, into `target/python/dist-bench/`, apart from the wheel users get.
pub fn bench_wheel() -> Result<PathBuf> {
    maturin("build", &["--release", "--quiet", "--features", "bench"], "whl", "dist-bench")
}

/// The wheel users of `platform` install: `maturin build --zig` for its
/// target and its policy (manylinux2014 or musllinux_1_2), which maturin's
/// own audit enforces, into `target/python/dist-<platform>/`.
pub fn platform_wheel(platform: &Platform) -> Result<PathBuf> {
    let env = crate::dist::cross::tools(platform)?;
    crate::dist::licenses_into(&root().join(PACKAGE))?;
    let out = dir(&format!("dist-{}", platform.name));
    let _ = std::fs::remove_dir_all(&out);
    crate::mkdir(&out)?;
    let mut maturin = env.python();
    maturin
        .args(["-m", "maturin", "build", "--release", "--quiet", "--zig", "--target", platform.triple])
        .args(["--compatibility", platform.wheel_policy()])
        .arg("--manifest-path")
        .arg(root().join(PACKAGE).join("Cargo.toml"))
        .arg("--out")
        .arg(&out);
    crate::dist::cross::with_zig(&env, &mut maturin);
    sh(&mut maturin)?;
    let mut built = files(&out, "whl")?;
    ensure!(built.len() == 1, "maturin left {} wheels in {}", built.len(), out.display());
    Ok(built.remove(0))
}

/// Builds the sdist (the crate, the core it depends on, the Python sources)
/// and answers its path.
pub fn sdist() -> Result<PathBuf> {
    maturin("sdist", &[], "tar.gz", "dist")
}

/// `maturin <task>` into `target/python/<out>/`, after removing the file of
/// that kind a previous run left, so the one found afterwards is this run's.
fn maturin(task: &str, args: &[&str], ext: &str, out: &str) -> Result<PathBuf> {
    let tools = super::setup::tools()?;
    // The licence texts, which maturin ships in the wheel's and the sdist's metadata (PEP 639's default globs).
    crate::dist::licenses_into(&root().join(PACKAGE))?;
    let out = dir(out);
    crate::mkdir(&out)?;
    for old in files(&out, ext)? {
        std::fs::remove_file(&old).with_context(|| format!("removing {}", old.display()))?;
    }
    sh(tools
        .python()
        .args(["-m", "maturin", task])
        .args(args)
        .arg("--manifest-path")
        .arg(root().join(PACKAGE).join("Cargo.toml"))
        .arg("--out")
        .arg(&out))?;
    let mut built = files(&out, ext)?;
    ensure!(built.len() == 1, "maturin {task} left {} .{ext} files in {}", built.len(), out.display());
    Ok(built.remove(0))
}

fn files(dir: &Path, ext: &str) -> Result<Vec<PathBuf>> {
    let listing = || format!("listing {}", dir.display());
    let mut out = vec![];
    for entry in std::fs::read_dir(dir).with_context(listing)? {
        let path = entry.with_context(listing)?.path();
        if path.file_name().is_some_and(|n| n.to_string_lossy().ends_with(&format!(".{ext}"))) {
            out.push(path);
        }
    }
    Ok(out)
}

/// Installs `wheel` into `env` in place of any earlier build (its
/// dependencies: none).
pub fn install(env: &Venv, wheel: &Path) -> Result<()> {
    sh(env.pip().args(["install", "--quiet", "--force-reinstall", "--no-deps", "--no-index"]).arg(wheel))
}

/// A fresh virtual environment at `target/python/<name>` (cleared each time)
/// holding the wheel and nothing else. It has no pip of its own: the build
/// tools' pip installs into it (`pip --python`).
pub fn fresh(name: &str, wheel: &Path) -> Result<Venv> {
    let tools = super::setup::tools()?;
    let env = Venv::at(dir(name));
    super::setup::interpreter()?;
    sh(std::process::Command::new("python3").args(["-m", "venv", "--clear", "--without-pip"]).arg(&env.dir))?;
    sh(tools
        .pip()
        .arg("--python")
        .arg(env.dir.join("bin/python"))
        .args(["install", "--quiet", "--no-deps", "--no-index"])
        .arg(wheel))?;
    Ok(env)
}
