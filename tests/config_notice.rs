//! A config problem reaches the user once per session, from whichever hook runs first, and the
//! audit log records it (issue 20: "config mistakes are invisible").

use hook_replay::sandbox::Sandbox;
use serde_json::Value;

/// Runs `binary` on `payload` in the shared temp HOME (its config read from there); returns its
/// answer.
fn hook(home: &Sandbox, binary: &str, payload: &str) -> Value {
    let mut c = hook_replay::process::clean_command(e2e_harness::bin(binary));
    home.isolate(&mut c);
    let out = hook_replay::process::run(&mut c, payload.as_bytes()).unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{binary}: {e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn stop(session: &str) -> String {
    format!(
        r#"{{"session_id":"{session}","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Done: the tests pass.","transcript_path":"/nonexistent","cwd":"/tmp"}}"#
    )
}

#[test]
fn a_config_problem_is_said_once_per_session_and_recorded() {
    // One HOME for both binaries: the notice is per session, not per binary.
    let home = Sandbox::new(e2e_harness::bin("egress-audit"));
    home.write_config("egres_mode = \"report\"\nprimary_checkout = \"alow\"\n");
    let first = hook(&home, "egress-audit", &stop("s1"));
    let message = first["systemMessage"].as_str().unwrap_or_default();
    assert!(message.contains("did you mean `egress_mode`"), "{first}");
    assert!(message.contains("\"alow\""), "{first}");
    // The same session: another hook, and the same hook again, stay quiet about it.
    let again = hook(&home, "egress-audit", &stop("s1"));
    assert!(again.get("systemMessage").is_none(), "{again}");
    let session_start = r#"{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","model":"claude-sonnet-4-5","transcript_path":"/nonexistent","cwd":"/tmp"}"#;
    let other = hook(&home, "model-tier-guard", session_start);
    assert!(
        !other.to_string().contains("egres_mode"),
        "said twice in one session: {other}"
    );
    // A new session hears it again.
    let next = hook(&home, "egress-audit", &stop("s2"));
    assert!(next["systemMessage"]
        .as_str()
        .unwrap_or_default()
        .contains("egres_mode"));
    // Every session's start says it until it is fixed (issue 46), and not once it is.
    for s in ["s3", "s4"] {
        let start = session_start.replace("\"s1\"", &format!("{s:?}"));
        let said = hook(&home, "model-tier-guard", &start);
        assert!(said.to_string().contains("egres_mode"), "{s}: {said}");
    }
    home.write_config("egress_mode = \"report\"\n");
    let fixed = hook(
        &home,
        "model-tier-guard",
        &session_start.replace("\"s1\"", "\"s5\""),
    );
    assert!(fixed.get("systemMessage").is_none(), "{fixed}");
    let problems: Vec<Value> = home
        .audit_records("s1")
        .into_iter()
        .filter(|r| r["kind"] == "config_problem")
        .collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0]["binary"], "egress-audit");
}
