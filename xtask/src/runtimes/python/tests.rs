//! The Python binding's checks: pytest over the installed wheel, mypy
//! --strict over the tests, the conformance adapter and the chaos holder
//! (against the package's stub and redis-py's types) and over the package's
//! own Python modules, stubtest (the stub against the package as it runs).
//! The proof that it is a real package (`package.rs`) runs in the suite's
//! from-outside step (`dist.rs`).

use anyhow::Result;

use super::setup::{MYPY, PYTEST};
use super::PACKAGE;
use crate::{root, sh};

/// pytest, mypy --strict and stubtest in `target/python/test` (pytest, mypy
/// and redis-py from PyPI, the wheel reinstalled).
pub fn run() -> Result<()> {
    let wheel = super::build::wheel()?;
    let env = super::setup::venv("test", &[PYTEST, MYPY, super::holder::REDIS], "the Python binding's tests")?;
    super::build::install(&env, &wheel)?;

    let claims = super::dir("test-claims");
    let _ = std::fs::remove_dir_all(&claims);
    sh(env
        .python()
        .current_dir(root().join(PACKAGE))
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"])
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("EMQ_NODE_DIR", &claims)
        // The holder's live tests start Valkey: the server xtask installs for every live test.
        .env("EMQ_VALKEY_SERVER", crate::runtimes::valkey::setup::server_binary()?)
        .env_remove("EMQ_NODE"))?;

    // The tests, the adapter and the chaos holder against the stub, and the package's own
    // Python modules as installed (`-p emq_id`); mypy's cache in target/, not in the tree.
    let package = root().join(PACKAGE);
    let cache = super::dir("mypy-cache");
    sh(env
        .python()
        .current_dir(&package)
        .args(["-m", "mypy", "--strict", "tests"])
        .arg(root().join("conformance/python/adapter.py"))
        .arg("examples/chaos_holder.py")
        .env("MYPY_CACHE_DIR", &cache))?;
    sh(env
        .python()
        .current_dir(&package)
        .args(["-m", "mypy", "--strict", "-p", "emq_id"])
        .env("MYPY_CACHE_DIR", &cache))?;
    // stubtest keeps its cache in the directory it runs in.
    crate::mkdir(&cache)?;
    sh(env
        .python()
        .current_dir(&cache)
        .args(["-m", "mypy.stubtest", "emq_id", "--allowlist"])
        .arg(package.join("stubtest-allowlist.txt")))
}
