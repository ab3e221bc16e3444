//! The two targets that run the WASM package: `wasm-node` (its require entry,
//! through the Node adapter script) and `wasm-browser` (its browser entry, in
//! Chromium, on conformance/wasm/harness.html; see [`super::browser`]).

use std::time::Duration;

use anyhow::{bail, Result};
use serde_json::Value;

use super::browser::{self, Page};
use super::PACKAGE;
use crate::conformance::adapter::{Adapter, ProcessAdapter};
use crate::runtimes::node;

pub fn prepare_node() -> Result<Box<dyn Adapter>> {
    super::build::package()?;
    Ok(Box::new(ProcessAdapter { command: node::adapter::command(Some(PACKAGE)) }))
}

pub fn prepare_browser() -> Result<Box<dyn Adapter>> {
    super::build::package()?;
    browser::prepare()?;
    Ok(Box::new(BrowserAdapter))
}

/// The harness page, the package and the shared translator, in Chromium.
struct BrowserAdapter;

impl Adapter for BrowserAdapter {
    fn answer_all(&mut self, requests: &[Value]) -> Result<Vec<Value>> {
        let posted = browser::run(Page {
            html: "conformance/wasm/harness.html",
            dirs: &[("/pkg/", PACKAGE), ("/js/", "conformance/js"), ("/", "conformance/wasm")],
            input: Value::from(requests),
            // Chromium starts, loads the page and answers within it (a few seconds here).
            deadline: Duration::from_secs(120),
        })?;
        eprintln!("xtask: answered by {}", posted.user_agent);
        match posted.result {
            Value::Array(answers) => Ok(answers),
            _ => bail!("the browser posted no answers array"),
        }
    }
}
