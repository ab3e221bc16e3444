//! `cargo xtask js [--check]`: the one JavaScript layer of both npm packages.
//!
//! `bindings/js/` holds the shared sources (the API, the WebAssembly backend,
//! the types). Each package gets copies, as ESM and as CommonJS (Node 18 and
//! 20 cannot `require` ESM), written by the packages' builds and ignored by
//! git. `--check` fails when a copy in a package differs from what its source
//! gives: a hand edit in a package is drift, and the suite refuses it.
//!
//! The ES module entries (`ENTRIES`) re-export the API by name, since ESM
//! names its exports statically: they are written whole from the `.d.ts`, the
//! one declaration of the API's names, like the copies, and checked (with a
//! negative control: an entry missing one name must be refused).

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

/// The ES module entries, written whole from `api.d.ts` (ESM names its exports
/// statically): each imports the API from the module that makes it and
/// re-exports it by name. (entry, that module, what the entry is)
const ENTRIES: &[(&str, &str, &str)] = &[
    ("bindings/node/index.mjs", "./index.js", "Node's ES module entry: the same instance as index.js (one backend)."),
    (
        "bindings/wasm/node.mjs",
        "./node.cjs",
        "Node's ES module entry: the same instance as node.cjs (one mint state per thread).",
    ),
    (
        "bindings/wasm/browser.mjs",
        "./browser-api.mjs",
        "The browser and bundler entry (browser-api.mjs fetches and instantiates the .wasm).",
    ),
];

/// The API's value names, in the order `api.d.ts` declares them (an overloaded
/// function once; types and interfaces are not values).
fn api_names(types: &str) -> Vec<String> {
    let mut names: Vec<String> = vec![];
    for line in types.lines() {
        let Some(rest) =
            ["export const ", "export function ", "export class "].iter().find_map(|p| line.strip_prefix(p))
        else {
            continue;
        };
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$').collect();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The export block of an entry: the names wrapped at 110 columns.
fn export_block(names: &[String]) -> String {
    let mut out = String::from("export const {\n");
    let mut line = String::from(" ");
    for name in names {
        if line.len() + name.len() + 2 > 110 {
            out.push_str(&line);
            out.push('\n');
            line = String::from(" ");
        }
        line.push(' ');
        line.push_str(name);
        line.push(',');
    }
    out.push_str(&line);
    out.push_str("\n} = api;\n");
    out
}

/// An entry's text: its note, the import of the API, its names.
fn entry_text(api_module: &str, what: &str, names: &[String]) -> String {
    format!(
        "// Written by `cargo xtask js` from {SHARED}/api.d.ts's names; edit that file, not this one.\n// {what}\n\
         import api from '{api_module}';\n\n{}export default api;\n",
        export_block(names)
    )
}

/// Writes (or, with `check`, compares) every entry.
fn entries(check: bool) -> Result<()> {
    let names = api_names(&crate::read(root().join(SHARED).join("api.d.ts"))?);
    for &(entry, api_module, what) in ENTRIES {
        let fresh = entry_text(api_module, what, &names);
        output(entry, &fresh, "api.d.ts", check)?;
        if check {
            // The negative control: the same entry without one name is refused.
            let dropped = &names[names.len() / 2];
            let fewer: Vec<String> = names.iter().filter(|n| *n != dropped).cloned().collect();
            let mutated = entry_text(api_module, what, &fewer);
            let refused = same(entry, &mutated, &fresh, "api.d.ts").is_err();
            anyhow::ensure!(refused, "{entry}: an export list missing {dropped} passes");
        }
    }
    if check {
        println!(
            "every ES module entry exports exactly api.d.ts's {} names ({} entries; one missing a name is refused)",
            names.len(),
            ENTRIES.len()
        );
    }
    Ok(())
}

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
    entries(check)?;
    for &(source, copy, form) in COPIES {
        let from = root().join(SHARED).join(source);
        let text = crate::read(&from)?;
        if text
            .lines()
            .any(|l| l.starts_with("import ") || l.starts_with("export {") || l.starts_with("export default"))
        {
            bail!("{SHARED}/{source}: a shared source has no imports and exports only functions");
        }
        output(copy, &copy_of(source, &text, form), source, check)?;
    }
    if check {
        println!("every package's copy of {SHARED}/ is what its source gives ({} copies)", COPIES.len());
    }
    Ok(())
}

/// Writes `output` (a path from the root) as `fresh` where it differs, or,
/// with `check`, refuses it unless it is `fresh` already.
fn output(output: &str, fresh: &str, source: &str, check: bool) -> Result<()> {
    let path = root().join(output);
    let have = std::fs::read_to_string(&path);
    if check {
        let have = have.with_context(|| format!("{output} (build the package first)"))?;
        return same(output, &have, fresh, source);
    }
    if have.ok().as_deref() != Some(fresh) {
        crate::write(&path, fresh)?;
    }
    Ok(())
}

/// Whether an output is what its source in bindings/js gives.
fn same(output: &str, have: &str, fresh: &str, source: &str) -> Result<()> {
    anyhow::ensure!(
        have == fresh,
        "{output} differs from what {SHARED}/{source} gives: edit that file and run `cargo xtask js`"
    );
    Ok(())
}
