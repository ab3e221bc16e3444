//! The Python holder of `cargo xtask chaos`'s fleet: `bindings/python/examples/chaos_holder.py`
//! (`emq_id.holder.Lease` over redis-py), run by a virtual environment at
//! `target/python/holder` that holds redis-py (pinned) and the wheel built by this run.

use anyhow::Result;

use super::PACKAGE;
use crate::root;
use crate::runtimes::valkey::chaos::holder::Program;

/// The Valkey client the holder is tried with: redis-py, pinned.
pub const REDIS: &str = "redis==8.1.0";

/// The holder program, its environment made when missing and the wheel reinstalled.
pub fn chaos_holder() -> Result<Program> {
    let wheel = super::build::wheel()?;
    let env = super::setup::venv("holder", &[REDIS], "the Python chaos holder")?;
    super::build::install(&env, &wheel)?;
    Ok(Program {
        runtime: "python",
        program: env.dir.join("bin/python"),
        args: vec![root().join(PACKAGE).join("examples/chaos_holder.py").to_string_lossy().into_owned()],
        env: vec![],
    })
}
