//! The `python` target: conformance/python/adapter.py in a fresh virtual
//! environment holding only the wheel, speaking JSON lines on stdin and stdout.

use anyhow::Result;

use crate::conformance::adapter::{Adapter, ProcessAdapter};
use crate::root;

/// Builds the wheel, installs it into a fresh environment
/// (`target/python/conformance`), then hands back the adapter's process.
pub fn prepare() -> Result<Box<dyn Adapter>> {
    let wheel = super::build::wheel()?;
    let env = super::build::fresh("conformance", &wheel)?;
    let mut command = env.python();
    // `-I`: isolated, so nothing but the environment's site-packages (not the
    // checkout, not the user's site) can answer `import emq_id`.
    command.arg("-I").arg(root().join("conformance/python/adapter.py"));
    Ok(Box::new(ProcessAdapter { command }))
}
