//! Issue 18, the smaller items, against the real cgroupfs: the SessionEnd watchdog leaves an
//! audit record and a partial report; an unreadable payload still stops the session named in the
//! hook's environment; a session group carries the ceilings as a whole; commands without a session
//! id are grouped under their CLI and stopped at its SessionEnd.
//! Linux only (cgroups); `tests/no_cgroups.rs` covers the other systems.
#![cfg(all(target_os = "linux", not(agent_guards_portable)))]

mod common;

use common::*;
use std::process::{Command, Stdio};

fn audit_text(s: &TestSession) -> String {
    let mut out = String::new();
    for e in walk(s.home.path()) {
        if e.ends_with("audit.jsonl") {
            out.push_str(&std::fs::read_to_string(&e).unwrap_or_default());
        }
    }
    out
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn the_session_end_watchdog_answers_with_what_was_done_and_records_it() {
    let s = TestSession::new("watchdog");
    let mut c = Command::new(BIN);
    s.home.isolate(&mut c);
    c.env("AGENT_GUARDS_INJECT_FAULT", "hang")
        .env("AGENT_CONTAINMENT_SESSION_END_MS", "300");
    let payload = serde_json::json!({
        "hook_event_name": "SessionEnd", "session_id": s.id, "reason": "exit",
    });
    let (code, _, err) = hook_replay::run_with_payload(c, &payload).unwrap();
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("could not finish the session-end stop"),
        "{err}"
    );
    assert!(!err.contains("stopped them"), "{err}");
    let audit = audit_text(&s);
    assert!(
        audit.contains("\"requirement\":\"C7\"") && audit.contains("no verdict within"),
        "the watchdog's answer is in the audit log: {audit}"
    );
}

#[test]
fn a_judge_that_never_began_the_stop_still_stops_the_session() {
    // Issue 47: SessionEnd stopped nothing when its judge never ran (a panic, a hang before the
    // stop). The failure answer stops the session itself, then reports it.
    for fault in ["panic", "hang"] {
        let s = TestSession::new(&format!("never-{fault}"));
        let cmd = s.leave_sleeper(102);
        let mut c = Command::new(BIN);
        s.home.isolate(&mut c);
        c.env("AGENT_GUARDS_INJECT_FAULT", fault)
            .env("AGENT_CONTAINMENT_SESSION_END_MS", "300");
        let payload = serde_json::json!({
            "hook_event_name": "SessionEnd", "session_id": s.id, "reason": "exit",
        });
        let (code, _, err) = hook_replay::run_with_payload(c, &payload).unwrap();
        assert_eq!(code, 2, "{fault}: {err}");
        assert!(survivors(&cmd).is_empty(), "{fault}: stopped: {err}");
        assert!(err.contains(&format!("1 × {cmd}")), "{fault}: {err}");
    }
}

#[test]
fn an_unreadable_payload_still_stops_the_session_named_in_the_hook_environment() {
    let s = TestSession::new("badpayload");
    let cmd = s.leave_sleeper(101);
    let mut c = Command::new(BIN);
    s.home.isolate(&mut c);
    let out = hook_replay::sandbox::run(c.env("CLAUDE_CODE_SESSION_ID", &s.id), b"{not json");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let still = survivors(&cmd);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("could not be read"), "{err}");
    assert!(
        still.is_empty(),
        "the session in the environment was stopped: {err}"
    );
    assert!(err.contains(&format!("1 × {cmd}")), "{err}");
}

#[test]
fn the_session_as_a_whole_carries_the_ceilings() {
    let s = TestSession::new("whole");
    let tasks = [("AGENT_CONTAINMENT_TASKS_MAX", "300")];
    assert!(s.call("true", &tasks).status().unwrap().success());
    if let tool_containment::c4_backends::Backend::V1(_) = s.backend {
        let max = std::fs::read_to_string(s.dirs()[0].join("pids.max")).unwrap();
        assert_eq!(max.trim(), "300");
    }
}

#[test]
fn commands_without_a_session_id_are_grouped_under_their_cli_and_stopped_at_its_end() {
    // A bash plays the CLI (not the test process: other tests' SessionEnd hooks are its
    // children too): it runs the prefix without a session id, then the SessionEnd hook.
    let s = TestSession::new("nosession");
    let arg = unique_sleep(102);
    let cmd = format!("sleep {arg}");
    let script = tool_call(&format!(
        "cat /proc/self/cgroup; sleep {arg} >/dev/null 2>&1 &"
    ));
    let payload = serde_json::json!({
        "hook_event_name": "SessionEnd", "session_id": s.id, "reason": "exit",
    })
    .to_string();
    let mut cli = Command::new("bash");
    s.home.isolate(&mut cli);
    let out = cli
        .arg("-c")
        .arg(r#"echo "cli=$$"; "$BIN" "$SCRIPT"; sleep 0.5; printf '%s' "$PAYLOAD" | "$BIN""#)
        .env("BIN", BIN)
        .env("SCRIPT", &script)
        .env("PAYLOAD", &payload)
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env_remove("AI_AGENT")
        .env("CLAUDE_CODE_CHILD_SESSION", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let still = survivors(&cmd);
    let cli_pid: i32 = text
        .lines()
        .find_map(|l| l.strip_prefix("cli="))
        .and_then(|p| p.trim().parse().ok())
        .unwrap();
    assert!(
        text.contains(&format!("/agent-guards/session-_no-session-{cli_pid}-")),
        "{text}"
    );
    assert!(still.is_empty(), "{err}");
    assert!(err.contains(&format!("1 × {cmd}")), "{err}");
    // The CLI has ended: its id-less group is gone (no cleanup needed beyond the check).
    let dirs = tool_containment::c3_groups::session_dirs(&s.backend, "session-_no-session-x");
    let parent = dirs[0].parent().unwrap().to_path_buf();
    let left: Vec<String> = std::fs::read_dir(&parent)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("session-_no-session-{cli_pid}-")))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
