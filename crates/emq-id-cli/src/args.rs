//! A small command-line parser: flags anywhere, `--` ends them, values raw bytes.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Failure;

/// A parsed command line after the subcommand.
#[derive(Default)]
pub struct Args {
    pub positional: Vec<Vec<u8>>,
    pub flags: Vec<String>,
    pub values: Vec<(String, String)>,
}

impl Args {
    /// Splits `argv`; `valued` names the flags that take a value.
    pub fn parse(argv: &[OsString], switches: &[&str], valued: &[&str]) -> Result<Args, Failure> {
        let mut args = Args::default();
        let mut it = argv.iter();
        while let Some(a) = it.next() {
            let bytes = a.as_bytes();
            if bytes == b"--" {
                args.positional.extend(it.map(|a| a.as_bytes().to_vec()));
                break;
            }
            let text = a.to_string_lossy();
            if let Some(name) = valued.iter().find(|n| **n == text) {
                let value = it.next().ok_or_else(|| Failure::Usage(format!("{name} needs a value")))?;
                args.values.push((name.to_string(), value.to_string_lossy().into_owned()));
            } else if let Some((name, value)) = text.split_once('=').filter(|(n, _)| valued.contains(n)) {
                args.values.push((name.to_string(), value.to_string()));
            } else if switches.contains(&text.as_ref()) {
                args.flags.push(text.into_owned());
            } else if bytes.len() > 1 && bytes[0] == b'-' && !bytes[1].is_ascii_digit() {
                return Err(Failure::Usage(format!("unknown option {text}")));
            } else {
                args.positional.push(bytes.to_vec());
            }
        }
        Ok(args)
    }

    pub fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }

    /// Every value given to a flag, in order.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.values.iter().filter(move |(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    pub fn one<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        self.all(name).last()
    }
}

/// One argument per line of stdin (a trailing `\n` or `\r\n` removed).
pub fn stdin_lines() -> Result<Vec<Vec<u8>>, Failure> {
    use std::io::BufRead;
    let mut out = Vec::new();
    for line in std::io::stdin().lock().split(b'\n') {
        let mut line = line.map_err(|e| Failure::Io(e.to_string()))?;
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        out.push(line);
    }
    Ok(out)
}
