//! `libemqid-dev`: the C library as a Debian package (static and shared
//! library, `emq_id.h`, `emqid.pc`), and the proof that a C program builds
//! against it with pkg-config alone.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use anyhow::{ensure, Context, Result};

use super::build::{PkgConfig, SYSTEM_LIBS};
use crate::dist::{self, deb, Artifact};
use crate::{root, sh, sh_out};

pub const PACKAGE: &str = "libemqid-dev";

/// Lays out the package's tree under `target/dist-stage/` and builds the `.deb`.
pub fn build() -> Result<Vec<Artifact>> {
    super::build::library()?;
    let multiarch = deb::multiarch()?;
    let stage = root().join("target/dist-stage").join(PACKAGE);
    let _ = std::fs::remove_dir_all(&stage);
    let libdir = stage.join("usr/lib").join(&multiarch);
    crate::mkdir(libdir.join("pkgconfig"))?;
    crate::mkdir(stage.join("usr/include"))?;
    crate::mkdir(stage.join("usr/share/doc").join(PACKAGE))?;

    let version = dist::version();
    let soname = super::build::soname();
    let release = root().join("target/release");
    copy(&release.join("libemqid.a"), &libdir.join("libemqid.a"))?;
    // Debian ships libraries without their debug sections.
    sh(Command::new("strip").arg("--strip-debug").arg(libdir.join("libemqid.a")))?;
    let shared = format!("libemqid.so.{version}");
    copy(&release.join("libemqid.so"), &libdir.join(&shared))?;
    sh(Command::new("strip").arg("--strip-unneeded").arg(libdir.join(&shared)))?;
    // The SONAME the library carries (bindings/c/build.rs, checked here), then the name -lemqid finds.
    let dynamic = sh_out(Command::new("readelf").arg("-d").arg(libdir.join(&shared)))?;
    ensure!(
        dynamic.contains(&format!("Library soname: [{soname}]")),
        "libemqid.so does not carry the SONAME {soname}:\n{dynamic}"
    );
    symlink(&shared, libdir.join(&soname))?;
    symlink(&soname, libdir.join("libemqid.so"))?;
    copy(&root().join("bindings/c/include/emq_id.h"), &stage.join("usr/include/emq_id.h"))?;
    let pc = PkgConfig {
        prefix: "/usr",
        libdir: &format!("${{prefix}}/lib/{multiarch}"),
        includedir: "${prefix}/include",
        libs: "-L${libdir} -lemqid",
        libs_private: SYSTEM_LIBS,
    };
    crate::write(libdir.join("pkgconfig/emqid.pc"), pc.text())?;
    crate::write(stage.join("usr/share/doc").join(PACKAGE).join("copyright"), deb::copyright()?)?;

    let deb = deb::build(
        &stage,
        &deb::Control {
            package: PACKAGE,
            depends: "libc6",
            section: "libdevel",
            description: "EchoMQ branded ids and Valkey Cluster key placement (C library)\n \
                          emq-id's C ABI: encode, decode and mint 14-byte branded snowflake ids,\n \
                          and place keys on a Valkey Cluster (CRC16 hash slots, the bus's keyspace).\n \
                          Static and shared library, emq_id.h and the pkg-config file emqid.pc.",
        },
        &dist::dir()?,
    )?;
    let version = deb::field(&deb, "Version")?;
    Ok(vec![Artifact { runtime: "C", path: deb, version }])
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    std::fs::copy(from, to).with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    Ok(())
}

/// `dpkg -i` the package, build the README's C example with
/// `gcc $(pkg-config --cflags --libs emqid)` in an empty directory, run it,
/// and `dpkg -r` (also when a step fails).
pub fn from_outside(artifacts: &[Artifact]) -> Result<()> {
    let deb = dist::find(artifacts, "C", ".deb")?;
    let installed = deb::Installed::new(&deb.path)?;
    let dir = dist::scratch("c")?;
    crate::write(dir.join("example.c"), crate::tree::readme::one("c")?)?;
    let flags = pkg_config(&["--cflags", "--libs", "emqid"])?;
    sh(Command::new("gcc")
        .current_dir(&dir)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "example.c"])
        .args(flags.split_whitespace())
        .args(["-o", "example"]))?;
    let linked = sh_out(Command::new("ldd").arg(dir.join("example")))?;
    let multiarch = deb::multiarch()?;
    // /lib is /usr/lib on a merged-/usr system: either spelling is the installed file.
    ensure!(
        linked.contains(&format!("lib/{multiarch}/{} ", super::build::soname())),
        "the example is not linked against the installed libemqid.so: {linked}"
    );
    sh(Command::new(dir.join("example")).current_dir(&dir).env("EMQ_NODE_DIR", dir.join("claims")))?;
    // The static library, for a program that must not depend on the package where it runs.
    sh(Command::new("gcc")
        .current_dir(&dir)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "example.c"])
        .args(pkg_config(&["--cflags", "emqid"])?.split_whitespace())
        .arg("-l:libemqid.a")
        .args(SYSTEM_LIBS.split_whitespace())
        .args(["-o", "example-static"]))?;
    let linked = sh_out(Command::new("ldd").arg(dir.join("example-static")))?;
    ensure!(!linked.contains("libemqid"), "the static example still needs libemqid.so: {linked}");
    sh(Command::new(dir.join("example-static")).current_dir(&dir).env("EMQ_NODE_DIR", dir.join("claims")))?;
    println!("dist: {PACKAGE} installed; the README's C example built with `gcc $(pkg-config --cflags --libs emqid)` ({flags}) and ran, linked to the installed libemqid.so; and with -l:libemqid.a, needing no library where it runs");
    drop(installed);
    deb::ensure_removed(PACKAGE)
}

/// pkg-config as a user runs it: the system's directories, not the checkout's.
pub fn pkg_config(args: &[&str]) -> Result<String> {
    Ok(sh_out(Command::new("pkg-config").args(args).env_remove("PKG_CONFIG_PATH"))?.trim().to_string())
}
