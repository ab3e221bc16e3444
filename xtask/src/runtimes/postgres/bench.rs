//! `cargo xtask bench postgres`: a million rows on a live server, each
//! figure beside its `uuid` anchor from the same run: minting against
//! `gen_random_uuid()`, inserting under a primary key, the text codec against
//! uuid's text casts, and ordering and index scans of `branded_id` against
//! `uuid`; then the WAL the durable high-water mark writes per million ids.
//! Prints the table for the performance page (docs/src/performance.md).

use anyhow::{ensure, Result};

use super::server::Cluster;

/// One timed statement: what the table calls it, its SQL, the row of the
/// anchor it is compared with (`None` for an anchor), SQL run untimed before
/// it (settings), the index whose size the table shows beside it, and the
/// count it must answer (a measurement over fewer rows than it says is void).
struct Timed {
    name: &'static str,
    sql: &'static str,
    anchor: Option<usize>,
    before: &'static str,
    index: Option<&'static str>,
    count: Option<u64>,
}

const fn row(name: &'static str, sql: &'static str, anchor: Option<usize>) -> Timed {
    Timed { name, sql, anchor, before: "", index: None, count: None }
}

const SETUP: &str = "
CREATE TABLE t_uuid (id uuid PRIMARY KEY);
CREATE TABLE t_bigint (id bigint PRIMARY KEY);
CREATE TABLE t_branded (id branded_id PRIMARY KEY);
CREATE TABLE uuids AS SELECT gen_random_uuid() AS u FROM generate_series(1, 1000000);
CREATE TABLE uuid_texts AS SELECT u::text AS t FROM uuids;
CREATE TABLE snowflakes AS SELECT emq_mint_snowflake() AS s FROM generate_series(1, 1000000);
CREATE TABLE texts AS SELECT emq_encode('JOB', s) AS t FROM snowflakes;
";

/// Sorting is timed without the primary keys' help (the sorts must sort).
const NO_INDEX: &str =
    "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; SET work_mem = '256MB';";
/// Lookups are timed as index nested loops over fresh statistics.
const INDEX_LOOPS: &str = "VACUUM ANALYZE t_uuid; VACUUM ANALYZE t_branded; RESET enable_indexscan; \
     RESET enable_indexonlyscan; RESET enable_bitmapscan; SET enable_hashjoin = off; SET enable_mergejoin = off;";

const TIMED: &[Timed] = &[
    row("count(gen_random_uuid())", "SELECT count(gen_random_uuid()) FROM generate_series(1, 1000000)", None),
    row("count(emq_mint_snowflake())", "SELECT count(emq_mint_snowflake()) FROM generate_series(1, 1000000)", Some(0)),
    row("count(emq_mint('JOB')) (text ids)", "SELECT count(emq_mint('JOB')) FROM generate_series(1, 1000000)", Some(0)),
    Timed { index: Some("t_uuid_pkey"), ..row("INSERT uuid v4 PK", "INSERT INTO t_uuid SELECT u FROM uuids", None) },
    Timed {
        index: Some("t_bigint_pkey"),
        ..row("INSERT bigint snowflake PK", "INSERT INTO t_bigint SELECT s FROM snowflakes", Some(3))
    },
    Timed {
        index: Some("t_branded_pkey"),
        ..row("INSERT branded_id PK", "INSERT INTO t_branded SELECT t::branded_id FROM texts", Some(3))
    },
    row("encode: count(u::text) over uuid", "SELECT count(u::text) FROM uuids", None),
    row(
        "encode: count(emq_encode('JOB', s)) over bigint",
        "SELECT count(emq_encode('JOB', s)) FROM snowflakes",
        Some(6),
    ),
    row("encode: count(id::text) over branded_id", "SELECT count(id::text) FROM t_branded", Some(6)),
    row("decode: count(t::uuid) over text", "SELECT count(t::uuid) FROM uuid_texts", None),
    row("decode: count(emq_decode(t)) over text", "SELECT count(emq_decode(t)) FROM texts", Some(9)),
    row("decode: count(t::branded_id) over text", "SELECT count(t::branded_id) FROM texts", Some(9)),
    Timed {
        before: NO_INDEX,
        count: Some(1_000_000),
        ..row(
            "sort: ORDER BY uuid (no index)",
            "SELECT count(*) FROM (SELECT id FROM t_uuid ORDER BY id OFFSET 0) s",
            None,
        )
    },
    Timed {
        count: Some(1_000_000),
        ..row(
            "sort: ORDER BY branded_id (no index)",
            "SELECT count(*) FROM (SELECT id FROM t_branded ORDER BY id OFFSET 0) s",
            Some(12),
        )
    },
    Timed {
        before: INDEX_LOOPS,
        count: Some(100_000),
        ..row(
            "index: 100,000 uuid lookups",
            "SELECT count(*) FROM (SELECT id FROM t_uuid TABLESAMPLE SYSTEM (25) REPEATABLE (7) LIMIT 100000) p \
             JOIN t_uuid USING (id)",
            None,
        )
    },
    Timed {
        count: Some(100_000),
        ..row(
            "index: 100,000 branded_id lookups",
            "SELECT count(*) FROM (SELECT id FROM t_branded TABLESAMPLE SYSTEM (25) REPEATABLE (7) LIMIT 100000) p \
             JOIN t_branded USING (id)",
            Some(14),
        )
    },
];

