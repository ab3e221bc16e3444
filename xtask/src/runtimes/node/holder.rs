//! The Node holders of `cargo xtask chaos`'s fleet and of the holders' live
//! tests: `bindings/node/examples/chaos_holder.js` (`@echomq/emq-id/holder`'s
//! `Lease`), once over ioredis and once over node-redis, the two clients a
//! Node program has; both pinned as the package's dev dependencies.

use anyhow::Result;

use super::PACKAGE;
use crate::root;
use crate::runtimes::valkey::chaos::holder::Program;

/// The two holder programs, the package built and its dev dependencies installed.
pub fn chaos_holders() -> Result<Vec<Program>> {
    super::build::package()?;
    super::bench::dev_dependencies()?;
    let script = root().join(PACKAGE).join("examples/chaos_holder.js").to_string_lossy().into_owned();
    let program = |runtime: &'static str, client: &str| Program {
        runtime,
        program: "node".into(),
        args: vec![script.clone(), "--client".into(), client.into()],
        env: vec![],
    };
    Ok(vec![program("node-ioredis", "ioredis"), program("node-redis", "node-redis")])
}
