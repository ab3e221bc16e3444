//! Every public item of the core (`emq-id`, built with `std` as the API
//! reference is) has a runnable example in its doc comment.
//!
//! Not rustdoc's `--show-coverage`: its example count asks only items
//! reachable by their own path for an example, and every item of this crate
//! lives in a private module and is re-exported at the root, so that report
//! says 100% whatever is missing. The check reads rustdoc's JSON output
//! instead, walks the crate from its root as a user sees it (re-exports
//! followed, inherent methods and associated constants of every public type,
//! the items of every public trait) and names each item whose doc comment
//! holds no Rust code block.
//!
//! Not asked for an example: struct fields and enum variants (their type's
//! example shows them), and a trait's required methods (the implementor
//! writes their body; the trait's example implements them).

use std::collections::BTreeSet;
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};
use serde_json::Value;

use crate::{root, sh};

/// The rustdoc JSON format (Rust 1.95's) that [`missing_examples`] reads.
const FORMAT_VERSION: u64 = 57;

/// Kinds of items that need no example of their own, with the reason above.
const EXEMPT: &[&str] = &["struct_field", "variant"];

/// Code-block attributes of a doctest that rustdoc compiles (and runs, but
/// for `no_run`): a block with any other word (`text`, `ignore`, `sh`) is not one.
const DOCTEST: &[&str] =
    &["rust", "should_panic", "no_run", "edition2015", "edition2018", "edition2021", "edition2024", "standalone_crate"];

/// Fails naming every public item of `emq-id` without an example.
pub fn check() -> Result<()> {
    // A target directory of its own: the JSON lands apart from the HTML the
    // book copies, and the unstable flag does not touch the main build's cache.
    let target = root().join("target/rustdoc-examples");
    sh(Command::new("cargo")
        .args(["rustdoc", "--quiet", "-p", "emq-id", "--features", "std", "--target-dir"])
        .arg(&target)
        .args(["--", "-Z", "unstable-options", "--output-format", "json"])
        // rustdoc's JSON output is unstable (as cargo-fuzz's flags are): allowed on stable.
        .env("RUSTC_BOOTSTRAP", "1"))?;
    let path = target.join("doc/emq_id.json");
    let json: Value =
        serde_json::from_str(&crate::read(&path)?).with_context(|| format!("reading {}", path.display()))?;
    // The JSON's shape is unstable: a format this walk was not written for could
    // hide items from it, so another version is an error, not a guess.
    ensure!(
        json["format_version"] == FORMAT_VERSION,
        "rustdoc's JSON is format {}, the walk reads {FORMAT_VERSION}: check it against the new format",
        json["format_version"]
    );
    let (checked, missing) = missing_examples(&json)?;
    ensure!(checked > 100, "rustdoc's JSON of emq-id names only {checked} public items: is the walk broken?");
    if !missing.is_empty() {
        bail!(
            "{} of {checked} public items of emq-id have no example (a ```rust block) in their doc comment:\n  {}",
            missing.len(),
            missing.join("\n  ")
        );
    }
    println!("rustdoc examples: all {checked} public items of emq-id have one");
    Ok(())
}

/// The number of public items checked, and those without an example, as
/// `emq_id::Path::name (file:line)`, from rustdoc's JSON of a crate.
pub fn missing_examples(krate: &Value) -> Result<(usize, Vec<String>)> {
    let mut walk = Walk { index: &krate["index"], seen: BTreeSet::new(), checked: 0, missing: vec![] };
    walk.visit(&krate["root"], "", None)?;
    Ok((walk.checked, walk.missing))
}

struct Walk<'a> {
    index: &'a Value,
    seen: BTreeSet<String>,
    checked: usize,
    missing: Vec<String>,
}

impl<'a> Walk<'a> {
    fn item(&self, id: &Value) -> Result<&'a Value> {
        let key = match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        self.index.get(&key).with_context(|| format!("rustdoc's JSON has no item {key}"))
    }

    /// `name` is the name the item is reached by (a re-export's, when it renames).
    fn visit(&mut self, id: &Value, parent: &str, name: Option<&str>) -> Result<()> {
        let item = self.item(id)?;
        let (kind, inner) = kind_of(item)?;
        let name = name.or(item["name"].as_str()).unwrap_or("_");
        let path = if parent.is_empty() { name.to_string() } else { format!("{parent}::{name}") };
        if kind == "use" {
            return match (&inner["id"], inner["is_glob"].as_bool()) {
                (Value::Null, _) => Ok(()), // a re-export of another crate's item
                (target, Some(false)) => self.visit(target, parent, inner["name"].as_str()),
                _ => bail!("{path}: a glob re-export, which this check does not follow"),
            };
        }
        if !self.seen.insert(path.clone()) {
            return Ok(());
        }
        if kind == "module" {
            for child in inner["items"].as_array().into_iter().flatten() {
                self.visit(child, &path, None)?;
            }
            return Ok(());
        }
        let exempt = EXEMPT.contains(&kind) || is_required_method(item);
        if !exempt {
            self.checked += 1;
            if !has_example(item["docs"].as_str().unwrap_or("")) {
                let at = &item["span"];
                self.missing.push(format!("{path} ({}:{})", at["filename"].as_str().unwrap_or("?"), at["begin"][0]));
            }
        }
        // Inherent impls of a type: their public items are the type's API.
        for imp in inner["impls"].as_array().into_iter().flatten() {
            let (_, imp) = kind_of(self.item(imp)?)?;
            if imp["trait"].is_null() && imp["blanket_impl"].is_null() && imp["is_synthetic"] != true {
                for member in imp["items"].as_array().into_iter().flatten() {
                    if self.item(member)?["visibility"] == "public" {
                        self.visit(member, &path, None)?;
                    }
                }
            }
        }
        if kind == "trait" {
            for member in inner["items"].as_array().into_iter().flatten() {
                self.visit(member, &path, None)?;
            }
        }
        Ok(())
    }
}

