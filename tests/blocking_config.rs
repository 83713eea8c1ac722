//! Issue 18: a config file that blocks on read (a FIFO; in practice a stalled network home
//! folder) must not hang any hook. Every binary is run for real with `AGENT_GUARDS_CONFIG`
//! pointing at a FIFO nobody writes to: each answers (the config error reported, defaults in
//! use), and gh-write-guard still denies a GitHub write whose result is hidden (G1).
//!
//! The hang guard below kills a binary that has not answered after 20 s and fails the test; it
//! detects a hang, it does not time the answer (the figures are printed for the record).

use e2e_harness::bin;
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const HANG_GUARD: Duration = Duration::from_secs(20);

fn mkfifo(p: &Path) {
    let status = Command::new("mkfifo").arg(p).status().expect("mkfifo runs");
    assert!(status.success());
}

/// Runs `binary args` with the FIFO as config and `payload` on stdin; fails on a hang.
fn run(binary: &str, args: &[&str], payload: &Value, fifo: &Path, state: &Path) -> Output {
    let program = bin(binary);
    let started = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .env("AGENT_GUARDS_CONFIG", fifo)
        .env("XDG_STATE_HOME", state)
        .env("CLAUDE_CODE_SESSION_ID", "blocking-config-test")
        .env_remove("AI_AGENT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    loop {
        if let Some(_status) = child.try_wait().unwrap() {
            break;
        }
        if started.elapsed() > HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{binary} {args:?} hung on a FIFO config");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    eprintln!(
        "{binary} {args:?}: answered in {} ms with a FIFO config",
        started.elapsed().as_millis()
    );
    out
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn every_binary_answers_with_a_fifo_config() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("config.toml");
    mkfifo(&fifo);
    let state = dir.path().join("state");
    let cwd = dir.path().display().to_string();
    let base = json!({"session_id": "blocking-config-test", "cwd": cwd,
        "transcript_path": dir.path().join("t.jsonl")});
    let with = |extra: Value| {
        let mut v = base.clone();
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v
    };

    // G1 still holds: the write's result is thrown away, so it is denied.
    let hidden = with(json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "gh pr create --title t --body b > /dev/null"}}));
    let o = run("gh-write-guard", &[], &hidden, &fifo, &state);
    let answer: Value = serde_json::from_slice(&o.stdout).expect("JSON answer");
    let out = &answer["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny", "{answer}");
    assert!(
        out["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("G1"),
        "{answer}"
    );

    let bash_ls = with(json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}}));
    for binary in ["model-tier-guard", "integrity-signals"] {
        let o = run(binary, &[], &bash_ls, &fifo, &state);
        assert_eq!(o.status.code(), Some(0), "{binary}: {}", stderr(&o));
        let text = String::from_utf8_lossy(&o.stdout);
        serde_json::from_str::<Value>(text.trim()).unwrap_or_else(|e| panic!("{binary}: {e}"));
    }

    // A config problem is said once per session (the first hook says it), so the Stop hook
    // runs in a session of its own to show that it reports the FIFO too.
    let stop = with(json!({"hook_event_name": "Stop", "stop_hook_active": false,
        "session_id": "blocking-config-test-stop",
        "last_assistant_message": "Done: the tests pass."}));
    let o = run("egress-audit", &[], &stop, &fifo, &state);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let said = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(
        said.contains("FIFO"),
        "the config error is reported: {said}"
    );

    let end = with(json!({"hook_event_name": "SessionEnd", "reason": "exit"}));
    let o = run("tool-containment", &[], &end, &fifo, &state);
    assert!(o.status.code().is_some(), "{}", stderr(&o));

    // The prefix: an agent command runs (under the default ceilings) with a one-line notice.
    let script = format!(
        "source {cwd}/shell-snapshots/snapshot-bash-1.sh 2>/dev/null || true && eval 'echo ran' && pwd -P >| {cwd}/x-cwd"
    );
    let o = run("tool-containment", &[&script], &json!({}), &fifo, &state);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "ran");
    assert!(stderr(&o).contains("FIFO"), "{}", stderr(&o));
    // Clean up the group the prefix made.
    let o = run("tool-containment", &[], &end, &fifo, &state);
    assert!(o.status.code().is_some());
}
