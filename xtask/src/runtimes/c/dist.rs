//! The C library as users install it: `libemqid-dev` (static and shared
//! library, `emq_id.h`, `emqid.pc`) for each glibc platform, linked by zig
//! against the glibc floor; a static `libemqid.a` for each musl platform, in
//! a tarball with the header. And the proofs: a C program built against the
//! installed package with pkg-config alone, and the documentation's C examples
//! linked statically against each musl library and run on its architecture.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use anyhow::{ensure, Context, Result};

use super::build::{PkgConfig, SYSTEM_LIBS};
use crate::dist::cross::{self, Linkage};
use crate::dist::platform::{Libc, Platform};
use crate::dist::{self, deb, emulated, Artifact, Selection};
use crate::{root, sh, sh_out};

pub const PACKAGE: &str = "libemqid-dev";

/// The `.deb` of each glibc platform, the static tarball of each musl one.
pub fn build(selection: &Selection) -> Result<Vec<Artifact>> {
    let mut artifacts = vec![];
    for platform in &selection.platforms {
        artifacts.push(match platform.libc {
            Libc::Gnu => debian_package(platform)?,
            Libc::Musl => static_tarball(platform)?,
        });
    }
    Ok(artifacts)
}

/// Lays out the package's tree under `target/dist-stage/` and builds the `.deb`.
fn debian_package(platform: &'static Platform) -> Result<Artifact> {
    let built = cross::build(platform, "emq-id-c", Linkage::Default)?;
    let multiarch = platform.multiarch();
    let stage = root().join("target/dist-stage").join(format!("{PACKAGE}-{}", platform.deb_arch));
    let _ = std::fs::remove_dir_all(&stage);
    let libdir = stage.join("usr/lib").join(&multiarch);
    crate::mkdir(libdir.join("pkgconfig"))?;
    crate::mkdir(stage.join("usr/include"))?;
    crate::mkdir(stage.join("usr/share/doc").join(PACKAGE))?;

    let version = dist::version();
    let soname = super::build::soname();
    copy(&built.join("libemqid.a"), &libdir.join("libemqid.a"))?;
    // Debian ships libraries without their debug sections.
    sh(cross::strip(platform)?.arg("--strip-debug").arg(libdir.join("libemqid.a")))?;
    let shared = format!("libemqid.so.{version}");
    copy(&built.join("libemqid.so"), &libdir.join(&shared))?;
    sh(cross::strip(platform)?.arg("--strip-unneeded").arg(libdir.join(&shared)))?;
    eprintln!("xtask: {}", dist::elf::check_loaded(&libdir.join(&shared), platform)?);
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
    copy(&root().join("bindings/c/README.md"), &stage.join("usr/share/doc").join(PACKAGE).join("README.md"))?;

    let deb = deb::build(
        &stage,
        &deb::Control {
            package: PACKAGE,
            architecture: platform.deb_arch,
            depends: "libc6 (>= 2.17)",
            section: "libdevel",
            description: "EchoMQ branded ids and Valkey Cluster key placement (C library)\n \
                          emq-id's C ABI: encode, decode and mint 14-byte branded snowflake ids,\n \
                          and place keys on a Valkey Cluster (CRC16 hash slots, the bus's keyspace).\n \
                          Static and shared library, emq_id.h and the pkg-config file emqid.pc.",
        },
        &dist::dir()?,
    )?;
    let version = deb::field(&deb, "Version")?;
    Ok(Artifact { runtime: "C", platform: Some(platform), path: deb, version })
}

