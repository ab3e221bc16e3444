//! The fenced code blocks of a Markdown text, read one way for every check
//! that needs them (the examples run, the transcripts compared, the links
//! looked at only outside code): ``` fences at any indent (a list item's
//! too), and, as in CommonMark, only a bare fence closes a block, so a fence
//! with a language inside one is its text. The tree writes no `~~~` fences.

use anyhow::{bail, Result};

/// One fenced block.
#[derive(Debug)]
pub struct Block {
    /// The opening fence's line, from 1.
    pub line: usize,
    /// The closing fence's line.
    pub end: usize,
    /// What follows the opening ```, trimmed (`javascript lease`, `sh`).
    pub info: String,
    /// The lines between the fences, each ending in a newline.
    pub body: String,
}

/// Every fenced block of `text`, in order; a fence that never closes is an
/// error (everything after it would be read as its text).
pub fn blocks(text: &str) -> Result<Vec<Block>> {
    let mut found = vec![];
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) => {
                open = Some(Block { line: i + 1, end: 0, info: info.trim().to_string(), body: String::new() })
            }
            (Some(_), Some("")) => found.extend(open.take().map(|b| Block { end: i + 1, ..b })),
            (Some(block), _) => {
                block.body.push_str(line);
                block.body.push('\n');
            }
            (None, None) => {}
        }
    }
    if let Some(block) = open {
        bail!("line {}: a fence that never closes", block.line);
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::blocks;

    #[test]
    fn only_a_bare_fence_closes() {
        let found = blocks("a\n```text\n```c\n```\nb\n```sh cluster\n$ y\n```\n").unwrap();
        let seen: Vec<_> = found.iter().map(|b| (b.line, b.end, b.info.as_str(), b.body.as_str())).collect();
        assert_eq!(seen, [(2, 4, "text", "```c\n"), (6, 8, "sh cluster", "$ y\n")]);
        assert!(blocks("```c\nint main(void) {}\n")
            .unwrap_err()
            .to_string()
            .contains("line 1: a fence that never closes"));
    }
}
