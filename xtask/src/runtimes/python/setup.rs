//! What the Python binding needs: a CPython 3 with `venv` (Debian's
//! `python3-venv` when it is missing), and virtual environments under
//! `target/python/` holding pinned tools from PyPI, installed when missing.

use std::process::Command;

use anyhow::Result;

use super::{dir, Venv};
use crate::{setup, sh};

/// The tools of the tests, pinned (maturin's pin is pyproject.toml's).
pub const PYTEST: &str = "pytest==9.2.0";
pub const MYPY: &str = "mypy==2.4.1";

/// `python3` that can make virtual environments (Debian splits `venv` and
/// `ensurepip` into `python3-venv`).
pub fn interpreter() -> Result<()> {
    let usable = Command::new("python3")
        .args(["-c", "import venv, ensurepip, sys; assert sys.version_info >= (3, 9)"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !usable {
        setup::apt(&["python3", "python3-venv"], "the Python binding (CPython 3.9+ with venv)")?;
    }
    setup::require("python3", "the Python binding needs CPython 3.9 or later")
}

/// A virtual environment at `target/python/<name>` holding `packages`
/// (pinned requirements), made and filled when it does not hold them yet.
pub fn venv(name: &str, packages: &[&str], why: &str) -> Result<Venv> {
    interpreter()?;
    let env = Venv::at(dir(name));
    let stamp = env.dir.join(".emq-id-packages");
    let wanted = packages.join("\n");
    if std::fs::read_to_string(&stamp).is_ok_and(|s| s == wanted) {
        return Ok(env);
    }
    eprintln!(
        "xtask: installing {} from PyPI into target/python/{name} (a virtual environment, for {why})",
        packages.join(" ")
    );
    sh(Command::new("python3").args(["-m", "venv", "--clear"]).arg(&env.dir))?;
    sh(env.pip().args(["install", "--quiet"]).args(packages))?;
    crate::write(&stamp, wanted)?;
    Ok(env)
}

/// The build tools: maturin, at the version pyproject.toml pins.
pub fn tools() -> Result<Venv> {
    venv("tools", &[&super::maturin_requirement()?], "building the wheel and sdist")
}

/// An empty virtual environment at `path` (cleared if it exists), with its own pip.
pub fn empty(path: &std::path::Path) -> Result<Venv> {
    interpreter()?;
    sh(Command::new("python3").args(["-m", "venv", "--clear"]).arg(path))?;
    Ok(Venv::at(path))
}
