//! `cargo xtask js [--check]`: the one JavaScript layer of both npm packages.
//!
//! `bindings/js/` holds the shared sources (the API, the WebAssembly backend,
//! the types). Each package gets copies, as ESM and as CommonJS (Node 18 and
//! 20 cannot `require` ESM), written by the packages' builds and ignored by
//! git. `--check` fails when a copy in a package differs from what its source
//! gives: a hand edit in a package is drift, and the suite refuses it.

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::root;

const SHARED: &str = "bindings/js";

/// How a copy is made from its source.
#[derive(Clone, Copy)]
enum Form {
    /// The source as it is.
    Same,
    /// An ES module turned CommonJS: `export` dropped, `module.exports` added.
    CommonJs,
}

/// (source in bindings/js, copy, form)
const COPIES: &[(&str, &str, Form)] = &[
    ("api.mjs", "bindings/wasm/api.mjs", Form::Same),
    ("api.mjs", "bindings/wasm/api.cjs", Form::CommonJs),
    ("api.mjs", "bindings/node/api.cjs", Form::CommonJs),
    ("wasm-backend.mjs", "bindings/wasm/backend.mjs", Form::Same),
    ("wasm-backend.mjs", "bindings/wasm/backend.cjs", Form::CommonJs),
    ("wasm-backend.mjs", "bindings/node/wasm-backend.cjs", Form::CommonJs),
    ("api.d.ts", "bindings/wasm/index.d.ts", Form::Same),
    ("api.d.ts", "bindings/node/index.d.ts", Form::Same),
];

fn copy_of(source: &str, text: &str, form: Form) -> String {
    let note = format!("// Copied from {SHARED}/{source} by `cargo xtask js`; edit that file, not this one.\n");
    match form {
        Form::Same => format!("{note}{text}"),
        Form::CommonJs => {
            let mut names = vec![];
            let mut body = String::new();
            for line in text.lines() {
                match line.strip_prefix("export function ") {
                    Some(rest) => {
                        names.push(rest.split('(').next().unwrap_or_default().to_string());
                        body.push_str("function ");
                        body.push_str(rest);
                    }
                    None => body.push_str(line),
                }
                body.push('\n');
            }
            format!("{note}'use strict';\n{body}\nmodule.exports = {{ {} }};\n", names.join(", "))
        }
    }
}

/// Writes every copy (`check`: compares instead, and fails on the first difference).
/// The `.d.ts` names the gates as a union type (TypeScript needs the list
/// written out): it must be the core's `Gate::ALL`, plus `self_check`.
fn gate_type_is_the_cores() -> Result<()> {
    let types = crate::read(root().join(SHARED).join("api.d.ts"))?;
    let line =
        types.lines().find(|l| l.starts_with("export type Gate = ")).context("api.d.ts declares no Gate type")?;
    let declared: Vec<&str> = line.split('\'').skip(1).step_by(2).collect();
    let core: Vec<&str> = emq_id::Gate::ALL.iter().map(|g| g.name()).chain(["self_check"]).collect();
    anyhow::ensure!(declared == core, "api.d.ts's Gate type is {declared:?}, the core's gates are {core:?}");
    Ok(())
}

pub fn sync(check: bool) -> Result<()> {
    gate_type_is_the_cores()?;
    for &(source, copy, form) in COPIES {
        let from = root().join(SHARED).join(source);
        let text = crate::read(&from)?;
        if text
            .lines()
            .any(|l| l.starts_with("import ") || l.starts_with("export {") || l.starts_with("export default"))
        {
            bail!("{SHARED}/{source}: a shared source has no imports and exports only functions");
        }
        let fresh = copy_of(source, &text, form);
        let to = root().join(copy);
        if check {
            let have = std::fs::read_to_string(&to).with_context(|| format!("{copy} (build the package first)"))?;
            if have != fresh {
                bail!("{copy} differs from {SHARED}/{source}: edit the source and run `cargo xtask js`");
            }
        } else {
            write_if_changed(&to, &fresh)?;
        }
    }
    if check {
        println!("every package's copy of {SHARED}/ is what its source gives ({} copies)", COPIES.len());
    }
    Ok(())
}

fn write_if_changed(path: &Path, text: &str) -> Result<()> {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        crate::write(path, text)?;
    }
    Ok(())
}
