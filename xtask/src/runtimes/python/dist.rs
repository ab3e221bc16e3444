//! The Python package as users install it: an abi3 wheel (CPython 3.9 on)
//! per platform — manylinux2014 (glibc 2.17) and musllinux_1_2, x86-64 and
//! aarch64, built by `maturin --zig` — and the sdist, copied into
//! `target/dist/` with their versions read back from them; and the proof
//! from outside the tree (`package.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{ensure, Context, Result};

use crate::dist::{self, Artifact, Selection};
use crate::sh_out;

pub fn build(selection: &Selection) -> Result<Vec<Artifact>> {
    let mut artifacts = vec![];
    for platform in &selection.platforms {
        let wheel = super::build::platform_wheel(platform)?;
        super::package::check_wheel(&wheel)?;
        let tag = platform.wheel_tag();
        ensure!(file_name(&wheel).contains(&tag), "{}: not tagged {tag}", wheel.display());
        let wheel = ship(&wheel)?;
        // The version each declares in its metadata: the wheel's METADATA (which pip installs by), the sdist's PKG-INFO.
        let version = metadata_version(&super::package::wheel_metadata(&wheel)?)?;
        artifacts.push(Artifact { runtime: "Python", platform: Some(platform), path: wheel, version });
    }
    if selection.everything {
        let sdist = super::build::sdist()?;
        super::package::check_sdist(&sdist)?;
        let sdist = ship(&sdist)?;
        let top = file_name(&sdist).trim_end_matches(".tar.gz").to_string();
        let pkg_info = sh_out(Command::new("tar").arg("-xOzf").arg(&sdist).arg(format!("{top}/PKG-INFO")))?;
        artifacts.push(Artifact {
            runtime: "Python",
            platform: None,
            path: sdist,
            version: metadata_version(&pkg_info)?,
        });
    }
    Ok(artifacts)
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
    let wheel = dist::find_native(artifacts, "Python", ".whl")?;
    let sdist = dist::find(artifacts, "Python", ".tar.gz")?;
    super::package::outside(&wheel.path, &sdist.path)
}
