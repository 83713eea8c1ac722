//! The real binary, run as a process: hook mode, bad input, the CLI and the self-test.

use hook_replay::process::stdout_json;
use hook_replay::sandbox::Sandbox;
use serde_json::{json, Value};
use std::process::Stdio;

fn sandbox() -> Sandbox {
    Sandbox::new(env!("CARGO_BIN_EXE_egress-audit"))
}

/// The hook's `systemMessage` (the test fails when there is none).
fn system_message(v: &Value) -> &str {
    v["systemMessage"].as_str().unwrap()
}

fn stop_payload(text: &str, active: bool) -> Vec<u8> {
    json!({
        "session_id": "sess-e5", "transcript_path": "/nonexistent", "cwd": "/tmp",
        "hook_event_name": "Stop", "stop_hook_active": active,
        "last_assistant_message": text, "background_tasks": [], "novel_field": {"x": 1}
    })
    .to_string()
    .into_bytes()
}

/// A fresh sandbox and the hook's output for one Stop event.
fn run_stop(text: &str, active: bool) -> (Sandbox, std::process::Output) {
    let home = sandbox();
    let out = home.run(&stop_payload(text, active));
    (home, out)
}

#[test]
fn red_stop_blocks_without_naming_a_phrase() {
    let (home, out) = run_stop("Done. You can run make smoke to verify.", false);
    assert_eq!(out.status.code(), Some(0));
    let v = stdout_json(&out);
    assert_eq!(v["decision"], "block");
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.starts_with("E5.command-handed-back: "), "{reason}");
    assert!(
        !phrase_gate::EgressGate::baseline().mentions_tripwire(reason),
        "{reason}"
    );
    let records = home.audit_records("sess-e5");
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["decision"], "block");
    assert_eq!(records[0]["record"]["status"], "red");
}

#[test]
fn continuation_still_red_lets_the_stop_happen_and_tells_the_user() {
    let (home, out) = run_stop("You can run make smoke to verify.", true);
    let v = stdout_json(&out);
    assert!(v.get("decision").is_none(), "{v}");
    assert!(system_message(&v).contains("command_displacement_to_operator"));
    assert_eq!(
        home.audit_records("sess-e5")[0]["decision"],
        "allow_recorded"
    );
}

#[test]
fn green_stop_says_nothing() {
    let (_home, out) = run_stop("I ran make smoke; it passed with exit code 0.", false);
    assert_eq!(stdout_json(&out), json!({}));
    assert!(out.stderr.is_empty());
}

/// The answer to a Stop whose last message hands a command back, under the config file `config`.
fn hand_back_under_config(config: &str) -> Value {
    let home = sandbox();
    home.write_config(config);
    stdout_json(&home.run(&stop_payload("You can run make smoke.", false)))
}

#[test]
fn report_mode_from_config_only_records() {
    let v = hand_back_under_config("egress_mode = \"report\"\n");
    assert!(v.get("decision").is_none());
    assert!(system_message(&v).contains("report mode"));
}

#[test]
fn broken_config_is_reported_on_every_call_and_defaults_apply() {
    let v = hand_back_under_config("egress_mode = [\n");
    assert_eq!(v["decision"], "block", "defaults enforce");
    assert!(system_message(&v).contains("config error"));
}

#[test]
fn bad_input_gets_one_line_and_a_deliberate_answer() {
    let nine_mib = vec![b' '; 9 * 1024 * 1024];
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", b"".to_vec()),
        ("not json", b"this is not json".to_vec()),
        ("array", b"[1,2,3]".to_vec()),
        (
            "invalid utf-8",
            b"{\"hook_event_name\":\"Stop\",\"x\":\"\xff\xfe\"}".to_vec(),
        ),
        ("9 MiB", nine_mib),
        (
            "no event",
            br#"{"session_id":"s","last_assistant_message":"You can run x"}"#.to_vec(),
        ),
    ];
    for (name, input) in cases {
        let home = sandbox();
        let out = home.run(&input);
        assert_eq!(out.status.code(), Some(0), "{name}");
        let v = stdout_json(&out);
        assert!(
            system_message(&v).contains("could not judge"),
            "{name}: {v}"
        );
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{name}: one line on stderr: {err:?}"
        );
        assert!(err.starts_with("egress-audit: "), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}");
    }
}

#[test]
fn injected_panic_and_hang_become_deliberate_answers() {
    let home = sandbox();
    let out = home.run_with_env(
        &stop_payload("x", false),
        &[("AGENT_GUARDS_INJECT_FAULT", "panic")],
    );
    let v = stdout_json(&out);
    assert!(system_message(&v).contains("internal error"));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);

    home.write_config("hook_deadline_ms = 300\n");
    let out = home.run_with_env(
        &stop_payload("x", false),
        &[("AGENT_GUARDS_INJECT_FAULT", "hang")],
    );
    let v = stdout_json(&out);
    assert!(
        system_message(&v).contains("no verdict within 300 ms"),
        "{v}"
    );
    let records = home.audit_records("sess-e5");
    assert_eq!(records.last().unwrap()["decision"], "allow_unjudged");
}

