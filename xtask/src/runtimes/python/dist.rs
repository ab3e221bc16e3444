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
    // The version each declares in its metadata: the wheel's METADATA (which pip installs by), the sdist's PKG-INFO.
    let wheel_version = metadata_version(&super::package::wheel_metadata(&wheel)?)?;
    let top = file_name(&sdist).trim_end_matches(".tar.gz").to_string();
    let pkg_info = sh_out(Command::new("tar").arg("-xOzf").arg(&sdist).arg(format!("{top}/PKG-INFO")))?;
    let sdist_version = metadata_version(&pkg_info)?;
    Ok(vec![
        Artifact { runtime: "Python", path: wheel, version: wheel_version },
        Artifact { runtime: "Python", path: sdist, version: sdist_version },
    ])
}

/// The `Version:` field of a core-metadata file (METADATA, PKG-INFO).
fn metadata_version(metadata: &str) -> Result<String> {
    Ok(metadata.lines().find_map(|l| l.strip_prefix("Version: ")).context("metadata without a Version")?.to_string())
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
