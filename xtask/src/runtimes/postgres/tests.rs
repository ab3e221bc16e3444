//! Tests of the extension on a live server, beyond the vector file: a
//! `COMMENT ON` on every object and the SQL reference (`comments.rs`); the SQL
//! tests beside the extension (`regress.rs`: ordering, refusals and their
//! SQLSTATEs, NULLs, the hash opclass); minting from many connections, index
//! use, binary COPY, every gate's SQLSTATE against SPEC.md §9, the self-check
//! that refuses `CREATE EXTENSION`, the refusal to mint without shared memory,
//! and the book's SQL as written; then the faults (`faults.rs`), a clock that
//! jumps (`clock.rs`), and standbys, crashes and failovers (`standby.rs`).

use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Context, Result};

use super::server::Cluster;

fn expect(cond: bool, what: &str) -> Result<()> {
    ensure!(cond, "postgres: {what}");
    Ok(())
}

/// `cargo xtask pg-tests`: every test below, on one server (and one more
/// without the library preloaded).
pub fn run() -> Result<()> {
    super::build::install()?;
    let cluster = Cluster::start()?;
    super::comments::run(&cluster)?;
    super::regress::run(&cluster)?;
    concurrent_minting(&cluster)?;
    index_scans(&cluster)?;
    binary_copy(&cluster)?;
    gate_sqlstates(&cluster)?;
    self_check_at_load(&cluster)?;
    readme_sql(&cluster)?;
    super::faults::run(&cluster)?;
    drop(cluster);
    super::clock::run()?;
    not_preloaded()?;
    super::standby::run()?;
    Ok(())
}