#[test]
fn stdin_held_open_still_answers_by_the_deadline() {
    let home = sandbox();
    home.write_config("hook_deadline_ms = 200\n");
    let mut child = home
        .command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _held = child.stdin.take();
    let out = child.wait_with_output().unwrap();
    let v = stdout_json(&out);
    assert!(system_message(&v).contains("no verdict within 200 ms"));
}

#[test]
fn evaluate_cli_exit_codes_and_no_text_in_record() {
    let home = sandbox();
    let out = home
        .command()
        .args(["evaluate", "--text", "You can run make smoke", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let s = String::from_utf8(out.stdout).unwrap();
    let v: Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v["status"], "red");
    assert!(!s.contains("make smoke"));
    let out = home
        .command()
        .args(["evaluate", "--text=I ran make smoke; exit code 0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let out = home.command().args(["evaluate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}

#[test]
fn a_reader_that_closes_the_pipe_early_gets_no_panic() {
    // egress-43d: `explain … | head -1` panicked ("failed printing to stdout").
    let text = "You'll want to run `make release`.\n".repeat(2000);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_egress-audit"))
        .args(["explain", "--text", &text])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The read end closes before the verdict is written: the write meets a closed pipe.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(
        out.status.code(),
        Some(1),
        "the verdict (red) stays the exit status"
    );
}

#[test]
fn evaluate_fixtures_over_the_repository_fixtures() {
    let home = sandbox();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/egress-audit");
    let out = home
        .command()
        .args(["evaluate-fixtures", "--input", dir, "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["case_count"].as_u64().unwrap() >= 6);
    assert_eq!(v["case_count"], v["passed_case_count"]);
    assert_eq!(v["status"], "pass");
}

#[test]
fn evaluate_fixtures_fails_on_a_broken_case() {
    let home = sandbox();
    let dir = home.path().join("cases");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("a.json"),
        r#"{"case_id":"a","text":"You can run make smoke","expected_status":"green"}"#,
    )
    .unwrap();
    let evaluate = || {
        home.command()
            .args(["evaluate-fixtures", "--input"])
            .arg(&dir)
            .output()
            .unwrap()
    };
    assert_eq!(evaluate().status.code(), Some(1));
    std::fs::write(dir.join("b.json"), "{broken").unwrap();
    let out = evaluate();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("b.json"));
}

#[test]
fn selftest_passes_with_a_metadata_only_record() {
    let home = sandbox();
    let out = home.command().arg("--selftest").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8(out.stdout).unwrap();
    let v: Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v["status"], "pass");
    assert!(!s.contains("make smoke") && !s.contains("Let me know"));
}

/// Issue 19: a guard's refusal recorded in this session's audit log is a real blocker. A final
/// message that names it and leaves the step to the maintainer passes; the same words with no
/// recorded refusal, or naming another step, are still blocked.
#[test]
fn a_recorded_refusal_named_in_the_message_is_a_real_blocker() {
    let message = "The push to main was refused by G4 (branch protection), so I did not retry it. \
                   Please run `git push origin main` yourself once the rule allows it.";
    let home = sandbox();
    let first = stdout_json(&home.run(&stop_payload(message, false)));
    assert_eq!(
        first["decision"], "block",
        "no refusal recorded yet: {first}"
    );
    let audit =
        session_store::Session::new(&home.state_home().join("agent-guards"), Some("sess-e5"))
            .audit();
    audit
        .append(&json!({
            "binary": "gh-write-guard", "decision": "deny", "requirement": "G4",
            "command": "git push origin main", "session_id": "sess-e5"
        }))
        .unwrap();
    let out = home.run(&stop_payload(message, false));
    assert!(out.stdout.is_empty() || stdout_json(&out).get("decision").is_none());
    let records = home.audit_records("sess-e5");
    let last = records.last().unwrap();
    assert_eq!(last["decision"], "allow", "{last}");
    assert_eq!(last["recorded_refusals"]["count"], 1);
    let row = &last["record"]["rows"][0];
    assert_eq!(row["matched_legitimizers"], json!(["recorded refusal G4"]));
    // A hand-back that does not name the refusal is still blocked.
    let other = stdout_json(&home.run(&stop_payload(
        "Done. Please run `cargo publish` yourself.",
        false,
    )));
    assert_eq!(other["decision"], "block");
}
