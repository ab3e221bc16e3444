//! The links of the Markdown read outside the book, as GitHub and the
//! registries show it: README.md, the contract, the changelog, the protocol
//! and each package's README. A relative link must name a file or directory
//! of the repository, and a link to a file of the repository on GitHub must
//! too. A package's README is shown by its registry (npm, PyPI, pkg.go.dev,
//! crates.io), where a relative link leads nowhere, so it may have none. The
//! book's own pages are checked once built (`docs::check_links`), with the
//! links their includes bring.

use std::path::Path;

use anyhow::{ensure, Context, Result};

use super::docs::REPOSITORY_FILES;
use crate::root;

/// Checks every Markdown file a reader opens outside the book; answers how
/// many links were checked.
pub fn check() -> Result<usize> {
    let own: Vec<_> = ["README.md", "SPEC.md", "ARCHITECTURE.md", "CHANGELOG.md", "conformance/PROTOCOL.md"]
        .iter()
        .map(|f| (root().join(f), false))
        .collect();
    let packages = super::readme::documents()?
        .into_iter()
        .filter(|f| f.starts_with(root().join("bindings")) || f.starts_with(root().join("crates")))
        .map(|f| (f, true));
    let (mut checked, mut broken) = (0, vec![]);
    for (file, package) in own.into_iter().chain(packages) {
        let text = crate::read(&file)?;
        let name = file.strip_prefix(root()).unwrap_or(&file).display().to_string();
        for target in links(&text).with_context(|| name.clone())? {
            checked += 1;
            if let Some(why) = problem(&file, target, package) {
                broken.push(format!("{name}: {target}: {why}"));
            }
        }
    }
    ensure!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    Ok(checked)
}

/// The targets of the `[text](target)` links of `text`, outside fenced code.
fn links(text: &str) -> Result<Vec<&str>> {
    let blocks = super::fences::blocks(text)?;
    let in_code = |n: usize| blocks.iter().any(|b| (b.line..=b.end).contains(&n));
    Ok(text
        .lines()
        .enumerate()
        .filter(|(i, _)| !in_code(i + 1))
        .flat_map(|(_, line)| line.split("](").skip(1).filter_map(|rest| rest.split([')', ' ']).next()))
        .collect())
}

/// What is wrong with a link of `file` to `target`, if anything.
fn problem(file: &Path, target: &str, package: bool) -> Option<&'static str> {
    let path = target.split(['#', '?']).next().unwrap_or(target);
    if let Some(in_repository) = target.strip_prefix(REPOSITORY_FILES) {
        let path = in_repository.split(['#', '?']).next().unwrap_or(in_repository);
        return (!root().join(path).exists()).then_some("no such file in the repository");
    }
    if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") || path.is_empty() {
        return None;
    }
    if package {
        return Some("a package's README is read on its registry: link the file on GitHub");
    }
    let exists = file.parent().is_some_and(|dir| dir.join(path).exists());
    (!exists).then_some("no such file")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_links_outside_code_only() {
        let text = "[a](SPEC.md) [b](https://x.y/z) [c](#here)\n```rust\nlet x = f[0](1);\n```\n[d](docs/x.md#part \"t\") ![e](img.svg)";
        assert_eq!(links(text).unwrap(), ["SPEC.md", "https://x.y/z", "#here", "docs/x.md#part", "img.svg"]);
    }

    #[test]
    fn refuses_what_would_break() {
        let readme = root().join("README.md");
        assert_eq!(problem(&readme, "SPEC.md#decisions", false), None);
        assert_eq!(problem(&readme, "NO-SUCH.md", false), Some("no such file"));
        let package = root().join("bindings/node/README.md");
        assert!(problem(&package, "../../SPEC.md", true).is_some());
        assert_eq!(problem(&package, &format!("{REPOSITORY_FILES}SPEC.md"), true), None);
        assert!(problem(&package, &format!("{REPOSITORY_FILES}NO-SUCH.md"), true).is_some());
        assert_eq!(problem(&package, "https://www.npmjs.com/", true), None);
    }
}