/// `libemqid-<version>-<triple>.tar.gz`: `lib/libemqid.a`, `lib/pkgconfig/emqid.pc`,
/// `include/emq_id.h`, the package's README.md (with how to link this
/// tarball) and the licences, under one top directory; for programs
/// linked statically against musl (no shared library: a musl program that
/// loads one is not the static program this serves).
fn static_tarball(platform: &'static Platform) -> Result<Artifact> {
    let built = cross::build(platform, "emq-id-c", Linkage::Default)?;
    let top = format!("libemqid-{}-{}", dist::version(), platform.triple);
    let stage = root().join("target/dist-stage").join(&top);
    let _ = std::fs::remove_dir_all(&stage);
    crate::mkdir(stage.join("lib/pkgconfig"))?;
    crate::mkdir(stage.join("include"))?;
    copy(&built.join("libemqid.a"), &stage.join("lib/libemqid.a"))?;
    sh(cross::strip(platform)?.arg("--strip-debug").arg(stage.join("lib/libemqid.a")))?;
    copy(&root().join("bindings/c/include/emq_id.h"), &stage.join("include/emq_id.h"))?;
    let pc = PkgConfig {
        prefix: "${pcfiledir}/../..",
        libdir: "${prefix}/lib",
        includedir: "${prefix}/include",
        libs: "${libdir}/libemqid.a",
        libs_private: "",
    };
    crate::write(stage.join("lib/pkgconfig/emqid.pc"), pc.text())?;
    let readme = crate::read(root().join("bindings/c/README.md"))?;
    crate::write(stage.join("README.md"), format!("{}\n\n{}", readme.trim_end(), static_readme(platform)))?;
    dist::licenses_into(&stage)?;
    let tarball = dist::tarball(&stage)?;
    Ok(Artifact { runtime: "C", platform: Some(platform), path: tarball, version: dist::version().to_string() })
}

/// How to link the static library: Rust's standard library unwinds with the
/// `_Unwind_*` ABI and, on musl, leaves the unwinder to the final link (as
/// `rustc --print native-static-libs` says: `-lunwind`).
fn static_readme(platform: &Platform) -> String {
    format!(
        "## This tarball\n\n\
         libemqid {version} for {triple}: emq-id's C ABI as a static library, for programs linked\n\
         statically against musl.\n\n\
         \x20   cc -static -Iinclude your.c lib/libemqid.a -o your-program\n\n\
         The library needs an unwinder at the final link: gcc's `-static` adds its own (libgcc_eh);\n\
         with zig cc or clang add `-lunwind`:\n\n\
         \x20   zig cc -target {zig} -static -Iinclude your.c lib/libemqid.a -lunwind -o your-program\n",
        version = dist::version(),
        triple = platform.triple,
        zig = platform.zig_cc_target(),
    )
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    std::fs::copy(from, to).with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    Ok(())
}

/// `dpkg -i` the package, build each of the documentation's C examples with
/// `gcc $(pkg-config --cflags --libs emqid)` in an empty directory, run it,
/// and `dpkg -r` (also when a step fails).
pub fn from_outside(artifacts: &[Artifact]) -> Result<()> {
    let deb = dist::find_native(artifacts, "C", ".deb")?;
    let installed = deb::Installed::new(&deb.path)?;
    let dir = dist::scratch("c")?;
    let flags = pkg_config(&["--cflags", "--libs", "emqid"])?;
    let multiarch = deb::multiarch()?;
    let examples = crate::tree::readme::every("c")?;
    for example in &examples {
        crate::write(dir.join("example.c"), &example.text)?;
        sh(Command::new("gcc")
            .current_dir(&dir)
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "example.c"])
            .args(flags.split_whitespace())
            .args(["-o", "example"]))
        .with_context(|| example.place())?;
        let linked = sh_out(Command::new("ldd").arg(dir.join("example")))?;
        // /lib is /usr/lib on a merged-/usr system: either spelling is the installed file.
        ensure!(
            linked.contains(&format!("lib/{multiarch}/{} ", super::build::soname())),
            "the example is not linked against the installed libemqid.so: {linked}"
        );
        sh(Command::new(dir.join("example")).current_dir(&dir).env("EMQ_NODE_DIR", dir.join("claims")))
            .with_context(|| example.place())?;
        // The static library, for a program that must not depend on the package where it runs.
        sh(Command::new("gcc")
            .current_dir(&dir)
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "example.c"])
            .args(pkg_config(&["--cflags", "emqid"])?.split_whitespace())
            .arg("-l:libemqid.a")
            .args(SYSTEM_LIBS.split_whitespace())
            .args(["-o", "example-static"]))
        .with_context(|| example.place())?;
        let linked = sh_out(Command::new("ldd").arg(dir.join("example-static")))?;
        ensure!(!linked.contains("libemqid"), "the static example still needs libemqid.so: {linked}");
        sh(Command::new(dir.join("example-static")).current_dir(&dir).env("EMQ_NODE_DIR", dir.join("claims")))
            .with_context(|| example.place())?;
    }
    println!("dist: {PACKAGE} installed; the documentation's {} C examples built with `gcc $(pkg-config --cflags --libs emqid)` ({flags}) and ran, linked to the installed libemqid.so; and with -l:libemqid.a, needing no library where it runs", examples.len());
    drop(installed);
    deb::ensure_removed(PACKAGE)
}

