//! Never fail open (issue 47), through the real Claude Code CLI: the three ways an agent command
//! made the guards answer nothing (which the CLI treats as "allow"), each followed by the act the
//! guard exists to refuse.
//!
//! (a) A held lock: the agent's command holds `flock -x` on the session's audit log through a
//!     read-only handle, then commits in a primary checkout: G6 still refuses it, at once.
//! (b) A lost taint: the agent holds the ledger's lock while a network fetch lands (the taint
//!     cannot go into the ledger), then dispatches a subagent above the main model: M5 refuses.
//! (c) A deep script: a push four scripts deep (`bash a.sh` → b → c → d) is refused as past the
//!     read bound (G0.past-bound), not allowed as unseen.

use e2e_harness::{bin, decide, text, tool, Scenario};
use serde_json::json;

/// Bash that holds an exclusive lock on the session file `name` (which the session's hooks have
/// made by then) for 30 s, in the background: a read-only handle is enough for `flock`, so the
/// command writes nothing the guards protect (integrity-signals refuses a write there, I3). It
/// says `held` only when a second `flock -n` finds the lock taken.
fn hold(name: &str) -> String {
    format!(
        "d=\"${{XDG_STATE_HOME:-$HOME/.local/state}}/agent-guards/sessions/$CLAUDE_CODE_SESSION_ID\"; \
         (flock -x 9; sleep 30) 9<\"$d/{name}\" >/dev/null 2>&1 & sleep 0.5; \
         if flock -n \"$d/{name}\" true; then echo free; else echo held; fi"
    )
}

/// A final turn that repeats the tool result it got (where a deny reason arrives).
fn echo_result() -> e2e_harness::Turn {
    decide(|req| {
        let r = &req.tool_results()[0];
        text(format!("error={} {}", r.is_error, r.text))
    })
}

#[test]
fn a_held_audit_log_does_not_let_a_commit_in_a_primary_checkout_through() {
    let s = Scenario::new()
        .hook("PreToolUse", Some("Bash"), bin("gh-write-guard"), &[])
        .hook("PreToolUse", None, bin("integrity-signals"), &[])
        .allowed_tools(&["Bash"]);
    hook_replay::git::init_with_commit(&s.project_dir(), &[("f", "x\n")]);
    std::fs::write(s.project_dir().join("f"), "changed\n").unwrap();
    let head = hook_replay::git::git(&s.project_dir(), &["rev-parse", "HEAD"]);
    let Some(out) = s
        .turn(tool("Bash", json!({"command": hold("audit.jsonl")})))
        .turn(decide(|req| {
            let r = &req.tool_results()[0];
            assert!(r.text.contains("held"), "the lock is held: {}", r.text);
            tool("Bash", json!({"command": "git commit -qam wip"}))
        }))
        .turn(echo_result())
        .run()
    else {
        return;
    };
    let result = &out.main_requests()[2].tool_results()[0];
    assert!(result.is_error, "refused: {}", result.text);
    assert!(result.text.contains("G6."), "{}", result.text);
    assert_eq!(
        hook_replay::git::git(&out.project_dir(), &["rev-parse", "HEAD"]),
        head,
        "nothing was committed"
    );
}

const REVIEWER: &str =
    "---\nname: reviewer\ndescription: Reviews changes.\n---\nReview the change.\n";

#[test]
fn a_taint_the_held_ledger_could_not_take_still_refuses_escalation() {
    let g = bin("model-tier-guard");
    let Some(out) = Scenario::new()
        .hook("PreToolUse", Some("Agent|Task"), &g, &[])
        .hook("PreToolUse", Some("Bash"), &g, &[])
        .hook("SessionStart", None, &g, &[])
        .hook("PostToolUse", Some("Agent|Task|WebFetch|Bash"), &g, &[])
        .cli_args(&["--model", "sonnet"])
        // Granted: escalation after taint is refused anyway (M5).
        .cli_env("MODEL_TIER_GUARD_ALLOW", "1")
        .allowed_tools(&["Bash", "Agent"])
        .file(".claude/agents/reviewer.md", REVIEWER)
        .turn(tool("Bash", json!({"command": hold("ledger.lock")})))
        .turn(decide(|req| {
            let r = &req.tool_results()[0];
            assert!(r.text.contains("held"), "the lock is held: {}", r.text);
            tool(
                "Bash",
                json!({"command": "curl -s --max-time 2 http://127.0.0.1:9/readme || echo fetched"}),
            )
        }))
        .turn(tool(
            "Agent",
            json!({"description": "Review", "prompt": "Review the change.",
                "subagent_type": "reviewer", "model": "opus"}),
        ))
        .turn(echo_result())
        .run()
    else {
        return;
    };
    let result = &out.main_requests()[3].tool_results()[0];
    assert!(result.is_error, "refused: {}", result.text);
    assert!(result.text.contains("M5."), "{}", result.text);
    assert!(out.subagent_requests().is_empty(), "no subagent ran");
    assert!(
        out.session_dir().join("taint-unrecorded").exists(),
        "the marker stands in for the ledger"
    );
}

#[test]
fn a_push_four_scripts_deep_is_refused_as_unknown() {
    let Some(out) = Scenario::new()
        .hook("PreToolUse", Some("Bash"), bin("gh-write-guard"), &[])
        .allowed_tools(&["Bash"])
        .file("a.sh", "bash b.sh\n")
        .file("b.sh", "bash c.sh\n")
        .file("c.sh", "bash d.sh\n")
        .file("d.sh", "git push origin HEAD:main\n")
        .turn(tool("Bash", json!({"command": "bash a.sh"})))
        .turn(echo_result())
        .run()
    else {
        return;
    };
    let result = &out.main_requests()[1].tool_results()[0];
    assert!(result.is_error, "refused: {}", result.text);
    assert!(result.text.contains("G0.past-bound"), "{}", result.text);
}
