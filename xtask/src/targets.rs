//! The conformance targets: how each runtime is prepared and reached.
//! Adding a runtime is adding a row to [`TARGETS`] and an adapter that translates.

use std::process::Command;

use crate::conformance::adapter::{Adapter, ProcessAdapter};
use crate::conformance::{cli::CliAdapter, rust::RustAdapter};
use crate::{root, sh};

pub struct Target {
    pub name: &'static str,
    pub about: &'static str,
    /// Builds (and installs what is missing), then hands back the adapter.
    pub prepare: fn() -> Result<Box<dyn Adapter>, String>,
    /// The sections this runtime can answer; `None` is all of them. A target
    /// with a narrower scope shows `-` in the matrix for the others.
    pub scope: Option<&'static [&'static str]>,
    /// The answer fields this runtime can know; `None` is all of them (a
    /// server computes a slot but does not report the hashtag it hashed).
    pub fields: Option<&'static [&'static str]>,
}

impl Target {
    pub fn covers(&self, section: &str) -> bool {
        self.scope.is_none_or(|s| s.contains(&section))
    }
}

pub const TARGETS: &[Target] = &[
    Target { name: "rust", about: "the core crate's public API, in process", prepare: rust, scope: None, fields: None },
    Target { name: "cli", about: "the emq-id binary, one run per request", prepare: cli, scope: None, fields: None },
    Target {
        name: "go",
        about: "the Go module (cgo over the C ABI), conformance/go",
        prepare: go,
        scope: None,
        fields: None,
    },
    Target {
        name: "node",
        about: "the Node package (napi-rs), conformance/node",
        prepare: node,
        scope: None,
        fields: None,
    },
    Target {
        name: "node-wasm",
        about: "the Node package on its WebAssembly fallback (EMQ_ID_BACKEND=wasm), conformance/node",
        prepare: node_wasm,
        scope: None,
        fields: None,
    },
    Target {
        name: "wasm-node",
        about: "the WASM package in Node (its require entry), conformance/node",
        prepare: wasm_node,
        scope: None,
        fields: None,
    },
    Target {
        name: "wasm-browser",
        about: "the WASM package in headless Chromium (its browser entry), conformance/wasm",
        prepare: wasm_browser,
        scope: None,
        fields: None,
    },
    Target {
        name: "postgres",
        about: "the PostgreSQL 15 extension on a live server, conformance/postgres",
        prepare: postgres,
        scope: None,
        fields: None,
    },
    Target {
        name: "elixir",
        about: "the Elixir binding (a rustler NIF, Mix project), conformance/elixir",
        prepare: elixir,
        scope: None,
        fields: None,
    },
    Target {
        name: "valkey",
        about: "a live Valkey 9: every slot case through CLUSTER KEYSLOT (slot only)",
        prepare: valkey,
        scope: Some(&["slots"]),
        fields: Some(&["slot"]),
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
    Ok(Box::new(CliAdapter { binary: root().join("target/debug/emq-id") }))
}

fn go() -> Result<Box<dyn Adapter>, String> {
    let binary = crate::native::go_adapter()?;
    Ok(Box::new(ProcessAdapter { command: Command::new(binary) }))
}

fn node() -> Result<Box<dyn Adapter>, String> {
    crate::node::build()?;
    Ok(Box::new(ProcessAdapter { command: crate::node::adapter(None) }))
}

fn node_wasm() -> Result<Box<dyn Adapter>, String> {
    crate::node::build()?;
    let mut command = crate::node::adapter(None);
    command.env("EMQ_ID_BACKEND", "wasm");
    Ok(Box::new(ProcessAdapter { command }))
}

fn valkey() -> Result<Box<dyn Adapter>, String> {
    Ok(Box::new(crate::valkey::KeyslotAdapter::start()?))
}

fn wasm_node() -> Result<Box<dyn Adapter>, String> {
    crate::wasm::build()?;
    Ok(Box::new(ProcessAdapter { command: crate::node::adapter(Some(crate::wasm::PACKAGE)) }))
}

fn wasm_browser() -> Result<Box<dyn Adapter>, String> {
    crate::wasm::build()?;
    Ok(Box::new(crate::wasm::BrowserAdapter))
}

/// Targets named by a group: `--target wasm` runs the WASM package in Node and in a browser,
/// `--target node` the Node package on each of its backends.
pub fn expand(name: &str) -> Vec<&'static str> {
    match name {
        "wasm" => vec!["wasm-node", "wasm-browser"],
        "node" => vec!["node", "node-wasm"],
        _ => TARGETS.iter().filter(|t| t.name == name).map(|t| t.name).collect(),
    }
}

fn elixir() -> Result<Box<dyn Adapter>, String> {
    Ok(Box::new(ProcessAdapter { command: crate::elixir::adapter()? }))
}

fn postgres() -> Result<Box<dyn Adapter>, String> {
    Ok(Box::new(crate::postgres::PgAdapter::start()?))
}
