//! Faults the extension must survive on a live server: a backend killed with SIGKILL while others mint, so the
//! postmaster restarts every backend and re-creates shared memory; and random
//! input through every `emq_*` function and `branded_id`'s text and binary
//! input, which must be refused with a data SQLSTATE, never crash a backend,
//! and leave a backend's memory flat.

use std::collections::BTreeMap;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};

use super::server::Cluster;
use crate::vectors::rng::Rng;
use crate::{poll, try_poll};

/// The SQLSTATEs a refusal of input may carry (SPEC.md §9): invalid text
/// representation, invalid binary representation, invalid parameter value.
const REFUSALS: [&str; 3] = ["22P02", "22P03", "22023"];
/// Functions the random run leaves out, each with its reason.
const NOT_FUZZED: &[(&str, &str)] =
    &[("emq_host_check", "refusing a corrupted vector file is XX000 by design (the CREATE EXTENSION self-check)")];

pub fn run(c: &Cluster) -> Result<()> {
    backend_killed_mid_mint(c)?;
    random_input(c)?;
    memory_stays_flat(c)
}

/// How often the server log says the postmaster reinitialized after a crash.
fn crash_restarts(c: &Cluster) -> Result<usize> {
    let log = std::fs::read(c.dir().join("server.log")).context("reading server.log")?;
    Ok(String::from_utf8_lossy(&log).matches("all server processes terminated; reinitializing").count())
}

/// A psql that keeps going after an error, in UTF-8, printing SQLSTATEs.
fn psql_lenient(c: &Cluster) -> std::process::Command {
    let mut cmd = c.psql_command();
    cmd.args(["-v", "ON_ERROR_STOP=0", "-v", "VERBOSITY=verbose"]).env("PGCLIENTENCODING", "UTF8");
    cmd
}

const MINTERS: usize = 4;
/// How often a wait asks the server: each ask is a `psql`, which the minters would feel more often.
const ASK: Duration = Duration::from_millis(100);
const ROWS_PER_INSERT: usize = 1000;

/// One connection minting `loops` × 1,000 ids into `fault_mint`, one commit per INSERT.
fn minter(c: &Cluster, phase: u8, loops: usize) -> Result<Child> {
    c.spawn(&format!(
        "DO $$ BEGIN FOR i IN 1..{loops} LOOP
               INSERT INTO fault_mint SELECT emq_mint('JOB'), {phase} FROM generate_series(1, {ROWS_PER_INSERT});
               COMMIT;
             END LOOP; END $$"
    ))
}

