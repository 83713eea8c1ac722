//! The `audit-export` command as the SessionEnd hook or a maintainer runs it: off says so and
//! exits 0; a collector that is down leaves the records queued and exits 3 within its deadline;
//! an endpoint that is not a URL is said; a collector that is up gets the records (exit 0).

mod common;

use common::*;
use std::process::Command;
use std::time::{Duration, Instant};

fn run(state: &std::path::Path, endpoint: Option<&str>, args: &[&str]) -> (i32, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_audit-export"));
    c.args(args)
        .env_clear()
        .env("XDG_STATE_HOME", state)
        .env("AGENT_GUARDS_CONFIG", state.join("no-config.toml"));
    if let Some(e) = endpoint {
        c.env("OTEL_EXPORTER_OTLP_ENDPOINT", e);
    }
    let out = c.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn the_command_flushes_and_reports() {
    let home = tempfile::tempdir().unwrap();
    let state = home.path().join("agent-guards");
    write_records(&state, "s", 0, 3);
    let (rc, out) = run(home.path(), None, &["status"]);
    assert_eq!(rc, 0);
    assert!(out.starts_with("OTLP export: off ("), "{out}");
    let (rc, out) = run(home.path(), None, &["flush"]);
    assert_eq!((rc, out.trim()), (0, "OTLP export: off"));

    let down = format!("http://{}", closed_port());
    let started = Instant::now();
    let (rc, out) = run(
        home.path(),
        Some(&down),
        &["flush", "--deadline-ms", "1500"],
    );
    assert_eq!(rc, 3, "{out}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let (_, out) = run(home.path(), Some(&down), &["status"]);
    assert!(out.contains("queued: 3 records"), "{out}");
    assert!(out.contains("last error: "), "{out}");

    let (rc, out) = run(home.path(), Some("ftp://x"), &["status"]);
    assert_eq!(rc, 0);
    assert!(
        out.contains("off (OTEL_EXPORTER_OTLP_ENDPOINT = \"ftp://x\" is not an http(s) URL"),
        "{out}"
    );
    assert_eq!(run(home.path(), Some("ftp://x"), &["flush"]).0, 2);

    let rx = Receiver::start("127.0.0.1:0", vec![]);
    let (rc, out) = run(home.path(), Some(&rx.base()), &["flush"]);
    assert_eq!(rc, 0, "{out}");
    assert!(out.contains("3 records sent in 1 requests"), "{out}");
    assert_eq!(seqs(&rx.accepted_bodies()), [0, 1, 2]);
    assert_eq!(run(home.path(), None, &["bogus"]).0, 2);
}
