//! The README's shell transcripts, run and compared: each ```sh block's `$ `
//! lines run in bash with the freshly built `emq-id` first on PATH, and what
//! each prints (stdout, then stderr) must be the lines written under it. An
//! id a command mints cannot be the one written (its time differs), so for
//! `mint` the written id must agree with the printed one on everything a
//! reader is told by it: its namespace and its node. A trailing
//! `(exit status N)` is the status the command must exit with (else 0), and
//! `  # …` after a command is a comment for the reader.
//!
//! Blocks fenced ```sh with a word after it (```sh cluster) are shown, not
//! run: they need what a transcript cannot start (a live cluster, a second
//! process holding a node); each is listed with its reason.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

use crate::root;

/// One `$ ` line and the lines written under it.
#[derive(Debug)]
struct Step {
    command: String,
    expected: Vec<String>,
    status: i32,
}

/// Runs every transcript of `markdown` (a file of the tree); answers how many commands ran.
pub fn check(markdown: &Path) -> Result<usize> {
    let text = crate::read(markdown)?;
    let cli = crate::runtimes::cli::build()?;
    let bin = cli.parent().context("the CLI has a directory")?;
    let claims = crate::dist::scratch("transcripts")?;
    let mut ran = 0;
    for block in super::fences::blocks(&text).with_context(|| markdown.display().to_string())? {
        let Some(rest) = block.info.strip_prefix("sh") else { continue };
        if !rest.trim().is_empty() {
            println!(
                "transcripts: {}:{}: ```{}: shown, not run ({})",
                markdown.display(),
                block.line,
                block.info,
                rest.trim()
            );
            continue;
        }
        for step in steps(&block.body)? {
            let path = std::env::join_paths(
                std::iter::once(bin.to_path_buf())
                    .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
            )?;
            let out = Command::new("bash")
                .args(["-c", &step.command])
                .env("PATH", path)
                .env("EMQ_NODE_DIR", &*claims)
                .env_remove("EMQ_NODE")
                .output()
                .with_context(|| format!("running {:?}", step.command))?;
            let mut printed: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect();
            printed.extend(String::from_utf8_lossy(&out.stderr).lines().map(str::to_owned));
            let where_ = format!("{}:{}: $ {}", markdown.display(), block.line, step.command);
            ensure!(
                out.status.code() == Some(step.status),
                "{where_}: exit status {:?}, the transcript says {}",
                out.status.code(),
                step.status
            );
            if let Some(why) = differs(&step, &printed) {
                bail!("{where_}: {why}\n  written: {:?}\n  printed: {printed:?}", step.expected);
            }
            ran += 1;
        }
    }
    Ok(ran)
}

/// The `$ ` lines of a block and what is written under each (lines before the first are prose).
fn steps(body: &str) -> Result<Vec<Step>> {
    let mut steps: Vec<Step> = vec![];
    for line in body.lines() {
        if let Some(command) = line.strip_prefix("$ ") {
            let command = command.split("  #").next().unwrap_or_default().trim_end().to_string();
            steps.push(Step { command, expected: vec![], status: 0 });
        } else if let Some(step) = steps.last_mut() {
            let (text, status) = exit_note(line)?;
            step.expected.push(text);
            if let Some(s) = status {
                step.status = s;
            }
        }
    }
    Ok(steps)
}

/// `error: …     (exit status 2)`: the line without its note, and the status.
fn exit_note(line: &str) -> Result<(String, Option<i32>)> {
    let Some((text, note)) = line.rsplit_once("(exit status ") else { return Ok((line.to_string(), None)) };
    let status = note.trim_end_matches(')').parse().with_context(|| format!("{line:?}: an exit status is a number"))?;
    Ok((text.trim_end().to_string(), Some(status)))
}

/// Why `printed` is not what `step` says, if it is not.
fn differs(step: &Step, printed: &[String]) -> Option<String> {
    if printed.len() != step.expected.len() {
        return Some(format!("{} lines printed, {} written", printed.len(), step.expected.len()));
    }
    let mints = step.command.split_whitespace().any(|w| w == "mint");
    for (written, got) in step.expected.iter().zip(printed) {
        let same = if mints { same_minted(written, got) } else { written == got };
        if !same {
            return Some(if mints {
                format!("{got} is not an id of {written}'s namespace and node")
            } else {
                format!("printed {got:?}, written {written:?}")
            });
        }
    }
    None
}

/// Two minted ids that a reader cannot tell apart: same namespace, same node.
fn same_minted(written: &str, got: &str) -> bool {
    match (emq_id::Id::parse(written.as_bytes()), emq_id::Id::parse(got.as_bytes())) {
        (Ok(w), Ok(g)) => w.ns() == g.ns() && w.node() == g.node(),
        _ => written == got,
    }
}

/// The suite's check of the transcripts of the README and the book.
pub fn readme() -> Result<()> {
    for page in crate::tree::readme::documents()? {
        let ran = check(&page)?;
        if ran > 0 {
            let name = page.strip_prefix(root()).unwrap_or(&page).display().to_string();
            println!("transcripts: {name}: {ran} commands ran and printed what is written");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_transcript_is_caught() {
        let steps =
            steps("cargo install …\n\n$ EMQ_NODE=7 emq-id mint JOB -n 1   # two ids\nJOB0ST9N4yVRKq\n").unwrap();
        assert_eq!(steps[0].command, "EMQ_NODE=7 emq-id mint JOB -n 1");
        // JOB0ST9N4yVRKq is an id of node 629: a run on node 7 does not print its like.
        let on_node_7 = emq_id::Id::new(b"JOB", emq_id::Minter::new(7).unwrap().next().unwrap()).unwrap().to_string();
        assert!(differs(&steps[0], std::slice::from_ref(&on_node_7)).is_some());
        let written = Step { command: "emq-id mint JOB".into(), expected: vec![on_node_7], status: 0 };
        let later = emq_id::Id::new(b"JOB", emq_id::Minter::new(7).unwrap().next().unwrap()).unwrap().to_string();
        assert!(differs(&written, &[later]).is_none());
        let exact = Step { command: "emq-id reserve locks".into(), expected: vec!["{emq}:locks".into()], status: 0 };
        assert!(differs(&exact, &["{emq}:lock".into()]).is_some());
        assert!(differs(&exact, &[]).is_some());
    }

    #[test]
    fn reads_exit_notes() {
        assert_eq!(exit_note("error: x     (exit status 2)").unwrap(), ("error: x".to_string(), Some(2)));
        assert_eq!(exit_note("plain").unwrap(), ("plain".to_string(), None));
    }
}