/// `cargo xtask bench postgres`: timings from one run on a live server.
pub fn run() -> Result<()> {
    super::build::install()?;
    let c = Cluster::start()?;
    c.psql(SETUP)?;
    c.psql("VACUUM ANALYZE;")?;
    let mut script = String::from("\\timing on\n");
    for (i, t) in TIMED.iter().enumerate() {
        script.push_str(&format!("{}\nSELECT 'timed {i}';\n{};\n", t.before, t.sql));
    }
    let indexes: Vec<&str> = TIMED.iter().filter_map(|t| t.index).collect();
    let sizes: Vec<String> = indexes.iter().map(|i| format!("pg_relation_size('{i}')")).collect();
    script.push_str(&format!("\\timing off\nSELECT {};\n", sizes.join(" || '|' || ")));
    let out = c.psql(&script)?;
    let results = timings(&out);
    ensure!(
        results.len() == TIMED.len(),
        "postgres bench: {} timings for {} statements:\n{out}",
        results.len(),
        TIMED.len()
    );
    let sizes: Vec<u64> = out.lines().last().unwrap_or("").split('|').filter_map(|x| x.trim().parse().ok()).collect();
    ensure!(sizes.len() == indexes.len(), "postgres bench: no index sizes in {out}");

    let mut table = String::from("| SQL, 1,000,000 rows | time | anchor ÷ this |\n|---|---|---|\n");
    for (i, row) in TIMED.iter().enumerate() {
        let (ms, answer) = &results[i];
        if let Some(count) = row.count {
            ensure!(
                answer.as_deref() == Some(count.to_string().as_str()),
                "postgres bench: {} counted {answer:?}, not {count}",
                row.name
            );
        }
        let index = match row.index.and_then(|ix| indexes.iter().position(|x| *x == ix)) {
            Some(k) => format!(", index {:.1} MiB", sizes[k] as f64 / 1048576.0),
            None => String::new(),
        };
        let ratio = match row.anchor {
            None => "(anchor)".to_string(),
            Some(a) => format!("**{:.2}×**", results[a].0 / ms),
        };
        table.push_str(&format!("| {} | {ms:.0} ms{index} | {ratio} |\n", row.name));
    }
    // The mark's WAL goes with time, not with ids: a longer run, ten million ids.
    const MANY: u64 = 10_000_000;
    let mint_many = format!("SELECT count(emq_mint_snowflake()) FROM generate_series(1, {MANY})");
    let uuid_many = format!("SELECT count(gen_random_uuid()) FROM generate_series(1, {MANY})");
    let ((minting, mint_s), (baseline, uuid_s)) = (wal_during(&c, &mint_many)?, wal_during(&c, &uuid_many)?);
    table.push_str(&format!(
        "\nWAL written by the durable mark (SPEC.md §5.3) while 10,000,000 ids were minted in {mint_s:.1} s: {minting} B, \
         **{:.0} B per 1,000,000 ids**; while 10,000,000 `gen_random_uuid()` were counted in {uuid_s:.1} s (no mark): {baseline} B.\n",
        minting as f64 / (MANY / 1_000_000) as f64
    ));
    crate::bench::record::write("postgres", &table)
}

/// The WAL bytes the server wrote while `sql` ran (a read-only statement: the
/// mark worker's commits are what it writes, and the server's background),
/// and the seconds it took.
fn wal_during(c: &Cluster, sql: &str) -> Result<(u64, f64)> {
    let started = std::time::Instant::now();
    let out = c.psql(&format!(
        "SELECT pg_current_wal_lsn() AS before \\gset
         {sql};
         SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), :'before')::bigint;"
    ))?;
    let seconds = started.elapsed().as_secs_f64();
    let bytes = out.lines().last().and_then(|l| l.trim().parse().ok());
    Ok((bytes.ok_or_else(|| anyhow::anyhow!("postgres bench: no WAL figure in {out:?}"))?, seconds))
}

/// For each `SELECT 'timed N'` marker, the time psql printed for the statement
/// after it, and the statement's one-line answer (a count), if it had one.
fn timings(out: &str) -> Vec<(f64, Option<String>)> {
    let mut found = vec![];
    let mut lines = out.lines().peekable();
    while let Some(line) = lines.next() {
        if !line.starts_with("timed ") {
            continue;
        }
        // The marker's own "Time:" line, then the statement's answer (if any) and its time.
        let _ = lines.next();
        let mut answer = None;
        for l in lines.by_ref() {
            if let Some(rest) = l.strip_prefix("Time: ") {
                if let Some(ms) = rest.split_whitespace().next().and_then(|v| v.parse().ok()) {
                    found.push((ms, answer.take()));
                }
                break;
            }
            answer = Some(l.trim().to_string());
        }
    }
    found
}
