//! `cargo xtask bench postgres`: minting, inserting and decoding a million
//! rows on a live server, beside `gen_random_uuid()` and a uuid primary key,
//! and the table for BENCHMARKS.md.

use anyhow::Result;

use super::server::Cluster;

/// `cargo xtask bench postgres`: timings from one run on a live server.
pub fn run() -> Result<()> {
    super::build::install()?;
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
    Ok(())
}
