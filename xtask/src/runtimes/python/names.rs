//! `cargo xtask py-names [--check]`: the Python stub's `__all__`, written from
//! what the stub declares.
//!
//! The package's public names are declared twice, by necessity: registered
//! in the compiled module (`src/lib.rs`, which `__init__.py` re-exports whole
//! and lists in its `__all__` at import) and typed in the stub
//! `emq_id/__init__.pyi` (a `def`, a `class` or an annotated constant each),
//! and stubtest holds the two together. The stub's `__all__` is a third
//! spelling: written here from its declarations. `--check` refuses one that
//! differs, with a negative control (a list missing one name is refused).

use anyhow::{bail, ensure, Context, Result};

use crate::root;

const STUB: &str = "bindings/python/python/emq_id/__init__.pyi";

/// The names the stub declares at its top level, public ones only, each once.
fn declared(stub: &str) -> Vec<String> {
    let mut names: Vec<String> = vec![];
    let mut in_docstring = false;
    for line in stub.lines() {
        let was_in_docstring = in_docstring;
        in_docstring ^= line.matches("\"\"\"").count() % 2 == 1;
        if was_in_docstring {
            continue;
        }
        let rest = line.strip_prefix("def ").or_else(|| line.strip_prefix("class ")).unwrap_or(line);
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        let after = rest[name.len()..].trim_start();
        let declares = rest.len() < line.len() || after.starts_with(':') || after.starts_with('=');
        if declares && !name.is_empty() && !name.starts_with('_') && !names.contains(&name) {
            names.push(name);
        }
    }
    // isort's order: constants, then classes, then functions; each alphabetical.
    names.sort_by_key(|n| {
        let kind = if n.chars().all(|c| !c.is_ascii_lowercase()) {
            0
        } else if n.starts_with(|c: char| c.is_ascii_uppercase()) {
            1
        } else {
            2
        };
        (kind, n.clone())
    });
    names
}

/// A list of names, one a line, as black writes it.
fn block(open: &str, names: &[String]) -> String {
    let mut out = format!("{open}\n");
    for name in names {
        out.push_str(&format!("    \"{name}\",\n"));
    }
    out.push_str("]\n");
    out
}

/// `text` with the block opened by `open` (a line of its own) replaced.
fn replace(text: &str, open: &str, fresh: &str) -> Result<String> {
    let start = text.find(&format!("{open}\n")).with_context(|| format!("{STUB} has no `{open}` block"))?;
    let close = "\n]\n";
    let end =
        text[start..].find(close).with_context(|| format!("{STUB}: `{open}` never closes"))? + start + close.len();
    Ok(format!("{}{fresh}{}", &text[..start], &text[end..]))
}

/// The stub with its `__all__` as `names` give it.
fn written(stub: &str, names: &[String]) -> Result<String> {
    let open = "__all__ = [";
    replace(stub, open, &block(open, names))
}

pub fn sync(check: bool) -> Result<()> {
    let path = root().join(STUB);
    let stub = crate::read(&path)?;
    let names = declared(&stub);
    ensure!(names.len() > 40, "the stub declares {} public names: is it the package's?", names.len());
    let fresh = written(&stub, &names)?;
    if !check {
        if fresh != stub {
            crate::write(&path, &fresh)?;
        }
        return Ok(());
    }
    if stub != fresh {
        bail!("{STUB}: its __all__ is not the names it declares: run `cargo xtask py-names`");
    }
    // The negative control: a list missing one name is refused by the same comparison.
    let dropped = &names[names.len() / 2];
    let fewer: Vec<String> = names.iter().filter(|n| *n != dropped).cloned().collect();
    ensure!(written(&stub, &fewer)? != stub, "an __all__ missing {dropped} passes the check");
    println!("the Python stub's __all__ is the {} names it declares (one missing {dropped} is refused)", names.len());
    Ok(())
}
