//! No binding types a contract number: a literal in a binding's source equal
//! to a distinctive number of the core's `emq_id::NUMBERS` is refused, naming
//! the file, the line and the fact, unless `xtask/parity/numbers.txt` gives
//! the reason for that fact in that file.
//!
//! **Distinctive**: a value that keeps at least three digits once its
//! trailing zeros are dropped (1023, 128, 16384, the epoch's ms), so that
//! round numbers that mean anything (a 5000 ms timeout, LEASE_TTL_MS's 30000)
//! and small ones (ID_LEN's 14) are not read as the contract. A count (a fact
//! named neither `MAX_…`, `…_LEN` nor `…_MS`: `SLOTS`, `LEASE_NODES`) is also
//! typed as its largest member, one less (`SLOTS-1`, 16383).
//!
//! **Literals**: decimal, with `_` separators and any suffix (`1023u`,
//! `1704067200000ULL`, `1_704_067_200_000n`), and hex or binary where the
//! fact is a mask of ones (`0x3FF`, `0x7FFF_FFFF_FFFF_FFFF`: a bit pattern
//! typed in hex is a mask, and a byte's `0x80` is no length); never part of a
//! float, a version or an address (`127.0.0.1`). An expression
//! (`(1 << 10) - 1`) is not read.
//!
//! **Where**: code, strings included (SQL lives in the extension's Rust
//! strings), but not prose: comments, docstrings and Elixir's `@doc`s, and
//! the text of SQL's `COMMENT ON … IS '…'` (the catalogue's documentation).
//! Not generated files (a "do not edit" marker near the top: the C header,
//! Go's wasm2go core and pure-Go numbers; the npm packages' copies of
//! bindings/js say "edit that file, not this one"), nor build outputs.
//!
//! **Tests** are read like any source: a test that types a fact to hold the
//! binding to it from outside the core names that fact and its reason in the
//! allowlist, one entry per file and fact.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::root;

pub const ALLOWLIST: &str = "xtask/parity/numbers.txt";

/// The binding sources read: each language a binding is written in.
const EXTENSIONS: [&str; 14] =
    ["rs", "go", "ts", "js", "mjs", "cjs", "sql", "ex", "exs", "py", "pyi", "java", "c", "h"];
/// Directories that hold what builds and package managers write, not sources.
const BUILD_DIRS: [&str; 7] = ["node_modules", "target", "_build", "deps", "priv", "__pycache__", "pkg"];
/// wasm-bindgen's output in the packages (ignored by git, like the directories above).
const BUILD_OUTPUTS: [&str; 3] = ["bindings/wasm/web", "bindings/wasm/node", "bindings/node/wasm"];
/// A generated file says so near its top.
const GENERATED: [&str; 2] = ["do not edit", "edit that file, not this one"];
const GENERATED_WITHIN: usize = 30;

/// Each distinctive value, and the facts it is (`MAX_NODE`, `LEASE_NODES-1`).
pub struct Facts(BTreeMap<u64, Vec<String>>);

impl Facts {
    /// The core's numbers: the only place they are typed.
    pub fn core() -> Facts {
        Facts::of(emq_id::NUMBERS)
    }

    pub fn of(numbers: &[(&str, u64)]) -> Facts {
        let mut by_value: BTreeMap<u64, Vec<String>> = BTreeMap::new();
        let distinctive = |v: u64| v.to_string().trim_end_matches('0').len() >= 3;
        let counts =
            numbers.iter().filter(|(n, _)| !n.starts_with("MAX_") && !n.ends_with("_LEN") && !n.ends_with("_MS"));
        let largest = counts.filter(|(_, v)| *v > 0).map(|(n, v)| (format!("{n}-1"), v - 1));
        for (name, value) in numbers.iter().map(|(n, v)| (n.to_string(), *v)).chain(largest) {
            if distinctive(value) {
                by_value.entry(value).or_default().push(name);
            }
        }
        Facts(by_value)
    }

    fn names(&self) -> BTreeSet<&str> {
        self.0.values().flatten().map(String::as_str).collect()
    }
}

/// A literal equal to a fact: where, as typed, and which facts it is.
#[derive(Debug)]
pub struct Hit {
    pub path: String,
    pub line: usize,
    pub literal: String,
    pub facts: Vec<String>,
}

