//! `cargo xtask docs`: the book (docs/, mdBook) and every runtime's generated
//! API reference, into `target/docs/`; then every link of the built pages
//! checked, and (with `--screenshots`) the landing page and one language page
//! rendered by headless Chromium into `target/docs/screenshots/`.
//!
//! The link check is here rather than a tool's: mdBook 0.5 has none of its
//! own and mdbook-linkcheck follows the 0.4 plugin interface. It reads the
//! built HTML, as a browser would follow it: every relative `href`/`src` must
//! name a file that exists, and every `#fragment` an `id` in that file.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

use crate::runtimes::{node, python, wasm};
use crate::{root, sh, sh_out};

/// mdBook, pinned: installed by cargo when missing or another version.
pub const MDBOOK: &str = "0.5.4";
/// TypeDoc, pinned (npm), over the packages' type declarations.
pub const TYPEDOC: &str = "0.28.8";
/// pdoc, pinned (PyPI), over the installed wheel.
pub const PDOC: &str = "pdoc==16.0.0";
/// The TypeScript TypeDoc 0.28 reads with (its peer range ends at 5.8).
pub const TYPESCRIPT: &str = "typescript@5.8.3";

/// How the book links a file of the repository (its pages are read outside the tree).
pub const REPOSITORY_FILES: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/");

fn out() -> PathBuf {
    root().join("target/docs")
}

/// The API references live inside the book's output, so its pages link them relatively.
fn api() -> PathBuf {
    out().join("book/api")
}

/// `cargo xtask docs [--screenshots] [--check]`: `--check` fails on a
/// generated page that is stale instead of writing it.
pub fn run(args: &[String]) -> Result<()> {
    let flag = |name: &str| args.iter().any(|a| a == name);
    if let Some(other) = args.iter().find(|a| !["--screenshots", "--check"].contains(&a.as_str())) {
        bail!("docs takes --screenshots and --check, not {other:?}");
    }
    super::cli_reference::sync(flag("--check"))?;
    super::performance::sync(flag("--check"))?;
    let screenshots = flag("--screenshots");
    let _ = std::fs::remove_dir_all(out());
    book()?;
    rust()?;
    js()?;
    python_reference()?;
    go()?;
    java()?;
    crate::runtimes::elixir::reference::write(&api().join("elixir.txt"))?;
    sql_and_c()?;
    let checked = check_links(&out())?;
    println!("docs: {checked} links in target/docs, every one resolves");
    let checked = super::markdown_links::check()?;
    println!("docs: {checked} relative links of README.md, the contract and the package READMEs resolve");
    if screenshots {
        shoot()?;
    }
    println!("docs: target/docs/book/index.html");
    Ok(())
}

/// The suite's step: everything, generated pages checked, with screenshots.
pub fn suite() -> Result<()> {
    run(&["--screenshots".to_string(), "--check".to_string()])
}

fn book() -> Result<()> {
    let have = sh_out(Command::new("mdbook").arg("--version")).unwrap_or_default();
    if !have.contains(MDBOOK) {
        eprintln!("xtask: installing mdbook {MDBOOK} (the book; found {:?})", have.trim());
        sh(Command::new("cargo").args(["install", "mdbook", "--version", MDBOOK, "--locked"]))?;
    }
    let built = Command::new("mdbook").arg("build").arg(root().join("docs")).output().context("running mdbook")?;
    let log = String::from_utf8_lossy(&built.stderr);
    eprint!("{log}");
    ensure!(built.status.success(), "mdbook build failed");
    let warnings: Vec<&str> = log.lines().filter(|l| l.contains("WARN") || l.contains("ERROR")).collect();
    ensure!(warnings.is_empty(), "mdbook warned:\n{}", warnings.join("\n"));
    Ok(())
}

