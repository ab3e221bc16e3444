//! Tests of the extension on a live server, beyond the vector file: minting
//! from many connections, ordering, index use, binary COPY, error codes, the
//! refusal to mint without shared memory, and the README's SQL as written.

use std::process::{Command, Stdio};

use crate::postgres::{install, Cluster};
use crate::root;

fn expect(cond: bool, what: &str) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(format!("postgres: {what}"))
    }
}

fn one(cluster: &Cluster, sql: &str) -> Result<String, String> {
    Ok(cluster.psql(sql)?.trim().to_string())
}

pub fn live_tests() -> Result<(), String> {
    install()?;
    let cluster = Cluster::start()?;
    concurrent_minting(&cluster)?;
    ordering(&cluster)?;
    index_scans(&cluster)?;
    binary_copy(&cluster)?;
    errors(&cluster)?;
    readme_sql(&cluster)?;
    drop(cluster);
    not_preloaded()?;
    Ok(())
}

/// 8 connections × 100,000 mints into a table with a unique index: no
/// violation, and each connection's ids increase.
fn concurrent_minting(c: &Cluster) -> Result<(), String> {
    const CONNECTIONS: usize = 8;
    const EACH: usize = 100_000;
    c.psql("CREATE TABLE minted (s bigint PRIMARY KEY, conn int, n int);")?;
    let started = std::time::Instant::now();
    let children: Vec<_> = (0..CONNECTIONS)
        .map(|conn| {
            c.psql_command()
                .arg("-c")
                .arg(format!(
                    "INSERT INTO minted SELECT emq_mint_snowflake(), {conn}, g FROM generate_series(1, {EACH}) g"
                ))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    for child in children {
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        expect(
            out.status.success(),
            &format!("a minting connection failed: {}", String::from_utf8_lossy(&out.stderr)),
        )?;
    }
    let rows = one(c, "SELECT count(*) FROM minted")?;
    let decreasing = one(
        c,
        "SELECT count(*) FROM (SELECT s, lag(s) OVER (PARTITION BY conn ORDER BY n) AS p FROM minted) t WHERE s <= p",
    )?;
    let node = one(c, "SELECT count(DISTINCT emq_node(s)) || ':' || min(emq_node(s)) FROM minted")?;
    expect(rows == (CONNECTIONS * EACH).to_string(), &format!("{rows} rows, not {}", CONNECTIONS * EACH))?;
    expect(decreasing == "0", &format!("{decreasing} ids did not increase within their connection"))?;
    expect(node == "1:1", "every id carries emq_id.node = 1")?;
    println!(
        "postgres: {CONNECTIONS} connections x {EACH} mints: {rows} unique ids, 0 duplicates, 0 out of order ({:.1}s)",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// ORDER BY on the type is the byte order of the text under COLLATE "C".
fn ordering(c: &Cluster) -> Result<(), String> {
    let same = one(
        c,
        "CREATE TABLE ordered AS
           SELECT branded_id(chr(65 + (g % 26)) || chr(65 + (g * 7 % 26)) || 'Q', (random() * 9.2e18)::bigint) AS id
           FROM generate_series(1, 20000) g
           UNION ALL SELECT emq_mint_id('JOB') FROM generate_series(1, 5000)
           UNION ALL SELECT branded_id('AAA', 0) UNION ALL SELECT branded_id('ZZZ', 9223372036854775807);
         SELECT (SELECT array_agg(id::text ORDER BY id) FROM ordered)
              = (SELECT array_agg(id::text ORDER BY id::text COLLATE \"C\") FROM ordered);",
    )?;
    expect(same == "t", "ORDER BY branded_id differs from the text's byte order")?;
    let size = one(c, "SELECT pg_column_size('USR0KHTOWnGLuC'::branded_id)")?;
    expect(size == "12", &format!("branded_id is {size} bytes, not 12"))?;
    println!("postgres: ORDER BY branded_id = ORDER BY text COLLATE \"C\" over 25,002 ids; pg_column_size = 12");
    Ok(())
}

/// Equality and range queries use the indexes (btree and hash on the type, btree on bigint).
fn index_scans(c: &Cluster) -> Result<(), String> {
    c.psql(
        "CREATE TABLE jobs (id branded_id PRIMARY KEY, s bigint, payload text);
         INSERT INTO jobs SELECT id, emq_snowflake(id), 'x' FROM (SELECT emq_mint_id('JOB') AS id FROM generate_series(1, 100000)) t;
         CREATE INDEX jobs_s ON jobs (s);
         CREATE INDEX jobs_id_hash ON jobs USING hash (id);
         ANALYZE jobs;",
    )?;
    let some = one(c, "SELECT id::text FROM jobs ORDER BY id OFFSET 5000 LIMIT 1")?;
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
        let plan = one(c, &format!("EXPLAIN (COSTS OFF) {query}"))?;
        expect(plan.contains(want), &format!("{what} is not an index scan:\n{plan}"))?;
    }
    let plan = one(
        c,
        &format!(
            "CREATE TABLE hashed AS SELECT id FROM jobs; CREATE INDEX ON hashed USING hash (id); ANALYZE hashed;
             EXPLAIN (COSTS OFF) SELECT * FROM hashed WHERE id = '{some}'"
        ),
    )?;
    expect(
        plan.contains("Index") || plan.contains("Bitmap"),
        &format!("equality does not use the hash index:\n{plan}"),
    )?;
    println!("postgres: equality and range on branded_id, and emq_min_for ranges on bigint, use index scans; the hash opclass serves equality");
    Ok(())
}

/// Binary COPY out and back in gives the same rows.
fn binary_copy(c: &Cluster) -> Result<(), String> {
    let file = c.dir().join("jobs.bin");
    let same = one(
        c,
        &format!(
            "COPY (SELECT id FROM jobs) TO '{f}' (FORMAT binary);
             CREATE TABLE jobs_back (id branded_id);
             COPY jobs_back FROM '{f}' (FORMAT binary);
             SELECT (SELECT count(*) FROM jobs_back) = (SELECT count(*) FROM jobs)
                AND NOT EXISTS (SELECT id FROM jobs EXCEPT SELECT id FROM jobs_back)
                AND NOT EXISTS (SELECT id FROM jobs_back EXCEPT SELECT id FROM jobs);",
            f = file.display()
        ),
    )?;
    expect(same == "t", "binary COPY did not round-trip")?;
    // Malformed binary input is refused with an error, and the backend lives on.
    for (name, field, want) in [
        ("short", b"USR\x00\x01".to_vec(), "length:"),
        ("lowercase namespace", [b"usr".as_slice(), &1u64.to_be_bytes()].concat(), "range:"),
        ("snowflake >= 2^63", [b"USR".as_slice(), &u64::MAX.to_be_bytes()].concat(), "range:"),
    ] {
        let bad = c.dir().join("bad.bin");
        std::fs::write(&bad, binary_copy_file(&field)).map_err(|e| e.to_string())?;
        let out = c
            .psql_command()
            .args(["-c", &format!("COPY jobs_back FROM '{}' (FORMAT binary)", bad.display())])
            .output()
            .map_err(|e| e.to_string())?;
        let err = String::from_utf8_lossy(&out.stderr);
        expect(!out.status.success() && err.contains(want), &format!("binary input ({name}) must be refused: {err}"))?;
    }
    expect(one(c, "SELECT emq_self_check()")? == "t", "the backend must survive malformed binary input")?;
    println!("postgres: binary COPY out and in round-trips 100,000 ids; malformed binary input is refused");
    Ok(())
}

/// A binary COPY file of one row with one field holding `field`.
fn binary_copy_file(field: &[u8]) -> Vec<u8> {
    let mut f = b"PGCOPY\n\xff\r\n\0".to_vec();
    f.extend_from_slice(&0u32.to_be_bytes()); // flags
    f.extend_from_slice(&0u32.to_be_bytes()); // header extension length
    f.extend_from_slice(&1i16.to_be_bytes()); // one field
    f.extend_from_slice(&(field.len() as i32).to_be_bytes());
    f.extend_from_slice(field);
    f.extend_from_slice(&(-1i16).to_be_bytes()); // trailer
    f
}

/// Every gate raises 22P02 or 22023 with its name first; NULL in, NULL out.
fn errors(c: &Cluster) -> Result<(), String> {
    let cases = [
        ("SELECT emq_decode('USR0KHTOWnGLu')", "22P02", "length"),
        ("SELECT emq_decode('usr0KHTOWnGLuC')", "22P02", "namespace"),
        ("SELECT emq_decode('USR0KHTOWnGL!C')", "22P02", "charset"),
        ("SELECT emq_decode('USRzzzzzzzzzzz')", "22P02", "range"),
        ("SELECT emq_decode('\\xff00'::bytea)", "22P02", "length"),
        ("SELECT 'USR0KHTOWnGL!C'::branded_id", "22P02", "charset"),
        ("SELECT emq_decode('USR0KHTOWnGLuC', 'JOB')", "22P02", "namespace"),
        ("SELECT emq_encode('USR', -1)", "22023", "range"),
        ("SELECT emq_encode('usr', 0)", "22023", "range"),
        ("SELECT emq_encode_numeric('USR', 9223372036854775808)", "22023", "range"),
        ("SELECT emq_hash32(-5)", "22023", "range"),
        ("SELECT emq_min_for('infinity'::timestamptz)", "22023", "range"),
        ("SELECT emq_queue_key('a{b}', 'pending')", "22023", "queue"),
        ("SELECT emq_queue_key('orders', 'done')", "22023", "kind"),
        ("SELECT emq_job_key('orders', 'USR0KHTOWnGLuC')", "22023", "kind"),
        ("SELECT emq_key('orders', 'g:a:b:pending')", "22023", "kind"),
        ("SELECT emq_parse_key('{emq}:version')", "22023", "queue"),
        ("SELECT emq_xadd_id('ORD000xY9Wvvcd')", "22023", "kind"),
        ("SELECT emq_xadd_id('EVT000xY9Wvv')", "22P02", "length"),
        ("SELECT emq_from_xadd_id('1704117200000-x')", "22P02", "charset"),
        ("SELECT emq_from_xadd_id('5-0')", "22023", "range"),
        ("SELECT emq_job_key('orders', 'JOBzzzzzzzzzzz')", "22023", "range"),
        ("SELECT emq_mint_step(0, 1024, 0)", "22023", "range"),
        ("SELECT branded_id('usr', 1)", "22023", "range"),
        ("SELECT emq_mint('job')", "22023", "range"),
    ];
    for (sql, state, gate) in cases {
        let out = c.psql_command().args(["-v", "VERBOSITY=verbose", "-c", sql]).output().map_err(|e| e.to_string())?;
        let err = String::from_utf8_lossy(&out.stderr);
        expect(
            !out.status.success() && err.contains(&format!("ERROR:  {state}: {gate}:")),
            &format!("{sql} should fail with {state} and gate {gate}; it said {err:?}"),
        )?;
    }
    let nulls = one(c, "SELECT emq_decode(NULL::text) IS NULL AND emq_slot(NULL::text) IS NULL AND emq_encode(NULL, 1) IS NULL AND emq_key(NULL, 'pending') IS NULL")?;
    expect(nulls == "t", "NULL in must give NULL out")?;
    let hashes = one(
        c,
        "SELECT branded_id_hash('USR0KHTOWnGLuC'::branded_id) = 234878118
            AND branded_id_hash_extended('USR0KHTOWnGLuC'::branded_id, 0) = 234878118
            AND branded_id_hash_extended('USR0KHTOWnGLuC'::branded_id, 42) = 234878118
            AND emq_hash32('USR0KHTOWnGLuC'::branded_id) = 234878118
            AND emq_node(emq_decode(emq_mint('JOB'))) = 1
            AND emq_ns(emq_mint('EVT')) = 'EVT'",
    )?;
    expect(hashes == "t", "the hash opclass must answer hash32 (seed ignored); minted ids carry node 1")?;
    let alive = one(c, "SELECT emq_self_check() AND emq_slot('\\x00ff'::bytea) >= 0")?;
    expect(alive == "t", "the backend must survive every refusal")?;
    println!("postgres: {} gate errors with the right SQLSTATE and gate name; NULL in, NULL out", cases.len());
    Ok(())
}

/// The README's PostgreSQL examples (every ```sql block) run as written.
fn readme_sql(c: &Cluster) -> Result<(), String> {
    let readme = std::fs::read_to_string(root().join("README.md")).map_err(|e| e.to_string())?;
    let blocks: Vec<&str> = readme.split("```sql").skip(1).filter_map(|b| b.split("```").next()).collect();
    expect(!blocks.is_empty(), "the README has no ```sql examples")?;
    for block in &blocks {
        c.psql(block).map_err(|e| format!("README SQL failed: {e}\n{block}"))?;
    }
    println!("postgres: the README's {} SQL examples ran as written", blocks.len());
    Ok(())
}

/// Without preloading, codecs work but minting is refused with what to configure.
fn not_preloaded() -> Result<(), String> {
    let c = Cluster::start_with(false)?;
    let codec = one(&c, "SELECT emq_encode('USR', 274557032793636864)")?;
    expect(codec == "USR0KHTOWnGLuC", "codec functions work without preloading")?;
    let out = c.psql_command().args(["-c", "SELECT emq_mint('JOB')"]).output().map_err(|e| e.to_string())?;
    let err = String::from_utf8_lossy(&out.stderr);
    expect(
        !out.status.success() && err.contains("shared_preload_libraries"),
        &format!("minting must be refused: {err}"),
    )?;
    println!("postgres: without shared_preload_libraries, minting is refused: {}", err.lines().next().unwrap_or(""));
    Ok(())
}

/// `cargo xtask bench postgres`: timings from one run on a live server.
pub fn bench() -> Result<(), String> {
    install()?;
    let c = Cluster::start()?;
    let script = "\\timing on
SELECT count(gen_random_uuid()) FROM generate_series(1, 1000000);
SELECT count(emq_mint_snowflake()) FROM generate_series(1, 1000000);
SELECT count(emq_mint('JOB')) FROM generate_series(1, 1000000);
CREATE TABLE t_uuid (id uuid PRIMARY KEY);
CREATE TABLE t_bigint (id bigint PRIMARY KEY);
CREATE TABLE t_branded (id branded_id PRIMARY KEY);
INSERT INTO t_uuid SELECT gen_random_uuid() FROM generate_series(1, 1000000);
INSERT INTO t_bigint SELECT emq_mint_snowflake() FROM generate_series(1, 1000000);
INSERT INTO t_branded SELECT emq_mint_id('JOB') FROM generate_series(1, 1000000);
CREATE TABLE texts AS SELECT emq_mint('JOB') AS t FROM generate_series(1, 1000000);
SELECT count(emq_decode(t)) FROM texts;
SELECT count(t::branded_id) FROM texts;
\\timing off
SELECT pg_relation_size('t_uuid_pkey'), pg_relation_size('t_bigint_pkey'), pg_relation_size('t_branded_pkey');
";
    let out = c.psql(script)?;
    let times: Vec<f64> = out
        .lines()
        .filter_map(|l| l.strip_prefix("Time: "))
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect();
    let sizes: Vec<u64> = out.lines().last().unwrap_or("").split('|').filter_map(|x| x.trim().parse().ok()).collect();
    // Timed statements, in order (CREATE TABLE lines are timed too).
    let pick = |i: usize| times.get(i).copied().unwrap_or(f64::NAN);
    let (uuid_gen, mint, mint_text) = (pick(0), pick(1), pick(2));
    let (ins_uuid, ins_bigint, ins_branded) = (pick(6), pick(7), pick(8));
    let (dec_text, dec_cast) = (pick(10), pick(11));
    let mb = |b: u64| b as f64 / 1048576.0;
    println!("| SQL, 1,000,000 rows | time | vs anchor |\n|---|---|---|");
    println!("| count(gen_random_uuid()) (anchor) | {uuid_gen:.0} ms | 1.00× |");
    println!("| count(emq_mint_snowflake()) | {mint:.0} ms | **{:.2}× faster** |", uuid_gen / mint);
    println!("| count(emq_mint('JOB')) (text ids) | {mint_text:.0} ms | {:.2}× faster |", uuid_gen / mint_text);
    println!(
        "| INSERT uuid v4 PK (anchor) | {ins_uuid:.0} ms, index {:.1} MiB | 1.00× |",
        mb(sizes.first().copied().unwrap_or(0))
    );
    println!(
        "| INSERT bigint snowflake PK | {ins_bigint:.0} ms, index {:.1} MiB | {:.2}× faster |",
        mb(sizes.get(1).copied().unwrap_or(0)),
        ins_uuid / ins_bigint
    );
    println!(
        "| INSERT branded_id PK | {ins_branded:.0} ms, index {:.1} MiB | {:.2}× faster |",
        mb(sizes.get(2).copied().unwrap_or(0)),
        ins_uuid / ins_branded
    );
    println!("| count(emq_decode(text)) | {dec_text:.0} ms | |");
    println!("| count(text::branded_id) | {dec_cast:.0} ms | |");
    let _ = Command::new("true").status();
    Ok(())
}
