//! Standbys, restarts, crashes and failovers (SPEC.md §5.3), on live
//! clusters: a primary on node 5 and hot standbys made from it with
//! `pg_basebackup -R`, the standbys' and the crashed server's wall clocks
//! set back by libfaketime. Each test has a negative control that blinds the
//! guard with a test-only setting (`emq_id.unsafe_ignore_recovery`,
//! `emq_id.unsafe_ignore_mark`) and finds the duplicates or the regression
//! the guard prevents; and a mint with no durable mark to be had fails,
//! boundedly, with the named error.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};

use super::clock::{server_offset, set_offset};
use super::server::Cluster;

/// Each server's share when two mint at once (the measurement).
const AT_ONCE: usize = 200_000;
const BURST: usize = 100_000;

/// `cargo xtask pg-tests`' standby, crash and failover tests.
pub fn run() -> Result<()> {
    let started = Instant::now();
    let lib = crate::setup::faketime()?;
    let clocks = Clocks::new(&lib, ["a", "b", "c"])?;
    let result = (|| {
        let (env_a, env_b) = (clocks.env(0), clocks.env(1));
        let primary = Cluster::start_primary(3, &[], "emq_id.node = 5\n")?;
        let standby = Cluster::start_standby(&primary, 4, &pairs(&env_a), "")?;
        standby_refuses(&primary, &standby)?;
        standby_on_its_own_node(&primary, &standby)?;
        failover(primary, &standby, &clocks, 0, false)?;
        drop(standby);
        let primary = Cluster::start_primary(5, &[], "emq_id.node = 5\n")?;
        let standby = Cluster::start_standby(&primary, 6, &pairs(&env_b), "emq_id.unsafe_ignore_mark = on\n")?;
        failover(primary, &standby, &clocks, 1, true)?;
        drop(standby);
        let c = crash_with_the_clock_behind(&clocks)?;
        no_mark_no_id(&c, &clocks)
    })();
    clocks.remove();
    println!("postgres: the standby, crash and failover tests took {:.0} s", started.elapsed().as_secs_f64());
    result
}

/// Offset files of libfaketime, one per server that needs its own clock.
struct Clocks {
    lib: PathBuf,
    files: Vec<PathBuf>,
}

impl Clocks {
    fn new<const N: usize>(lib: &Path, names: [&str; N]) -> Result<Clocks> {
        let dir = std::env::temp_dir();
        let files: Vec<PathBuf> =
            names.iter().map(|n| dir.join(format!("emq-id-pg-standby-{}-{n}", std::process::id()))).collect();
        for f in &files {
            set_offset(f, 0)?;
        }
        Ok(Clocks { lib: lib.to_path_buf(), files })
    }

    fn env(&self, i: usize) -> Vec<(&'static str, String)> {
        crate::setup::faked_clock_env(&self.lib, &self.files[i])
    }

    fn set(&self, i: usize, seconds: i64) -> Result<()> {
        set_offset(&self.files[i], seconds)
    }

    fn remove(&self) {
        for f in &self.files {
            let _ = std::fs::remove_file(f);
        }
    }
}

/// `env` as `Cluster` takes it.
fn pairs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// `n` snowflakes minted by one statement on `c`, as psql printed them.
fn mint(c: &Cluster, n: usize) -> Result<Vec<i64>> {
    let out = c.psql(&format!("SELECT emq_mint_snowflake() FROM generate_series(1, {n});"))?;
    out.lines().map(|l| l.trim().parse::<i64>().with_context(|| format!("reading a snowflake from {l:?}"))).collect()
}

/// Both servers asked for `n` ids at the same moment.
fn mint_at_once(a: &Cluster, b: &Cluster, n: usize) -> (Result<Vec<i64>>, Result<Vec<i64>>) {
    std::thread::scope(|s| {
        let first = s.spawn(|| mint(a, n));
        let second = mint(b, n);
        (first.join().unwrap_or_else(|_| bail!("the minting thread panicked")), second)
    })
}