/// The facts typed in one source file (`path` from the root, for its
/// language and the messages).
pub fn scan(path: &str, text: &str, facts: &Facts) -> Vec<Hit> {
    let head = text.lines().take(GENERATED_WITHIN).collect::<Vec<_>>().join("\n").to_lowercase();
    if GENERATED.iter().any(|m| head.contains(m)) {
        return vec![];
    }
    let ext = path.rsplit('.').next().unwrap_or("");
    let mut hits = vec![];
    for (n, code) in code_lines(ext, text) {
        for (literal, value) in literals(&code) {
            if let Some(names) = facts.0.get(&value) {
                hits.push(Hit { path: path.to_string(), line: n, literal: literal.to_string(), facts: names.clone() });
            }
        }
    }
    hits
}

/// Where a line is in a Python or Elixir `"""` block.
#[derive(Clone, Copy)]
enum Heredoc {
    None,
    Doc,
    Code,
}

/// The code of each line (1-based), its prose left out.
fn code_lines(ext: &str, text: &str) -> Vec<(usize, String)> {
    let c_like = ["rs", "go", "ts", "js", "mjs", "cjs", "java", "c", "h", "sql"].contains(&ext);
    let hashes = ["py", "pyi", "ex", "exs"].contains(&ext);
    let line_comment = match ext {
        "sql" => "--",
        _ if hashes => "#",
        _ => "//",
    };
    let (mut in_block, mut heredoc) = (false, Heredoc::None);
    let mut out = vec![];
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if hashes {
            // Docstrings and `@doc`s are prose: a `"""` block opened on a line
            // of its own or by a doc attribute, and a one-line `@doc "…"`.
            // Any other `"""` block is a string of the code.
            let doc_attribute = ["@doc", "@moduledoc", "@typedoc"].iter().any(|a| t.starts_with(a));
            let toggles = t.matches("\"\"\"").count() % 2 == 1;
            match heredoc {
                Heredoc::Doc => {
                    if toggles {
                        heredoc = Heredoc::None;
                    }
                    continue;
                }
                Heredoc::Code if toggles => heredoc = Heredoc::None,
                Heredoc::Code => {}
                Heredoc::None if doc_attribute || t.starts_with("\"\"\"") => {
                    if toggles {
                        heredoc = Heredoc::Doc;
                    }
                    continue;
                }
                Heredoc::None if toggles => heredoc = Heredoc::Code,
                Heredoc::None => {}
            }
        }
        // SQL's comments inside the extension's Rust strings.
        if ext == "rs" && t.starts_with("--") {
            continue;
        }
        let mut code = String::new();
        let mut rest = line;
        loop {
            if in_block {
                match rest.find("*/") {
                    Some(end) => {
                        rest = &rest[end + 2..];
                        in_block = false;
                    }
                    None => break,
                }
            }
            let comment = outside_strings(rest, line_comment);
            let block = if c_like { outside_strings(rest, "/*") } else { None };
            match (comment, block) {
                (_, Some(b)) if comment.is_none_or(|c| b < c) => {
                    code.push_str(&rest[..b]);
                    rest = &rest[b + 2..];
                    in_block = true;
                }
                (Some(c), _) => {
                    code.push_str(&rest[..c]);
                    break;
                }
                _ => {
                    code.push_str(rest);
                    break;
                }
            }
        }
        // The catalogue's prose: `COMMENT ON … IS '…'`.
        if let Some(at) = code.find("COMMENT ON ") {
            code.truncate(at);
        }
        out.push((i + 1, code));
    }
    out
}

/// Where `marker` first occurs in `line` outside a double-quoted string.
fn outside_strings(line: &str, marker: &str) -> Option<usize> {
    let mut quoted = false;
    let mut chars = line.char_indices();
    while let Some((i, c)) = chars.next() {
        if !quoted && line[i..].starts_with(marker) {
            return Some(i);
        }
        match c {
            '\\' if quoted => {
                chars.next();
            }
            '"' => quoted = !quoted,
            _ => {}
        }
    }
    None
}

