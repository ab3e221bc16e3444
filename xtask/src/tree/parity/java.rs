//! The JVM's surface, read from the Java source of the artifact `emq-id`: a
//! reader good enough for our own code, not a Java parser. It sees the
//! public top-level types of each file and, inside each, its public members:
//! methods and fields (`Class.member`, static or not), a public constructor
//! (`Class.new`), a record's components (its accessors, and its canonical
//! constructor) and public nested types (`Class.Inner`). Members of an
//! interface are public without saying so.
//!
//! What it relies on, which our sources keep: comments, string and character
//! literals are blanked first, so their braces and words do not count; one
//! declaration ends at its `;` or its body's closing brace.

use std::collections::BTreeSet;

/// The public surface of one Java source file.
pub fn surface(source: &str) -> BTreeSet<String> {
    let code = blank(source);
    let mut out = BTreeSet::new();
    for (head, body) in declarations(&code) {
        let head = without_annotations(&head);
        let words = words_of(&head);
        let Some(kind) = type_keyword(&words) else { continue };
        if !words.contains(&"public") {
            continue;
        }
        let Some(name) = word_after(&words, kind) else { continue };
        out.insert(name.to_string());
        if kind == "record" {
            out.insert(format!("{name}.new"));
            for component in components(&head) {
                out.insert(format!("{name}.{component}"));
            }
        }
        for member in members(name, kind == "interface", body.as_deref().unwrap_or("")) {
            out.insert(format!("{name}.{member}"));
        }
    }
    out
}

/// The names of a type body's public members.
fn members(class: &str, all_public: bool, body: &str) -> Vec<String> {
    let mut out = vec![];
    for (head, _) in declarations(body) {
        let head = without_annotations(&head);
        let words = words_of(&head);
        if !(all_public || words.contains(&"public")) {
            continue;
        }
        if let Some(kind) = type_keyword(&words) {
            out.extend(word_after(&words, kind).map(str::to_string));
            continue;
        }
        let before_init = head.split('=').next().unwrap_or("");
        if let Some(open) = before_init.find('(') {
            // A method or a constructor: the name just before its parameters.
            let name = words_of(&head[..open]).last().copied().unwrap_or("");
            out.push(if name == class { "new".to_string() } else { name.to_string() });
        } else {
            // Fields: `type a = …, b = …;`, each declarator's name before its `=`.
            for declarator in top_level_split(&head) {
                let name = words_of(declarator.split('=').next().unwrap_or("")).last().copied();
                out.extend(name.map(str::to_string));
            }
        }
    }
    out
}

/// The component names of a record's header, `record R(A a, B<C, D> b)`.
fn components(head: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (head.find('('), head.rfind(')')) else { return vec![] };
    top_level_split(&head[open + 1..close]).iter().filter_map(|c| words_of(c).last().map(|w| w.to_string())).collect()
}

/// The declarations at the top of `code` (a file, or the inside of a type's
/// braces): each one's head, and its body when it has one. A `{` after an `=`
/// belongs to an initializer (an array, an anonymous class), so the
/// declaration goes on to its `;`.
fn declarations(code: &str) -> Vec<(String, Option<String>)> {
    let mut out = vec![];
    let mut head = String::new();
    let (mut parens, mut initializing) = (0i32, false);
    let mut chars = code.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '(' => parens += 1,
            ')' => parens -= 1,
            '=' if parens == 0 => initializing = true,
            ';' if parens == 0 => {
                out.push((std::mem::take(&mut head), None));
                initializing = false;
                continue;
            }
            '{' if parens == 0 => {
                let end = closing(code, i);
                if initializing {
                    head.push_str(&code[i..end]);
                } else {
                    let inside = code[i + 1..end].strip_suffix('}').unwrap_or(&code[i + 1..end]);
                    out.push((std::mem::take(&mut head), Some(inside.to_string())));
                }
                // Skip the braces' inside, which the loop has not seen yet.
                while chars.clone().next().is_some_and(|(j, _)| j < end) {
                    chars.next();
                }
                continue;
            }
            _ => {}
        }
        head.push(c);
    }
    out
}

/// The index just past the `}` that closes the `{` at `open`.
fn closing(code: &str, open: usize) -> usize {
    let mut depth = 0;
    for (i, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + i + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// `text` cut at its commas outside brackets of any kind, `<>` included
/// (generics) until an `=` (after which `<` is a comparison).
fn top_level_split(text: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start, mut typing) = (vec![], 0i32, 0, true);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '<' if typing => depth += 1,
            '>' if typing => depth -= 1,
            '=' if depth == 0 => typing = false,
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
                typing = true;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

const TYPE_KEYWORDS: [&str; 4] = ["class", "record", "enum", "interface"];

fn type_keyword<'a>(words: &[&'a str]) -> Option<&'a str> {
    words.iter().copied().find(|w| TYPE_KEYWORDS.contains(w))
}

