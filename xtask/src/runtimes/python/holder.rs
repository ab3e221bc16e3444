//! The Python holders of `cargo xtask chaos`'s fleet: `bindings/python/examples/chaos_holder.py`
//! (`emq_id.holder.Lease` over redis-py, and `AsyncLease` over `redis.asyncio`), run by a virtual environment at
//! `target/python/holder` that holds redis-py (pinned) and the wheel built by this run.

use anyhow::Result;

use super::{Venv, PACKAGE};
use crate::root;
use crate::runtimes::valkey::chaos::holder::Program;

/// The Valkey client the holder is tried with: redis-py, pinned.
pub const REDIS: &str = "redis==8.1.0";

/// The environment the holders run in: redis-py, and the wheel of this
/// checkout (built when stale, reinstalled).
pub fn environment() -> Result<Venv> {
    let wheel = super::build::wheel()?;
    let env = super::setup::venv("holder", &[REDIS], "the Python lease holders")?;
    super::build::install(&env, &wheel)?;
    Ok(env)
}

/// The holder programs, in [`environment`]: `Lease` over redis-py, and
/// `AsyncLease` over `redis.asyncio` (renewing on a task of the loop that mints).
pub fn chaos_holders() -> Result<Vec<Program>> {
    let env = environment()?;
    let script = root().join(PACKAGE).join("examples/chaos_holder.py").to_string_lossy().into_owned();
    let program = |runtime: &'static str, extra: &[&str]| Program {
        runtime,
        program: env.dir.join("bin/python"),
        args: std::iter::once(script.clone()).chain(extra.iter().map(|a| a.to_string())).collect(),
        env: vec![],
    };
    Ok(vec![program("python", &[]), program("python-asyncio", &["--asyncio"])])
}
