//! `cargo xtask bench postgres`: a million rows on a live server, each
//! figure beside its `uuid` anchor from the same run: minting against
//! `gen_random_uuid()`, inserting under a primary key, the text codec against
//! uuid's text casts, and ordering and index scans of `branded_id` against
//! `uuid`. Prints the table for BENCHMARKS.md.

use anyhow::{ensure, Result};

use super::server::Cluster;

/// One timed statement: what the table calls it, its SQL, and the row of the
/// anchor it is compared with (`None` for an anchor, or a figure alone).
struct Timed {
    name: &'static str,
    sql: &'static str,
    anchor: Option<usize>,
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

const TIMED: &[Timed] = &[
    Timed { name: "count(gen_random_uuid())", sql: "SELECT count(gen_random_uuid()) FROM generate_series(1, 1000000)", anchor: None },
    Timed { name: "count(emq_mint_snowflake())", sql: "SELECT count(emq_mint_snowflake()) FROM generate_series(1, 1000000)", anchor: Some(0) },
    Timed { name: "count(emq_mint('JOB')) (text ids)", sql: "SELECT count(emq_mint('JOB')) FROM generate_series(1, 1000000)", anchor: Some(0) },
    Timed { name: "INSERT uuid v4 PK", sql: "INSERT INTO t_uuid SELECT u FROM uuids", anchor: None },
    Timed { name: "INSERT bigint snowflake PK", sql: "INSERT INTO t_bigint SELECT s FROM snowflakes", anchor: Some(3) },
    Timed { name: "INSERT branded_id PK", sql: "INSERT INTO t_branded SELECT t::branded_id FROM texts", anchor: Some(3) },
    Timed { name: "encode: count(u::text) over uuid", sql: "SELECT count(u::text) FROM uuids", anchor: None },
    Timed { name: "encode: count(emq_encode('JOB', s)) over bigint", sql: "SELECT count(emq_encode('JOB', s)) FROM snowflakes", anchor: Some(6) },
    Timed { name: "encode: count(id::text) over branded_id", sql: "SELECT count(id::text) FROM t_branded", anchor: Some(6) },
    Timed { name: "decode: count(t::uuid) over text", sql: "SELECT count(t::uuid) FROM uuid_texts", anchor: None },
    Timed { name: "decode: count(emq_decode(t)) over text", sql: "SELECT count(emq_decode(t)) FROM texts", anchor: Some(9) },
    Timed { name: "decode: count(t::branded_id) over text", sql: "SELECT count(t::branded_id) FROM texts", anchor: Some(9) },
    Timed {
        name: "sort: ORDER BY uuid (no index)",
        sql: "SELECT count(*) FROM (SELECT id FROM t_uuid ORDER BY id OFFSET 0) s",
        anchor: None,
    },
    Timed {
        name: "sort: ORDER BY branded_id (no index)",
        sql: "SELECT count(*) FROM (SELECT id FROM t_branded ORDER BY id OFFSET 0) s",
        anchor: Some(12),
    },
    Timed {
        name: "index: 100,000 uuid lookups",
        sql: "SELECT count(*) FROM (SELECT id FROM t_uuid TABLESAMPLE SYSTEM (10) REPEATABLE (7) LIMIT 100000) p JOIN t_uuid USING (id)",
        anchor: None,
    },
    Timed {
        name: "index: 100,000 branded_id lookups",
        sql: "SELECT count(*) FROM (SELECT id FROM t_branded TABLESAMPLE SYSTEM (10) REPEATABLE (7) LIMIT 100000) p JOIN t_branded USING (id)",
        anchor: Some(14),
    },
];

/// Sorting is timed without the primary keys' help (the sorts above must
/// sort); the lookups are timed as index nested loops.
const SORT_SETTINGS: &str =
    "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; SET work_mem = '256MB';";
const LOOKUP_SETTINGS: &str =
    "RESET enable_indexscan; RESET enable_indexonlyscan; RESET enable_bitmapscan; SET enable_hashjoin = off; SET enable_mergejoin = off;";

/// `cargo xtask bench postgres`: timings from one run on a live server.
pub fn run() -> Result<()> {
    super::build::install()?;
    let c = Cluster::start()?;
    c.psql(SETUP)?;
    c.psql("VACUUM ANALYZE;")?;
    let mut script = String::from("\\timing on\n");
    for (i, t) in TIMED.iter().enumerate() {
        if i == 12 {
            script.push_str(SORT_SETTINGS);
            script.push('\n');
        }
        if i == 14 {
            script.push_str("VACUUM ANALYZE t_uuid; VACUUM ANALYZE t_branded;\n");
            script.push_str(LOOKUP_SETTINGS);
            script.push('\n');
        }
        script.push_str(&format!("SELECT 'timed {i}';\n{};\n", t.sql));
    }
    script.push_str(
        "\\timing off\nSELECT pg_relation_size('t_uuid_pkey') || '|' || pg_relation_size('t_bigint_pkey') || '|' || pg_relation_size('t_branded_pkey');\n",
    );
    let out = c.psql(&script)?;
    let times = timings(&out);
    ensure!(
        times.len() == TIMED.len(),
        "postgres bench: {} timings for {} statements:\n{out}",
        times.len(),
        TIMED.len()
    );
    let sizes: Vec<u64> = out.lines().last().unwrap_or("").split('|').filter_map(|x| x.trim().parse().ok()).collect();
    let mib = |i: usize| sizes.get(i).map(|&b| format!(", index {:.1} MiB", b as f64 / 1048576.0)).unwrap_or_default();

    let mut t = String::from("| SQL, 1,000,000 rows | time | anchor ÷ this |\n|---|---|---|\n");
    for (i, row) in TIMED.iter().enumerate() {
        let index = match i {
            3 => mib(0),
            4 => mib(1),
            5 => mib(2),
            _ => String::new(),
        };
        let ratio = match row.anchor {
            None => "(anchor)".to_string(),
            Some(a) => format!("**{:.2}×**", times[a] / times[i]),
        };
        t.push_str(&format!("| {} | {:.0} ms{index} | {ratio} |\n", row.name, times[i]));
    }
    crate::bench::record("postgres", &t)
}

/// The time psql printed after each `SELECT 'timed N'` marker's statement.
fn timings(out: &str) -> Vec<f64> {
    let mut times = vec![];
    let mut armed = false;
    let mut skip_marker_time = false;
    for line in out.lines() {
        if line.starts_with("timed ") {
            armed = true;
            skip_marker_time = true; // the marker SELECT's own "Time:" line comes next
            continue;
        }
        if let Some(rest) = line.strip_prefix("Time: ") {
            if skip_marker_time {
                skip_marker_time = false;
                continue;
            }
            if armed {
                if let Some(ms) = rest.split_whitespace().next().and_then(|v| v.parse().ok()) {
                    times.push(ms);
                }
                armed = false;
            }
        }
    }
    times
}
