//! `emq-id`: the branded-id and placement contract at the terminal.
//!
//! Output is one line per input: JSON for structured answers (decimal strings
//! for 64-bit values, as in the vector file), bare text for single values.
//! Bad input prints `error: <gate>: <message>` on stderr and exits 2; the
//! other inputs of the same call are still answered. A failure that is not the
//! input's (a server that refuses or is not Valkey, a closed stdout) prints
//! `error: io: <what>` and exits 1, so a script can tell "fix the input" from
//! "try again".

mod args;
mod civil;
mod commands;
mod help;
mod lease;

use std::process::ExitCode;

/// Why a command failed: a contract gate, or a misuse of the command line.
pub enum Failure {
    Gate(emq_id::Error, String),
    Usage(String),
    Io(String),
}

impl Failure {
    pub fn gate(err: emq_id::Error, input: &[u8]) -> Failure {
        Failure::Gate(err, format!("{:?}", String::from_utf8_lossy(input)))
    }

    fn print(&self) {
        match self {
            Failure::Gate(e, input) => eprintln!("error: {}: {input}: {}", e.code(), e.message()),
            Failure::Usage(msg) => eprintln!("error: usage: {msg} (see emq-id --help)"),
            Failure::Io(msg) => eprintln!("error: io: {msg}"),
        }
    }
}

fn main() -> ExitCode {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let failures = commands::run(&argv);
    for f in &failures {
        f.print();
    }
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else if failures.iter().all(|f| matches!(f, Failure::Io(_))) {
        ExitCode::FAILURE
    } else {
        ExitCode::from(2)
    }
}
