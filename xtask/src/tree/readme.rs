//! The documentation's C, Go, Node, Elixir, Python and Java examples,
//! compiled and run as written: documentation whose examples rot is worse
//! than none. Every block fenced with exactly the language's name runs, in
//! every document ([`documents`]); a block fenced with a word after the name
//! (```javascript lease) is another task's (the Java ones are compiled here
//! all the same: [`java`]). SQL runs in `runtimes::postgres::tests`, on the
//! live server; Rust in the core's doctests; shell transcripts in
//! `tree::transcripts`.

pub mod java;

use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

use crate::runtimes::{c, elixir, node, python, wasm};
use crate::{root, sh};

/// The user documentation whose examples run: README.md, the package READMEs
/// (crates/emq-id and bindings/*, which the book's language pages include) and
/// every page of the book (docs/src).
pub fn documents() -> Result<Vec<PathBuf>> {
    let mut pages = vec![root().join("README.md"), root().join("crates/emq-id/README.md")];
    let mut packages = vec![];
    for entry in std::fs::read_dir(root().join("bindings")).context("listing bindings/")? {
        let readme = entry?.path().join("README.md");
        if readme.is_file() {
            packages.push(readme);
        }
    }
    packages.sort();
    pages.extend(packages);
    pages.extend(crate::files_under(&root().join("docs/src"), "md")?);
    Ok(pages)
}

/// Every document of [`documents`], one after another.
pub fn text() -> Result<String> {
    let mut all = String::new();
    for page in documents()? {
        all.push_str(&crate::read(&page)?);
        all.push('\n');
    }
    Ok(all)
}

/// One example of the documentation, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The document it is written in.
    pub file: PathBuf,
    /// The line of its opening fence (1-based).
    pub line: usize,
    /// Its text, without the fences.
    pub text: String,
}

impl Block {
    /// `README.md:52`: where a reader finds it.
    pub fn place(&self) -> String {
        format!("{}:{}", self.file.strip_prefix(root()).unwrap_or(&self.file).display(), self.line)
    }
}

/// Short names of languages whose examples run under their full name: a block
/// fenced with one would be shown and never run.
const ALIASES: [&str; 5] = ["js", "mjs", "ts", "py", "ex"];

/// Every block fenced exactly ```lang in `text`: (its opening line, its text).
/// A fence in one of the [`ALIASES`] is an error, and so is one that never closes.
fn fenced(text: &str, lang: &str) -> Result<Vec<(usize, String)>> {
    let blocks = super::fences::blocks(text)?;
    if let Some(b) = blocks.iter().find(|b| ALIASES.contains(&b.info.split_whitespace().next().unwrap_or(""))) {
        bail!("line {}: a ```{} block would never run: fence it with the language's full name", b.line, b.info);
    }
    Ok(blocks.into_iter().filter(|b| b.info == lang).map(|b| (b.line, b.body)).collect())
}

/// Every example in `lang` (a fenced block's language) in every document, in
/// the order of [`documents`]; none at all is an error.
pub fn every(lang: &str) -> Result<Vec<Block>> {
    let mut found = vec![];
    for file in documents()? {
        let blocks = fenced(&crate::read(&file)?, lang).with_context(|| file.display().to_string())?;
        found.extend(blocks.into_iter().map(|(line, text)| Block { file: file.clone(), line, text }));
    }
    ensure!(!found.is_empty(), "the documentation has no ```{lang} example");
    Ok(found)
}

/// Runs `run` on every example in `lang`, naming the one that fails; answers how many ran.
fn each(lang: &str, mut run: impl FnMut(usize, &Block) -> Result<()>) -> Result<usize> {
    let blocks = every(lang)?;
    for (i, block) in blocks.iter().enumerate() {
        run(i, block).with_context(|| format!("the ```{lang} example at {}:\n{}", block.place(), block.text))?;
    }
    Ok(blocks.len())
}

