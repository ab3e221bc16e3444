//! The Go module from outside the tree: its directory alone (what a module
//! proxy serves), required by a fresh module through a `replace`: built with
//! `CGO_ENABLED=0` and no C toolchain on the PATH (its default backend, the
//! core as WebAssembly it embeds), and with `-tags emqid_cgo` linked through
//! pkg-config against the installed `libemqid-dev`. The module itself ships
//! as source; its C library is the C room's package.

use std::path::Path;
use std::process::Command;

use anyhow::{ensure, Context, Result};

use crate::dist::{self, deb, Artifact};
use crate::runtimes::c;
use crate::{root, sh, sh_out};

const MODULE: &str = "github.com/echomq/emq-id/bindings/go";

/// Copies the module's files as its module zip holds them: every file under
/// `bindings/go` but the directories that are modules of their own.
fn copy_module(from: &Path, to: &Path) -> Result<()> {
    crate::mkdir(to)?;
    for entry in std::fs::read_dir(from).with_context(|| from.display().to_string())? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            if !path.join("go.mod").exists() {
                copy_module(&path, &to.join(entry.file_name()))?;
            }
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).with_context(|| path.display().to_string())?;
        }
    }
    Ok(())
}

/// The README's Go example as a module of its own, requiring a copy of the
/// module directory alone, built and run with no access to the checkout: with
/// nothing installed and no C toolchain (the default backend), then with
/// `libemqid-dev` installed and `-tags emqid_cgo` (no PKG_CONFIG_PATH).
pub fn from_outside(artifacts: &[Artifact]) -> Result<()> {
    let dir = dist::scratch("go")?;
    copy_module(&root().join("bindings/go"), &dir.join("emqid"))?;
    crate::mkdir(dir.join("app"))?;
    crate::write(dir.join("app/main.go"), crate::tree::readme::one("go")?)?;
    crate::write(
        dir.join("app/go.mod"),
        format!(
            "module example\n\ngo 1.25.0\n\nrequire {MODULE} v{}\n\nreplace {MODULE} => ../emqid\n",
            dist::version()
        ),
    )?;
    let go = |tags: &str| {
        let mut cmd = Command::new("go");
        cmd.current_dir(dir.join("app"))
            .env("GOFLAGS", tags)
            .env_remove("PKG_CONFIG_PATH")
            .env("EMQ_NODE_DIR", dir.join("claims"));
        cmd
    };
    sh(go("").arg("mod").arg("tidy"))?;
    // Only Go's own directory on the PATH: no gcc, no pkg-config to fall back on.
    let go_bin = sh_out(Command::new("go").args(["env", "GOROOT"]))?.trim().to_string() + "/bin";
    let out =
        sh_out(go("").args(["run", "."]).env("CGO_ENABLED", "0").env("PATH", &go_bin).env("CC", "/nonexistent/cc"))?;
    ensure!(out.contains("JOB") && out.contains("refused:"), "the pure-Go build printed {out:?}");
    println!("dist: the Go module's directory alone, required by a fresh module, built with CGO_ENABLED=0 and no C toolchain on the PATH (its WebAssembly backend); the README's Go example ran");

    let c_deb = dist::find(artifacts, "C", ".deb")?;
    let installed = deb::Installed::new(&c_deb.path)?;
    sh(go("-tags=emqid_cgo").args(["run", "."]).env("CGO_ENABLED", "1"))?;
    println!(
        "dist: the same module with -tags emqid_cgo, built against the installed {} through pkg-config; the README's Go example ran",
        c::dist::PACKAGE
    );
    drop(installed);
    deb::ensure_removed(c::dist::PACKAGE)
}