/// The integer literals of a line of code, as typed and as values.
fn literals(code: &str) -> Vec<(&str, u64)> {
    let b = code.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && (word(b[i - 1]) || b[i - 1] == b'.')) {
            i += 1;
            continue;
        }
        let mut end = i + b[i..].iter().position(|c| !word(*c)).unwrap_or(b.len() - i);
        if b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(u8::is_ascii_digit) {
            // A float, a version or an address: none is a count or a limit.
            end += b[end..].iter().position(|c| !(word(*c) || *c == b'.')).unwrap_or(b.len() - end);
        } else if let Some(value) = value(&code[i..end]) {
            // Hex and binary type bit patterns: a mask of ones (0x3FF, 0x7FFF…)
            // is the fact; another (a byte's 0x80) is not its count or length.
            let lower = code[i..end].to_ascii_lowercase();
            let bit_pattern = lower.starts_with("0x") || lower.starts_with("0b");
            if !bit_pattern || value.checked_add(1).is_none_or(u64::is_power_of_two) {
                out.push((&code[i..end], value));
            }
        }
        i = end;
    }
    out
}

/// The value of an integer literal: its digits, without separators or suffix.
fn value(token: &str) -> Option<u64> {
    let digits: String = token.chars().filter(|c| *c != '_').collect();
    let lower = digits.to_ascii_lowercase();
    let (digits, radix) = match (lower.strip_prefix("0x"), lower.strip_prefix("0b")) {
        (Some(hex), _) => (hex, 16),
        (_, Some(bits)) => (bits, 2),
        _ => (lower.as_str(), 10),
    };
    let end = digits.find(|c: char| !c.is_digit(radix)).unwrap_or(digits.len());
    u64::from_str_radix(&digits[..end], radix).ok()
}

/// `path FACT: reason` lines: a fact that file may type, and why.
pub fn allowlist(text: &str, facts: &Facts) -> Result<BTreeMap<(String, String), String>> {
    let names = facts.names();
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{ALLOWLIST}:{}", n + 1);
        let (key, reason) = line.split_once(": ").with_context(|| format!("{}: `path FACT: reason`", at()))?;
        let (path, fact) = key.split_once(' ').with_context(|| format!("{}: `path FACT: reason`", at()))?;
        if !names.contains(fact.trim()) {
            bail!("{}: `{}` is no distinctive fact of emq_id::NUMBERS", at(), fact.trim());
        }
        if reason.trim().len() < 10 {
            bail!("{}: a reason too short to be one", at());
        }
        out.insert((path.to_string(), fact.trim().to_string()), reason.trim().to_string());
    }
    Ok(out)
}

/// The hits no entry allows, and the entries that allow nothing.
pub fn problems(hits: &[Hit], allowed: &BTreeMap<(String, String), String>) -> Vec<String> {
    let mut used = BTreeSet::new();
    let mut out = vec![];
    for hit in hits {
        let key = hit.facts.iter().map(|f| (hit.path.clone(), f.clone())).find(|k| allowed.contains_key(k));
        match key {
            Some(key) => {
                used.insert(key);
            }
            None => out.push(format!(
                "{}:{}: `{}` is {} typed by hand: take it from the core (emq_id::NUMBERS) through the binding, or give the reason in {ALLOWLIST}",
                hit.path,
                hit.line,
                hit.literal,
                hit.facts.join(" = ")
            )),
        }
    }
    for (path, fact) in allowed.keys().filter(|k| !used.contains(*k)) {
        out.push(format!("{ALLOWLIST}: `{path} {fact}` allows nothing (no such literal in that file now): drop it"));
    }
    out
}

/// Every binding source, by its path from the root, with its text.
pub fn sources() -> Result<Vec<(String, String)>> {
    let root = root();
    let mut out = vec![];
    let mut dirs = vec![root.join("bindings")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).with_context(|| format!("listing {}", dir.display()))? {
            let path = entry?.path();
            let rel = relative(&root, &path);
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if path.is_dir() {
                if !BUILD_DIRS.contains(&name.as_ref()) && !BUILD_OUTPUTS.contains(&rel.as_str()) {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|e| EXTENSIONS.iter().any(|x| e == *x)) {
                out.push((rel, crate::read(&path)?));
            }
        }
    }
    out.sort();
    Ok(out)
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root).unwrap_or(path).to_string_lossy().replace('\\', "/")
}

