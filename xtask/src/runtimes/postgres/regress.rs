//! The extension's SQL tests, beside it in `bindings/postgres/tests/pg_regress/`
//! (`sql/NAME.sql`, and `expected/NAME.out`, what psql must print for it), run
//! by PostgreSQL's own `pg_regress` against a live server. `UPDATE_EXPECT=1`
//! writes what the server printed into `expected/` (read the diff before
//! committing it). A negative control runs a copy whose expected output has
//! one answer changed, which must fail.

use std::path::Path;
use std::process::Command;

use anyhow::{ensure, Context, Result};

use super::server::Cluster;
use super::{EXTENSION, PG_BIN};
use crate::root;

/// PostgreSQL's regression runner (Debian's postgresql-client-15 ships it).
const PG_REGRESS: &str = "/usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress";

/// Every `sql/*.sql` test, then the control.
pub fn run(cluster: &Cluster) -> Result<()> {
    let tests = root().join(EXTENSION).join("tests/pg_regress");
    let names: Vec<String> = crate::files_under(&tests.join("sql"), "sql")?
        .iter()
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    ensure!(!names.is_empty(), "no SQL tests in {}", tests.display());
    let out = root().join("target/pg_regress");
    let passed = pg_regress(cluster, &tests, &out, &names)?;
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        for name in &names {
            let result = out.join("results").join(format!("{name}.out"));
            std::fs::copy(&result, tests.join("expected").join(format!("{name}.out")))
                .with_context(|| format!("copying {}", result.display()))?;
        }
        eprintln!("xtask: UPDATE_EXPECT: {} written from what the server printed", tests.join("expected").display());
        return Ok(());
    }
    let diffs = out.join("regression.diffs");
    ensure!(passed, "pg_regress: the server printed other than expected:\n{}", crate::read(&diffs).unwrap_or_default());

    // The control: the same tests, one expected answer changed.
    let control = root().join("target/pg_regress-control");
    let _ = std::fs::remove_dir_all(&control);
    for file in crate::files_under(&tests, "sql")?.into_iter().chain(crate::files_under(&tests, "out")?) {
        let to = control.join(file.strip_prefix(&tests)?);
        crate::mkdir(to.parent().context("a test file has a folder")?)?;
        std::fs::copy(&file, &to).with_context(|| format!("copying {}", file.display()))?;
    }
    let expected = control.join("expected/refusals.out");
    let text = crate::read(&expected)?;
    ensure!(text.contains("| 22P02 length"), "{}: no `22P02 length` answer to change", expected.display());
    crate::write(&expected, text.replacen("| 22P02 length", "| 22023 length", 1))?;
    ensure!(
        !pg_regress(cluster, &control, &control.join("out"), &names)?,
        "pg_regress passed an expected output with one answer changed"
    );
    println!("postgres: pg_regress {} passed; one answer changed in refusals.out fails it", names.join(", "));
    Ok(())
}

/// The (SQLSTATE, gate) of every refusal `refusals.sql` expects, which
/// pg_regress has seen the server raise: rows that end `| 22P02 length`.
pub fn refusals() -> Result<Vec<(String, String)>> {
    let expected = crate::read(root().join(EXTENSION).join("tests/pg_regress/expected/refusals.out"))?;
    let found: Vec<(String, String)> = expected
        .lines()
        .filter_map(|line| line.rsplit_once(" | "))
        .filter_map(|(_, answer)| answer.trim().split_once(' '))
        .filter(|(state, gate)| state.len() == 5 && !gate.contains(' '))
        .map(|(state, gate)| (state.to_string(), gate.to_string()))
        .collect();
    ensure!(found.len() > 20, "refusals.out holds {} refusals: is it the SQL test's output?", found.len());
    Ok(found)
}

/// `pg_regress` of `names` from `input` into `output` on `cluster` (a fresh
/// database with the extension created); whether every test printed what it expects.
fn pg_regress(cluster: &Cluster, input: &Path, output: &Path, names: &[String]) -> Result<bool> {
    let _ = std::fs::remove_dir_all(output);
    crate::mkdir(output)?;
    let status = Command::new(PG_REGRESS)
        .arg(format!("--inputdir={}", input.display()))
        .arg(format!("--outputdir={}", output.display()))
        .arg(format!("--bindir={PG_BIN}"))
        .arg(format!("--host={}", cluster.dir().display()))
        .arg(format!("--port={}", cluster.port()))
        .args(["--user=postgres", "--dbname=emq_regress", "--load-extension=emq_id"])
        .args(names)
        .status()
        .context("running pg_regress")?;
    Ok(status.success())
}