/// 4 connections mint; one backend is killed with SIGKILL, the postmaster
/// restarts all of them and re-creates shared memory (the mint state with it);
/// minting resumes, every committed id is unique and every id minted after
/// the restart sorts after every id committed before it.
fn backend_killed_mid_mint(c: &Cluster) -> Result<()> {
    c.psql("CREATE TABLE fault_mint (id text COLLATE \"C\" NOT NULL, phase int NOT NULL);")?;
    let restarts_before = crash_restarts(c)?;
    let children: Vec<Child> = (0..MINTERS).map(|_| minter(c, 0, 100_000)).collect::<Result<_>>()?;
    let mut committed = 0u64;
    let enough = try_poll(Duration::from_secs(120), ASK, || {
        committed = c.one("SELECT count(*) FROM fault_mint")?.parse()?;
        Ok(committed >= 40_000)
    })?;
    ensure!(enough, "postgres: the minters committed {committed} ids in 120 s, not 40,000");
    let pids = c.one(
        "SELECT string_agg(pid::text, ' ') FROM pg_stat_activity
         WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND query LIKE 'DO %emq_mint%'",
    )?;
    let pids: Vec<&str> = pids.split_whitespace().collect();
    ensure!(pids.len() == MINTERS, "postgres: {} minting backends, not {MINTERS}: {pids:?}", pids.len());
    crate::sh(std::process::Command::new("kill").args(["-9", pids[0]]))?;
    let killed_at = Instant::now();
    let mut cut_off = 0;
    for child in children {
        let out = child.wait_with_output().context("waiting for psql")?;
        cut_off += usize::from(!out.status.success());
    }
    // Reconnect with retries while the postmaster recovers.
    let alive =
        || c.psql_command().args(["-c", "SELECT 1"]).stderr(Stdio::null()).output().is_ok_and(|o| o.status.success());
    let left = Duration::from_secs(120).saturating_sub(killed_at.elapsed());
    ensure!(poll(left, ASK, alive), "postgres: no connection 120 s after the SIGKILL");
    let recovered = killed_at.elapsed();
    let restarts = crash_restarts(c)? - restarts_before;
    ensure!(restarts == 1, "postgres: the server log shows {restarts} crash restarts after one SIGKILL, not 1");
    ensure!(cut_off == MINTERS, "postgres: the crash restart cut off {cut_off} of {MINTERS} minting connections");
    let before = c.one("SELECT count(*) || ' ' || max(id) FROM fault_mint WHERE phase = 0")?;
    // Minting resumes on the re-created state.
    let children: Vec<Child> = (0..MINTERS).map(|_| minter(c, 1, 25)).collect::<Result<_>>()?;
    for child in children {
        let out = child.wait_with_output().context("waiting for psql")?;
        ensure!(
            out.status.success(),
            "postgres: minting after the restart failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    }
    let counts = c.one(
        "SELECT count(*) FILTER (WHERE phase = 0) || ' ' || count(*) FILTER (WHERE phase = 1) || ' '
                || count(*) - count(DISTINCT id) || ' '
                || count(*) FILTER (WHERE phase = 1 AND id <= (SELECT max(id) FROM fault_mint WHERE phase = 0)) || ' '
                || (SELECT max(id) FROM fault_mint WHERE phase = 0) || ' ' || (SELECT min(id) FROM fault_mint WHERE phase = 1) || ' '
                || emq_unix_ms(emq_decode((SELECT min(id) FROM fault_mint WHERE phase = 1)))
                   - emq_unix_ms(emq_decode((SELECT max(id) FROM fault_mint WHERE phase = 0)))
         FROM fault_mint",
    )?;
    let f: Vec<&str> = counts.split(' ').collect();
    ensure!(f.len() == 7, "postgres: unexpected answer {counts:?} (before: {before})");
    let (pre, post, dups, behind, last_pre, first_post, gap_ms) = (f[0], f[1], f[2], f[3], f[4], f[5], f[6]);
    ensure!(dups == "0", "postgres: {dups} duplicate ids among {pre} + {post} committed across the crash restart");
    ensure!(
        behind == "0",
        "postgres: {behind} of {post} ids minted after the crash restart sort at or before the last id committed before it \
         ({first_post} <= {last_pre}): the mint state lives only in shared memory, which the restart re-creates at 0, so \
         minting restarts from the clock; the extension would need a high-water mark that outlives shared memory"
    );
    println!(
        "postgres: SIGKILL of 1 of {MINTERS} minting backends: the postmaster restarted all {cut_off} and re-created shared memory \
         (back in {:.1}s); {pre} ids before + {post} after, 0 duplicates, 0 after-restart ids at or before the last pre-crash id \
         (first after - last before = {gap_ms} ms)",
        recovered.as_secs_f64()
    );
    Ok(())
}

const RANDOM_INPUTS: usize = 100_000;
const FUZZERS: usize = 3;
/// One input in this many is a binary `branded_id` (a one-row binary COPY), one more the text input.
const BINARY_EVERY: usize = 25;

/// 100,000 random inputs from 3 connections through every `emq_*` function
/// with arguments and `branded_id`'s text and binary input: every refusal is
/// 22P02, 22P03 or 22023, no backend crashes and the postmaster never restarts.
fn random_input(c: &Cluster) -> Result<()> {
    let functions = c.one(
        "SELECT p.proname || '|' || (SELECT string_agg(format_type(t, NULL), ',' ORDER BY i)
                                     FROM unnest(p.proargtypes) WITH ORDINALITY u(t, i))
         FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
         JOIN pg_extension e ON e.oid = d.refobjid
         WHERE e.extname = 'emq_id' AND p.proname LIKE 'emq\\_%' AND p.pronargs > 0
         ORDER BY 1",
    )?;
    let mut targets: Vec<(String, Vec<String>)> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    for line in functions.lines() {
        let (name, args) = line.split_once('|').unwrap_or((line, ""));
        let args: Vec<String> = args.split(',').map(str::to_string).collect();
        if NOT_FUZZED.iter().any(|n| n.0 == name) {
            continue;
        }
        if args.iter().all(|a| Arg::of(a).is_some()) {
            targets.push((name.to_string(), args));
        } else {
            skipped.push(format!("{name}({})", args.join(",")));
        }
    }
    ensure!(skipped.is_empty(), "postgres: random input has no generator for the arguments of {skipped:?}");
    ensure!(targets.len() >= 20, "postgres: only {} emq_* functions with arguments", targets.len());
    c.psql("CREATE TABLE fault_binary (id branded_id);")?;
    let dir = c.dir().join("fuzz");
    crate::mkdir(&dir)?;
    let started_at = c.one("SELECT pg_postmaster_start_time()")?;
    let restarts_before = crash_restarts(c)?;
    let mut rng = Rng::new(0x13_FA17_5EED);
    let mut scripts = vec![String::new(); FUZZERS];
    let (mut binary, mut text_in) = (0, 0);
    for i in 0..RANDOM_INPUTS {
        let script = &mut scripts[i % FUZZERS];
        match i % BINARY_EVERY {
            0 => {
                let file = dir.join(format!("{i}.bin"));
                crate::write(&file, super::binary_copy::one_field(&random_binary(&mut rng)))?;
                script.push_str(&format!("COPY fault_binary FROM '{}' (FORMAT binary);\n", file.display()));
                binary += 1;
            }
            1 => {
                script.push_str(&format!("SELECT {}::branded_id;\n", quote(&random_text(&mut rng))));
                text_in += 1;
            }
            _ => {
                let (name, args) = &targets[rng.below(targets.len() as u64) as usize];
                let args: Vec<String> = args.iter().map(|a| Arg::of(a).unwrap().random(&mut rng)).collect();
                script.push_str(&format!("SELECT {name}({});\n", args.join(", ")));
            }
        }
    }
    let started = Instant::now();
    let children: Vec<Child> = scripts
        .into_iter()
        .map(|script| {
            let file = dir.join(format!("script-{}.sql", rng.next_u64()));
            crate::write(&file, script)?;
            psql_lenient(c)
                .arg("-f")
                .arg(&file)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .context("starting psql")
        })
        .collect::<Result<_>>()?;
    let mut states: BTreeMap<String, usize> = BTreeMap::new();
    let mut odd: Vec<String> = Vec::new();
    for child in children {
        let out = child.wait_with_output().context("waiting for psql")?;
        for line in String::from_utf8_lossy(&out.stderr).lines() {
            if let Some(at) = line.find("ERROR:  ") {
                let state = line[at + 8..].get(..5).unwrap_or("?????").to_string();
                if !REFUSALS.contains(&state.as_str()) && odd.len() < 5 {
                    odd.push(line.to_string());
                }
                *states.entry(state).or_default() += 1;
            } else if line.contains("connection") && (line.contains("lost") || line.contains("closed")) {
                odd.push(line.to_string());
            }
        }
    }
    let elapsed = started.elapsed();
    let restarts = crash_restarts(c)? - restarts_before;
    let started_after = c.one("SELECT pg_postmaster_start_time()")?;
    let refused: usize = states.values().sum();
    let _ = std::fs::remove_dir_all(&dir);
    ensure!(
        restarts == 0 && started_at == started_after,
        "postgres: the random input restarted the server ({restarts} crash restarts; started {started_at}, now {started_after})"
    );
    ensure!(
        odd.is_empty(),
        "postgres: random input refused with a SQLSTATE outside {REFUSALS:?} or lost a connection: {states:?}\n{}",
        odd.join("\n")
    );
    let states: Vec<String> = states.iter().map(|(s, n)| format!("{n} {s}")).collect();
    println!(
        "postgres: {RANDOM_INPUTS} random inputs from {FUZZERS} connections through {} emq_* functions, {text_in} text and {binary} binary branded_id inputs \
         ({:.1}s): {} accepted, {refused} refused ({}), 0 other SQLSTATEs, postmaster never restarted",
        targets.len(),
        elapsed.as_secs_f64(),
        RANDOM_INPUTS - refused,
        states.join(", ")
    );
    Ok(())
}

/// A backend's resident memory and memory contexts stay flat over a million
/// cheap calls (200,000 rows of 9 calls each), and over 100,000 refusals (each
/// an ERROR caught in PL/pgSQL).
fn memory_stays_flat(c: &Cluster) -> Result<()> {
    const ROWS: usize = 200_000;
    const CALLS: usize = ROWS * 9;
    const REFUSED: usize = 100_000;
    let measure = "COPY rss FROM PROGRAM 'awk ''/^VmRSS/ {print $2}'' /proc/$PPID/status';
                   SELECT (SELECT max(kb) * 1024 FROM rss) || ' ' || (SELECT sum(total_bytes) FROM pg_backend_memory_contexts);
                   TRUNCATE rss;";
    let calls = |n: usize| {
        format!(
            "SELECT count(*) FROM (SELECT emq_decode(emq_encode('USR', g)), emq_slot('{{q}}:' || g), emq_hash32(g),
                    emq_is_valid(emq_encode('JOB', g * 7)), emq_encode('ORD', g)::branded_id::text
             FROM generate_series(1, {n}) g) t;"
        )
    };
    let refusals = |n: usize| {
        format!(
            "DO $$ DECLARE bad int := 0; BEGIN FOR i IN 1..{n} LOOP
               BEGIN PERFORM emq_decode('USRzzzzzzzz' || i); EXCEPTION WHEN others THEN bad := bad + 1; END;
             END LOOP; IF bad <> {n} THEN RAISE 'only % refusals', bad; END IF; END $$;"
        )
    };
    let script = format!(
        "CREATE TEMP TABLE rss (kb bigint);
         {warm} {refuse_warm} {measure} {calls} {measure} {refuse} {measure}",
        warm = calls(ROWS / 10),
        refuse_warm = refusals(REFUSED / 10),
        calls = calls(ROWS),
        refuse = refusals(REFUSED),
    );
    let out = c.psql(&script)?;
    let nums: Vec<i64> = out.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    // The counts the SELECTs printed come first: warm-up, then (rss, contexts) triples around the runs.
    ensure!(nums.len() == 8, "postgres: unexpected output of the memory run: {out:?}");
    let (rss0, ctx0, rss1, ctx1, rss2, ctx2) = (nums[1], nums[2], nums[4], nums[5], nums[6], nums[7]);
    ensure!(nums[3] == ROWS as i64, "postgres: the memory run made {} rows, not {ROWS}", nums[3]);
    let mib = |b: i64| b as f64 / (1 << 20) as f64;
    const LIMIT: i64 = 4 << 20;
    ensure!(
        rss1 - rss0 < LIMIT && ctx1 - ctx0 < LIMIT && rss2 - rss1 < LIMIT && ctx2 - ctx1 < LIMIT,
        "postgres: a backend's memory grew: RSS {rss0} -> {rss1} -> {rss2} bytes, memory contexts {ctx0} -> {ctx1} -> {ctx2} bytes"
    );
    println!(
        "postgres: one backend's memory over {CALLS} calls then {REFUSED} refusals: RSS {:.1} -> {:.1} -> {:.1} MiB, memory contexts {:.2} -> {:.2} -> {:.2} MiB (limit +4 MiB each)",
        mib(rss0),
        mib(rss1),
        mib(rss2),
        mib(ctx0),
        mib(ctx1),
        mib(ctx2)
    );
    Ok(())
}

