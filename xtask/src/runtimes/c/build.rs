//! Building the C ABI's library, which the C tests, the Go module and the
//! README's C example link, and the pkg-config file that says how to link it.

use std::process::Command;

use anyhow::Result;

use crate::{root, sh};

/// Builds `target/release/libemqid.{a,so}`, and writes the in-tree
/// `target/pkgconfig/emqid.pc` ([`in_tree_pc`]).
pub fn library() -> Result<()> {
    crate::setup::apt(&["pkg-config"], "linking libemqid through emqid.pc (the Go module, libemqid-dev)")?;
    sh(Command::new("cargo").args(["build", "--quiet", "--release", "-p", "emq-id-c"]))?;
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
