//! The binary where the process table cannot be read (macOS and the BSDs; on Linux, a build with
//! `--cfg agent_guards_portable`, which CI runs): SessionEnd says it could not look, never that
//! nothing was left; SessionStart has no report to repeat; `tests/cli.rs` runs the selftest (pure) here too.
#![cfg(any(not(target_os = "linux"), agent_guards_portable))]

use hook_replay::sandbox::Sandbox;

const BIN: &str = env!("CARGO_BIN_EXE_stray-process-sweep");

fn payload(event: &str) -> Vec<u8> {
    format!(r#"{{"session_id":"s-1","hook_event_name":"{event}","reason":"exit","source":"startup","cwd":"/tmp","transcript_path":"/tmp/t.jsonl"}}"#).into_bytes()
}

#[test]
fn session_end_reports_that_it_cannot_see_processes() {
    let home = Sandbox::new(BIN);
    // A process carrying the session's marker is running: it still is not claimed as seen.
    let mut marked = std::process::Command::new("sleep")
        .arg("30")
        .env("CLAUDE_CODE_SESSION_ID", "s-1")
        .spawn()
        .unwrap();
    let out = home.run_with_env(&payload("SessionEnd"), &[("CLAUDE_CODE_SESSION_ID", "s-1")]);
    let _ = marked.kill();
    let _ = marked.wait();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("stray-process-sweep (S4): cannot see processes on this system"),
        "{stderr}"
    );
    assert!(stderr.contains("were not looked for"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "no process is named: {stderr}");
}

#[test]
fn session_start_is_silent() {
    let home = Sandbox::new(BIN);
    let out = home.run(&payload("SessionStart"));
    assert_eq!(out.status.code(), Some(0));
    // The silent answer: an empty JSON object, no systemMessage, nothing on stderr.
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "{}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
