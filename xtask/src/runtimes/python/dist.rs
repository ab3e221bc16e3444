//! The Python package as users install it: the abi3 wheel (CPython 3.9 on)
//! and the sdist, copied into `target/dist/` with their versions read back
//! from them; and the proof from outside the tree (`package.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use crate::dist::{self, Artifact};
use crate::sh_out;

pub fn build() -> Result<Vec<Artifact>> {
    let wheel = super::build::wheel()?;
    let sdist = super::build::sdist()?;
    super::package::check_wheel(&wheel)?;
    super::package::check_sdist(&sdist)?;
    let (wheel, sdist) = (ship(&wheel)?, ship(&sdist)?);
    // A wheel's file name is its metadata's name-version-tags (PEP 427); an sdist says it in PKG-INFO.
    let wheel_version = file_name(&wheel).split('-').nth(1).context("a wheel's file name has a version")?.to_string();
    let top = file_name(&sdist).trim_end_matches(".tar.gz").to_string();
    let pkg_info = sh_out(Command::new("tar").arg("-xOzf").arg(&sdist).arg(format!("{top}/PKG-INFO")))?;
    let sdist_version = pkg_info
        .lines()
        .find_map(|l| l.strip_prefix("Version: "))
        .context("the sdist's PKG-INFO has no Version")?
        .to_string();
    Ok(vec![
        Artifact { runtime: "Python", path: wheel, version: wheel_version },
        Artifact { runtime: "Python", path: sdist, version: sdist_version },
    ])
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap_or_default().to_string_lossy().into_owned()
}

/// Copies a built file into `target/dist/`.
fn ship(built: &Path) -> Result<PathBuf> {
    let to = dist::dir()?.join(built.file_name().context("a built file has a name")?);
    std::fs::copy(built, &to).with_context(|| format!("copying {} to {}", built.display(), to.display()))?;
    Ok(to)
}

/// The shipped wheel and sdist, and the source, each in an empty virtual
/// environment outside the tree, mint, decode and slot.
pub fn from_outside(artifacts: &[Artifact]) -> Result<()> {
    let wheel = dist::find(artifacts, "Python", ".whl")?;
    let sdist = dist::find(artifacts, "Python", ".tar.gz")?;
    super::package::outside(&wheel.path, &sdist.path)
}
