//! The server's minter under a wall clock that jumps back by seconds and
//! forward again: two connections mint while a
//! server whose processes preload libfaketime has its clock stepped through
//! an offset file. Every id is unique, each connection's ids only increase,
//! and the server is seen at every offset, so a clock that never moved fails
//! the test instead of passing it.

use std::path::Path;
use std::process::Child;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{ensure, Context, Result};

use super::server::Cluster;

/// The clock's offsets from the real time, in seconds, one phase each: back
/// 3 s, forward again, back 5 s, back a minute more, forward to 2 s behind,
/// then the real time (the Node test's steps).
const OFFSETS: [i64; 7] = [0, -3, 0, -5, -65, -2, 0];
const PHASE: Duration = Duration::from_millis(400);
const CONNECTIONS: usize = 2;

/// Writes the offset to a file beside `file`, then renames it over `file`: a
/// server process reading it at that moment sees the old offset or the new,
/// never an empty file (which libfaketime would read as no offset).
pub(super) fn set_offset(file: &Path, seconds: i64) -> Result<()> {
    let next = file.with_extension("next");
    crate::write(&next, format!("{seconds:+}\n"))?;
    std::fs::rename(&next, file).with_context(|| format!("renaming {} over {}", next.display(), file.display()))
}

/// The minting connections, killed and reaped if the test stops early.
struct Minters(Vec<Child>);

impl Drop for Minters {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// One connection minting 200 ids per transaction into `clock_mint` (with its
/// own number and the order it minted them in) until `clock_stop` has a row.
fn minter(c: &Cluster, conn: usize) -> Result<Child> {
    c.spawn(&format!(
        "DO $$ BEGIN LOOP
               INSERT INTO clock_mint SELECT emq_mint('JOB'), {conn}, nextval('clock_order') FROM generate_series(1, 200);
               COMMIT;
               EXIT WHEN EXISTS (SELECT FROM clock_stop);
             END LOOP; END $$"
    ))
}

/// The server's wall clock minus this process's (which libfaketime leaves
/// alone), in whole seconds: against the midpoint of this process's readings
/// before and after the query, so psql's start-up on a loaded machine does
/// not count as offset.
pub(super) fn server_offset(c: &Cluster) -> Result<i64> {
    let now = || -> Result<f64> { Ok(SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs_f64() * 1000.0) };
    let before = now()?;
    let server_ms: f64 =
        c.one("SELECT extract(epoch FROM clock_timestamp()) * 1000")?.parse().context("reading the server's clock")?;
    let real_ms = (before + now()?) / 2.0;
    Ok(((server_ms - real_ms) / 1000.0).round() as i64)
}

pub fn run() -> Result<()> {
    let lib = crate::setup::faketime()?;
    let offset_file = std::env::temp_dir().join(format!("emq-id-pg-clock-{}", std::process::id()));
    set_offset(&offset_file, 0)?;
    let env = crate::setup::faked_clock_env(&lib, &offset_file);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let result = Cluster::start_with_env(&env).and_then(|c| mint_through_jumps(&c, &offset_file));
    let _ = std::fs::remove_file(&offset_file);
    result
}

fn mint_through_jumps(c: &Cluster, offset_file: &Path) -> Result<()> {
    c.psql(
        "CREATE TABLE clock_mint (id text COLLATE \"C\" NOT NULL, conn int NOT NULL, ord bigint NOT NULL);
         CREATE SEQUENCE clock_order; CREATE TABLE clock_stop ();",
    )?;
    let mut minters = Minters(vec![]);
    for conn in 0..CONNECTIONS {
        minters.0.push(minter(c, conn)?);
    }
    let mut seen = vec![];
    for offset in OFFSETS {
        set_offset(offset_file, offset)?;
        std::thread::sleep(PHASE);
        seen.push(server_offset(c)?);
    }
    c.psql("INSERT INTO clock_stop DEFAULT VALUES;")?;
    for child in std::mem::take(&mut minters.0) {
        let out = child.wait_with_output().context("waiting for psql")?;
        ensure!(
            out.status.success(),
            "postgres: a minting connection failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    ensure!(
        seen == OFFSETS,
        "postgres: the server's clock was at {seen:?} s from the real one, not {OFFSETS:?} (is libfaketime working?)"
    );
    // Per connection, ids in the order minted: none at or below its predecessor.
    let counts = c.one(
        "SELECT count(*) || ' ' || count(DISTINCT id) || ' ' || count(*) FILTER (WHERE id <= prev) || ' '
                || count(DISTINCT conn) || ' ' || min(per) || ' ' || count(*) FILTER (WHERE emq_node(emq_decode(id)) <> 1)
         FROM (SELECT id, conn, lag(id) OVER (PARTITION BY conn ORDER BY ord) AS prev,
                      count(*) OVER (PARTITION BY conn) AS per
               FROM clock_mint) t",
    )?;
    let f: Vec<&str> = counts.split(' ').collect();
    ensure!(f.len() == 6, "postgres: unexpected answer {counts:?}");
    let (total, distinct, backwards, conns, fewest, off_node) = (f[0], f[1], f[2], f[3], f[4], f[5]);
    ensure!(total == distinct, "postgres: {total} ids minted through clock jumps, only {distinct} distinct");
    ensure!(backwards == "0", "postgres: {backwards} ids at or below their connection's previous id");
    ensure!(conns == CONNECTIONS.to_string(), "postgres: {conns} connections minted, not {CONNECTIONS}");
    ensure!(fewest.parse::<u64>().unwrap_or(0) >= 1000, "postgres: a connection minted only {fewest} ids");
    ensure!(off_node == "0", "postgres: {off_node} ids not of the server's node");
    println!(
        "postgres: {total} ids from {CONNECTIONS} connections through the shared minter, the server's wall clock \
         stepping {OFFSETS:?} s: 0 duplicates, each connection's ids increasing"
    );
    Ok(())
}