/// The SQL argument types random input is made for.
#[derive(Clone, Copy)]
enum Arg {
    Text,
    Bytea,
    Bigint,
    Integer,
    Numeric,
    Timestamptz,
    BrandedId,
}

impl Arg {
    fn of(sql_type: &str) -> Option<Arg> {
        Some(match sql_type {
            "text" => Arg::Text,
            "bytea" => Arg::Bytea,
            "bigint" => Arg::Bigint,
            "integer" => Arg::Integer,
            "numeric" => Arg::Numeric,
            "timestamp with time zone" => Arg::Timestamptz,
            "branded_id" => Arg::BrandedId,
            _ => return None,
        })
    }

    /// A random SQL literal of this type.
    fn random(self, rng: &mut Rng) -> String {
        match self {
            Arg::Text => quote(&random_text(rng)),
            Arg::BrandedId => format!("{}::branded_id", quote(&random_text(rng))),
            Arg::Bytea => {
                let bytes = random_bytes(rng);
                format!("'\\x{}'::bytea", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())
            }
            Arg::Bigint => format!("'{}'::bigint", random_i64(rng)),
            Arg::Integer => {
                let n = match rng.below(4) {
                    0 => [i32::MIN, -1, 0, 1, 1023, 1024, 4095, 4096, i32::MAX][rng.below(9) as usize],
                    1 => rng.below(2048) as i32 - 1024,
                    _ => rng.next_u64() as i32,
                };
                format!("'{n}'::integer")
            }
            Arg::Numeric => {
                let n = match rng.below(6) {
                    0 => [
                        "NaN",
                        "Infinity",
                        "-Infinity",
                        "9223372036854775808",
                        "-9223372036854775809",
                        "18446744073709551616",
                        "-0",
                        "0.5",
                        "1e-30",
                        "1e300",
                    ][rng.below(10) as usize]
                        .to_string(),
                    1 => random_i64(rng).to_string(),
                    2 => rng.next_u64().to_string(),
                    3 => format!("{}.{}", random_i64(rng), rng.below(1_000_000)),
                    _ => {
                        let len = 1 + rng.below(40) as usize;
                        let digits = rng.bytes(len, b"0123456789");
                        format!("{}{}", if rng.below(2) == 0 { "-" } else { "" }, String::from_utf8_lossy(&digits))
                    }
                };
                format!("'{n}'::numeric")
            }
            Arg::Timestamptz => match rng.below(3) {
                0 => {
                    [
                        "'infinity'",
                        "'-infinity'",
                        "'4714-11-24 00:00:00+00 BC'",
                        "'294276-12-31 23:59:59+00'",
                        "'2015-01-01 00:00:00+00'",
                        "'1970-01-01 00:00:00+00'",
                    ][rng.below(6) as usize]
                        .to_string()
                        + "::timestamptz"
                }
                _ => format!("to_timestamp({})", rng.below(20_000_000_000) as i64 - 10_000_000_000),
            },
        }
    }
}

