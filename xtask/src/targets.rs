//! The conformance targets: how each runtime is prepared and reached.
//! Adding a runtime is adding a row to [`TARGETS`] and an adapter that translates.

use std::process::Command;

use crate::conformance::{adapter::Adapter, cli::CliAdapter, rust::RustAdapter};
use crate::{root, sh};

pub struct Target {
    pub name: &'static str,
    pub about: &'static str,
    /// Builds (and installs what is missing), then hands back the adapter.
    pub prepare: fn() -> Result<Box<dyn Adapter>, String>,
}

pub const TARGETS: &[Target] = &[
    Target {
        name: "rust",
        about: "the core crate's public API, in process",
        prepare: rust,
    },
    Target {
        name: "cli",
        about: "the emq-id binary, one run per request",
        prepare: cli,
    },
];

pub fn find(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

fn rust() -> Result<Box<dyn Adapter>, String> {
    Ok(Box::new(RustAdapter))
}

fn cli() -> Result<Box<dyn Adapter>, String> {
    sh(Command::new("cargo").args(["build", "--quiet", "-p", "emq-id-cli"]))?;
    Ok(Box::new(CliAdapter {
        binary: root().join("target/debug/emq-id"),
    }))
}
