//! `cargo xtask bench jvm`: the JMH benchmark bindings/jvm/bench (built with
//! the parent pom's `bench` profile, never an artifact) over a JNI library
//! built with the crate's `bench` feature, whose empty natives of each hot
//! signature are the floor a call is read against; and its table for the
//! performance page: each call per item over 64 distinct inputs, beside its
//! floor and the libraries a JVM user would pick instead (tsid-creator,
//! ulid-creator, Jedis' and Lettuce's slot functions), then the goals the
//! binding was built to (reported, never asserted).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};
use serde_json::Value;

use super::{dir, mvn, setup, PACKAGE};
use crate::bench::record::{bounds, median};
use crate::{root, sh};

/// How many times JMH runs every benchmark (one fork each, all benchmarks in
/// turn): JNI calls on a shared 2-core VM move by a third between runs, so
/// each figure is the median over these runs, a ratio is taken within each
/// run before its median, and the fastest samples are compared beside it.
const RUNS: usize = 3;

/// Each run's warm-up and measurement, chosen so all three runs of the 30
/// benchmarks take under four minutes here: C2 has compiled a loop of JNI
/// calls well within the first 200 ms (millions of calls).
const JMH: &[&str] = &["-f", "1", "-wi", "2", "-w", "200ms", "-i", "3", "-r", "250ms"];

/// The forks' heap: fixed and touched before the first iteration, on huge
/// pages. This VM makes the first touch of each fresh page slow (first
/// iterations of allocating benchmarks ran 50× slower until the young
/// generation had been used once, and whole forks stayed there), which a
/// long-running program pays once; without it, an allocating row measured
/// the heap's first pages, not the call.
const HEAP: &str = "-Xms256m -Xmx256m -XX:+AlwaysPreTouch -XX:+UseTransparentHugePages";

/// The benchmark classes (bindings/jvm/bench/src/main/java/io/echomq/emqid/).
const INCLUDE: &str = r"^io\.echomq\.emqid\.(CodecBench|SlotBench|SnowflakeBench)\.";

/// A JMH benchmark: its class and method, as JMH names it after the package.
type Method = &'static str;

/// One row group of the table: emq-id's benchmark, the empty native of its
/// signature (none for a batch: its one crossing is spread over 64 items), and
/// its anchors with the names the table gives them.
struct Row {
    ours: Method,
    call: &'static str,
    floor: Option<Method>,
    anchors: &'static [(Method, &'static str)],
}

const DECODE: &[(Method, &str)] =
    &[("CodecBench.tsidFrom", "Tsid.from(String)"), ("CodecBench.ulidFrom", "Ulid.from(String)")];
const ENCODE: &[(Method, &str)] =
    &[("CodecBench.tsidToString", "Tsid.toString()"), ("CodecBench.ulidToString", "Ulid.toString()")];
const SLOT_STRING: &[(Method, &str)] = &[
    ("SlotBench.jedisString", "Jedis JedisClusterCRC16.getSlot(String)"),
    ("SlotBench.lettuceString", "Lettuce SlotHash.getSlot(String)"),
];
const SLOT_BYTES: &[(Method, &str)] = &[
    ("SlotBench.jedisBytes", "Jedis JedisClusterCRC16.getSlot(byte[])"),
    ("SlotBench.lettuceBytes", "Lettuce SlotHash.getSlot(byte[])"),
];
const MINT: &[(Method, &str)] = &[("SnowflakeBench.tsidCreate", "TsidCreator.getTsid()")];