/// 8 connections × 100,000 mints into a table with a unique index: no
/// violation, and each connection's ids increase.
fn concurrent_minting(c: &Cluster) -> Result<()> {
    const CONNECTIONS: usize = 8;
    const EACH: usize = 100_000;
    c.psql("CREATE TABLE minted (s bigint PRIMARY KEY, conn int, n int);")?;
    let started = std::time::Instant::now();
    let children: Vec<_> = (0..CONNECTIONS)
        .map(|conn| {
            c.spawn(&format!(
                "INSERT INTO minted SELECT emq_mint_snowflake(), {conn}, g FROM generate_series(1, {EACH}) g"
            ))
        })
        .collect::<Result<_, _>>()?;
    for child in children {
        let out = child.wait_with_output().context("waiting for psql")?;
        expect(
            out.status.success(),
            &format!("a minting connection failed: {}", String::from_utf8_lossy(&out.stderr)),
        )?;
    }
    let rows = c.one("SELECT count(*) FROM minted")?;
    let decreasing = c.one(
        "SELECT count(*) FROM (SELECT s, lag(s) OVER (PARTITION BY conn ORDER BY n) AS p FROM minted) t WHERE s <= p",
    )?;
    let node = c.one("SELECT count(DISTINCT emq_node(s)) || ':' || min(emq_node(s)) FROM minted")?;
    expect(rows == (CONNECTIONS * EACH).to_string(), &format!("{rows} rows, not {}", CONNECTIONS * EACH))?;
    expect(decreasing == "0", &format!("{decreasing} ids did not increase within their connection"))?;
    expect(node == "1:1", "every id carries emq_id.node = 1")?;
    println!(
        "postgres: {CONNECTIONS} connections x {EACH} mints: {rows} unique ids, 0 duplicates, 0 out of order ({:.1}s)",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Equality and range queries use the indexes (btree and hash on the type, btree on bigint).
fn index_scans(c: &Cluster) -> Result<()> {
    c.psql(
        "CREATE TABLE jobs (id branded_id PRIMARY KEY, s bigint, payload text);
         INSERT INTO jobs SELECT id, emq_snowflake(id), 'x' FROM (SELECT emq_mint_id('JOB') AS id FROM generate_series(1, 100000)) t;
         CREATE INDEX jobs_s ON jobs (s);
         CREATE INDEX jobs_id_hash ON jobs USING hash (id);
         ANALYZE jobs;",
    )?;
    let some = c.one("SELECT id::text FROM jobs ORDER BY id OFFSET 5000 LIMIT 1")?;
    for (what, query, want) in [
        ("equality on branded_id", format!("SELECT * FROM jobs WHERE id = '{some}'"), "Index"),
        (
            "range on branded_id",
            format!("SELECT * FROM jobs WHERE id >= '{some}' AND id < '{some}'::branded_id ORDER BY id LIMIT 10"),
            "Index",
        ),
        (
            "time range on bigint via emq_min_for",
            "SELECT count(*) FROM jobs WHERE s < emq_min_for(now() - interval '1 hour')".to_string(),
            "Index",
        ),
    ] {
        let plan = c.one(&format!("EXPLAIN (COSTS OFF) {query}"))?;
        expect(plan.contains(want), &format!("{what} is not an index scan:\n{plan}"))?;
    }
    let plan = c.one(&format!(
        "CREATE TABLE hashed AS SELECT id FROM jobs; CREATE INDEX ON hashed USING hash (id); ANALYZE hashed;
             EXPLAIN (COSTS OFF) SELECT * FROM hashed WHERE id = '{some}'"
    ))?;
    expect(
        plan.contains("Index") || plan.contains("Bitmap"),
        &format!("equality does not use the hash index:\n{plan}"),
    )?;
    println!("postgres: equality and range on branded_id, and emq_min_for ranges on bigint, use index scans; the hash opclass serves equality");
    Ok(())
}

/// Binary COPY out and back in gives the same rows.
fn binary_copy(c: &Cluster) -> Result<()> {
    let file = c.dir().join("jobs.bin");
    let same = c.one(&format!(
        "COPY (SELECT id FROM jobs) TO '{f}' (FORMAT binary);
             CREATE TABLE jobs_back (id branded_id);
             COPY jobs_back FROM '{f}' (FORMAT binary);
             SELECT (SELECT count(*) FROM jobs_back) = (SELECT count(*) FROM jobs)
                AND NOT EXISTS (SELECT id FROM jobs EXCEPT SELECT id FROM jobs_back)
                AND NOT EXISTS (SELECT id FROM jobs_back EXCEPT SELECT id FROM jobs);",
        f = file.display()
    ))?;
    expect(same == "t", "binary COPY did not round-trip")?;
    // Malformed binary input is refused with an error, and the backend lives on.
    for (name, field, want) in [
        ("short", b"USR\x00\x01".to_vec(), "22P03: length:"),
        ("lowercase namespace", [b"usr".as_slice(), &1u64.to_be_bytes()].concat(), "22P03: range:"),
        ("snowflake >= 2^63", [b"USR".as_slice(), &u64::MAX.to_be_bytes()].concat(), "22P03: range:"),
    ] {
        let bad = c.dir().join("bad.bin");
        crate::write(&bad, super::binary_copy::one_field(&field))?;
        let out = c
            .psql_command()
            .args([
                "-v",
                "VERBOSITY=verbose",
                "-c",
                &format!("COPY jobs_back FROM '{}' (FORMAT binary)", bad.display()),
            ])
            .output()
            .context("running psql")?;
        let err = String::from_utf8_lossy(&out.stderr);
        expect(!out.status.success() && err.contains(want), &format!("binary input ({name}) must be refused: {err}"))?;
    }
    expect(c.one("SELECT emq_self_check()")? == "t", "the backend must survive malformed binary input")?;
    println!("postgres: binary COPY out and in round-trips 100,000 ids; malformed binary input is refused");
    Ok(())
}

/// SPEC.md §9's SQL column, by gate name: the SQLSTATE a refusal raises for a
/// value, for text read as an id, and for a binary `branded_id` (`-`: no SQL
/// function raises it). A gate the core adds has no row here, so the walk of
/// `emq_gates()` below fails until the extension maps it and this table says how.
const GATE_SQLSTATES: &[(&str, [&str; 3])] = &[
    ("length", ["22P02", "22P02", "22P03"]),
    ("namespace", ["22P02", "22P02", "22P03"]),
    ("charset", ["22P02", "22P02", "22P03"]),
    ("range", ["22023", "22P02", "22P03"]),
    ("queue", ["22023", "22023", "22023"]),
    ("kind", ["22023", "22023", "22023"]),
    // Minting on a hot standby (§5.3): raised by standby.rs, on a standby.
    ("node", ["55000", "-", "-"]),
];

/// Gates no statement on a primary can raise, with the test that raises them.
const RAISED_ELSEWHERE: &[(&str, &str)] = &[("node", "standby.rs: a hot standby refuses to mint")];

/// Every gate of the core, walked through `emq_gates()` — the map every
/// refusal of the extension goes through — against [`GATE_SQLSTATES`]; then
/// every gate the map says SQL raises is raised for real by a refusal of the
/// SQL tests (`refusals.sql`, which pg_regress ran) with one of the gate's
/// SQLSTATEs, and no other is.
fn gate_sqlstates(c: &Cluster) -> Result<()> {
    let rows = c.one(
        "SELECT concat_ws('|', gate, coalesce(value_sqlstate, '-'), coalesce(text_sqlstate, '-'), coalesce(binary_sqlstate, '-'))
         FROM emq_gates()",
    )?;
    let rows: Vec<Vec<&str>> = rows.lines().map(|l| l.split('|').collect()).collect();
    let names: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    let refusals = super::regress::refusals()?;
    let core: Vec<&str> = emq_id::Gate::ALL.iter().map(|g| g.name()).collect();
    expect(names == core, &format!("emq_gates() lists {names:?}, the core's gates are {core:?}"))?;
    for row in &rows {
        let Some(&(gate, want)) = GATE_SQLSTATES.iter().find(|e| e.0 == row[0]) else {
            bail!(
                "postgres: gate {} has no row in GATE_SQLSTATES: map it in bindings/postgres/src/error.rs (SPEC.md §9) and add it here",
                row[0]
            );
        };
        expect(row[1..] == want, &format!("gate {gate}: emq_gates() says {:?}, SPEC.md §9 says {want:?}", &row[1..]))?;
        if RAISED_ELSEWHERE.iter().any(|e| e.0 == gate) {
            continue;
        }
        let raised: Vec<&str> = refusals.iter().filter(|e| e.1 == gate).map(|e| e.0.as_str()).collect();
        let mapped = want.iter().any(|s| *s != "-");
        expect(
            mapped != raised.is_empty() && raised.iter().all(|s| want.contains(s)),
            &format!("gate {gate}: the SQL errors raised {raised:?}, emq_gates() maps it to {want:?}"),
        )?;
    }
    println!(
        "postgres: emq_gates() maps each of the core's {} gates to its SQLSTATE per SPEC.md section 9, and each mapped gate is raised so",
        rows.len()
    );
    Ok(())
}

/// The self-check at `CREATE EXTENSION` (SPEC.md §8): the core's vectors
/// through the SQL API. It is in the installed script and ran (the function
/// statistics of the transaction that created the extension),
/// it passes on the real vectors and names the line on a corrupted copy — the
/// refusal `CREATE EXTENSION` would make, faked by handing it other vectors.
fn self_check_at_load(c: &Cluster) -> Result<()> {
    let vectors = emq_id::SELF_CHECK_VECTORS;
    let lines: Vec<&str> = vectors.lines().collect();
    let quoted = |v: &str| format!("$vectors${v}$vectors$");
    // (a) The script calls it, and CREATE EXTENSION ran it.
    let script = c.one(
        "SELECT s.setting || '/extension/emq_id--' || e.default_version || '.sql'
         FROM pg_config s, pg_available_extensions e WHERE s.name = 'SHAREDIR' AND e.name = 'emq_id'",
    )?;
    let text = crate::read(&script)?;
    expect(
        text.contains("SELECT emq_self_check();") && text.contains("SELECT emq_host_check(emq_self_check_vectors());"),
        &format!("{script} does not run the self-check"),
    )?;
    // Function statistics of the transaction that creates the extension count the calls its script made.
    c.psql("CREATE DATABASE emq_self_check;")?;
    let calls = c
        .psql_command()
        .args(["-d", "emq_self_check", "--single-transaction"])
        .args(["-c", "SET LOCAL track_functions = 'all'", "-c", "CREATE EXTENSION emq_id"])
        .args([
            "-c",
            "SELECT pg_stat_get_xact_function_calls('emq_self_check()'::regprocedure) || ' '
                   || pg_stat_get_xact_function_calls('emq_host_check(text)'::regprocedure) || ' '
                   || pg_stat_get_xact_function_calls('emq_self_check_vectors()'::regprocedure)",
        ])
        .output()
        .context("running psql")?;
    let said = String::from_utf8_lossy(&calls.stdout);
    expect(
        calls.status.success() && said.trim() == "1 1 1",
        &format!(
            "CREATE EXTENSION must call emq_self_check(), emq_host_check(emq_self_check_vectors()) once each; calls: {said:?} {}",
            String::from_utf8_lossy(&calls.stderr)
        ),
    )?;
    // (c) The extension hands out the core's vectors, and they pass.
    let same = c.one(&format!("SELECT emq_self_check_vectors() = {}", quoted(vectors)))?;
    expect(same == "t", "emq_self_check_vectors() must be the core's SELF_CHECK_VECTORS")?;
    let checked = c.one("SELECT emq_host_check(emq_self_check_vectors())")?;
    expect(
        checked == lines.len().to_string(),
        &format!("emq_host_check checked {checked} lines, not {}", lines.len()),
    )?;
    // (b) A copy with one wrong answer is refused, naming the line.
    let first = |op: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(&format!("{op} ")))
            .with_context(|| format!("postgres: the vectors have no {op} line"))
    };
    let with_last_word = |i: usize, word: &str| {
        let line = lines[i];
        format!("{} {word}", &line[..line.rfind(' ').unwrap_or(0)])
    };
    let bump = |i: usize| {
        let n: u64 = lines[i].rsplit(' ').next().and_then(|w| w.parse().ok()).unwrap_or(0);
        with_last_word(i, &(n + 1).to_string())
    };
    let other_gate = |i: usize| {
        let gate = lines[i].rsplit(' ').next().unwrap_or("");
        let other = emq_id::Gate::ALL.iter().map(|g| g.name()).find(|g| *g != gate).unwrap_or("");
        with_last_word(i, other)
    };
    let (decode, slot, reject) = (first("decode")?, first("slot")?, first("reject")?);
    let (key_reject, mint, xadd) = (first("key_reject")?, first("mint")?, first("xadd_id")?);
    let corruptions = [
        ("a wrong hash32 in a decode line", decode, bump(decode)),
        ("a wrong slot", slot, bump(slot)),
        ("a reject line with another gate", reject, other_gate(reject)),
        ("a key_reject line with another gate", key_reject, other_gate(key_reject)),
        ("a wrong second mint", mint, bump(mint)),
        ("a wrong stream entry id", xadd, with_last_word(xadd, "1704117200000-1620568")),
        ("a check no host knows", lines.len() - 1, "unheard_of 1 2".to_string()),
    ];
    for (what, i, wrong) in &corruptions {
        expect(lines[*i] != wrong.as_str(), &format!("the corruption ({what}) changed nothing"))?;
        let mut copy: Vec<&str> = lines.clone();
        copy[*i] = wrong;
        let sql = format!(
            "SELECT emq_host_check({})",
            quoted(&copy.join(
                "
"
            ))
        );
        let out = c.psql_command().args(["-v", "VERBOSITY=verbose", "-c", &sql]).output().context("running psql")?;
        let err = String::from_utf8_lossy(&out.stderr);
        let named = format!("ERROR:  XX000: emq_id self-check failed: line {} \"{wrong}\"", i + 1);
        expect(!out.status.success() && err.contains(&named), &format!("{what}: expected {named:?}, got {err:?}"))?;
    }
    let empty = c.psql_command().args(["-c", "SELECT emq_host_check('')"]).output().context("running psql")?;
    expect(!empty.status.success(), "emq_host_check('') must refuse: no vectors is no check")?;
    drifted_binding_is_refused(c, &script, &text)?;
    println!(
        "postgres: CREATE EXTENSION runs the core's {} self-check lines through the SQL API; {} corrupted copies are refused naming the line, and so is a binding whose emq_slot drifted",
        lines.len(),
        corruptions.len()
    );
    Ok(())
}

