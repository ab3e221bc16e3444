//! The CLI as an operator meets it: outputs, exit statuses and every gate.

use std::process::{Command, Output};

fn emq_id(args: &[&str]) -> Output {
    command().args(args).output().unwrap()
}

/// The CLI with no `EMQ_NODE`, claiming nodes in a directory of this test
/// run's own, so parallel tests and other processes of the host never meet.
fn command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_emq-id"));
    c.env_remove("EMQ_NODE")
        .env("EMQ_NODE_DIR", std::env::temp_dir().join(format!("emq-id-cli-test-{}", std::process::id())));
    c
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn decode_prints_every_field() {
    let o = emq_id(&["decode", "USR0KHTOWnGLuC"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["node"], 0);
    assert_eq!(v["seq"], 0);
    assert_eq!(v["unix_ms"], "1769526697641");
    assert_eq!(v["hash32"], 234878118);
    assert_eq!(v["time"], "2026-01-27T15:11:37.641Z");
}

#[test]
fn slot_of_a_queue_key_is_the_slot_of_the_queue() {
    let key = emq_id(&["slot", "emq:{orders}:pending"]);
    let queue = emq_id(&["slot", "orders"]);
    let slot = |o: &Output| serde_json::from_str::<serde_json::Value>(stdout(o).trim()).unwrap()["slot"].clone();
    assert_eq!(slot(&key), slot(&queue));
    assert_eq!(slot(&key), emq_id::slot(b"orders"));
}

#[test]
fn every_gate_is_reachable_with_exit_status_2() {
    for (args, gate) in [
        (&["decode", "USR0KHTOWnGLu"][..], "length"),
        (&["decode", "usr0KHTOWnGLuC"], "namespace"),
        (&["decode", "USR0KHTOWnGL!C"], "charset"),
        (&["decode", "USRzzzzzzzzzzz"], "range"),
        (&["encode", "USR", "9223372036854775808"], "range"),
        (&["mint", "JOB", "--node", "1024"], "range"),
        (&["min-for", "999999999999999"], "range"),
        (&["key", "a{b}", "pending"], "queue"),
        (&["key", "orders", "done"], "kind"),
        (&["key", "orders", "job", "USR0KHTOWnGLuC"], "kind"),
        (&["key", "orders", "g:a:b:pending"], "kind"),
        (&["key", "--parse", "{emq}:version"], "queue"),
        (&["reserve", "a b"], "kind"),
        (&["xadd-id", "ORD000xY9Wvvcd"], "kind"),
        (&["xadd-id", "--reverse", "1704117200000-x"], "charset"),
    ] {
        let o = emq_id(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).starts_with(&format!("error: {gate}: ")), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn stdin_gives_one_argument_per_line_and_bad_lines_do_not_stop_good_ones() {
    use std::io::Write;
    let mut child = command()
        .arg("decode")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"USR0KHTOWnGLuC\nbad\nUSR0NgWEfAEJfs\n").unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o).lines().count(), 2);
    assert!(stderr(&o).starts_with("error: length: \"bad\""));
}

#[test]
fn mint_without_a_node_warns_that_ids_may_collide() {
    let o = emq_id(&["mint", "JOB", "-n", "3"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().count(), 3);
    assert!(stderr(&o).contains("may still collide with another host"));
    let with_node = emq_id(&["mint", "JOB", "--node", "9"]);
    assert!(stderr(&with_node).is_empty());
    assert_eq!(emq_id::Id::parse(stdout(&with_node).trim().as_bytes()).unwrap().node(), 9);
}

#[test]
fn help_on_everything() {
    for cmd in ["decode", "encode", "mint", "hash32", "min-for", "slot", "key", "reserve", "xadd-id", "route", "check"]
    {
        let o = emq_id(&[cmd, "--help"]);
        assert!(o.status.success() && stdout(&o).starts_with("Usage: emq-id"), "{cmd}");
    }
    assert!(stdout(&emq_id(&["--help"])).contains("Commands:"));
    assert_eq!(emq_id(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn prints_its_version() {
    for flag in ["--version", "-V"] {
        let o = emq_id(&[flag]);
        assert!(o.status.success(), "{flag}");
        assert_eq!(stdout(&o), format!("emq-id {}\n", env!("CARGO_PKG_VERSION")));
    }
}

#[test]
fn min_for_reads_iso_8601() {
    let o = emq_id(&["min-for", "2026-01-27T15:11:37.641Z", "1769526697641"]);
    assert_eq!(stdout(&o), "274557032793636864\n274557032793636864\n");
}

#[test]
fn the_keyspace_at_the_terminal() {
    let o = emq_id(&["key", "orders", "g:vip:pending"]);
    assert_eq!(stdout(&o), "emq:{orders}:g:vip:pending\n");
    let o = emq_id(&["key", "--parse", "emq:{orders}:job:JOB0KHTOWnGLuC:lock"]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(
        (v["queue"].as_str(), v["family"].as_str(), v["param"].as_str()),
        (Some("orders"), Some("job:<id>:lock"), Some("JOB0KHTOWnGLuC"))
    );
    assert_eq!(stdout(&emq_id(&["reserve", "locks", "version"])), "{emq}:locks\n{emq}:version\n");
    assert_eq!(stdout(&emq_id(&["xadd-id", "EVT000xY9Wvvcd"])), "1704117200000-1620567\n");
    assert_eq!(stdout(&emq_id(&["xadd-id", "--reverse", "1704117200000-1620567"])), "EVT000xY9Wvvcd\n");
    assert_eq!(stdout(&emq_id(&["key", "--prefix-bytes", "orders", "job:"])), "17\n");
    assert_eq!(stdout(&emq_id(&["key", "--queue-prefix", "orders"])), "emq:{orders}:\n");
    assert_eq!(stdout(&emq_id(&["key", "--job-prefix", "orders"])), "emq:{orders}:job:\n");
}
