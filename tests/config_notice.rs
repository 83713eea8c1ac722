//! A config problem reaches the user once per session, from whichever hook runs first, and the
//! audit log records it (issue 20: "config mistakes are invisible").

use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

fn hook(binary: &str, home: &Path, config: &Path, payload: &str) -> Value {
    let mut child = Command::new(e2e_harness::bin(binary))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("AGENT_GUARDS_CONFIG", config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
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
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.toml");
    std::fs::write(
        &config,
        "egres_mode = \"report\"\nprimary_checkout = \"alow\"\n",
    )
    .unwrap();
    let first = hook("egress-audit", home.path(), &config, &stop("s1"));
    let message = first["systemMessage"].as_str().unwrap_or_default();
    assert!(message.contains("did you mean `egress_mode`"), "{first}");
    assert!(message.contains("\"alow\""), "{first}");
    // The same session: another hook, and the same hook again, stay quiet about it.
    let again = hook("egress-audit", home.path(), &config, &stop("s1"));
    assert!(again.get("systemMessage").is_none(), "{again}");
    let session_start = r#"{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","model":"claude-sonnet-4-5","transcript_path":"/nonexistent","cwd":"/tmp"}"#;
    let other = hook("model-tier-guard", home.path(), &config, session_start);
    assert!(
        !other.to_string().contains("egres_mode"),
        "said twice in one session: {other}"
    );
    // A new session hears it again.
    let next = hook("egress-audit", home.path(), &config, &stop("s2"));
    assert!(next["systemMessage"]
        .as_str()
        .unwrap_or_default()
        .contains("egres_mode"));
    let audit = std::fs::read_to_string(
        home.path()
            .join(".local/state/agent-guards/sessions/s1/audit.jsonl"),
    )
    .unwrap();
    let problems: Vec<Value> = audit
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["kind"] == "config_problem")
        .collect();
    assert_eq!(problems.len(), 1, "{audit}");
    assert_eq!(problems[0]["binary"], "egress-audit");
}
