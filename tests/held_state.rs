//! Never fail open (issue 47): nothing a decision waits on can be held by the agent.
//!
//! Every hook binary, run as a process on a payload it refuses, while an agent command holds a
//! lock on one of the session's files (`flock -x` on a read-only handle, the way
//! `(flock -x 9; sleep 30) 9<audit.jsonl &` does) or a FIFO sits where the file should be. Each
//! must answer with its refusal, and exit, well within the CLI's timeout (10 s for these events).
//! Before the fix the held audit log made every one of them hang past it: the CLI's "allow".

use hook_replay::bounded::{run_bounded_from, RunOutput};
use hook_replay::process::LockHolder;
use hook_replay::sandbox::Sandbox;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const SESSION: &str = "held-session";

/// Generous against a loaded CI machine, far under the CLI's 10 s: the hooks answer in tens of
/// milliseconds, plus at most one lock bound (250 ms) and the after-answer bound (600 ms).
const ANSWERED_WITHIN: Duration = Duration::from_secs(5);

/// The session files an agent command can hold or replace.
const FILES: [&str; 5] = [
    "audit.jsonl",
    "ledger.json",
    "ledger.lock",
    "integrity-calls.log",
    "integrity-signals.jsonl",
];

/// One refusal to check: the binary, its payload (in a sandbox), and what the answer must say.
struct Case {
    binary: &'static str,
    payload: fn(&Sandbox, &Path) -> Value,
    refused: fn(&Value) -> bool,
}

fn deny(v: &Value) -> bool {
    v["hookSpecificOutput"]["permissionDecision"] == "deny"
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            binary: "gh-write-guard",
            payload: |_, repo| {
                json!({"hook_event_name": "PreToolUse", "session_id": SESSION, "cwd": repo,
                    "tool_name": "Bash", "tool_input": {"command": "git commit -am wip"},
                    "tool_use_id": "toolu_1", "transcript_path": "/nonexistent"})
            },
            refused: |v| {
                deny(v)
                    && v["hookSpecificOutput"]["permissionDecisionReason"]
                        .as_str()
                        .is_some_and(|r| r.starts_with("G6"))
            },
        },
        Case {
            binary: "integrity-signals",
            payload: |home, repo| {
                json!({"hook_event_name": "PreToolUse", "session_id": SESSION, "cwd": repo,
                    "tool_name": "Write", "tool_use_id": "toolu_1", "transcript_path": "/nonexistent",
                    "tool_input": {"file_path": home.path().join(".claude/settings.json"), "content": "{}"}})
            },
            refused: deny,
        },
        Case {
            binary: "model-tier-guard",
            payload: |_, repo| {
                json!({"hook_event_name": "PreToolUse", "session_id": SESSION, "cwd": repo,
                    "tool_name": "Agent", "tool_use_id": "toolu_1", "transcript_path": "/nonexistent",
                    "tool_input": {"description": "d", "prompt": "p", "model": "fable"}})
            },
            refused: deny,
        },
        Case {
            binary: "egress-audit",
            payload: |_, repo| {
                json!({"hook_event_name": "Stop", "session_id": SESSION, "cwd": repo,
                    "transcript_path": "/nonexistent", "stop_hook_active": false,
                    "last_assistant_message": "Done. You can run make smoke to verify."})
            },
            refused: |v| v["decision"] == "block",
        },
    ]
}

/// A primary checkout (G6's case) in the sandbox.
fn repo(home: &Sandbox) -> PathBuf {
    let repo = home.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .unwrap();
    assert!(ok.success());
    repo
}

/// Runs the sandbox's binary on `payload` (fed from a file, so writing stdin cannot wait on it)
/// with `env` added, killed at four times the bound; its answer parsed, and how long it took.
fn answer(home: &Sandbox, payload: &Value, env: &[(&str, &str)]) -> (Value, RunOutput) {
    let input = home.path().join("payload.json");
    std::fs::write(&input, payload.to_string()).unwrap();
    let mut command = home.command();
    command.envs(env.iter().copied());
    let stdin = std::fs::File::open(&input).unwrap().into();
    let out = run_bounded_from(&mut command, stdin, ANSWERED_WITHIN * 4).unwrap();
    let v = serde_json::from_str(out.stdout.trim()).unwrap_or(Value::Null);
    (v, out)
}

