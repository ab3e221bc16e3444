//! The Python binding (bindings/python): a PyO3 extension crate and the
//! Python package `emq_id` around it, built into one abi3 wheel by maturin.
//! Its prerequisites and virtual environments (`setup.rs`), the wheel and
//! sdist (`build.rs`), the conformance adapter, pytest, mypy and stubtest
//! (`tests.rs`), the chaos fleet's holder program (`holder.rs`), the proof
//! that it is a real package (`package.rs`: installed outside the tree from
//! the wheel, the sdist and the source) and the benchmark.
//!
//! Everything Python is installed into virtual environments under
//! `target/python/` (never into the system interpreter), from PyPI, with
//! pip's cache there too: nothing is kept outside the clone.

pub mod adapter;
pub mod bench;
pub mod build;
pub mod dist;
pub mod holder;
pub mod package;
pub mod setup;
pub mod tests;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use crate::root;

/// The binding: its Cargo crate, pyproject.toml, python/emq_id and tests/.
pub const PACKAGE: &str = "bindings/python";

/// `target/python/<name>`: this room's virtual environments and outputs.
pub fn dir(name: &str) -> PathBuf {
    root().join("target/python").join(name)
}

/// A virtual environment.
pub struct Venv {
    pub dir: PathBuf,
}

impl Venv {
    /// The environment at `dir` (made by [`setup::venv`]).
    pub fn at(dir: impl AsRef<Path>) -> Venv {
        Venv { dir: dir.as_ref().to_path_buf() }
    }

    /// Its interpreter.
    pub fn python(&self) -> Command {
        let mut cmd = Command::new(self.dir.join("bin/python"));
        pip_env(&mut cmd);
        cmd
    }

    /// `python -m pip` of this environment.
    pub fn pip(&self) -> Command {
        let mut cmd = self.python();
        cmd.args(["-m", "pip"]);
        cmd
    }
}

/// pip's settings for every call: quiet, its cache under `target/python/`,
/// and no pip of the user's configuration.
fn pip_env(cmd: &mut Command) {
    cmd.env("PIP_CACHE_DIR", dir("pip-cache"))
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .env("PIP_NO_INPUT", "1")
        .env("PIP_CONFIG_FILE", "/dev/null")
        .env_remove("PYTHONPATH")
        .env_remove("VIRTUAL_ENV");
}

/// The maturin requirement of the package's build system (`maturin==X.Y.Z`
/// in pyproject.toml): the one pin, which xtask installs as it is.
pub fn maturin_requirement() -> Result<String> {
    let pyproject = crate::read(root().join(PACKAGE).join("pyproject.toml"))?;
    pyproject
        .lines()
        .find_map(|l| l.trim().strip_prefix("requires = [\"maturin=="))
        .and_then(|rest| rest.split('"').next())
        .map(|version| format!("maturin=={version}"))
        .context("bindings/python/pyproject.toml: no `requires = [\"maturin==…\"]` pin")
}
