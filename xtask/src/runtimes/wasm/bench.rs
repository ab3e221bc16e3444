//! `cargo xtask bench wasm`: the WASM package's calls beside pure-JS anchors,
//! in Node and in headless Chromium, side by side. Both columns come from one
//! source, bindings/wasm/bench/bench.mjs, which each host runs on the package
//! as its users load it (node.mjs: the Node entry; browser.mjs: the browser
//! entry, in a page served as the conformance harness is, [`super::browser`]).

use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use super::browser::{self, Page};
use super::PACKAGE;
use crate::runtimes::node;
use crate::{root, sh_out};

/// A batch's length in ms (200 ticks of Chromium's 100 µs clock), and the timed batches per row.
const ROUND_MS: u32 = 20;
const ROUNDS: u32 = 11;
/// The node `mint` uses in both hosts (the package's module-wide node; no host claim).
const NODE: u32 = 100;

/// `cargo xtask bench wasm`: one run in each host, one table.
pub fn run() -> Result<()> {
    let (raw, gz) = super::build::package()?;
    node::bench::dev_dependencies()?; // the anchors: the Node package's dev dependencies
    browser::prepare()?;
    let settings = json!({ "roundMs": ROUND_MS, "rounds": ROUNDS, "node": NODE });
    let out = sh_out(Command::new("node").arg(root().join(PACKAGE).join("bench/node.mjs")).arg(settings.to_string()))?;
    let in_node: Value =
        serde_json::from_str(&out).with_context(|| format!("bench/node.mjs printed non-JSON: {out}"))?;
    let in_chromium = browser::run(Page {
        html: "bindings/wasm/bench/index.html",
        dirs: &[("/pkg/", PACKAGE), ("/node_modules/", "bindings/node/node_modules"), ("/", "bindings/wasm/bench")],
        input: settings,
        // About 5 s on this machine: 12 rows of 13 batches of 20 ms, and the doubling.
        deadline: Duration::from_secs(300),
    })?;
    let chromium = sh_out(Command::new("chromium").arg("--version"))?;
    let chromium = chromium.split(" built on").next().unwrap_or_default().trim();
    let head = format!(
        "WASM package: emq_id_wasm_bg.wasm {raw} B raw, {gz} B gzip -9\n\n\
         {} and {chromium} (headless); each row: batches doubled until one takes {ROUND_MS} ms, one more, \
         then the median of {ROUNDS} timed batches, ns per call\n\n",
        in_node["host"].as_str().unwrap_or("node"),
    );
    let table = table(&rows(&in_node["rows"])?, &rows(&in_chromium.result)?)?;
    crate::bench::record::write("wasm", &format!("{head}{table}"))
}

/// One host's measured row: the call, the row it is compared with, ns per call.
struct Row {
    call: String,
    anchor: Option<String>,
    ns: f64,
}

fn rows(posted: &Value) -> Result<Vec<Row>> {
    let Some(rows) = posted.as_array().filter(|r| !r.is_empty()) else {
        bail!("the benchmark gave no rows: {posted}");
    };
    rows.iter()
        .map(|r| {
            Ok(Row {
                call: r["call"].as_str().with_context(|| format!("a row without a call: {r}"))?.to_string(),
                anchor: r["anchor"].as_str().map(str::to_string),
                ns: r["ns"].as_f64().filter(|ns| *ns > 0.0).with_context(|| format!("a row without a time: {r}"))?,
            })
        })
        .collect()
}

/// `| call | anchor | Node ns | anchor ÷ call | Chromium ns | anchor ÷ call |`, the ratios each within its own host.
fn table(in_node: &[Row], in_chromium: &[Row]) -> Result<String> {
    let calls = |rows: &[Row]| rows.iter().map(|r| r.call.clone()).collect::<Vec<_>>();
    anyhow::ensure!(calls(in_node) == calls(in_chromium), "the two hosts measured different rows");
    let ratio = |rows: &[Row], row: &Row| -> Result<String> {
        let Some(anchor) = &row.anchor else { return Ok(if is_anchor(rows, row) { "(anchor)" } else { "–" }.into()) };
        let of =
            rows.iter().find(|r| &r.call == anchor).with_context(|| format!("{}: no anchor row {anchor}", row.call))?;
        Ok(format!("**{:.2}×**", of.ns / row.ns))
    };
    let mut out = String::from(
        "| call | anchor | Node ns | anchor ÷ call | Chromium ns | anchor ÷ call |\n|---|---|---|---|---|---|\n",
    );
    for (n, c) in in_node.iter().zip(in_chromium) {
        out.push_str(&format!(
            "| {} | {} | {:.1} | {} | {:.1} | {} |\n",
            n.call,
            n.anchor.as_deref().unwrap_or("–"),
            n.ns,
            ratio(in_node, n)?,
            c.ns,
            ratio(in_chromium, c)?,
        ));
    }
    Ok(out)
}

/// Whether another row is compared with this one.
fn is_anchor(rows: &[Row], row: &Row) -> bool {
    rows.iter().any(|r| r.anchor.as_deref() == Some(row.call.as_str()))
}