fn common(a: &[i64], b: &[i64]) -> usize {
    let a: HashSet<i64> = a.iter().copied().collect();
    b.iter().filter(|s| a.contains(s)).count()
}

fn node(s: i64) -> i64 {
    (s >> 12) & 1023
}

/// Appends `conf` to the server's postgresql.conf and reloads it (a standby
/// cannot ALTER SYSTEM), then lets the postmaster and the worker read it.
fn reconfigure(c: &Cluster, conf: &str) -> Result<()> {
    let path = c.dir().join("data/postgresql.conf");
    let text = crate::read(&path)?;
    crate::write(&path, format!("{text}\n{conf}"))?;
    c.psql("SELECT pg_reload_conf();")?;
    std::thread::sleep(Duration::from_millis(500));
    Ok(())
}

/// The error a statement on `c` raised, with its SQLSTATE (psql's verbose form).
fn refusal(c: &Cluster, sql: &str) -> Result<String> {
    let out = c.psql_command().args(["-v", "VERBOSITY=verbose", "-c", sql]).output().context("running psql")?;
    ensure!(!out.status.success(), "postgres: {sql} should have been refused");
    Ok(String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Test 1: a hot standby from `pg_basebackup -R` (emq_id.node = 5, copied
/// from the primary) refuses to mint with the gate `node`; the primary and
/// the standby asked for 200,000 ids each at once have 0 ids in common.
/// Control: the refusal blinded, the same two servers mint duplicates.
fn standby_refuses(primary: &Cluster, standby: &Cluster) -> Result<()> {
    let said = refusal(standby, "SELECT emq_mint('JOB')")?;
    ensure!(
        said.contains("ERROR:  55000: node:") && said.contains("emq_id gate: node") && said.contains("standby_node"),
        "postgres: a standby's mint must be refused with 55000 and the gate node, naming emq_id.standby_node: {said}"
    );
    let (p, s) = mint_at_once(primary, standby, AT_ONCE);
    let p = p?;
    let refused = s.as_ref().err().map(|e| e.to_string()).unwrap_or_default();
    ensure!(s.is_err() && refused.contains("node:"), "postgres: the standby minted: {s:?}");
    ensure!(p.len() == AT_ONCE, "postgres: the primary minted {} ids, not {AT_ONCE}", p.len());
    println!(
        "postgres standby (1): primary and hot standby (pg_basebackup -R, both emq_id.node = 5) asked for {AT_ONCE} ids each at once: \
         primary {}, standby 0 (refused: 55000 node), 0 ids in both",
        p.len()
    );
    reconfigure(standby, "emq_id.unsafe_ignore_recovery = on")?;
    let (p, s) = mint_at_once(primary, standby, AT_ONCE);
    let (p, s) = (p?, s?);
    let dups = common(&p, &s);
    ensure!(dups > 0, "postgres: control: with the refusal blinded, the standby's ids should repeat the primary's");
    println!(
        "postgres standby (1) control: emq_id.unsafe_ignore_recovery = on, the standby mints on node 5: {} + {} ids, {dups} minted by both",
        p.len(),
        s.len()
    );
    reconfigure(standby, "emq_id.unsafe_ignore_recovery = off")
}

/// Test 4: `emq_id.standby_node` equal to the primary's node is refused; a
/// node of the standby's own mints, at the same time as the primary, with 0
/// ids in common. (Its control is test 1's: the two servers on one node.)
fn standby_on_its_own_node(primary: &Cluster, standby: &Cluster) -> Result<()> {
    reconfigure(standby, "emq_id.standby_node = 5")?;
    let said = refusal(standby, "SELECT emq_mint_snowflake()")?;
    ensure!(
        said.contains("55000: node:") && said.contains("a node the primary mints on"),
        "postgres: emq_id.standby_node = emq_id.node must be refused with node: {said}"
    );
    reconfigure(standby, "emq_id.standby_node = 6")?;
    let (p, s) = mint_at_once(primary, standby, AT_ONCE);
    let (p, s) = (p?, s?);
    let dups = common(&p, &s);
    let off = p.iter().filter(|&&x| node(x) != 5).count() + s.iter().filter(|&&x| node(x) != 6).count();
    ensure!(p.len() == AT_ONCE && s.len() == AT_ONCE, "postgres: {} and {} ids, not {AT_ONCE} each", p.len(), s.len());
    ensure!(dups == 0 && off == 0, "postgres: a standby on its own node: {dups} ids in both, {off} on the wrong node");
    println!(
        "postgres standby (4): emq_id.standby_node = 5 refused (55000 node); = 6: primary {} ids on node 5, standby {} on node 6, at once: 0 ids in both",
        p.len(),
        s.len()
    );
    reconfigure(standby, "emq_id.standby_node = -1")
}

/// Test 3: the primary is killed (`-m immediate`) while it mints, the standby
/// (`clock` its libfaketime file) is promoted with its clock 5 s behind:
/// every id of the new primary sorts after every id the old one handed out,
/// and none repeats. `control`: the standby runs with the mark ignored, so
/// its ids must fall before the old primary's.
fn failover(primary: Cluster, standby: &Cluster, clocks: &Clocks, clock: usize, control: bool) -> Result<()> {
    // The primary mints in statements of 2,000 ids until it is killed; what
    // psql printed is every id the old primary handed out to this client.
    // Its output goes to a file: a pipe nobody reads would stop it when full.
    let script = std::env::temp_dir().join(format!("emq-id-pg-failover-{}.sql", std::process::id()));
    let printed = script.with_extension("out");
    crate::write(&script, "SELECT emq_mint_snowflake() FROM generate_series(1, 2000);\n".repeat(5000))?;
    let file = std::fs::File::create(&printed).with_context(|| format!("creating {}", printed.display()))?;
    let child = primary
        .psql_command()
        .arg("-f")
        .arg(&script)
        .stdout(Stdio::from(file))
        .stderr(Stdio::piped())
        .spawn()
        .context("starting psql")?;
    std::thread::sleep(Duration::from_millis(1500));
    primary.crash()?;
    let out = child.wait_with_output().context("waiting for psql")?;
    let text = crate::read(&printed);
    let _ = (std::fs::remove_file(&script), std::fs::remove_file(&printed));
    ensure!(!out.status.success(), "postgres: the primary finished minting before it was killed: not mid-mint");
    let old: Vec<i64> = text?.lines().filter_map(|l| l.trim().parse().ok()).collect();
    ensure!(old.len() >= 10_000, "postgres: the old primary handed out only {} ids before it was killed", old.len());
    drop(primary);
    clocks.set(clock, -5)?;
    standby.promote()?;
    let offset = server_offset(standby)?;
    ensure!(offset == -5, "postgres: the promoted standby's clock is {offset} s off, not -5 (is libfaketime working?)");
    let new = mint(standby, BURST)?;
    let old_max = old.iter().copied().max().unwrap_or(0);
    let before = new.iter().filter(|&&s| s <= old_max).count();
    let dups = common(&old, &new);
    let gap_ms = ((new.iter().copied().min().unwrap_or(0) >> 22) - (old_max >> 22)) as f64;
    if control {
        ensure!(
            before > 0,
            "postgres: control: with the mark ignored, the promoted standby's ids should sort before the old primary's"
        );
        println!(
            "postgres failover (3) control: emq_id.unsafe_ignore_mark = on: {} ids of the new primary, {before} sort at or before the old primary's last ({} ids), {dups} repeated",
            new.len(),
            old.len()
        );
        return Ok(());
    }
    ensure!(
        before == 0 && dups == 0,
        "postgres: after the failover, {before} ids sort at or before the old primary's last, {dups} repeat"
    );
    println!(
        "postgres failover (3): old primary killed after {} ids, standby promoted 5 s behind: {} new ids, every one after the old primary's last (first {gap_ms:+.0} ms after it), 0 repeated",
        old.len(),
        new.len()
    );
    Ok(())
}

/// Test 2: a burst, a crash (`-m immediate`), a restart with the clock 10 s
/// behind: every id after sorts after every id before. Control: the same with
/// the mark ignored — the server mints inside the range it handed out.
fn crash_with_the_clock_behind(clocks: &Clocks) -> Result<Cluster> {
    let env = clocks.env(2);
    let env = pairs(&env);
    let c = Cluster::start_primary(7, &env, "emq_id.node = 5\n")?;
    for control in [false, true] {
        if control {
            reconfigure(&c, "emq_id.unsafe_ignore_mark = on")?;
        }
        clocks.set(2, 0)?;
        let before = mint(&c, BURST)?;
        c.crash()?;
        clocks.set(2, -10)?;
        c.boot(&env)?;
        let offset = server_offset(&c)?;
        ensure!(offset == -10, "postgres: the restarted server's clock is {offset} s off, not -10");
        let after = mint(&c, BURST)?;
        let last = before.iter().copied().max().unwrap_or(0);
        let behind = after.iter().filter(|&&s| s <= last).count();
        let dups = common(&before, &after);
        if control {
            ensure!(
                behind > 0,
                "postgres: control: with the mark ignored, the restarted server should mint behind its last id"
            );
            println!(
                "postgres crash (2) control: emq_id.unsafe_ignore_mark = on: {behind} of {} ids after the restart sort at or before the last id before it, {dups} repeated",
                after.len()
            );
        } else {
            ensure!(
                behind == 0 && dups == 0,
                "postgres: after the crash, {behind} ids sort at or before the last id before it"
            );
            let gap_ms = (after.iter().copied().min().unwrap_or(0) >> 22) - (last >> 22);
            println!(
                "postgres crash (2): {} ids, crash (-m immediate), restart 10 s behind, {} ids: every one after the last before (first {gap_ms:+} ms after it), 0 repeated",
                before.len(),
                after.len()
            );
        }
    }
    Ok(c)
}

/// Test 5: a worker that cannot raise the mark (the extension dropped from
/// `emq_id.database`, so the mark has nowhere to go) makes a mint that
/// reaches the published mark wait, boundedly, and fail with the named
/// error; the backend lives on.
fn no_mark_no_id(c: &Cluster, clocks: &Clocks) -> Result<()> {
    // The real time again: the mark the server published is soon behind it.
    clocks.set(2, 0)?;
    c.psql("CREATE DATABASE emq_elsewhere;")?;
    reconfigure(c, "emq_id.unsafe_ignore_mark = off")?;
    let elsewhere =
        |sql: &str| c.psql_command().args(["-d", "emq_elsewhere", "-v", "VERBOSITY=verbose", "-c", sql]).output();
    let created = elsewhere("CREATE EXTENSION emq_id").context("running psql")?;
    ensure!(created.status.success(), "postgres: {}", String::from_utf8_lossy(&created.stderr));
    c.psql("DROP EXTENSION emq_id;")?;
    let started = Instant::now();
    // Past any mark already published (4,096 ids a millisecond for 10 s at most).
    let out =
        elsewhere("SELECT count(emq_mint_snowflake()) FROM generate_series(1, 40960000)").context("running psql")?;
    let took = started.elapsed().as_secs_f64();
    let said = String::from_utf8_lossy(&out.stderr);
    ensure!(
        !out.status.success() && said.contains("55000: emq_id mark: the durable high-water mark was not raised"),
        "postgres: minting without a durable mark must fail with the named error: {said}"
    );
    let alive = elsewhere("SELECT 1").context("running psql")?;
    ensure!(alive.status.success() && took < 30.0, "postgres: {took:.1} s, and the server afterwards: {alive:?}");
    println!(
        "postgres mark (5): the extension dropped from emq_id.database, a mint past the published mark waited and failed in {took:.1} s: {}",
        said.lines().next().unwrap_or("").trim()
    );
    Ok(())
}