/// A single call, one per item, beside the empty native of its signature.
const fn call(ours: Method, name: &'static str, floor: Method, anchors: &'static [(Method, &'static str)]) -> Row {
    Row { ours, call: name, floor: Some(floor), anchors }
}

/// A batch call over all 64 items, per item.
const fn batch(ours: Method, name: &'static str, anchors: &'static [(Method, &'static str)]) -> Row {
    Row { ours, call: name, floor: None, anchors }
}

const ROWS: &[Row] = &[
    call("CodecBench.parse", "Id.parse(String)", "CodecBench.parseFloor", DECODE),
    batch("CodecBench.decodeManyPacked", "Codec.decodeManyPacked(byte[]), per id", DECODE),
    batch("CodecBench.decodeMany", "Codec.decodeMany(list), per id", DECODE),
    call("CodecBench.encode", "Codec.encode(ns, snowflake)", "CodecBench.encodePackedFloor", ENCODE),
    batch("CodecBench.encodeManyPacked", "Codec.encodeManyPacked, per id", ENCODE),
    batch("CodecBench.encodeMany", "Codec.encodeMany, per id", ENCODE),
    call("SlotBench.slotString", "Keyspace.slot(String)", "SlotBench.slotPackedFloor", SLOT_STRING),
    call("SlotBench.slotBytes", "Keyspace.slot(byte[])", "SlotBench.slotPackedFloor", SLOT_BYTES),
    batch("SlotBench.slotsOf", "Keyspace.slotsOf(packed, ends), per key", SLOT_BYTES),
    batch("SlotBench.slotManyBytes", "Keyspace.slotMany(byte[]...), per key", SLOT_BYTES),
    batch("SlotBench.slotManyStrings", "Keyspace.slotMany(list), per key", SLOT_STRING),
    call("SnowflakeBench.hash32", "Snowflake.hash32", "SnowflakeBench.longFloor", &[]),
    call("SnowflakeBench.minterNext", "Minter.next", "SnowflakeBench.longFloor", MINT),
    batch("SnowflakeBench.minterNextMany", "Minter.nextMany, per id", MINT),
];

/// The empty natives, each with the signature it stands for.
const FLOORS: &[(Method, &str)] = &[
    ("CodecBench.parseFloor", "decodePacked(long, long)"),
    ("CodecBench.encodePackedFloor", "encodePacked(int, long, byte[])"),
    ("CodecBench.encodeFloor", "encode(byte[], long, byte[])"),
    ("SlotBench.slotPackedFloor", "slotPacked(long × 5, int)"),
    ("SlotBench.slotFloor", "slot(byte[])"),
    ("SnowflakeBench.longFloor", "hash32(long), minterNext(long)"),
    ("CodecBench.batchFloor", "decodeMany(byte[], long[]), per item of 64"),
];

/// The goals the binding was built to, each a ratio over a set of rows: batch
/// decode and slot per item at least 2× every anchor, batch encode at least 1×.
const BATCH_GOALS: &[(&str, &[Method], f64)] = &[
    ("batch decode, per id", &["CodecBench.decodeManyPacked", "CodecBench.decodeMany"], 2.0),
    ("batch slot, per key", &["SlotBench.slotsOf", "SlotBench.slotManyBytes", "SlotBench.slotManyStrings"], 2.0),
    ("batch encode, per id", &["CodecBench.encodeManyPacked", "CodecBench.encodeMany"], 1.0),
];

/// A single call's goal: within this factor of the empty native of its signature.
const FLOOR_GOAL: f64 = 1.5;

/// One benchmark in one run: JMH's score (the mean of its measurement
/// iterations, ns per item) and every iteration's figure.
struct Score {
    mean: f64,
    samples: Vec<f64>,
}

/// Every run's scores by benchmark (`Class.method`), and what JMH ran on.
struct Runs {
    runs: Vec<Vec<(String, Score)>>,
    vm: String,
}

impl Runs {
    /// The benchmark's score in every run.
    fn means(&self, method: &str) -> Result<Vec<f64>> {
        self.each(method, |s| s.mean)
    }

    /// Its fastest sample in any run.
    fn fastest(&self, method: &str) -> Result<f64> {
        let mut all = vec![];
        for run in &self.runs {
            all.extend(find(run, method)?.samples.iter().copied());
        }
        Ok(bounds(&all).0)
    }

    fn each(&self, method: &str, f: fn(&Score) -> f64) -> Result<Vec<f64>> {
        self.runs.iter().map(|run| find(run, method).map(f)).collect()
    }
}

fn find<'a>(run: &'a [(String, Score)], method: &str) -> Result<&'a Score> {
    run.iter().find(|(name, _)| name == method).map(|(_, s)| s).with_context(|| format!("a JMH run has no {method}"))
}

/// `cargo xtask bench jvm`: the library with its floor, the benchmark built by
/// Maven, [`RUNS`] runs of JMH on the JDK 17, the table.
pub fn run() -> Result<()> {
    let library = bench_library()?;
    let class_path = build()?;
    let java = setup::jdk17()?.join("bin/java");
    let out = dir("bench");
    crate::mkdir(&out)?;
    let mut runs = Runs { runs: vec![], vm: String::new() };
    for run in 0..RUNS {
        let (json, log) = (out.join(format!("run-{run}.json")), out.join(format!("run-{run}.log")));
        eprintln!("xtask: JMH run {} of {RUNS} (its log: {})", run + 1, log.display());
        sh(Command::new(&java)
            .arg("-cp")
            .arg(&class_path)
            .arg("org.openjdk.jmh.Main")
            .args(JMH)
            .args(["-rf", "json", "-rff"])
            .arg(&json)
            .arg("-o")
            .arg(&log)
            .arg("-jvmArgs")
            .arg(format!("--enable-native-access=ALL-UNNAMED -Demqid.library={} {HEAP}", library.display()))
            .arg(INCLUDE)
            .env("EMQ_NODE_DIR", crate::bench::record::claims())
            .env_remove("EMQ_NODE"))?;
        let (scores, vm) = read(&json)?;
        runs.runs.push(scores);
        runs.vm = vm;
    }
    crate::bench::record::write("jvm", &tables(&runs)?)
}

/// The JNI library with the `bench` feature's empty natives, built into a
/// target directory of its own (the host library users' jars carry has no
/// floor, and must not be replaced by one that has); loaded by the benchmark
/// through `-Demqid.library`, which the loader honours before the jar's own.
fn bench_library() -> Result<PathBuf> {
    let target = dir("bench-target");
    sh(Command::new("cargo")
        .args(["build", "--quiet", "--release", "-p", "emq-id-jvm", "--features", "bench"])
        .env("CARGO_TARGET_DIR", &target))?;
    let library = target.join("release").join(super::build::LIBRARY);
    anyhow::ensure!(library.exists(), "cargo built no {}", library.display());
    Ok(library)
}

/// The benchmark compiled (`mvn -Pbench package` of bindings/jvm/bench and
/// the emq-id module it needs): its class path, its classes first, then the
/// jars Maven listed in `target/classpath.txt`.
fn build() -> Result<String> {
    sh(mvn()?.args(["package", "-Pbench", "-pl", "bench", "-am", "-DskipTests", "--no-transfer-progress", "-q"]))?;
    let bench = root().join(PACKAGE).join("bench/target");
    let jars = crate::read(bench.join("classpath.txt"))?;
    Ok(format!("{}:{}", bench.join("classes").display(), jars.trim()))
}

/// A JMH JSON result: each benchmark's score and iterations by
/// `Class.method`, and the JVM and JMH it ran on.
fn read(json: &Path) -> Result<(Vec<(String, Score)>, String)> {
    let results: Value = serde_json::from_str(&crate::read(json)?).with_context(|| json.display().to_string())?;
    let results = results.as_array().with_context(|| format!("{}: not a JMH result list", json.display()))?;
    let mut scores = vec![];
    let mut vm = String::new();
    for result in results {
        let name = result["benchmark"].as_str().context("a JMH result without its benchmark")?;
        let short = name.strip_prefix("io.echomq.emqid.").unwrap_or(name).to_string();
        let metric = &result["primaryMetric"];
        anyhow::ensure!(metric["scoreUnit"] == "ns/op", "{short}: JMH measured in {}, not ns/op", metric["scoreUnit"]);
        let mean = metric["score"].as_f64().with_context(|| format!("{short}: no score"))?;
        let samples: Vec<f64> = metric["rawData"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_array)
            .flatten()
            .filter_map(Value::as_f64)
            .collect();
        anyhow::ensure!(!samples.is_empty(), "{short}: no iterations in {}", json.display());
        scores.push((short, Score { mean, samples }));
        vm = format!(
            "JDK {} ({} {}), JMH {}",
            result["jdkVersion"].as_str().unwrap_or("?"),
            result["vmName"].as_str().unwrap_or("?"),
            result["vmVersion"].as_str().unwrap_or("?"),
            result["jmhVersion"].as_str().unwrap_or("?")
        );
    }
    Ok((scores, vm))
}

/// The median over the runs of f(a, b), each run's a and b measured in it;
/// then its lowest and highest.
fn ratios(a: &[f64], b: &[f64], f: fn(f64, f64) -> f64) -> (f64, f64, f64) {
    let each: Vec<f64> = a.iter().zip(b).map(|(a, b)| f(*a, *b)).collect();
    let (lo, hi) = bounds(&each);
    (median(each), lo, hi)
}

fn tables(runs: &Runs) -> Result<String> {
    let mut t = format!(
        "{}; {RUNS} runs of JMH (`{}`, average time; forks with `{HEAP}`), each running every benchmark in one fork in turn. \
         Every benchmark goes over the same 64 distinct inputs (ids, snowflakes, or 34-byte keys \
         `emq:{{orders-NN}}:job:JOB…` with a hashtag), one call per item (a `per id` or `per key` row: one \
         batch call over all 64), so every time is per item: the median of the runs. `spread` is emq-id's \
         slowest run over its fastest. `its floor` is an empty native of the call's JNI signature (the crate's \
         `bench` feature), and `÷ its floor` the median of the runs' ratios. `anchor ÷ emq-id` is the median \
         of the runs' ratios, `runs` their lowest and highest, `fastest` the ratio of the two benchmarks' \
         fastest iterations.\n\n\
         | JVM call | emq-id | spread | its floor | ÷ its floor | anchor | anchor time | anchor ÷ emq-id | runs | fastest |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
        runs.vm,
        JMH.join(" ")
    );
    for row in ROWS {
        let ours = runs.means(row.ours)?;
        let (lo, hi) = bounds(&ours);
        let (own, over) = match row.floor {
            Some(floor) => {
                let f = runs.means(floor)?;
                (format!("{:.2} ns", median(f.clone())), format!("{:.2}×", ratios(&ours, &f, |o, f| o / f).0))
            }
            None => ("–".into(), "–".into()),
        };
        let head = format!("| {} | {:.2} ns | {:.2}× | {own} | {over} |", row.call, median(ours.clone()), hi / lo);
        if row.anchors.is_empty() {
            t.push_str(&format!("{head} – | – | – | – | – |\n"));
        }
        for (anchor, name) in row.anchors {
            let a = runs.means(anchor)?;
            let (mid, lo, hi) = ratios(&a, &ours, |a, o| a / o);
            t.push_str(&format!(
                "{head} {name} | {:.2} ns | **{mid:.2}×** | {lo:.2}×–{hi:.2}× | {:.2}× |\n",
                median(a.clone()),
                runs.fastest(anchor)? / runs.fastest(row.ours)?
            ));
        }
    }
    let floors: Vec<String> = FLOORS
        .iter()
        .map(|(floor, signature)| runs.means(floor).map(|f| format!("`{signature}` {:.2} ns", median(f))))
        .collect::<Result<_>>()?;
    t.push_str(&format!("\nThe empty natives (the floors), per call: {}.\n", floors.join("; ")));
    t.push_str(&goals(runs)?);
    Ok(t)
}

/// The goals, reported: each batch row's least ratio to its anchors, and
/// each single call's ratio to its floor.
fn goals(runs: &Runs) -> Result<String> {
    let mut said = vec![];
    for (what, methods, goal) in BATCH_GOALS {
        let mut rows = vec![];
        for method in *methods {
            let row = ROWS.iter().find(|r| r.ours == *method).context("a goal names a row the table lacks")?;
            let ours = runs.means(method)?;
            let mut least: Option<(f64, &str)> = None;
            for (anchor, name) in row.anchors {
                let (mid, _, _) = ratios(&runs.means(anchor)?, &ours, |a, o| a / o);
                if least.is_none_or(|(l, _)| mid < l) {
                    least = Some((mid, name));
                }
            }
            let (ratio, anchor) = least.context("a goal's row has no anchor")?;
            let verdict = if ratio >= *goal { "met" } else { "**not met**" };
            rows.push(format!("{} {verdict} ({ratio:.2}× against {anchor}, its least)", row.call));
        }
        said.push(format!("{what} ≥ {goal}× every anchor: {}", rows.join(", ")));
    }
    let mut singles = vec![];
    for row in ROWS {
        let Some(floor) = row.floor else { continue };
        let (ratio, _, _) = ratios(&runs.means(row.ours)?, &runs.means(floor)?, |o, f| o / f);
        let verdict = if ratio <= FLOOR_GOAL { "met" } else { "**not met**" };
        singles.push(format!("{} {ratio:.2}× ({verdict})", row.call));
    }
    said.push(format!("a single call within {FLOOR_GOAL}× of its floor: {}", singles.join(", ")));
    Ok(format!("\nGoals (reported, not asserted): {}.\n", said.join("; ")))
}
