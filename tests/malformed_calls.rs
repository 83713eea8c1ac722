//! Payloads shaped like a guarded tool call with the wrong types (issue 47): `tool_input` a
//! string, a Bash `command` that is an array, a Write `file_path` that is an object. Each PreToolUse
//! guard refuses such a call as unreadable (the CLI never sends one; a guard that read it as
//! "nothing to judge" let it through), and a well-formed look-alike stays allowed.

use hook_replay::process::stdout_json;
use hook_replay::sandbox::Sandbox;
use serde_json::{json, Value};

fn pre(tool: &str, input: Value) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "malformed", "cwd": "/tmp",
        "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_1",
        "transcript_path": "/nonexistent"})
}

fn decision(binary: &str, payload: &Value) -> (Value, String) {
    let home = Sandbox::new(e2e_harness::bin(binary));
    let out = home.run(payload.to_string().as_bytes());
    let v = stdout_json(&out);
    let d = v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or("allow")
        .to_string();
    (v, d)
}

#[test]
fn a_guarded_call_with_the_wrong_types_is_refused() {
    let malformed = [
        ("gh-write-guard", pre("Bash", json!("git push origin main"))),
        (
            "gh-write-guard",
            pre("Bash", json!({"command": ["git", "push"]})),
        ),
        ("gh-write-guard", pre("Bash", json!({"cmd": "git push"}))),
        ("model-tier-guard", pre("Agent", json!("use fable"))),
        (
            "model-tier-guard",
            pre("Agent", json!({"prompt": "p", "model": ["fable"]})),
        ),
        (
            "model-tier-guard",
            pre("Bash", json!({"command": {"x": "claude --model fable"}})),
        ),
        (
            "integrity-signals",
            pre("Write", json!({"file_path": ["/x"], "content": "{}"})),
        ),
        ("integrity-signals", pre("Bash", json!({"command": 7}))),
    ];
    // Past the read bound (issue 47: a 7.4 MiB command cost each guard up to 1 GB): refused
    // unread by every PreToolUse guard, with the bound named.
    let huge = format!("echo {}", "x".repeat(1536 * 1024));
    let malformed: Vec<_> = malformed
        .into_iter()
        .chain(
            ["gh-write-guard", "model-tier-guard", "integrity-signals"]
                .map(|b| (b, pre("Bash", json!({ "command": huge })))),
        )
        .collect();
    for (binary, payload) in &malformed {
        let (v, d) = decision(binary, payload);
        assert_eq!(d, "deny", "{binary}: {payload} -> {v}");
        let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or_default();
        assert!(reason.contains("malformed"), "{binary}: {reason}");
    }
    // Well-formed look-alikes.
    for (binary, payload) in [
        (
            "gh-write-guard",
            pre("Bash", json!({"command": "git status"})),
        ),
        (
            "model-tier-guard",
            pre(
                "Agent",
                json!({"prompt": "p", "model": "haiku", "subagent_type": "general-purpose", "description": "d"}),
            ),
        ),
        (
            "integrity-signals",
            pre("Write", json!({"file_path": "/tmp/x.txt", "content": "x"})),
        ),
        (
            "gh-write-guard",
            pre(
                "SomeOtherTool",
                json!("a string input of a tool we do not know"),
            ),
        ),
    ] {
        let (v, d) = decision(binary, &payload);
        assert_eq!(d, "allow", "{binary}: {payload} -> {v}");
    }
}
