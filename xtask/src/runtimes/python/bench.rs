//! `cargo xtask bench python`: bindings/python/bench/bench.py, each call
//! beside the empty call (`_noop`, the floor, in a wheel built with the
//! `bench` feature) and the anchors a Python user
//! would pick instead, installed from PyPI into the benchmark's own
//! environment: redis-py's `redis.crc.key_slot` and `python-ulid`.

use anyhow::Result;

use super::PACKAGE;
use crate::{root, sh_out};

/// The anchors, pinned.
const ANCHORS: &[&str] = &["redis==8.1.0", "python-ulid==4.1.0"];

/// `cargo xtask bench python`: one run, the table for the performance page.
pub fn run() -> Result<()> {
    let wheel = super::build::bench_wheel()?;
    let env = super::setup::venv("bench", ANCHORS, "the Python benchmark's anchors")?;
    super::build::install(&env, &wheel)?;
    let tables = sh_out(
        env.python()
            .arg("-I")
            .arg(root().join(PACKAGE).join("bench/bench.py"))
            .env("EMQ_NODE_DIR", crate::bench::record::claims()),
    )?;
    crate::bench::record::write("python", &tables)
}
