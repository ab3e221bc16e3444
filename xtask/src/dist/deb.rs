//! A Debian package from a tree the xtask lays out (`dpkg-deb --build`, no
//! control file kept outside this code), and its installation for a check
//! that must leave the machine as it found it.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{ensure, Context, Result};

use crate::{sh, sh_out};

/// What a package's control file says beyond its name and version.
pub struct Control<'a> {
    pub package: &'a str,
    pub depends: &'a str,
    pub section: &'a str,
    pub description: &'a str,
}

/// This machine's Debian architecture (`amd64`).
pub fn architecture() -> Result<String> {
    Ok(sh_out(Command::new("dpkg").arg("--print-architecture"))?.trim().to_string())
}

/// This machine's multiarch library directory name (`x86_64-linux-gnu`).
pub fn multiarch() -> Result<String> {
    Ok(sh_out(Command::new("dpkg-architecture").arg("-qDEB_HOST_MULTIARCH"))?.trim().to_string())
}

/// Writes `root/DEBIAN/control` and builds `root` into `out_dir`, answering the
/// `.deb`'s path (`<package>_<version>_<arch>.deb`).
pub fn build(root: &Path, control: &Control, out_dir: &Path) -> Result<PathBuf> {
    let arch = architecture()?;
    let size_kib = du_kib(root)?;
    crate::mkdir(root.join("DEBIAN"))?;
    let text = format!(
        "Package: {}\nVersion: {}\nArchitecture: {arch}\nMaintainer: emq-id <emq-id@example.invalid>\n\
         Installed-Size: {size_kib}\nDepends: {}\nSection: {}\nPriority: optional\nHomepage: {}\n\
         Description: {}\n",
        control.package,
        super::version(),
        control.depends,
        control.section,
        env!("CARGO_PKG_REPOSITORY"),
        control.description,
    );
    crate::write(root.join("DEBIAN/control"), text)?;
    let deb = out_dir.join(format!("{}_{}_{arch}.deb", control.package, super::version()));
    sh(Command::new("dpkg-deb").args(["--build", "--root-owner-group", "-Zxz"]).arg(root).arg(&deb))?;
    Ok(deb)
}

fn du_kib(root: &Path) -> Result<u64> {
    let out = sh_out(Command::new("du").args(["-sk"]).arg(root))?;
    out.split_whitespace().next().and_then(|n| n.parse().ok()).context("du printed no size")
}

/// A field of a built package's control file (`dpkg-deb -f`).
pub fn field(deb: &Path, name: &str) -> Result<String> {
    Ok(sh_out(Command::new("dpkg-deb").arg("-f").arg(deb).arg(name))?.trim().to_string())
}

/// A `.deb` installed with `dpkg -i` for a check, removed with `dpkg -r` when
/// dropped. Files it replaces that no package owned (a `cargo pgrx install`
/// of the same extension) are set aside first and put back after the
/// removal, so the machine is left as it was found.
pub struct Installed {
    package: String,
    set_aside: Vec<(PathBuf, PathBuf)>,
}

impl Installed {
    pub fn new(deb: &Path) -> Result<Installed> {
        let package = field(deb, "Package")?;
        let installed = sh_out(Command::new("dpkg-query").args(["-W", "-f=${Status}", &package])).unwrap_or_default();
        ensure!(
            !installed.contains("install ok installed"),
            "{package} is already installed; this check installs and removes it, so it will not touch one it did not install"
        );
        let mut set_aside = vec![];
        for path in contents(deb)? {
            if path.is_file() {
                let aside = path.with_extension(format!("emq-id-aside-{}", std::process::id()));
                std::fs::rename(&path, &aside).with_context(|| format!("setting {} aside", path.display()))?;
                set_aside.push((path, aside));
            }
        }
        let guard = Installed { package, set_aside };
        sh(Command::new("dpkg").arg("-i").arg(deb))?;
        Ok(guard)
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        let removed = Command::new("dpkg").args(["-r", &self.package]).status();
        if !matches!(removed, Ok(s) if s.success()) {
            eprintln!("xtask: dpkg -r {} failed; remove it by hand", self.package);
        }
        for (path, aside) in &self.set_aside {
            if let Err(e) = std::fs::rename(aside, path) {
                eprintln!("xtask: could not put {} back from {}: {e}", path.display(), aside.display());
            }
        }
    }
}

/// The absolute paths of the regular files a `.deb` installs.
pub fn contents(deb: &Path) -> Result<Vec<PathBuf>> {
    let out = sh_out(Command::new("dpkg-deb").arg("--contents").arg(deb))?;
    Ok(out
        .lines()
        .filter(|l| l.starts_with('-'))
        .filter_map(|l| l.split_whitespace().nth(5))
        .map(|p| PathBuf::from(p.trim_start_matches('.')))
        .collect())
}
