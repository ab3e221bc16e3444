//! `postgresql-15-emq-id`: the extension as a Debian package, built from
//! `cargo pgrx package` (its `.so`, control and SQL files in PostgreSQL 15's
//! directories), and the proof that `CREATE EXTENSION` works from it alone.

use std::process::Command;

use anyhow::{ensure, Context, Result};

use super::server::Cluster;
use super::{EXTENSION, PG_CONFIG};
use crate::dist::{self, deb, Artifact};
use crate::{root, sh, sh_out};

pub const PACKAGE: &str = "postgresql-15-emq-id";

pub fn build() -> Result<Vec<Artifact>> {
    super::setup::prerequisites()?;
    let stage = root().join("target/dist-stage").join(PACKAGE);
    let _ = std::fs::remove_dir_all(&stage);
    // cargo-pgrx reports on stdout; keep the task's table alone there.
    sh(Command::new("cargo")
        .current_dir(root().join(EXTENSION))
        .args(["pgrx", "package", "--pg-config", PG_CONFIG, "--out-dir"])
        .arg(&stage)
        .stdout(std::io::stderr()))?;
    let pkglibdir = sh_out(Command::new(PG_CONFIG).arg("--pkglibdir"))?;
    let library = stage.join(pkglibdir.trim().trim_start_matches('/')).join("emq_id.so");
    ensure!(library.exists(), "cargo pgrx package wrote no {}", library.display());
    sh(Command::new("strip").arg("--strip-unneeded").arg(&library))?;
    // The extension's own version, which CREATE EXTENSION installs: its control file's and its script's name.
    let sharedir = sh_out(Command::new(PG_CONFIG).arg("--sharedir"))?;
    let extension = stage.join(sharedir.trim().trim_start_matches('/')).join("extension");
    let control = crate::read(extension.join("emq_id.control"))?;
    let default_version = format!("default_version = '{}'", dist::version());
    ensure!(control.lines().any(|l| l.trim() == default_version), "emq_id.control lacks {default_version}:\n{control}");
    let script = extension.join(format!("emq_id--{}.sql", dist::version()));
    ensure!(script.is_file(), "cargo pgrx package wrote no {}", script.display());
    let docs = stage.join("usr/share/doc").join(PACKAGE);
    crate::mkdir(&docs)?;
    crate::write(docs.join("copyright"), deb::copyright()?)?;
    std::fs::copy(root().join(EXTENSION).join("README.md"), docs.join("README.md")).context("copying the README")?;
    let deb = deb::build(
        &stage,
        &deb::Control {
            package: PACKAGE,
            // Built against this host's PostgreSQL 15 (Debian 12's), for its architecture.
            architecture: &deb::architecture()?,
            depends: "postgresql-15, libc6",
            section: "database",
            description: "EchoMQ branded ids for PostgreSQL 15 (emq_id extension)\n \
                          The branded_id type (14-byte namespaced snowflake ids, stored in 12 bytes,\n \
                          ordered as their text), emq_* codec, keyspace and slot functions, and\n \
                          minting from shared memory (shared_preload_libraries = 'emq_id').",
        },
        &dist::dir()?,
    )?;
    let version = deb::field(&deb, "Version")?;
    Ok(vec![Artifact { runtime: "PostgreSQL", platform: None, path: deb, version }])
}

/// `dpkg -i` the package (setting aside a `cargo pgrx install` of the same
/// files, put back afterwards), then on a throwaway cluster of the system's
/// PostgreSQL 15, which reads the system's extension directory:
/// `CREATE EXTENSION emq_id` and the documentation's SQL; then `dpkg -r`.
pub fn from_outside(artifacts: &[Artifact]) -> Result<()> {
    let deb = dist::find(artifacts, "PostgreSQL", ".deb")?;
    let installed = deb::Installed::new(&deb.path)?;
    let owner = sh_out(Command::new("dpkg").args(["-S", "emq_id.control"]))?;
    ensure!(owner.starts_with(PACKAGE), "emq_id.control is not the package's: {owner}");
    let cluster = Cluster::start()?;
    super::tests::readme_sql(&cluster)?;
    let answer = cluster.psql("SELECT extversion FROM pg_extension WHERE extname = 'emq_id'")?;
    ensure!(answer.trim() == dist::version(), "the installed extension is version {answer:?}");
    println!(
        "dist: {PACKAGE} installed; CREATE EXTENSION emq_id (version {}) and the documentation's SQL ran on a fresh cluster",
        answer.trim()
    );
    drop(cluster);
    drop(installed);
    deb::ensure_removed(PACKAGE)
}
