//! The README's C, Go, Node and Elixir examples, compiled and run as written: a
//! README whose examples rot is worse than none.

use std::process::Command;

use crate::{native, node, root, sh};

fn blocks(lang: &str) -> Result<Vec<String>, String> {
    let readme = std::fs::read_to_string(root().join("README.md")).map_err(|e| e.to_string())?;
    let fence = format!("```{lang}\n");
    Ok(readme.split(&fence).skip(1).filter_map(|b| b.split("```").next()).map(str::to_owned).collect())
}

fn one(lang: &str) -> Result<String, String> {
    let mut found = blocks(lang)?;
    if found.len() != 1 {
        return Err(format!("the README should have one ```{lang} example, it has {}", found.len()));
    }
    Ok(found.remove(0))
}

pub fn examples() -> Result<(), String> {
    let dir = root().join("target/readme-examples");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("go")).map_err(|e| e.to_string())?;
    let write = |path: &str, text: &str| std::fs::write(dir.join(path), text).map_err(|e| e.to_string());

    native::build_library()?;
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
            "module example\n\ngo 1.22\n\nrequire github.com/echomq/emq-id/bindings/go v0.0.0\n\nreplace github.com/echomq/emq-id/bindings/go => {}\n",
            root().join("bindings/go").display()
        ),
    )?;
    sh(Command::new("go").current_dir(dir.join("go")).args(["run", "."]))?;

    // Inside the package directory, so `require('@echomq/emq-id')` resolves to the package itself.
    node::build()?;
    let script = root().join(node::PACKAGE).join(".readme-example.cjs");
    std::fs::write(&script, one("javascript")?).map_err(|e| e.to_string())?;
    let ran = sh(Command::new("node").arg(&script));
    let _ = std::fs::remove_file(&script);
    ran?;

    // In the Mix project, with the application's config set as the example says.
    crate::elixir::build()?;
    sh(Command::new("mix")
        .current_dir(root().join(crate::elixir::PROJECT))
        .args(["run", "--no-start", "--no-compile", "-e", &one("elixir")?])
        .env("EMQ_NODE_DIR", dir.join("claims")))
}
