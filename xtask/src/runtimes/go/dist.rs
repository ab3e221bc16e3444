//! The Go module from outside the tree: its directory alone (what a module
//! proxy serves), required by a fresh module through a `replace`: built with
//! `CGO_ENABLED=0` and no C toolchain on the PATH (its default backend, the
//! core translated to Go source, with nothing but the standard library and
//! golang.org/x/sys in its module graph), and with `-tags emqid_cgo` linked through
//! pkg-config against the installed `libemqid-dev`. The module itself ships
//! as source; its C library is the C room's package.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{ensure, Context, Result};

use crate::dist::{self, deb, Artifact};
use crate::runtimes::c;
use crate::{root, sh, sh_out};

const MODULE: &str = "github.com/echomq/emq-id/bindings/go";

/// The oldest Go the module supports (its go.mod's line): the application
/// requiring it says no more, so the module alone decides.
const GO_LINE: &str = "1.22";

/// What the module may bring into an application's module graph: nothing
/// but golang.org/x/sys (the file lock on Windows) — no WebAssembly runtime
/// (besides the graph's `go` and `toolchain` lines).
const ALLOWED_DEPENDENCIES: [&str; 4] = [MODULE, "golang.org/x/sys", "go", "toolchain"];

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

/// A module proxy in a directory (what `GOPROXY=file://…` reads) serving
/// this version of the module: its `.info`, `.mod` and module zip, whose
/// entries are the module's files under `<module>@<version>/`.
fn module_proxy(dir: &Path) -> Result<PathBuf> {
    let version = format!("v{}", dist::version());
    let tree = dir.join("zip-tree");
    copy_module(&root().join("bindings/go"), &tree.join(format!("{MODULE}@{version}")))?;
    let at = dir.join("proxy").join(MODULE).join("@v");
    crate::mkdir(&at)?;
    crate::write(at.join("list"), format!("{version}\n"))?;
    crate::write(at.join(format!("{version}.info")), format!("{{\"Version\":\"{version}\"}}\n"))?;
    std::fs::copy(root().join("bindings/go/go.mod"), at.join(format!("{version}.mod")))?;
    // Python's zipfile (the suite's Python is there anyway): a zip of the tree, paths relative to it.
    let zip = "import os, sys, zipfile\n\
               tree, out = sys.argv[1], sys.argv[2]\n\
               with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:\n\
               \x20   for base, _, files in os.walk(tree):\n\
               \x20       for f in sorted(files):\n\
               \x20           path = os.path.join(base, f)\n\
               \x20           z.write(path, os.path.relpath(path, tree))\n";
    sh(Command::new("python3").args(["-c", zip]).arg(&tree).arg(at.join(format!("{version}.zip"))))?;
    Ok(dir.join("proxy"))
}

/// The documentation's Go examples, each as a module of its own, built and run with no
/// access to the checkout: first requiring the module from a module proxy
/// (a directory serving its zip), with nothing installed and no C toolchain
/// (the default backend); then requiring a copy of the module directory with
/// `libemqid-dev` installed and `-tags emqid_cgo` (no PKG_CONFIG_PATH).
pub fn from_outside(artifacts: &[Artifact]) -> Result<()> {
    let dir = dist::scratch("go")?;
    let proxy = module_proxy(&dir)?;
    crate::mkdir(dir.join("app"))?;
    let examples = crate::tree::readme::every("go")?;
    crate::write(
        dir.join("app/go.mod"),
        format!("module example\n\ngo {GO_LINE}\n\nrequire {MODULE} v{}\n", dist::version()),
    )?;
    let upstream = sh_out(Command::new("go").args(["env", "GOPROXY"]))?;
    let go = |tags: &str| {
        let mut cmd = Command::new("go");
        cmd.current_dir(dir.join("app"))
            .env("GOFLAGS", format!("-modcacherw {tags}"))
            // A module cache of its own: a warm machine's cache may hold an older zip of this version.
            .env("GOMODCACHE", dir.join("modcache"))
            .env("GOPROXY", format!("file://{},{}", proxy.display(), upstream.trim()))
            .env("GONOSUMDB", MODULE)
            .env_remove("PKG_CONFIG_PATH")
            .env("EMQ_NODE_DIR", dir.join("claims"));
        cmd
    };
    // Only Go's own directory on the PATH: no gcc, no pkg-config to fall back on.
    let go_bin = sh_out(Command::new("go").args(["env", "GOROOT"]))?.trim().to_string() + "/bin";
    for example in &examples {
        crate::write(dir.join("app/main.go"), &example.text)?;
        sh(go("").arg("mod").arg("tidy")).with_context(|| example.place())?;
        let out =
            sh_out(go("").args(["run", "."]).env("CGO_ENABLED", "0").env("PATH", &go_bin).env("CC", "/nonexistent/cc"))
                .with_context(|| example.place())?;
        ensure!(!out.trim().is_empty(), "{}: the pure-Go build printed nothing", example.place());
        let graph = sh_out(go("").args(["mod", "graph"]))?;
        for edge in graph.lines() {
            let needed = edge.split_whitespace().nth(1).unwrap_or("");
            ensure!(
                ALLOWED_DEPENDENCIES.iter().any(|allowed| needed.starts_with(&format!("{allowed}@"))),
                "{}: the module graph needs {needed}: only {ALLOWED_DEPENDENCIES:?} may be there",
                example.place()
            );
        }
    }
    println!(
        "dist: the Go module v{} from a module proxy (a directory serving its zip), required by a fresh module, built with CGO_ENABLED=0 and no C toolchain on the PATH (its default backend, the core translated to Go; `go mod graph`: only {ALLOWED_DEPENDENCIES:?}); the documentation's {} Go examples ran",
        dist::version(),
        examples.len()
    );

    copy_module(&root().join("bindings/go"), &dir.join("emqid"))?;
    crate::write(
        dir.join("app/go.mod"),
        format!(
            "module example\n\ngo {GO_LINE}\n\nrequire {MODULE} v{}\n\nreplace {MODULE} => ../emqid\n",
            dist::version()
        ),
    )?;
    let c_deb = dist::find_native(artifacts, "C", ".deb")?;
    let installed = deb::Installed::new(&c_deb.path)?;
    for example in &examples {
        crate::write(dir.join("app/main.go"), &example.text)?;
        sh(go("-tags=emqid_cgo").arg("mod").arg("tidy")).with_context(|| example.place())?;
        sh(go("-tags=emqid_cgo").args(["run", "."]).env("CGO_ENABLED", "1")).with_context(|| example.place())?;
    }
    println!(
        "dist: the module's directory alone with -tags emqid_cgo, built against the installed {} through pkg-config; the documentation's {} Go examples ran",
        c::dist::PACKAGE,
        examples.len()
    );
    drop(installed);
    deb::ensure_removed(c::dist::PACKAGE)
}