/// The rule over the tree: its problems, none when every binding is clean.
pub fn check() -> Result<Vec<String>> {
    let facts = Facts::core();
    let allowed = allowlist(&crate::read(root().join(ALLOWLIST))?, &facts)?;
    let hits: Vec<Hit> = sources()?.iter().flat_map(|(path, text)| scan(path, text, &facts)).collect();
    Ok(problems(&hits, &allowed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems_of(path: &str, source: &str, allow: &str) -> Vec<String> {
        let facts = Facts::core();
        problems(&scan(path, source, &facts), &allowlist(allow, &facts).unwrap())
    }

    #[test]
    fn a_typed_fact_fails_naming_the_file_line_and_fact() {
        let sql = "CREATE TABLE t (\n    node int CHECK (node BETWEEN 0 AND 1023)\n);\n";
        let found = problems_of("bindings/postgres/src/mark.rs", sql, "");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("bindings/postgres/src/mark.rs:2: `1023` is MAX_NODE = LEASE_NODES-1"),
            "{found:?}"
        );
        for typed in
            ["x = 0x3FF", "SLOTS = 16_384", "slot & 16383", "epoch = 1704067200000ULL", "n <= 0b1111111111", "[128]"]
        {
            assert_eq!(problems_of("bindings/go/x.go", typed, "").len(), 1, "{typed}");
        }
    }

    #[test]
    fn a_clean_source_passes() {
        let clean = concat!(
            "const MAX = emq.MAX_NODE; // at most 1023\n",
            "/* the slot (0-16383)\n   of a key */ let timeout_ms = 5000; let ttl = 30000; let len = 14;\n",
            "let host = \"127.0.0.1\"; let v = \"1.0.1023\"; let f = 16383.5; let name = x1023; let byte = 0x80;\n",
            "COMMENT ON FUNCTION emq_node(bigint) IS 'The node (0-1023)';\n",
        );
        assert_eq!(problems_of("bindings/rust/clean.rs", clean, ""), Vec::<String>::new());
        let python = "def slot(key):\n    \"\"\"The slot (0-16383)\n    of a key.\"\"\"\n    return _core.slot(key)  # below 16384\n";
        assert_eq!(problems_of("bindings/python/x.py", python, ""), Vec::<String>::new());
        let elixir = "@doc \"mod 16384\"\n@moduledoc \"\"\"\n1023\n\"\"\"\ndef max, do: Native.max_node()\n";
        assert_eq!(problems_of("bindings/elixir/lib/x.ex", elixir, ""), Vec::<String>::new());
        let generated = "// Code generated by wasm2go. DO NOT EDIT.\nconst x = 1023\n";
        assert_eq!(problems_of("bindings/go/gen.go", generated, ""), Vec::<String>::new());
    }

    #[test]
    fn the_allowlist_allows_by_file_and_fact_and_refuses_stale_or_unreasoned_entries() {
        let test = "assert.throws(() => new Minter(1024));\n";
        let allow = "bindings/js/test/a.test.mjs LEASE_NODES: the first node past the range, refused on purpose\n";
        assert_eq!(problems_of("bindings/js/test/a.test.mjs", test, allow), Vec::<String>::new());
        let stale = problems_of("bindings/js/test/a.test.mjs", "new Minter(7)", allow);
        assert!(stale.len() == 1 && stale[0].contains("allows nothing"), "{stale:?}");
        assert!(allowlist("bindings/x.go LEASE_NODES: short\n", &Facts::core()).is_err());
        assert!(
            allowlist("bindings/x.go ID_LEN: 14 is not distinctive, so never typed here\n", &Facts::core()).is_err()
        );
    }

    #[test]
    fn distinctive_values_come_from_the_core() {
        let facts = Facts::core();
        for value in [1023, 1024, 4095, 16383, 16384, 128, emq_id::EPOCH_MS, emq_id::MAX_SNOWFLAKE] {
            assert!(facts.0.contains_key(&value), "{value}");
        }
        for value in [14, 3, 11, 21, 1, 5000, 30000] {
            assert!(!facts.0.contains_key(&value), "{value}");
        }
    }
}
