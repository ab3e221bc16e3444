//! `cargo xtask fuzz [TARGET] [--time SECONDS]` and the suite's smoke run:
//! coverage-guided fuzzing of every parser with libFuzzer (cargo-fuzz) under
//! AddressSanitizer. The targets are the `fuzz/` crate's (one file each in
//! `fuzz/fuzz_targets/`, the naive references they compare with in
//! `fuzz/src/lib.rs`, a few committed seeds each in `fuzz/corpus/<target>/`).
//!
//! [`setup`] installs cargo-fuzz, [`libfuzzer`] runs one target and reads
//! its counts; this file says which targets run, for how long, and prints the
//! table. A run fails when any target crashed (a panic, a failed comparison
//! with a reference, a sanitizer report, a leak, an input over the time or
//! allocation limit), naming the input that did it; and it fails when the
//! control target's planted faults go unnoticed.

pub mod libfuzzer;
pub mod setup;

use anyhow::{bail, Context, Result};

/// One fuzz target of `fuzz/`.
pub struct Target {
    pub name: &'static str,
    pub about: &'static str,
    /// libFuzzer's `-max_len`: long enough for every path of the code under test.
    pub max_len: usize,
}

pub const TARGETS: &[Target] = &[
    Target {
        name: "decode",
        about: "any bytes: decode's gate or value is the byte-by-byte reference's; encode(decode(x)) == x",
        max_len: 64,
    },
    Target {
        name: "slot",
        about: "any key: hashtag, crc16 and slot are the cluster spec's, bit by bit",
        max_len: 4096,
    },
    Target {
        name: "keyspace",
        about: "any queue/type/id: no panic; every key in its queue's slot; parse_key(key(x)) gives x back",
        max_len: 1024,
    },
    Target {
        name: "resp",
        about: "any reply bytes into emq-resp's reader: a value or an error, bounded, however the bytes arrive",
        // Past MAX_LINE (64 KiB), so the header cap is reachable.
        max_len: 70_000,
    },
    Target {
        name: "c_abi",
        about: "the C entry points with input lengths, buffers and NULLs: the core's answer as a status, ASan clean",
        max_len: 1024,
    },
    Target {
        name: "lease",
        about: "lease replies and a leased minter under any clock: no panic; every id on its node, rising, <= the mark",
        max_len: 1024,
    },
    Target {
        name: "pg_binary",
        about: "any bytes as a PostgreSQL message's rest: branded_id's binary input is the byte-by-byte reference's",
        max_len: 64,
    },
];

/// How long `cargo xtask fuzz` runs each target unless told.
pub const DEFAULT_SECONDS: u64 = 60;
/// How long the suite's smoke run gives each target.
pub const SMOKE_SECONDS: u64 = 5;

/// `cargo xtask fuzz [TARGET] [--time SECONDS]`: the arguments, then [`run`].
pub fn task(args: &[String]) -> Result<()> {
    let mut seconds = DEFAULT_SECONDS;
    let mut names = vec![];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--time" => {
                let value = it.next().context("--time needs a number of seconds")?;
                seconds = value.parse().with_context(|| format!("--time {value:?} is not a number of seconds"))?;
            }
            name => names.push(name),
        }
    }
    let mut picked = vec![];
    for name in &names {
        match TARGETS.iter().find(|t| t.name == *name) {
            Some(t) => picked.push(t),
            None => bail!("unknown fuzz target {name:?} (targets: {})", list()),
        }
    }
    if picked.is_empty() {
        picked = TARGETS.iter().collect();
    }
    run(&picked, seconds)
}

/// The suite's step: every target for [`SMOKE_SECONDS`], failing on any crash.
pub fn smoke() -> Result<()> {
    run(&TARGETS.iter().collect::<Vec<_>>(), SMOKE_SECONDS)
}

/// Installs what is missing, builds every target, proves the sanitizer live
/// on the control target, runs `targets` for `seconds` each and prints the
/// table; an error names every target that crashed.
pub fn run(targets: &[&Target], seconds: u64) -> Result<()> {
    setup::tools()?;
    libfuzzer::build()?;
    libfuzzer::control()?;
    let mut rows = vec![];
    for t in targets {
        eprintln!("xtask: fuzzing {} for {seconds} s: {}", t.name, t.about);
        rows.push((t.name, libfuzzer::run(t, seconds)?));
    }
    println!("\n{:<10} {:>14} {:>10} {:>8}", "target", "executions", "exec/s", "crashes");
    for (name, o) in &rows {
        println!("{name:<10} {:>14} {:>10} {:>8}", grouped(o.executions), grouped(o.exec_per_sec), o.crashes.len());
    }
    let crashed: Vec<String> = rows
        .iter()
        .filter(|(_, o)| !o.crashes.is_empty())
        .map(|(name, o)| {
            format!("{name} ({})", o.crashes.iter().map(|c| c.display().to_string()).collect::<Vec<_>>().join(", "))
        })
        .collect();
    if !crashed.is_empty() {
        bail!(
            "{} of {} fuzz targets crashed: {}; reproduce with `RUSTC_BOOTSTRAP=1 cargo fuzz run <target> <input>`, \
             minimize with `cargo fuzz tmin`",
            crashed.len(),
            rows.len(),
            crashed.join("; ")
        );
    }
    Ok(())
}

fn list() -> String {
    TARGETS.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
}

/// `1234567` as `1,234,567`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
