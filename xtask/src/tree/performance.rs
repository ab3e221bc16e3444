//! The performance page's summary: one chart (SVG) and one table per
//! benchmark, generated from the tables `cargo xtask bench SECTION` wrote
//! further down the same page, so no figure in a chart or a summary is
//! written by hand. `cargo xtask bench` rewrites the summary after each run;
//! `cargo xtask docs --check` fails on one that no longer matches its tables.
//!
//! The charts are drawn here rather than by a plotting crate: a few dozen
//! lines of SVG text, byte-for-byte the same on every run (so `--check` can
//! compare them), with no font metrics to load.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use crate::root;

/// The page, in the book, that holds the benchmark tables.
pub const PAGE: &str = "docs/src/performance.md";
/// Where the charts are written, beside the page (the book copies them).
const CHARTS: &str = "docs/src/performance";
const SUMMARY: (&str, &str) = ("<!-- summary -->", "<!-- /summary -->");

/// Each benchmark's section name and the heading its summary takes.
const TITLES: [(&str, &str); 8] = [
    ("core", "Rust (the core)"),
    ("go", "Go"),
    ("node", "Node.js (native addon)"),
    ("wasm", "WebAssembly package"),
    ("elixir", "Elixir"),
    ("python", "Python"),
    ("postgres", "PostgreSQL"),
    ("jvm", "JVM"),
];

/// `sync(false)` writes the summary and the charts; `sync(true)` fails if
/// either differs from what the page's tables give.
pub fn sync(check: bool) -> Result<()> {
    let page = root().join(PAGE);
    let text = crate::read(&page)?;
    let (summary, charts) = generate(&text)?;
    let new_text = replace_summary(&text, &summary)?;
    let mut files: Vec<(PathBuf, String)> = vec![(page, new_text)];
    files.extend(charts.into_iter().map(|(name, svg)| (root().join(CHARTS).join(format!("{name}.svg")), svg)));
    let stale: Vec<String> = files
        .iter()
        .filter(|(path, want)| std::fs::read_to_string(path).ok().as_deref() != Some(want.as_str()))
        .map(|(path, _)| path.strip_prefix(root()).unwrap_or(path).display().to_string())
        .collect();
    if check {
        if !stale.is_empty() {
            bail!("{} do not match the benchmark tables; `cargo xtask docs` rewrites them", stale.join(", "));
        }
        println!("docs: the performance summary and its {} charts match the tables", files.len() - 1);
        return Ok(());
    }
    crate::mkdir(root().join(CHARTS))?;
    for (path, want) in &files {
        crate::write(path, want)?;
    }
    if !stale.is_empty() {
        eprintln!("xtask: rewrote {}", stale.join(", "));
    }
    Ok(())
}

/// The summary's Markdown and each chart (section name, SVG) for the page `text`.
fn generate(text: &str) -> Result<(String, Vec<(String, String)>)> {
    let mut summary = String::new();
    let mut charts = vec![];
    for section in sections(text)? {
        let bars = bars(&section.tables);
        if bars.is_empty() {
            continue;
        }
        let title = TITLES.iter().find(|(n, _)| *n == section.name).map_or(section.name.as_str(), |(_, t)| t);
        let _ = write!(
            summary,
            "\n### {title}\n\n![{title}: each anchor's time ÷ emq-id's](performance/{}.svg)\n\n_{}; `cargo xtask bench {}`._\n\n{}",
            section.name,
            section.stamp,
            section.name,
            table(&bars)
        );
        charts.push((section.name.clone(), chart(title, &bars)));
    }
    Ok((summary, charts))
}

fn replace_summary(text: &str, summary: &str) -> Result<String> {
    let (Some(a), Some(b)) = (text.find(SUMMARY.0), text.find(SUMMARY.1)) else {
        bail!("{PAGE} has no {} … {} markers", SUMMARY.0, SUMMARY.1);
    };
    anyhow::ensure!(a < b, "{PAGE}: {} comes before {}", SUMMARY.1, SUMMARY.0);
    Ok(format!(
        "{}{}\n_Generated from the tables below by `cargo xtask docs`; do not edit between these markers._\n{summary}\n{}",
        &text[..a],
        SUMMARY.0,
        &text[b..]
    ))
}

