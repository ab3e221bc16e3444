//! `cargo xtask dist`: every runtime as the artifact its users install, in
//! `target/dist/`, with a table of sizes and SHA-256 sums; and the suite's
//! proof that each one works from outside the tree. What a runtime ships is
//! in its room (`runtimes/<runtime>/dist.rs`: `build` and `from_outside`);
//! this module lists the rooms, holds what they share (the version, the
//! output directory, a Debian package's layout) and checks that every
//! artifact carries the workspace's version.

pub mod deb;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{ensure, Context, Result};

use crate::runtimes::{c, elixir, node, postgres, python, wasm};

/// One file a user installs.
pub struct Artifact {
    /// The runtime it serves, as the table names it.
    pub runtime: &'static str,
    pub path: PathBuf,
    /// The version the artifact itself declares (read back from it, not assumed).
    pub version: String,
}

/// The workspace's version (`[workspace.package] version`): the one place
/// every package's version comes from.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// `target/dist/`, created.
pub fn dir() -> Result<PathBuf> {
    let dir = crate::root().join("target/dist");
    crate::mkdir(&dir)?;
    Ok(dir)
}

/// The workspace's licence texts (it is MIT OR Apache-2.0), which every
/// package carries.
pub const LICENSES: [&str; 2] = ["LICENSE-MIT", "LICENSE-APACHE"];

/// Copies [`LICENSES`] from the workspace root into `dir` (a package's
/// folder, where its packer picks them up; the copies are ignored by git).
pub fn licenses_into(dir: &Path) -> Result<()> {
    for name in LICENSES {
        let (from, to) = (crate::root().join(name), dir.join(name));
        std::fs::copy(&from, &to).with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    }
    Ok(())
}

/// An empty directory for a from-outside check, under the system's temporary
/// directory (never inside the checkout), removed first if a run left it and
/// removed again when dropped, however the check ends.
pub fn scratch(name: &str) -> Result<Scratch> {
    let dir = std::env::temp_dir().join(format!("emq-id-outside-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    crate::mkdir(&dir)?;
    Ok(Scratch(dir))
}

/// A directory of [`scratch`], removed on drop.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

type Build = fn() -> Result<Vec<Artifact>>;

/// Every runtime's packages, in the table's order.
const ROOMS: &[(&str, Build)] = &[
    ("C", c::dist::build),
    ("PostgreSQL", postgres::dist::build),
    ("Node", node::dist::build),
    ("WASM", wasm::dist::build),
    ("Python", python::dist::build),
    ("Elixir", elixir::dist::build),
];

/// Builds every artifact, checks each one's version, prints the table.
pub fn run() -> Result<Vec<Artifact>> {
    let mut all = vec![];
    for (name, build) in ROOMS {
        eprintln!("xtask: dist: {name}");
        all.extend(build().with_context(|| format!("building the {name} packages"))?);
    }
    check_versions(&all)?;
    print_table(&all)?;
    Ok(all)
}

/// A release cannot ship an artifact whose version is not the workspace's.
pub fn check_versions(artifacts: &[Artifact]) -> Result<()> {
    let wrong: Vec<String> = artifacts
        .iter()
        .filter(|a| a.version != version())
        .map(|a| format!("{} says {}", a.path.display(), a.version))
        .collect();
    ensure!(wrong.is_empty(), "dist: not the workspace version {}: {}", version(), wrong.join("; "));
    Ok(())
}

fn print_table(artifacts: &[Artifact]) -> Result<()> {
    println!("\n| runtime | artifact | version | size | sha256 |\n|---|---|---|---:|---|");
    for a in artifacts {
        let size = std::fs::metadata(&a.path).with_context(|| a.path.display().to_string())?.len();
        println!(
            "| {} | `{}` | {} | {} | `{}` |",
            a.runtime,
            a.path.file_name().unwrap_or_default().to_string_lossy(),
            a.version,
            human(size),
            sha256(&a.path)?
        );
    }
    println!("\n{} artifacts in {}", artifacts.len(), dir()?.display());
    Ok(())
}

fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// coreutils' `sha256sum` (on every Debian machine): no hashing code here.
fn sha256(path: &Path) -> Result<String> {
    let out = crate::sh_out(Command::new("sha256sum").arg(path))?;
    Ok(out.split_whitespace().next().context("sha256sum printed nothing")?.to_string())
}

type Check = fn(&[Artifact]) -> Result<()>;

/// Every room's from-outside proof, in order.
const OUTSIDE: &[(&str, Check)] = &[
    ("C (libemqid-dev installed, a program built with pkg-config, removed)", c::dist::from_outside),
    ("PostgreSQL (the .deb installed, CREATE EXTENSION on a fresh cluster, removed)", postgres::dist::from_outside),
    ("Go (its module alone, linked through pkg-config against libemqid-dev)", crate::runtimes::go::dist::from_outside),
    ("Node (npm install of the tarball, require and import, both backends)", node::dist::from_outside),
    ("WASM (npm install of the tarball, require and import)", wasm::dist::from_outside),
    ("Python (the wheel, the sdist and the source, each in an empty virtual environment)", python::dist::from_outside),
    ("Elixir (a fresh mix project depending on the unpacked package by path)", elixir::dist::from_outside),
];

/// The suite's step: build every artifact, then prove each from outside the tree.
pub fn outside() -> Result<()> {
    let artifacts = run()?;
    for (name, check) in OUTSIDE {
        eprintln!("xtask: from outside the tree: {name}");
        check(&artifacts).with_context(|| format!("{name}, from outside the tree"))?;
    }
    Ok(())
}

/// The artifact of `runtime` whose file name ends with `suffix`.
pub fn find<'a>(artifacts: &'a [Artifact], runtime: &str, suffix: &str) -> Result<&'a Artifact> {
    artifacts
        .iter()
        .find(|a| a.runtime == runtime && a.path.to_string_lossy().ends_with(suffix))
        .with_context(|| format!("no {runtime} artifact ending in {suffix}"))
}
