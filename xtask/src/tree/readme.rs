//! The README's C, Go, Node, Elixir and Python examples, compiled and run as written: a
//! README whose examples rot is worse than none. (Its SQL runs in
//! `runtimes::postgres::tests`, on the live server.)

use std::path::PathBuf;
use std::process::Command;

use anyhow::{ensure, Result};

use crate::runtimes::{c, elixir, node, python};
use crate::{root, sh};

/// The user documentation whose examples run: README.md and every page of the book (docs/src).
pub fn documents() -> Result<Vec<PathBuf>> {
    let mut pages = vec![root().join("README.md")];
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

fn blocks(lang: &str) -> Result<Vec<String>> {
    let text = text()?;
    let fence = format!("```{lang}\n");
    Ok(text.split(&fence).skip(1).filter_map(|b| b.split("```").next()).map(str::to_owned).collect())
}

/// The documentation's one example in `lang` (a fenced block's language), as written.
pub fn one(lang: &str) -> Result<String> {
    let mut found = blocks(lang)?;
    ensure!(found.len() == 1, "the documentation should have one ```{lang} example, it has {}", found.len());
    Ok(found.remove(0))
}

pub fn examples() -> Result<()> {
    let dir = root().join("target/readme-examples");
    let _ = std::fs::remove_dir_all(&dir);
    crate::mkdir(dir.join("go"))?;
    let write = |path: &str, text: &str| crate::write(dir.join(path), text);

    c::build::library()?;
    write("example.c", &one("c")?)?;
    sh(Command::new("gcc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(root().join("bindings/c/include"))
        .arg(dir.join("example.c"))
        .arg(root().join("target/release/libemqid.a"))
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(dir.join("example")))?;
    sh(&mut Command::new(dir.join("example")))?;

    write("go/main.go", &one("go")?)?;
    write(
        "go/go.mod",
        &format!(
            "module example\n\ngo 1.25.0\n\nrequire github.com/echomq/emq-id/bindings/go v0.0.0\n\nreplace github.com/echomq/emq-id/bindings/go => {}\n",
            root().join("bindings/go").display()
        ),
    )?;
    // On both backends: the default a `go get` gives (no cgo), and `-tags emqid_cgo`.
    use crate::runtimes::go::{go_with, Backend};
    sh(go_with("target/readme-examples/go", Backend::Wasm).args(["mod", "tidy"]))?;
    for backend in [Backend::Wasm, Backend::Cgo] {
        sh(go_with("target/readme-examples/go", backend).args(["run", "."]))?;
    }

    // Inside the package directory, so `require('@echomq/emq-id')` resolves to the package itself.
    node::build::package()?;
    let script = root().join(node::PACKAGE).join(".readme-example.cjs");
    crate::write(&script, one("javascript")?)?;
    let ran = sh(Command::new("node").arg(&script));
    let _ = std::fs::remove_file(&script);
    ran?;

    // In the Mix project, with the application's config set as the example says.
    elixir::build::compile()?;
    sh(Command::new("mix")
        .current_dir(root().join(elixir::PROJECT))
        .args(["run", "--no-start", "--no-compile", "-e", &one("elixir")?])
        .env("EMQ_NODE_DIR", dir.join("claims")))?;

    // The wheel in a fresh environment, with EMQ_NODE set as the example says; any warning fails it.
    let wheel = python::build::wheel()?;
    let env = python::build::fresh("readme", &wheel)?;
    write("example.py", &one("python")?)?;
    sh(env
        .python()
        .current_dir(&dir)
        .args(["-I", "-W", "error"])
        .arg(dir.join("example.py"))
        .env("EMQ_NODE", "7")
        .env("EMQ_NODE_DIR", dir.join("claims")))
}