/// One `<!-- bench:NAME -->` block of the page.
struct Section {
    name: String,
    /// "2026-12-01, Debian GNU/Linux 12 (bookworm), 2 × AMD EPYC, rustc 1.95.0".
    stamp: String,
    tables: Vec<Table>,
}

struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn sections(text: &str) -> Result<Vec<Section>> {
    let mut found = vec![];
    for (start, _) in text.match_indices("<!-- bench:") {
        let rest = &text[start + "<!-- bench:".len()..];
        let Some((name, body)) = rest.split_once(" -->") else { bail!("{PAGE}: an unclosed bench marker") };
        let close = format!("<!-- /bench:{name} -->");
        let Some(end) = body.find(&close) else { bail!("{PAGE}: no {close}") };
        let body = &body[..end];
        let stamp = body
            .split_once(" on ")
            .and_then(|(_, r)| r.split_once("; do not edit"))
            .map(|(s, _)| s.to_string())
            .with_context(|| format!("{PAGE}: the {name} tables have no date and machine line"))?;
        found.push(Section { name: name.to_string(), stamp, tables: tables(body) });
    }
    Ok(found)
}

/// The Markdown tables of `body`: runs of lines that start with `|`, the
/// first the header, the second its rule.
fn tables(body: &str) -> Vec<Table> {
    let cells = |line: &str| -> Vec<String> {
        let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
        inner.split('|').map(|c| c.trim().to_string()).collect()
    };
    let mut out = vec![];
    let mut lines = body.lines().peekable();
    while let Some(line) = lines.next() {
        if !line.starts_with('|') {
            continue;
        }
        let header = cells(line);
        let mut rows = vec![];
        lines.next(); // the |---| rule
        while let Some(row) = lines.next_if(|l| l.starts_with('|')) {
            rows.push(cells(row));
        }
        out.push(Table { header, rows });
    }
    out
}

/// One ratio of a table: `anchor ÷ emq-id` for `call` (above 1, emq-id is faster).
struct Bar {
    call: String,
    anchor: String,
    /// Which column it came from when a section has several (Node and Chromium, cgo and WebAssembly).
    series: String,
    ratio: f64,
}

/// Every `anchor ÷ …` cell that holds a ratio. Its series is the column
/// before it when that is a runtime's time (`Chromium ns`), otherwise what the
/// header divides by; its anchor is the row's `anchor` cell or, where a table
/// marks anchor rows `(anchor)` instead, the nearest such row above it. A
/// row measured against a floor (an empty call, `CgoFloor`) rather than a
/// library stays in its full table only: a floor is not what a user would
/// pick instead.
fn bars(tables: &[Table]) -> Vec<Bar> {
    let mut bars = vec![];
    for table in tables {
        let anchor_col = table.header.iter().position(|h| h == "anchor");
        for (col, head) in table.header.iter().enumerate() {
            let Some(divisor) = head.strip_prefix("anchor ÷ ") else { continue };
            let before = col.checked_sub(1).map(|c| table.header[c].as_str()).unwrap_or("");
            let runtime = before.strip_suffix(" ns").filter(|b| !b.starts_with("anchor"));
            let series = runtime.unwrap_or(divisor).to_string();
            let mut anchor_row = String::new();
            for row in &table.rows {
                let cell = row.get(col).map_or("", String::as_str);
                if cell == "(anchor)" {
                    anchor_row = row[0].clone();
                    continue;
                }
                let Some(ratio) = ratio(cell) else { continue };
                let anchor = match anchor_col.and_then(|c| row.get(c)) {
                    Some(a) if a != "–" => a.clone(),
                    _ => anchor_row.clone(),
                };
                if anchor.ends_with("Floor") {
                    continue;
                }
                bars.push(Bar { call: row[0].clone(), anchor, series: series.clone(), ratio });
            }
        }
    }
    bars
}