fn random_i64(rng: &mut Rng) -> i64 {
    match rng.below(4) {
        0 => [i64::MIN, i64::MIN + 1, -1, 0, 1, 1 << 22, (1 << 41) - 1, 1 << 62, i64::MAX - 1, i64::MAX]
            [rng.below(10) as usize],
        1 => rng.below(1 << 63) as i64 >> rng.below(63),
        2 => -(rng.below(1 << 62) as i64),
        _ => rng.next_u64() as i64,
    }
}

/// A valid id, often with one flaw.
fn near_id(rng: &mut Rng) -> Vec<u8> {
    let ns = rng.bytes(3, b"ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    let mut id = emq_id::encode(&ns, rng.below(emq_id::MAX_SNOWFLAKE)).map(|id| id.to_vec()).unwrap_or_default();
    match rng.below(5) {
        0 => {}
        1 => {
            let at = rng.below(id.len() as u64) as usize;
            const FLAWS: &[u8] = b"!azZ09{}: \x7f";
            id[at] = FLAWS[rng.below(FLAWS.len() as u64) as usize];
        }
        2 => id.truncate(rng.below(id.len() as u64) as usize),
        3 => {
            let len = 1 + rng.below(3) as usize;
            id.extend(rng.bytes(len, emq_id::ALPHABET))
        }
        _ => id[3..].copy_from_slice(&rng.bytes(11, b"z")),
    }
    id
}

/// Random valid UTF-8 without NUL (what a text literal can carry).
fn random_text(rng: &mut Rng) -> String {
    const PIECES: &[&str] = &[
        "{", "}", ":", "{}", "{emq}", "pending", "active", "j", "g", "ev", "-", "0", "é", "€", "𝄞", "\u{feff}",
        "\u{7f}", " ", "'", "\\", "$$",
    ];
    match rng.below(5) {
        0 | 1 => String::from_utf8_lossy(&near_id(rng)).into_owned(),
        2 => {
            let len = rng.below(32) as usize;
            String::from_utf8_lossy(&rng.bytes(len, emq_id::ALPHABET)).into_owned()
        }
        3 => (0..rng.below(12)).map(|_| PIECES[rng.below(PIECES.len() as u64) as usize]).collect(),
        _ => {
            let most = if rng.below(20) == 0 { 5000 } else { 40 };
            (0..rng.below(most)).map(|_| char::from_u32(1 + rng.below(0x2FFF) as u32).unwrap_or('?')).collect()
        }
    }
}

/// Random bytes, including invalid UTF-8.
fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    match rng.below(4) {
        0 => near_id(rng),
        1 => {
            let mut id = near_id(rng);
            let at = rng.below(id.len() as u64 + 1) as usize;
            let bad: &[u8] =
                [b"\xff".as_slice(), b"\xc0\x80", b"\xed\xa0\x80", b"\x00", b"\x80"][rng.below(5) as usize];
            id.splice(at..at, bad.iter().copied());
            id
        }
        _ => (0..rng.below(40)).map(|_| rng.next_u64() as u8).collect(),
    }
}

/// A random binary `branded_id` field: 3 namespace bytes and 8 big-endian bytes, often flawed.
fn random_binary(rng: &mut Rng) -> Vec<u8> {
    match rng.below(3) {
        0 => (0..rng.below(24)).map(|_| rng.next_u64() as u8).collect(),
        _ => {
            let ns = if rng.below(2) == 0 {
                rng.bytes(3, b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
            } else {
                rng.bytes(3, b"aZ0{\xff\x00")
            };
            let s = if rng.below(2) == 0 { rng.below(emq_id::MAX_SNOWFLAKE + 2) } else { rng.next_u64() };
            [ns.as_slice(), &s.to_be_bytes()].concat()
        }
    }
}

/// A standard SQL string literal.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}