/// The real refusal: an extension `emq_id_drifted`, this script with one SQL
/// answer off by one (as a binding's conversion could drift), cannot be
/// created, and leaves nothing behind. Its files are removed however this ends.
fn drifted_binding_is_refused(c: &Cluster, script: &str, text: &str) -> Result<()> {
    struct Remove(Vec<PathBuf>);
    impl Drop for Remove {
        fn drop(&mut self) {
            for f in &self.0 {
                let _ = std::fs::remove_file(f);
            }
        }
    }
    let dir = Path::new(script).parent().with_context(|| format!("{script} has no extension directory"))?;
    let version = script.rsplit("--").next().unwrap_or("").trim_end_matches(".sql");
    let exact = "got := emq_slot(w[2]);";
    let drifted = text.replace(exact, "got := emq_slot(w[2]) + 1;");
    expect(drifted != text, &format!("{script} has no {exact:?} to drift"))?;
    let control = crate::read(dir.join("emq_id.control"))?;
    let control: String = control
        .lines()
        .map(|l| {
            if l.starts_with("default_version") {
                format!("default_version = '{version}'\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let files = Remove(vec![dir.join("emq_id_drifted.control"), dir.join(format!("emq_id_drifted--{version}.sql"))]);
    crate::write(&files.0[0], control)?;
    crate::write(&files.0[1], drifted)?;
    c.psql("CREATE DATABASE emq_drifted;")?;
    let out = c
        .psql_command()
        .args(["-d", "emq_drifted", "-c", "CREATE EXTENSION emq_id_drifted"])
        .output()
        .context("running psql")?;
    let err = String::from_utf8_lossy(&out.stderr);
    let line = emq_id::SELF_CHECK_VECTORS.lines().position(|l| l.starts_with("slot ")).map_or(0, |i| i + 1);
    expect(
        !out.status.success() && err.contains(&format!("emq_id self-check failed: line {line} ")),
        &format!("CREATE EXTENSION of a drifted binding must fail naming line {line}: {err}"),
    )?;
    let left = one_in(c, "emq_drifted", "SELECT count(*) FROM pg_proc WHERE proname LIKE 'emq\\_%'")?;
    expect(left == "0", &format!("a refused CREATE EXTENSION left {left} functions behind"))
}

/// One answer from `sql` in database `db`.
fn one_in(c: &Cluster, db: &str, sql: &str) -> Result<String> {
    let out = c.psql_command().args(["-d", db, "-c", sql]).output().context("running psql")?;
    expect(out.status.success(), &format!("{sql}: {}", String::from_utf8_lossy(&out.stderr)))?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The documentation's PostgreSQL examples (every ```sql block of every document) run as written.
pub(super) fn readme_sql(c: &Cluster) -> Result<()> {
    let blocks = crate::tree::readme::every("sql")?;
    for block in &blocks {
        c.psql(&block.text)
            .with_context(|| format!("the ```sql example at {} failed:\n{}", block.place(), block.text))?;
    }
    println!("postgres: the documentation's {} SQL examples ran as written", blocks.len());
    Ok(())
}

/// Without preloading, codecs work but minting is refused with what to configure.
fn not_preloaded() -> Result<()> {
    let c = Cluster::start_with(false)?;
    let codec = c.one("SELECT emq_encode('USR', 274557032793636864)")?;
    expect(codec == "USR0KHTOWnGLuC", "codec functions work without preloading")?;
    let out = c.psql_command().args(["-c", "SELECT emq_mint('JOB')"]).output().context("running psql")?;
    let err = String::from_utf8_lossy(&out.stderr);
    expect(
        !out.status.success() && err.contains("shared_preload_libraries"),
        &format!("minting must be refused: {err}"),
    )?;
    println!("postgres: without shared_preload_libraries, minting is refused: {}", err.lines().next().unwrap_or(""));
    Ok(())
}