/// `**3.41×**` → 3.41.
fn ratio(cell: &str) -> Option<f64> {
    cell.trim_matches('*').strip_suffix('×')?.parse().ok().filter(|r: &f64| *r > 0.0)
}

fn series_of(bars: &[Bar]) -> Vec<&str> {
    let mut series: Vec<&str> = vec![];
    for bar in bars {
        if !series.contains(&bar.series.as_str()) {
            series.push(&bar.series);
        }
    }
    series
}

/// The summary table: one row per call, one ratio column per series. A call
/// timed both alone and in a loop over a batch shows the loop row only, the
/// figure a caller's batch sees (the chart shows both).
fn table(bars: &[Bar]) -> String {
    let series = series_of(bars);
    let heads: Vec<String> = if series.len() == 1 {
        vec!["anchor ÷ emq-id".into()]
    } else {
        series.iter().map(|s| format!("anchor ÷ {s}")).collect()
    };
    let mut out = format!("| call | anchor | {} |\n|---|---|{}\n", heads.join(" | "), "---|".repeat(heads.len()));
    let mut calls: Vec<(&str, &str)> = vec![];
    let looped = |call: &str| bars.iter().any(|b| b.call.starts_with(&format!("{call}, loop of")));
    for bar in bars {
        if !calls.contains(&(bar.call.as_str(), bar.anchor.as_str())) && !looped(&bar.call) {
            calls.push((&bar.call, &bar.anchor));
        }
    }
    for (call, anchor) in calls {
        let cells: Vec<String> = series
            .iter()
            .map(|s| {
                bars.iter()
                    .find(|b| b.call == call && b.anchor == anchor && b.series == *s)
                    .map_or("–".into(), |b| format!("**{:.2}×**", b.ratio))
            })
            .collect();
        let _ = writeln!(out, "| {call} | {anchor} | {} |", cells.join(" | "));
    }
    out
}

const WIDTH: f64 = 760.0;
const BAR: f64 = 14.0;
const GAP: f64 = 6.0;
const TOP: f64 = 44.0;
const PALETTE: [&str; 3] = ["#3b6ea5", "#d08c1e", "#4f9a5b"];

