//! The extension's SQL tests, beside it in `bindings/postgres/tests/pg_regress/`
//! (`sql/NAME.sql`, and `expected/NAME.out`, what psql must print for it), run
//! by PostgreSQL's own `pg_regress` against a live server. `UPDATE_EXPECT=1`
//! writes what the server printed into `expected/` (read the diff before
//! committing it). A negative control runs a copy whose expected output has
//! one answer changed, which must fail.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

use super::server::Cluster;
use super::{EXTENSION, PG_BIN, PG_CONFIG};
use crate::root;

/// PostgreSQL's regression runner, under the server's `pkglibdir` (Debian's
/// postgresql-client package ships it).
fn pg_regress_program() -> Result<PathBuf> {
    let lib = crate::sh_out(Command::new(PG_CONFIG).arg("--pkglibdir"))?;
    Ok(Path::new(lib.trim()).join("pgxs/src/test/regress/pg_regress"))
}

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
    if std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1") {
        for name in &names {
            let result = out.join("results").join(format!("{name}.out"));
            std::fs::copy(&result, tests.join("expected").join(format!("{name}.out")))
                .with_context(|| format!("copying {}", result.display()))?;
        }
        eprintln!(
            "xtask: UPDATE_EXPECT=1: {} written from what the server printed (the control not run)",
            tests.join("expected").display()
        );
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

/// The (SQLSTATE, gate) of every row of the refusal table `refusals.sql`
/// expects, which pg_regress has seen the server print: every row must be a
/// refusal by a gate of the core (an `accepted`, or another error, is not),
/// and the rows must be the count psql printed under them.
pub fn refusals() -> Result<Vec<(String, String)>> {
    let path = root().join(EXTENSION).join("tests/pg_regress/expected/refusals.out");
    let expected = crate::read(&path)?;
    let mut lines = expected.lines().skip_while(|l| !l.split('|').map(str::trim).eq(["statement", "refusal"]));
    ensure!(lines.next().is_some() && lines.next().is_some(), "{}: no refusal table", path.display());
    let mut found = vec![];
    for line in lines.by_ref().take_while(|l| !l.starts_with('(')) {
        let answer = line.rsplit_once(" | ").map(|(_, a)| a.trim()).unwrap_or_default();
        let refusal = answer
            .split_once(' ')
            .filter(|(state, gate)| state.len() == 5 && emq_id::Gate::ALL.iter().any(|g| g.name() == *gate));
        let Some((state, gate)) = refusal else {
            bail!("{}: {line:?} is not a refusal by a gate of the core", path.display());
        };
        found.push((state.to_string(), gate.to_string()));
    }
    let counted = expected.lines().find(|l| l.ends_with(" rows)") && l.starts_with('(')).unwrap_or_default();
    ensure!(
        counted == format!("({} rows)", found.len()),
        "{}: {} refusals read, psql said {counted}",
        path.display(),
        found.len()
    );
    Ok(found)
}

/// `pg_regress` of `names` from `input` into `output` on `cluster` (a fresh
/// database with the extension created); whether every test printed what it expects.
fn pg_regress(cluster: &Cluster, input: &Path, output: &Path, names: &[String]) -> Result<bool> {
    let _ = std::fs::remove_dir_all(output);
    crate::mkdir(output)?;
    let status = Command::new(pg_regress_program()?)
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