/// A trait's method without a default body: `has_body` false.
fn is_required_method(function: &Value) -> bool {
    function["inner"]["function"]["has_body"] == false
}

fn kind_of(item: &Value) -> Result<(&str, &Value)> {
    match &item["inner"] {
        Value::Object(one) if one.len() == 1 => {
            let (kind, inner) = one.iter().next().expect("one entry");
            Ok((kind.as_str(), inner))
        }
        Value::String(kind) => Ok((kind.as_str(), &Value::Null)),
        other => bail!("an item of rustdoc's JSON whose kind is not one word: {other}"),
    }
}

/// Whether markdown `docs` hold a fenced code block rustdoc runs as a doctest.
fn has_example(docs: &str) -> bool {
    let mut open: Option<&str> = None;
    for line in docs.lines().map(str::trim_start) {
        match open {
            Some(fence)
                if line.trim_end().starts_with(fence) && line.trim_end().trim_start_matches(fence).is_empty() =>
            {
                open = None
            }
            Some(_) => {}
            None => {
                let fence = if line.starts_with("```") {
                    "```"
                } else if line.starts_with("~~~") {
                    "~~~"
                } else {
                    continue;
                };
                let info = line.trim_start_matches(fence.chars().next().expect("a fence"));
                if info.split([',', ' ', '\t']).filter(|w| !w.is_empty()).all(|w| DOCTEST.contains(&w)) {
                    return true;
                }
                open = Some(fence);
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_doctest_is_a_rust_block() {
        assert!(has_example("Text.\n\n```\nassert!(true);\n```\n"));
        assert!(has_example("```rust,no_run\nloop {}\n```"));
        assert!(!has_example("Text only, `inline code`."));
        assert!(!has_example("```text\n$ emq-id mint\n```"));
        assert!(!has_example("```ignore\nnot run\n```"));
        // Rust inside another block's text is that block's text.
        assert!(!has_example("~~~text\n```\nassert!(true);\n```\n~~~"));
    }

    /// A crate as rustdoc's JSON (format 57) writes it: a function and a
    /// struct re-exported from a private module, one inherent method, one
    /// trait impl's method, and a trait with a required and a provided method.
    const CRATE: &str = r#"{
      "root": 0,
      "index": {
        "0": {"name": "demo", "visibility": "public", "docs": "Crate.", "span": null,
              "inner": {"module": {"is_crate": true, "items": [1, 2, 9], "is_stripped": false}}},
        "1": {"name": null, "visibility": "public", "docs": null, "span": null,
              "inner": {"use": {"source": "inner::f", "name": "f", "id": 3, "is_glob": false}}},
        "2": {"name": null, "visibility": "public", "docs": null, "span": null,
              "inner": {"use": {"source": "inner::S", "name": "Renamed", "id": 4, "is_glob": false}}},
        "3": {"name": "f", "visibility": "public", "docs": "No example.\n```text\nf()\n```",
              "span": {"filename": "src/inner.rs", "begin": [3, 1]}, "inner": {"function": {"has_body": true}}},
        "4": {"name": "S", "visibility": "public", "docs": "```\nlet _ = demo::Renamed;\n```",
              "span": {"filename": "src/inner.rs", "begin": [9, 1]},
              "inner": {"struct": {"kind": "unit", "impls": [5, 7]}}},
        "5": {"name": null, "visibility": "default", "docs": null, "span": null,
              "inner": {"impl": {"trait": null, "blanket_impl": null, "is_synthetic": false, "items": [6, 8]}}},
        "6": {"name": "method", "visibility": "public", "docs": "Undocumented use.",
              "span": {"filename": "src/inner.rs", "begin": [12, 5]}, "inner": {"function": {"has_body": true}}},
        "8": {"name": "helper", "visibility": "crate", "docs": "Private.",
              "span": {"filename": "src/inner.rs", "begin": [14, 5]}, "inner": {"function": {"has_body": true}}},
        "7": {"name": null, "visibility": "default", "docs": null, "span": null,
              "inner": {"impl": {"trait": {"path": "Clone", "id": 99}, "blanket_impl": null, "is_synthetic": false, "items": [10]}}},
        "10": {"name": "clone", "visibility": "default", "docs": null,
              "span": {"filename": "src/inner.rs", "begin": [8, 10]}, "inner": {"function": {"has_body": true}}},
        "9": {"name": "T", "visibility": "public", "docs": "```\nstruct X;\nimpl demo::T for X { fn must(&self) {} }\n```",
              "span": {"filename": "src/lib.rs", "begin": [5, 1]}, "inner": {"trait": {"items": [11, 12], "implementations": []}}},
        "11": {"name": "must", "visibility": "default", "docs": "Required.",
              "span": {"filename": "src/lib.rs", "begin": [6, 5]}, "inner": {"function": {"has_body": false}}},
        "12": {"name": "given", "visibility": "default", "docs": "Provided, no example.",
              "span": {"filename": "src/lib.rs", "begin": [7, 5]}, "inner": {"function": {"has_body": true}}}
      }
    }"#;

    #[test]
    fn names_each_public_item_without_an_example() {
        let (checked, missing) = missing_examples(&serde_json::from_str(CRATE).unwrap()).unwrap();
        assert_eq!(
            missing,
            ["demo::f (src/inner.rs:3)", "demo::Renamed::method (src/inner.rs:12)", "demo::T::given (src/lib.rs:7)"]
        );
        // f, Renamed, Renamed::method, T, T::given: not the trait impl's
        // clone, the private helper, or the required T::must.
        assert_eq!(checked, 5);
    }
}