pub fn examples() -> Result<()> {
    let dir = root().join("target/readme-examples");
    let _ = std::fs::remove_dir_all(&dir);
    crate::mkdir(dir.join("go"))?;
    let mut ran = vec![];

    c::build::library()?;
    let n = each("c", |i, block| {
        let (source, program) = (dir.join(format!("example{i}.c")), dir.join(format!("example{i}")));
        crate::write(&source, &block.text)?;
        sh(Command::new("gcc")
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
            .arg(root().join("bindings/c/include"))
            .arg(&source)
            .arg(root().join("target/release/libemqid.a"))
            .args(["-lpthread", "-ldl", "-lm", "-o"])
            .arg(&program))?;
        sh(Command::new(&program).env("EMQ_NODE_DIR", dir.join("claims")))
    })?;
    ran.push(format!("{n} C"));

    // On both backends: the default a `go get` gives (no cgo), and `-tags emqid_cgo`.
    use crate::runtimes::go::{go_with, Backend};
    crate::write(
        dir.join("go/go.mod"),
        format!(
            "module example\n\ngo 1.25.0\n\nrequire github.com/echomq/emq-id/bindings/go v0.0.0\n\nreplace github.com/echomq/emq-id/bindings/go => {}\n",
            root().join("bindings/go").display()
        ),
    )?;
    let n = each("go", |_, block| {
        crate::write(dir.join("go/main.go"), &block.text)?;
        sh(go_with("target/readme-examples/go", Backend::Wasm).args(["mod", "tidy"]))?;
        for backend in [Backend::Wasm, Backend::Cgo] {
            sh(go_with("target/readme-examples/go", backend)
                .args(["run", "."])
                .env("EMQ_NODE_DIR", dir.join("claims")))?;
        }
        Ok(())
    })?;
    ran.push(format!("{n} Go"));

    // Inside the package the example imports, so its name resolves to the package itself: an
    // ES module in the WASM package, a CommonJS script in the Node package.
    node::build::package()?;
    wasm::build::package()?;
    let n = each("javascript", |_, block| {
        let script = if block.text.contains("'@echomq/emq-id-wasm'") {
            root().join(wasm::PACKAGE).join(".readme-example.mjs")
        } else {
            root().join(node::PACKAGE).join(".readme-example.cjs")
        };
        crate::write(&script, &block.text)?;
        let ran = sh(Command::new("node").arg(&script).env("EMQ_NODE_DIR", dir.join("claims")));
        let _ = std::fs::remove_file(&script);
        ran
    })?;
    ran.push(format!("{n} Node and WebAssembly"));

    // In the Mix project, with the application's config set as the example says.
    elixir::build::compile()?;
    let n = each("elixir", |_, block| {
        sh(Command::new("mix")
            .current_dir(root().join(elixir::PROJECT))
            .args(["run", "--no-start", "--no-compile", "-e", &block.text])
            .env("EMQ_NODE_DIR", dir.join("claims")))
    })?;
    ran.push(format!("{n} Elixir"));

    // The wheel in a fresh environment, with EMQ_NODE set as the examples say; any warning fails one.
    let wheel = python::build::wheel()?;
    let env = python::build::fresh("readme", &wheel)?;
    let n = each("python", |i, block| {
        let script = dir.join(format!("example{i}.py"));
        crate::write(&script, &block.text)?;
        sh(env
            .python()
            .current_dir(&dir)
            .args(["-I", "-W", "error"])
            .arg(&script)
            .env("EMQ_NODE", "7")
            .env("EMQ_NODE_DIR", dir.join("claims")))
    })?;
    ran.push(format!("{n} Python"));

    let (n, leases) = java::examples(&dir.join("java"))?;
    ran.push(format!("{n} Java (and {leases} Java lease examples compiled)"));
    println!("readme: the documentation's examples ran as written: {}", ran.join(", "));
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn blocks_of(file: &Path, text: &str, lang: &str) -> Result<Vec<Block>> {
        Ok(fenced(text, lang)?.into_iter().map(|(line, text)| Block { file: file.to_path_buf(), line, text }).collect())
    }

    const PAGE: &str = "# Page\n\n```c\nint main(void) { return 0; }\n```\n\n```javascript lease\nawait x;\n```\n\
                        ```text\n```c\n```\n\n```c\nint main(void) { return 1; }\n```\n";

    #[test]
    fn finds_every_block_of_a_language_with_its_line() {
        let found = blocks_of(Path::new("/r/page.md"), PAGE, "c").unwrap();
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!((found[0].line, found[0].text.as_str()), (3, "int main(void) { return 0; }\n"));
        assert_eq!((found[1].line, found[1].text.as_str()), (14, "int main(void) { return 1; }\n"));
        // A fence with a word after the language is another task's; a fence inside a text block is text.
        assert!(fenced(PAGE, "javascript").unwrap().is_empty());
        assert_eq!(fenced(PAGE, "javascript lease").unwrap().len(), 1);
        assert_eq!(fenced(PAGE, "text").unwrap()[0].1, "```c\n");
    }

    #[test]
    fn a_short_fence_name_is_an_error() {
        let err = fenced("```js\nconsole.log(1);\n```\n", "javascript").unwrap_err().to_string();
        assert!(err.contains("line 1") && err.contains("```js"), "{err}");
    }

    #[test]
    fn every_document_is_read_and_each_failure_names_its_file() {
        let docs = documents().unwrap();
        for package in ["README.md", "crates/emq-id/README.md", "bindings/c/README.md", "bindings/postgres/README.md"] {
            assert!(docs.contains(&root().join(package)), "{package} is not among the documents");
        }
        // Every language the examples run has examples, the quick start's first.
        for lang in ["c", "go", "javascript", "elixir", "python", "sql", "java"] {
            let found = every(lang).unwrap();
            assert_eq!(found[0].file, root().join("README.md"), "{lang}: the quick start comes first");
        }
        let err = each("c", |_, block| if block.line > 0 { bail!("exit status 1") } else { Ok(()) }).unwrap_err();
        assert!(format!("{err:#}").contains("the ```c example at README.md:"), "{err:#}");
        assert!(every("no-such-language").is_err());
    }
}