/// Every other platform's library, used where it can run: the documentation's C
/// examples built by zig against each (the arm64 `.deb` unpacked, linked
/// shared and run under qemu over Debian's arm64 root; each musl tarball
/// linked statically and run on its architecture, natively or under qemu).
pub fn other_platforms(artifacts: &[Artifact]) -> Result<()> {
    for artifact in artifacts.iter().filter(|a| a.runtime == "C") {
        let Some(platform) = artifact.platform else { continue };
        if platform.native_here() && platform.libc == Libc::Gnu {
            continue; // installed with dpkg by from_outside
        }
        let dir = dist::scratch(&format!("c-{}", platform.name))?;
        let (flags, mut run) = match platform.libc {
            Libc::Gnu => {
                sh(Command::new("dpkg-deb").arg("-x").arg(&artifact.path).arg(dir.join("root")))?;
                let root = dir.join("root");
                let lib = root.join("usr/lib").join(platform.multiarch());
                let flags = vec![
                    format!("-I{}", root.join("usr/include").display()),
                    format!("-L{}", lib.display()),
                    "-lemqid".to_string(),
                ];
                let mut run = emulated::qemu(&emulated::arm64_root()?, &dir.join("example"));
                run.env("LD_LIBRARY_PATH", &lib);
                (flags, run)
            }
            Libc::Musl => {
                sh(Command::new("tar").arg("-xzf").arg(&artifact.path).arg("-C").arg(&*dir))?;
                let top = dir.join(format!("libemqid-{}-{}", dist::version(), platform.triple));
                // As the tarball's README says for zig: the unwinder is the final link's.
                let flags = vec![
                    "-static".to_string(),
                    format!("-I{}", top.join("include").display()),
                    top.join("lib/libemqid.a").display().to_string(),
                    "-lunwind".to_string(),
                ];
                let run = if platform.native_here() {
                    Command::new(dir.join("example"))
                } else {
                    emulated::qemu_static(&dir.join("example"))?
                };
                (flags, run)
            }
        };
        let zig = cross::tools(platform)?;
        let zig_target = platform.zig_cc_target();
        let examples = crate::tree::readme::every("c")?;
        for example in &examples {
            crate::write(dir.join("example.c"), &example.text)?;
            sh(zig
                .python()
                .current_dir(&dir)
                .args(["-m", "ziglang", "cc", "-target", &zig_target, "-std=c11", "-Wall", "-Werror", "example.c"])
                .args(&flags)
                .args(["-o", "example"]))
            .with_context(|| example.place())?;
            sh(run.current_dir(&dir).env("EMQ_NODE_DIR", dir.join("claims"))).with_context(|| example.place())?;
        }
        println!(
            "dist: {}: the documentation's {} C examples built against it by zig ({zig_target}) and ran",
            artifact.file_name(),
            examples.len()
        );
    }
    Ok(())
}

/// pkg-config as a user runs it: the system's directories, not the checkout's.
pub fn pkg_config(args: &[&str]) -> Result<String> {
    Ok(sh_out(Command::new("pkg-config").args(args).env_remove("PKG_CONFIG_PATH"))?.trim().to_string())
}