/// rustdoc of the core, warnings denied, copied beside the book, with the
/// root page rustdoc's help and settings pages link (stable rustdoc writes
/// one only for `--enable-index-page`, a nightly flag) sending to the crate.
fn rust() -> Result<()> {
    super::rustdoc_examples::check()?;
    sh(Command::new("cargo")
        .args(["doc", "--quiet", "-p", "emq-id", "--no-deps", "--features", "std"])
        .env("RUSTDOCFLAGS", "-D warnings"))?;
    copy_dir(&root().join("target/doc"), &api().join("rust"))?;
    crate::write(
        api().join("rust/index.html"),
        r#"<!DOCTYPE html><meta http-equiv="refresh" content="0; url=emq_id/index.html"><a href="emq_id/index.html">emq_id</a>"#,
    )
}

/// TypeDoc over the Node package's declarations (the WASM package's are the same file, copied).
fn js() -> Result<()> {
    node::build::package()?;
    wasm::setup::tools()?;
    let tools = root().join("target/docs-tools/js");
    crate::mkdir(&tools)?;
    if !tools.join(format!("node_modules/typedoc/.version-{TYPEDOC}")).exists() {
        crate::write(tools.join("package.json"), r#"{ "name": "docs-tools", "private": true }"#)?;
        sh(node::npm(&tools).args(["install", "--no-save", &format!("typedoc@{TYPEDOC}"), TYPESCRIPT]))?;
        crate::write(tools.join(format!("node_modules/typedoc/.version-{TYPEDOC}")), "")?;
    }
    sh(Command::new(tools.join("node_modules/.bin/typedoc"))
        .current_dir(root().join(node::PACKAGE))
        .args(["--entryPoints", "index.d.ts", "--entryPoints", "holder/index.d.ts"])
        .args([
            "--name",
            "@echomq/emq-id",
            "--readme",
            "none",
            "--treatWarningsAsErrors",
            "--skipErrorChecking",
            "--disableSources",
        ])
        .arg("--out")
        .arg(api().join("js")))
}

/// pdoc over the wheel, installed alone in a virtual environment; a warning
/// (a stub it cannot read, a reference it cannot resolve) fails it.
fn python_reference() -> Result<()> {
    let wheel = python::build::wheel()?;
    let env = python::setup::venv("docs", &[PDOC], "the Python API reference")?;
    python::build::install(&env, &wheel)?;
    let out = env
        .python()
        .args(["-m", "pdoc", "emq_id", "--output-directory"])
        .arg(api().join("python"))
        .output()
        .context("running pdoc")?;
    let log = String::from_utf8_lossy(&out.stderr);
    ensure!(out.status.success() && !log.contains("Warn"), "pdoc failed or warned:\n{log}");
    Ok(())
}

/// `go doc -all` of the module: Go's own reference, as text.
fn go() -> Result<()> {
    let text = sh_out(
        crate::runtimes::go::go_with("bindings/go", crate::runtimes::go::Backend::Wasm).args(["doc", "-all", "."]),
    )?;
    ensure!(text.contains("func Encode"), "go doc printed no Encode");
    crate::mkdir(api())?;
    crate::write(api().join("go.txt"), text)
}

/// Javadoc of the JVM artifacts (`io.echomq:emq-id`, `emq-id-jedis`, `emq-id-lettuce`: every
/// package under `io.echomq.emqid`), read from their sources by the JDK 17's `javadoc` with
/// every doclint check on and a warning an error. Its class path is what Maven resolved for the
/// holders (Jedis, Lettuce and theirs), the artifacts' own jars and classes left out, so every
/// page comes from the sources.
fn java() -> Result<()> {
    use crate::runtimes::jvm;
    let resolved = jvm::holder::class_path()?;
    let own = [jvm::repository().join("io/echomq"), jvm::dir("examples")];
    let class_path =
        std::env::join_paths(std::env::split_paths(&resolved).filter(|p| !own.iter().any(|o| p.starts_with(o))))?;
    let artifacts = ["emq-id", "emq-id-jedis", "emq-id-lettuce"];
    let sources = std::env::join_paths(artifacts.map(|a| root().join(jvm::PACKAGE).join(a).join("src/main/java")))?;
    let title = format!("emq-id {} for the JVM", crate::dist::version());
    sh(jvm::setup::jdk17_tool("javadoc")?
        .args(["-Xdoclint:all", "-Werror", "--release", "17", "-quiet", "-notimestamp"])
        .args(["-encoding", "UTF-8", "-docencoding", "UTF-8", "-charset", "UTF-8"])
        .args(["-doctitle", &title, "-windowtitle", &title])
        .arg("-sourcepath")
        .arg(sources)
        .arg("-classpath")
        .arg(class_path)
        .arg("-d")
        .arg(api().join("java"))
        .args(["-subpackages", "io.echomq.emqid"]))?;
    ensure!(api().join("java/io/echomq/emqid/Id.html").exists(), "javadoc wrote no page of Id");
    Ok(())
}

/// SQL's reference, every function of the extension with its `COMMENT ON`,
/// read from a throwaway server's catalogue; and C's, its header, in which
/// every declaration is commented.
fn sql_and_c() -> Result<()> {
    crate::runtimes::postgres::comments::write_reference_into(&api())?;
    let header = root().join("bindings/c/include/emq_id.h");
    std::fs::copy(&header, api().join("emq_id.h")).with_context(|| format!("copying {}", header.display()))?;
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    crate::mkdir(to)?;
    sh(Command::new("cp").arg("-a").arg(format!("{}/.", from.display())).arg(to))
}

/// Every relative link of every `.html` under `dir` resolves; answers how many were checked.
pub fn check_links(dir: &Path) -> Result<usize> {
    let pages = crate::files_under(dir, "html")?;
    let mut ids: HashMap<PathBuf, BTreeSet<String>> = HashMap::new();
    let mut broken = vec![];
    let mut checked = 0;
    for page in &pages {
        let html = std::fs::read_to_string(page).with_context(|| page.display().to_string())?;
        for link in attributes(&html, &["href", "src"]) {
            // A link to a file of this repository on GitHub: the file must exist in the tree.
            if let Some(path) = link.strip_prefix(REPOSITORY_FILES) {
                checked += 1;
                let path = path.split(['#', '?']).next().unwrap_or_default();
                if !root().join(path).exists() {
                    broken.push(format!("{}: {link}: no {path} in the repository", page.display()));
                }
                continue;
            }
            // Another site, or this site's root (where it is served decides; mdBook's 404 page),
            // or rustdoc's implementors scripts, which it loads only where they exist.
            if link.contains("/trait.impl/")
                || link.contains("/type.impl/")
                || link.contains("://")
                || link.starts_with('/')
                || link.starts_with("mailto:")
                || link.starts_with("javascript:")
                || link.starts_with("data:")
            {
                continue;
            }
            checked += 1;
            let (file, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let file = file.split('?').next().unwrap_or_default();
            let target =
                if file.is_empty() { page.clone() } else { page.parent().expect("a page's directory").join(file) };
            let target = if target.is_dir() { target.join("index.html") } else { target };
            if !target.exists() {
                broken.push(format!("{}: {link}: no {}", page.display(), target.display()));
                continue;
            }
            // rustdoc's source lines (`#28`, `#126-131`) are ids its script makes when the page loads.
            let line_number = fragment.chars().all(|c| c.is_ascii_digit() || c == '-');
            if !fragment.is_empty() && !line_number && target.extension().is_some_and(|e| e == "html") {
                let known = match ids.get(&target) {
                    Some(k) => k,
                    None => {
                        let text = std::fs::read_to_string(&target)?;
                        ids.entry(target.clone())
                            .or_insert_with(|| attributes(&text, &["id", "name"]).into_iter().collect())
                    }
                };
                // As a browser finds it (HTML's "indicated part"): the fragment as written (rustdoc's
                // ids hold `%3C` themselves), else decoded (Javadoc writes `#%3Cinit%3E(int)` for
                // the id `&lt;init&gt;(int)`).
                if !known.contains(fragment) && !known.contains(&percent_decoded(fragment)) {
                    broken.push(format!("{}: {link}: no id {fragment:?} in {}", page.display(), target.display()));
                }
            }
        }
    }
    ensure!(broken.is_empty(), "{} broken links:\n{}", broken.len(), broken.join("\n"));
    Ok(checked)
}

/// A URL's fragment as the `id` it names: `%XX` escapes undone (UTF-8), as a browser does.
fn percent_decoded(fragment: &str) -> String {
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The values of the named attributes (`href="…"`, double- or single-quoted), the entities
/// `&lt;`, `&gt;`, `&quot;`, `&#39;` and `&amp;` undone.
fn attributes(html: &str, names: &[&str]) -> Vec<String> {
    let mut values = vec![];
    for name in names {
        for quote in ['"', '\''] {
            let open = format!(" {name}={quote}");
            for piece in html.split(&open).skip(1) {
                if let Some(value) = piece.split(quote).next() {
                    let value = value.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"");
                    values.push(value.replace("&#39;", "'").replace("&amp;", "&"));
                }
            }
        }
    }
    values
}

/// The landing page and a language page, rendered by headless Chromium.
fn shoot() -> Result<()> {
    wasm::setup::chromium()?;
    let dir = out().join("screenshots");
    crate::mkdir(&dir)?;
    let profile = crate::dist::scratch("docs-chromium")?;
    for (page, name) in [("index.html", "landing.png"), ("languages/node.html", "node.png")] {
        let url = format!("file://{}", out().join("book").join(page).display());
        sh(Command::new("chromium")
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
            .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(["--window-size=1280,900", "--hide-scrollbars"])
            .arg(format!("--screenshot={}", dir.join(name).display()))
            .arg(url))?;
        let size = std::fs::metadata(dir.join(name)).map(|m| m.len()).unwrap_or(0);
        ensure!(size > 10_000, "{name}: Chromium wrote {size} bytes: not a rendered page");
        println!("docs: screenshot of {page}: target/docs/screenshots/{name} ({size} bytes)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{attributes, check_links, percent_decoded};

    #[test]
    fn reads_attributes() {
        let html = r#"<a href="a.html#x">a</a> <img src='i.png'> <h2 id="x">x</h2> <a href="?q=1&amp;r=2">"#;
        assert_eq!(attributes(html, &["href", "src"]), vec!["a.html#x", "?q=1&r=2", "i.png"]);
        assert_eq!(attributes(html, &["id"]), vec!["x"]);
        assert_eq!(attributes(r#"<section id="&lt;init&gt;(int[])">"#, &["id"]), vec!["<init>(int[])"]);
        assert_eq!(percent_decoded("%3Cinit%3E(byte%5B%5D)"), "<init>(byte[])");
        assert_eq!(percent_decoded("100%"), "100%");
    }

    #[test]
    fn a_broken_link_fails() {
        let dir = std::env::temp_dir().join(format!("emq-id-links-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // rustdoc's ids hold the escape itself; Javadoc's are decoded: a browser finds both.
        let (rustdoc, javadoc) =
            (r#"<a href="b.html#impl-From%3CT%3E">r</a>"#, r#"<a href="b.html#%3Cinit%3E(int)">j</a>"#);
        std::fs::write(
            dir.join("a.html"),
            format!(r#"<h1 id="top">A</h1><a href="b.html#there">b</a>{rustdoc}{javadoc}"#),
        )
        .unwrap();
        std::fs::write(
            dir.join("b.html"),
            r#"<h1 id="there">B</h1><h2 id="impl-From%3CT%3E">r</h2><h2 id="&lt;init&gt;(int)">j</h2><a href="a.html#top">a</a>"#,
        )
        .unwrap();
        assert_eq!(check_links(&dir).unwrap(), 4);
        std::fs::write(dir.join("b.html"), r#"<h1 id="elsewhere">B</h1><a href="c.html">c</a>"#).unwrap();
        let err = check_links(&dir).unwrap_err().to_string();
        assert!(err.contains("no id \"there\"") && err.contains("c.html"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
