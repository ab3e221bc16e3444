//! `cargo xtask <task>`; see `cargo xtask help`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use xtask::runtimes::{self, c, go, node, postgres, valkey, wasm};
use xtask::{bench, conformance, root, suite, tree, vectors};

const HELP: &str = "\
cargo xtask <task>

Tasks:
  vectors [--check]           regenerate vectors/emq-id.json from the core
                              (--check: fail when the committed file differs)
  conformance [--target NAME]... [--vectors PATH] [--negative-control]
                              run each target's adapter over every case of the
                              vector file and print the matrix (default: every target)
  conformance --adapter 'CMD ARGS...' [--vectors PATH] [--negative-control]
                              certify a port from outside this repository: any program
                              speaking conformance/PROTOCOL.md, judged by the same runner;
                              sections it answers `unsupported` throughout are shown so
  header [--check]            regenerate bindings/c/include/emq_id.h with cbindgen
                              (--check: fail when the committed header differs)
  parity [--check] [--surfaces]
                              the operation x runtime table: fails when a runtime lacks
                              an operation that xtask/parity/exclusions.txt does not excuse;
                              writes it into the book's API index (--check: fail when stale;
                              --surfaces: print every runtime's extracted surface)
  docs [--screenshots] [--check]
                              build the book (docs/, mdBook; its CLI reference generated from
                              the CLI's help) and every runtime's API reference into
                              target/docs/, and check every link of the built pages;
                              --screenshots: render two pages in headless Chromium;
                              --check: fail when a generated page is stale
  js [--check]                copy the shared JavaScript layer (bindings/js) into both
                              npm packages, and write the ES module entries' export
                              lists from api.d.ts (--check: fail when one differs)
  pg-tests                    the PostgreSQL extension's tests on a live server
  colocation                  start a live 3-primary Valkey Cluster and prove that
                              every queue's keys route to one node with no redirect
  leases                      prove node leases on live clusters (1,100 acquirers, a killed
                              holder, 1,000 hand-overs under skew, Rust and Node at once,
                              Valkey going away, the reserve's slot migrating), printing their counts
  resharding                  leases while the reserve's slot migrates on a live cluster:
                              emq-lease/2's control granted a held node, emq-lease/3's scripts
                              and a Rust holder through the migration
  chaos                       node leases through Valkey failures: the scenarios
                              (a lossy failover, a one-node cluster), then a fleet of
                              holder processes on a 3 primary + 3 replica cluster under a
                              seeded schedule of faults (EMQ_CHAOS_SEED), with replicas 1
                              and the negative control with replicas 0; prints the table
  node-build                  build the Node package: the addon, its WebAssembly fallback
  go-wasm [--check]           build the core as WebAssembly and translate it to Go (wasm2go, pinned in
                              xtask/go-tools) for the Go module's default backend;
                              --check: fail when the committed bindings/go/internal/emqcore/emqcore.go differs
                              and its copy of the shared JavaScript layer
  wasm-build                  build the WASM package (cargo, wasm-bindgen, wasm-opt)
                              and print the .wasm size, raw and gzipped
  targets                     list the conformance targets
                              (`--target wasm` runs wasm-node and wasm-browser)
  test [--only TEXT]...        the whole test suite (what .ci/run runs); --only: the steps whose
                              name contains TEXT (case-insensitive), e.g. --only elixir
  dist [--platform NAME]... [--runtime NAME]...
                              build every package a user installs into target/dist/ (the
                              .deb files, npm tarballs, wheels and sdist, the Mix tarball, the
                              static CLI and libemqid.a, the Maven jars and poms) and print each
                              one's version, size and sha256; --platform (linux-x64-gnu,
                              linux-arm64-gnu, linux-x64-musl, linux-arm64-musl): only that
                              platform's native packages; --runtime
                              (c, cli, postgres, node, wasm, python, elixir, jvm): only its packages
  dist-check [--platform NAME]... [--runtime NAME]...
                              dist, then install each package outside the checkout and use it
                              (dpkg -i and -r, npm install, pip, mix, mvn -o; arm64 under qemu),
                              leaving nothing installed; --runtime: only its packages and
                              proofs (Go's module is proven with --runtime c)
  fuzz [TARGET] [--time SECONDS]
                              run the libFuzzer targets of fuzz/ (decode, slot, keyspace,
                              resp, c_abi, lease, pg_binary; default: all) for SECONDS each (60) under
                              AddressSanitizer and print executions and crashes
  bench [TARGET]...           run benchmarks (core, go, node, wasm, elixir, python, jvm, postgres;
                              default: all; wasm runs in Node and in headless Chromium) and write
                              the tables into docs/src/performance.md (ratios against the anchors)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let result = match args.first().map(String::as_str) {
        Some("vectors") => vectors::run(flag("--check")),
        Some("conformance") => conformance_task(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("colocation") => valkey::colocation::run(),
        Some("leases") => valkey::leases::run(),
        Some("resharding") => valkey::resharding::run(),
        Some("chaos") => valkey::chaos::run(),
        // A holder of the chaos fleet (a child process of `chaos`; not for users).
        Some("chaos-holder") => valkey::chaos::holder::main(&args[1..]),
        Some("pg-tests") => postgres::tests::run(),
        Some("node-build") => node::build::package(),
        Some("go-wasm") => go::wasm::run(flag("--check")),
        Some("wasm-build") => wasm::build::run(),
        Some("parity") => tree::parity::run(flag("--check"), flag("--surfaces")),
        Some("js") => tree::js::sync(flag("--check")),
        Some("docs") => tree::docs::run(&args[1..]),
        Some("header") => c::header::run(flag("--check")),
        Some("test") => suite::run(&args[1..]),
        Some("dist") => xtask::dist::task(&args[1..]),
        Some("dist-check") => xtask::dist::outside(&args[1..]),
        Some("fuzz") => xtask::fuzz::task(&args[1..]),
        Some("targets") => {
            for t in runtimes::TARGETS {
                println!("{:10} {}", t.name, t.about);
            }
            Ok(())
        }
        Some("help" | "--help" | "-h") | None => {
            print!("{HELP}");
            Ok(())
        }
        Some(other) => Err(anyhow::anyhow!("unknown task {other:?}\n\n{HELP}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `conformance [--target NAME... | --adapter CMD] [--vectors PATH] [--negative-control]`: the
/// arguments, then [`conformance::run`] over the targets they name.
fn conformance_task(args: &[String]) -> Result<()> {
    let mut names = vec![];
    let mut path = root().join(vectors::PATH);
    let mut negative = false;
    let mut outside = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--target" => names.push(it.next().context("--target needs a name")?.clone()),
            "--adapter" => outside = Some(it.next().context("--adapter needs a command")?.clone()),
            "--vectors" => path = PathBuf::from(it.next().context("--vectors needs a path")?),
            "--negative-control" => negative = true,
            other => bail!("unknown argument {other:?}"),
        }
    }
    match outside {
        Some(_) if !names.is_empty() => bail!("--adapter certifies one outside program: it takes no --target"),
        Some(command) => conformance::outside::run(&command, &path, negative),
        None => conformance::run(&runtimes::select(&names)?, &path, negative),
    }
}
