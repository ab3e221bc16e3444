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
    /// Debian's name of the architecture its files are for (`amd64`, `arm64`).
    pub architecture: &'a str,
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
    crate::setup::apt(&["dpkg-dev"], "dpkg-architecture, which names the multiarch library directory")?;
    Ok(sh_out(Command::new("dpkg-architecture").arg("-qDEB_HOST_MULTIARCH"))?.trim().to_string())
}

/// Writes `root/DEBIAN/control` and builds `root` into `out_dir`, answering the
/// `.deb`'s path (`<package>_<version>_<arch>.deb`).
pub fn build(root: &Path, control: &Control, out_dir: &Path) -> Result<PathBuf> {
    let arch = control.architecture;
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
/// dropped (however the check ends). Files it would replace that no package
/// owns (a `cargo pgrx install` of the same extension) are set aside first and
/// put back after the removal, so the machine is left as it was found. A file
/// another package owns is left alone: `dpkg -i` then refuses the conflict.
///
/// An interrupted run (a kill between `dpkg -i` and its drop) leaves the
/// package installed and the set-aside files named `<file>.emq-id-aside-<pid>`:
/// `dpkg -r <package>` and renaming them back restores the machine; the next
/// check refuses to start until then.
pub struct Installed {
    package: String,
    set_aside: Vec<(PathBuf, PathBuf)>,
}

impl Installed {
    pub fn new(deb: &Path) -> Result<Installed> {
        let package = field(deb, "Package")?;
        ensure!(
            !crate::setup::installed(&package),
            "{package} is already installed; this check installs and removes it, so it will not touch one it did not install"
        );
        // The guard exists before the first file moves: whatever fails below, its drop undoes it.
        let mut guard = Installed { package, set_aside: vec![] };
        for path in contents(deb)? {
            let owned = Command::new("dpkg").arg("-S").arg(&path).output().is_ok_and(|o| o.status.success());
            if path.is_file() && !owned {
                let mut aside = path.clone().into_os_string();
                aside.push(format!(".emq-id-aside-{}", std::process::id()));
                let aside = PathBuf::from(aside);
                std::fs::rename(&path, &aside).with_context(|| format!("setting {} aside", path.display()))?;
                guard.set_aside.push((path, aside));
            }
        }
        sh(Command::new("dpkg").arg("-i").arg(deb))?;
        Ok(guard)
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        let removed = Command::new("dpkg").args(["-r", &self.package]).status();
        if !matches!(removed, Ok(s) if s.success()) || crate::setup::installed(&self.package) {
            eprintln!("xtask: dpkg -r {} failed; remove it by hand", self.package);
        }
        for (path, aside) in &self.set_aside {
            if let Err(e) = std::fs::rename(aside, path) {
                eprintln!("xtask: could not put {} back from {}: {e}", path.display(), aside.display());
            }
        }
    }
}

/// Fails when `package` is still installed (a check must leave the machine as it found it).
pub fn ensure_removed(package: &str) -> Result<()> {
    ensure!(!crate::setup::installed(package), "{package} is still installed after its check");
    Ok(())
}

/// Debian's machine-readable copyright file: the workspace's licences, the
/// MIT text in full and Apache-2.0 by Debian's common copy (policy 12.5).
pub fn copyright() -> Result<String> {
    let mit = crate::read(crate::root().join("LICENSE-MIT"))?;
    let mit_body: String = mit
        .lines()
        .skip_while(|l| !l.starts_with("Permission"))
        .map(|l| format!(" {}\n", if l.is_empty() { "." } else { l }))
        .collect();
    Ok(format!(
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\
         Upstream-Name: emq-id\nSource: {}\n\nFiles: *\nCopyright: the emq-id authors\nLicense: MIT or Apache-2.0\n\n\
         License: MIT\n{mit_body}\n\
         License: Apache-2.0\n On Debian systems, the full text of the Apache License, Version 2.0 is in\n \
         /usr/share/common-licenses/Apache-2.0 (and in LICENSE-APACHE of the source).\n",
        env!("CARGO_PKG_REPOSITORY")
    ))
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