/// Runs `case` once and checks it refused within the bound; `fault` names the fault for messages.
fn check(case: &Case, home: &Sandbox, repo: &Path, fault: &str) {
    let (v, out) = answer(home, &(case.payload)(home, repo), &[]);
    assert!(
        out.elapsed < ANSWERED_WITHIN,
        "{} with {fault}: answered after {:?} ({})",
        case.binary,
        out.elapsed,
        out.status_text()
    );
    assert!(
        (case.refused)(&v),
        "{} with {fault}: not refused: {v}\nstderr: {}",
        case.binary,
        out.stderr
    );
}

#[test]
fn a_held_lock_or_a_fifo_never_delays_a_refusal() {
    for case in cases() {
        let home = Sandbox::new(e2e_harness::bin(case.binary));
        let repo = repo(&home);
        let session = home.session_dir(SESSION);
        check(&case, &home, &repo, "nothing held");
        for file in FILES {
            let path = session.join(file);
            let holder = LockHolder::hold(&path);
            check(&case, &home, &repo, &format!("{file} locked"));
            drop(holder);
            std::fs::remove_file(&path).unwrap();
            let made = Command::new("mkfifo").arg(&path).status().unwrap();
            assert!(made.success());
            check(&case, &home, &repo, &format!("a FIFO as {file}"));
            std::fs::remove_file(&path).unwrap();
        }
    }
}

#[test]
fn a_fifo_in_the_transcripts_place_never_delays_a_refusal() {
    // The transcript is the agent's to replace too: its tail is read by three of these hooks.
    for case in cases() {
        let home = Sandbox::new(e2e_harness::bin(case.binary));
        let repo = repo(&home);
        let transcript = home.path().join("transcript.jsonl");
        let made = Command::new("mkfifo").arg(&transcript).status().unwrap();
        assert!(made.success());
        let mut payload = (case.payload)(&home, &repo);
        payload["transcript_path"] = json!(transcript);
        let (v, out) = answer(&home, &payload, &[]);
        assert!(
            out.elapsed < ANSWERED_WITHIN && (case.refused)(&v),
            "{} with a FIFO transcript: {v} after {:?} ({})\nstderr: {}",
            case.binary,
            out.elapsed,
            out.status_text(),
            out.stderr
        );
    }
}

#[test]
fn a_fifo_as_the_file_an_edit_changes_never_delays_the_answer() {
    // model-tier-guard reads the current text of an agent definition an Edit changes (to judge
    // the model it would name): the agent can put a FIFO there.
    let home = Sandbox::new(e2e_harness::bin("model-tier-guard"));
    let repo = repo(&home);
    let definition = repo.join(".claude/agents/helper.md");
    std::fs::create_dir_all(definition.parent().unwrap()).unwrap();
    let made = Command::new("mkfifo").arg(&definition).status().unwrap();
    assert!(made.success());
    let payload = json!({"hook_event_name": "PreToolUse", "session_id": SESSION, "cwd": repo,
        "tool_name": "Edit", "tool_use_id": "toolu_1", "transcript_path": "/nonexistent",
        "tool_input": {"file_path": definition, "old_string": "model: haiku",
            "new_string": "model: fable"}});
    let (v, out) = answer(
        &home,
        &payload,
        &[("CLAUDE_PROJECT_DIR", repo.to_str().unwrap())],
    );
    // Judged, not saved by the deadline (a blocked open was answered only by the watchdog).
    assert!(
        out.elapsed < ANSWERED_WITHIN && v.is_object() && !out.stderr.contains("no verdict within"),
        "model-tier-guard, an Edit of a FIFO: {v} after {:?} ({})\nstderr: {}",
        out.elapsed,
        out.status_text(),
        out.stderr
    );
}

