//! 64 processes append to one session's ledger and audit log at once; nothing is lost or corrupted.
//!
//! The test re-runs its own binary as the child processes (selected by an environment variable), so
//! the writers are real, separate processes contending for real file locks.

use serde_json::{json, Value};
use session_store::Session;
use std::path::PathBuf;
use std::process::Command;

const CHILD_ENV: &str = "SESSION_STORE_TEST_CHILD_STATE";
const WRITERS: usize = 64;
const ROUNDS: usize = 5;

#[test]
fn concurrent_writers_lose_nothing() {
    if let Ok(state) = std::env::var(CHILD_ENV) {
        return child(PathBuf::from(state));
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..WRITERS)
        .map(|i| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "concurrent_writers_lose_nothing",
                    "--test-threads=1",
                ])
                .env(CHILD_ENV, dir.path())
                .env("WRITER_INDEX", i.to_string())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let session = Session::new(dir.path(), Some("sess-1"));
    let ledger = session.ledger().read().unwrap();
    assert_eq!(ledger["counter"], json!(WRITERS * ROUNDS), "no lost update");
    for i in 0..WRITERS {
        assert_eq!(ledger[&format!("writer-{i}")], json!(ROUNDS));
    }
    let (records, bad) = session.audit().read_all().unwrap();
    assert_eq!(bad, 0, "no torn line");
    assert_eq!(records.len(), WRITERS * ROUNDS);
    // Long lines (well past PIPE_BUF) must come through whole.
    assert!(records
        .iter()
        .all(|r| r["padding"].as_str().map(str::len) == Some(8192)));
}

fn child(state: PathBuf) {
    let index: usize = std::env::var("WRITER_INDEX").unwrap().parse().unwrap();
    let session = Session::new(&state, Some("sess-1"));
    for round in 0..ROUNDS {
        session
            .ledger()
            .update(|m| {
                let c = m.get("counter").and_then(Value::as_u64).unwrap_or(0);
                m.insert("counter".into(), json!(c + 1));
                let key = format!("writer-{index}");
                let mine = m.get(&key).and_then(Value::as_u64).unwrap_or(0);
                m.insert(key, json!(mine + 1));
            })
            .unwrap();
        session
            .audit()
            .append(&json!({"writer": index, "round": round, "padding": "p".repeat(8192)}))
            .unwrap();
    }
}
