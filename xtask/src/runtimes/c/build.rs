//! Building the C ABI's library, which the C tests, the Go module and the
//! book's C example link, and the pkg-config file that says how to link it.

use std::process::Command;

use anyhow::{Context, Result};

use crate::{root, sh};

/// The shared library's SONAME: `libemqid.so.<major>`, and while the major
/// is 0, `libemqid.so.0.<minor>` (in semver a 0.x minor is a breaking
/// release). `bindings/c/build.rs` sets the same name when it links; this
/// is the xtask's copy of the rule (a build script cannot import it), and
/// `runtimes/c/dist.rs` checks the built library says this name.
pub fn soname() -> String {
    let version = crate::dist::version();
    let mut parts = version.split('.');
    let (major, minor) = (parts.next().unwrap_or("0"), parts.next().unwrap_or("0"));
    if major == "0" {
        format!("libemqid.so.0.{minor}")
    } else {
        format!("libemqid.so.{major}")
    }
}

/// Builds `target/release/libemqid.{a,so}`, links the SONAME beside the
/// shared library (so a program linked against it there runs with
/// `LD_LIBRARY_PATH=target/release`), and writes the in-tree
/// `target/pkgconfig/emqid.pc` ([`in_tree_pc`]).
pub fn library() -> Result<()> {
    crate::setup::apt(&["pkg-config"], "linking libemqid through emqid.pc (the Go module, libemqid-dev)")?;
    sh(Command::new("cargo").args(["build", "--quiet", "--release", "-p", "emq-id-c"]))?;
    let link = root().join("target/release").join(soname());
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink("libemqid.so", &link).with_context(|| format!("linking {}", link.display()))?;
    crate::mkdir(root().join("target/pkgconfig"))?;
    crate::write(root().join("target/pkgconfig/emqid.pc"), in_tree_pc())
}

/// A pkg-config file for the library: where its header and library are, and
/// what a program links.
pub struct PkgConfig<'a> {
    pub prefix: &'a str,
    pub libdir: &'a str,
    pub includedir: &'a str,
    pub libs: &'a str,
    pub libs_private: &'a str,
}

impl PkgConfig<'_> {
    pub fn text(&self) -> String {
        format!(
            "prefix={}\nlibdir={}\nincludedir={}\n\nName: emqid\n\
             Description: EchoMQ branded ids and Valkey Cluster key placement (emq-id's C ABI)\n\
             Version: {}\nURL: {}\nCflags: -I${{includedir}}\nLibs: {}\nLibs.private: {}\n",
            self.prefix,
            self.libdir,
            self.includedir,
            crate::dist::version(),
            env!("CARGO_PKG_REPOSITORY"),
            self.libs,
            self.libs_private
        )
    }
}

/// The Rust standard library's needs, which a static libemqid carries.
pub const SYSTEM_LIBS: &str = "-lpthread -ldl -lm";

/// The checkout's own `emqid.pc`: the header in `bindings/c/include` and the
/// static library in `target/release`, so an in-tree Go build needs nothing
/// installed (`PKG_CONFIG_PATH=target/pkgconfig`, which [`crate::runtimes::go::go`] sets).
pub fn in_tree_pc() -> String {
    let prefix = root().display().to_string();
    PkgConfig {
        prefix: &prefix,
        libdir: "${prefix}/target/release",
        includedir: "${prefix}/bindings/c/include",
        libs: &format!("${{libdir}}/libemqid.a {SYSTEM_LIBS}"),
        libs_private: "",
    }
    .text()
}
