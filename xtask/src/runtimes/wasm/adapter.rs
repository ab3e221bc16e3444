//! The two targets that run the WASM package: `wasm-node` (its require entry,
//! through the Node adapter script) and `wasm-browser` (its browser entry, in
//! Chromium; see [`super::browser`]).

use anyhow::Result;

use super::{browser::BrowserAdapter, PACKAGE};
use crate::conformance::adapter::{Adapter, ProcessAdapter};
use crate::runtimes::node;

pub fn prepare_node() -> Result<Box<dyn Adapter>> {
    super::build::package()?;
    Ok(Box::new(ProcessAdapter { command: node::adapter::command(Some(PACKAGE)) }))
}

pub fn prepare_browser() -> Result<Box<dyn Adapter>> {
    super::build::package()?;
    super::setup::chromium()?;
    Ok(Box::new(BrowserAdapter))
}