/// A bar per ratio on a log₂ axis centred on 1× (the anchor): right of the
/// line emq-id is faster, left slower; equal distances are equal factors.
fn chart(title: &str, bars: &[Bar]) -> String {
    let series = series_of(bars);
    // Sans-serif at 12 px runs about 7 px a character; the value beside a bar
    // that ends at the axis's left edge needs about 44 px more.
    let label_width = (bars.iter().map(|b| b.call.chars().count()).max().unwrap_or(0) as f64 * 7.0 + 12.0).min(340.0);
    let (x0, x1) = (label_width + 44.0, WIDTH - 56.0);
    let lo = bars.iter().map(|b| b.ratio.log2()).fold(-1.0_f64, f64::min).floor();
    let hi = bars.iter().map(|b| b.ratio.log2()).fold(1.0_f64, f64::max).ceil();
    let x = |ratio: f64| x0 + (ratio.log2() - lo) / (hi - lo) * (x1 - x0);
    let height = TOP + bars.len() as f64 * (BAR + GAP) + 30.0;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height:.0}\" viewBox=\"0 0 {WIDTH} {height:.0}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n\
         <text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{}: each anchor's time ÷ emq-id's</text>\n\
         <text x=\"8\" y=\"34\" fill=\"#555\">right of 1×, emq-id is faster than the anchor; log scale</text>\n",
        escape(title)
    );
    let axis_bottom = height - 26.0;
    for power in lo as i32..=hi as i32 {
        let r = 2f64.powi(power);
        let px = x(r);
        let stroke = if power == 0 { "#222\" stroke-width=\"1.5" } else { "#ddd" };
        let _ = writeln!(
            svg,
            "<line x1=\"{px:.1}\" y1=\"{TOP}\" x2=\"{px:.1}\" y2=\"{axis_bottom:.1}\" stroke=\"{stroke}\"/>\n<text x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">{}×</text>",
            axis_bottom + 16.0,
            if power >= 0 { format!("{}", r as u64) } else { format!("1/{}", (1.0 / r) as u64) }
        );
    }
    let one = x(1.0);
    for (i, bar) in bars.iter().enumerate() {
        let y = TOP + 4.0 + i as f64 * (BAR + GAP);
        let end = x(bar.ratio);
        let colour = PALETTE[series.iter().position(|s| *s == bar.series).unwrap_or(0) % PALETTE.len()];
        let (left, width) = if end >= one { (one, end - one) } else { (end, one - end) };
        let (value_x, anchor) = if end >= one { (end + 4.0, "start") } else { (end - 4.0, "end") };
        let _ = writeln!(
            svg,
            "<text x=\"{label_width:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n<rect x=\"{left:.1}\" y=\"{y:.1}\" width=\"{width:.1}\" height=\"{BAR}\" fill=\"{colour}\"><title>{} vs {}: {:.2}×</title></rect>\n<text x=\"{value_x:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\" fill=\"#222\">{:.2}×</text>",
            y + BAR - 3.0,
            escape(&bar.call),
            escape(&bar.call),
            escape(&bar.anchor),
            bar.ratio,
            y + BAR - 3.0,
            bar.ratio
        );
    }
    if series.len() > 1 {
        for (i, s) in series.iter().enumerate() {
            let lx = WIDTH - 150.0;
            let ly = 12.0 + i as f64 * 14.0;
            let _ = writeln!(
                svg,
                "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{ly:.1}\">{}</text>",
                ly - 9.0,
                PALETTE[i % PALETTE.len()],
                lx + 14.0,
                escape(s)
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE_TEXT: &str = "intro\n<!-- summary -->\nold\n<!-- /summary -->\n\n<!-- bench:wasm -->\n_Generated by `cargo xtask bench wasm` on 2026-11-30, a machine; do not edit between these markers._\n\n| call | anchor | Node ns | anchor ÷ call | Chromium ns | anchor ÷ call |\n|---|---|---|---|---|---|\n| hash32 | – | 11.7 | – | 17.8 | – |\n| encode | ulid encodeTime | 155.1 | **1.64×** | 122.1 | **2.06×** |\n<!-- /bench:wasm -->\n<!-- bench:postgres -->\n_Generated by `cargo xtask bench postgres` on 2026-12-01, a machine; do not edit between these markers._\n\n| SQL | time | anchor ÷ this |\n|---|---|---|\n| count(uuid) | 1284 ms | (anchor) |\n| count(emq) | 169 ms | **7.61×** |\n<!-- /bench:postgres -->\n";

    #[test]
    fn reads_every_ratio_with_its_anchor_and_series() {
        let sections = sections(PAGE_TEXT).unwrap();
        let wasm = bars(&sections[0].tables);
        let got: Vec<(&str, &str, &str, f64)> =
            wasm.iter().map(|b| (b.call.as_str(), b.anchor.as_str(), b.series.as_str(), b.ratio)).collect();
        assert_eq!(got, [("encode", "ulid encodeTime", "Node", 1.64), ("encode", "ulid encodeTime", "Chromium", 2.06)]);
        let postgres = bars(&sections[1].tables);
        assert_eq!((postgres[0].anchor.as_str(), postgres[0].ratio), ("count(uuid)", 7.61));
        assert_eq!(sections[1].stamp, "2026-12-01, a machine");
    }

    #[test]
    fn a_changed_figure_changes_the_summary_and_the_chart() {
        let (summary, charts) = generate(PAGE_TEXT).unwrap();
        assert!(summary.contains("| encode | ulid encodeTime | **1.64×** | **2.06×** |"), "{summary}");
        let (changed, changed_charts) = generate(&PAGE_TEXT.replace("**7.61×**", "**6.61×**")).unwrap();
        assert_ne!(summary, changed);
        assert_eq!(charts[0], changed_charts[0]);
        assert_ne!(charts[1], changed_charts[1]);
        let page = replace_summary(PAGE_TEXT, &summary).unwrap();
        assert!(!page.contains("old") && page.contains("performance/postgres.svg"));
    }
}