#[test]
fn session_end_answers_with_every_file_held() {
    // SessionEnd refuses nothing: it must answer (and exit 0) in time whatever is held, so the
    // CLI's short SessionEnd budget is not spent waiting on the agent.
    for binary in [
        "tool-containment",
        "stray-process-sweep",
        "integrity-signals",
    ] {
        let home = Sandbox::new(e2e_harness::bin(binary));
        let repo = repo(&home);
        let session = home.session_dir(SESSION);
        let payload = json!({"hook_event_name": "SessionEnd", "session_id": SESSION, "cwd": repo,
            "transcript_path": "/nonexistent", "reason": "other"});
        let holders: Vec<LockHolder> = FILES
            .iter()
            .map(|f| LockHolder::hold(&session.join(f)))
            .collect();
        let (_, out) = answer(&home, &payload, &[]);
        drop(holders);
        // 0, or 2 with the deliberate "could not complete" on stderr (no CLI to find here).
        let deliberate = matches!(out.status.and_then(|s| s.code()), Some(0 | 2));
        assert!(
            out.elapsed < ANSWERED_WITHIN && deliberate,
            "{binary}: {} after {:?}\nstdout: {}\nstderr: {}",
            out.status_text(),
            out.elapsed,
            out.stdout,
            out.stderr
        );
    }
}

#[test]
fn the_deadline_answer_does_not_wait_on_a_held_audit_log() {
    // The judge hangs (injected), so the deadline answers; its audit record would wait on the
    // held log: the answer must come first all the same.
    for case in cases() {
        let home = Sandbox::new(e2e_harness::bin(case.binary));
        home.write_config("hook_deadline_ms = 400\n");
        let repo = repo(&home);
        let _holder = LockHolder::hold(&home.session_dir(SESSION).join("audit.jsonl"));
        let payload = (case.payload)(&home, &repo);
        let (v, out) = answer(&home, &payload, &[("AGENT_GUARDS_INJECT_FAULT", "hang")]);
        assert!(
            out.elapsed < ANSWERED_WITHIN,
            "{}: answered after {:?} ({})",
            case.binary,
            out.elapsed,
            out.status_text()
        );
        let stderr = &out.stderr;
        // egress-audit's Stop fails open by its spec (a crash must not trap the session).
        if case.binary != "egress-audit" {
            assert!(deny(&v), "{}: {v}\n{stderr}", case.binary);
        }
        assert!(
            stderr.contains("records not written after it"),
            "{}: the lost record is said: {stderr}",
            case.binary
        );
        said_at_the_next_session_start_and_in_the_report(&home);
    }
}

/// A record lost to the held log is said at the next SessionStart (once) and by `report`.
fn said_at_the_next_session_start_and_in_the_report(home: &Sandbox) {
    let report = |home: &Sandbox| {
        let mut c = hook_replay::process::clean_command(env!("CARGO_BIN_EXE_agent-guards"));
        home.isolate(&mut c).arg("report");
        let out = c.output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let before = report(home);
    assert!(before.contains("audit records NOT WRITTEN"), "{before}");
    let sweep = Sandbox::new(e2e_harness::bin("stray-process-sweep"));
    let start =
        json!({"hook_event_name": "SessionStart", "session_id": "next", "source": "startup"});
    let mut c = sweep.command();
    home.isolate(&mut c);
    let notice = |c: &mut Command| {
        let out = hook_replay::process::run(c, start.to_string().as_bytes()).unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap_or(Value::Null)["systemMessage"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let said = notice(&mut c);
    assert!(said.contains("could not be written"), "{said}");
    assert!(
        !notice(&mut c).contains("could not be written"),
        "said once"
    );
    assert!(
        report(home).contains("audit records NOT WRITTEN"),
        "report still shows it"
    );
}