fn word_after<'a>(words: &[&'a str], keyword: &str) -> Option<&'a str> {
    words.iter().position(|w| *w == keyword).and_then(|i| words.get(i + 1)).copied()
}

/// The identifiers and keywords of `text`, in order.
fn words_of(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).filter(|w| !w.is_empty()).collect()
}

/// `text` without its annotations (`@Override`, `@SuppressWarnings("x")`),
/// whose parentheses would read as a method's.
fn without_annotations(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        let name_end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).unwrap_or(rest.len());
        rest = &rest[name_end..];
        if rest.trim_start().starts_with('(') {
            let open = rest.find('(').unwrap_or(0);
            let mut depth = 0;
            let end = rest[open..]
                .char_indices()
                .find_map(|(i, c)| {
                    depth += i32::from(c == '(') - i32::from(c == ')');
                    (depth == 0).then_some(open + i + 1)
                })
                .unwrap_or(rest.len());
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    out
}

/// `source` with its comments and its string, text-block and character
/// literals blanked (a literal keeps its quotes, empty), so that only code is
/// read.
fn blank(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |n| &after[n..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |n| &after[n + 2..]);
            out.push(' ');
        } else if let Some(after) = rest.strip_prefix("\"\"\"") {
            rest = after.find("\"\"\"").map_or("", |n| &after[n + 3..]);
            out.push_str("\"\"");
        } else if c == '"' || c == '\'' {
            let mut escaped = false;
            let end = rest[1..]
                .char_indices()
                .find_map(|(i, d)| {
                    let closes = d == c && !escaped;
                    escaped = d == '\\' && !escaped;
                    closes.then_some(i + 2)
                })
                .unwrap_or(rest.len());
            out.push(c);
            out.push(c);
            rest = &rest[end..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::surface;

    /// Our sources' shapes: a final class of statics with a private
    /// constructor, a class with a public one, a record, an enum with a
    /// method, fields declared two to a line, annotations, generics, nested
    /// types, and braces and words inside comments and strings.
    const FIXTURE: &str = r#"
package io.echomq.emqid;

import java.util.List;

/** The id. {@code public static void notAMember()} */
public final class Id implements Comparable<Id> {
    private Id() {}
    // public static int commented() {
    public static final int MAX_NODE = Native.number("MAX_NODE"), MAX_SEQ = Native.number("}{;");
    public static final java.util.Map<String, Long> NUMBERS = java.util.Map.of("a", 1L, "b", 2L);
    public static final List<Gate> GATES = List.of(new Gate[] {Gate.LENGTH, Gate.RANGE});
    static final long HIDDEN = 1;
    @SuppressWarnings("unchecked")
    public static <T> Id parse(CharSequence text) {
        if (text.length() > 0) { return null; }
        return null;
    }
    @Override
    public int compareTo(Id other) { return 0; }
    private static void helper() {}
    public record Step(Action action, long afterMs) {}
    public enum Kind { A, B }
    static { System.loadLibrary("emqid_jni"); }
}

final class Native { public static int number(String name) { return 0; } }
"#;

    #[test]
    fn reads_the_public_members_of_public_top_level_types() {
        let found = surface(FIXTURE);
        let want = [
            "Id",
            "Id.MAX_NODE",
            "Id.MAX_SEQ",
            "Id.NUMBERS",
            "Id.GATES",
            "Id.parse",
            "Id.compareTo",
            "Id.Step",
            "Id.Kind",
        ];
        assert_eq!(found, want.iter().map(|s| s.to_string()).collect(), "{found:?}");
    }

    #[test]
    fn reads_constructors_records_enums_and_interfaces() {
        let found = surface(
            "public final class Minter { public Minter(int node) {} public long next() { return 0; } }\n\
             public record ProcessNode(int node, @Deprecated java.util.Map<String, Integer> source) {}\n\
             public enum Gate { LENGTH(\"length\"), RANGE(\"range\"); Gate(String c) {} public String code() { return null; } }\n\
             public interface Clock { long now(); }",
        );
        let want = [
            "Minter",
            "Minter.new",
            "Minter.next",
            "ProcessNode",
            "ProcessNode.new",
            "ProcessNode.node",
            "ProcessNode.source",
            "Gate",
            "Gate.code",
            "Clock",
            "Clock.now",
        ];
        assert_eq!(found, want.iter().map(|s| s.to_string()).collect(), "{found:?}");
    }
}
