//! Proves the real-CLI harness (crate `e2e-harness`) with hooks written as tiny test scripts:
//! a tool result reaching the model, a PreToolUse deny, a Stop hook that blocks once, a
//! subagent answered from its own script, a SessionEnd report on stderr, the cargo build of a
//! workspace binary, and the strict check that catches a hook that did not act. Each scenario
//! skips loudly without the CLI, and fails under `CI=true` or `AGENT_GUARDS_E2E_REQUIRED=1`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use e2e_harness::{bash, cli_or_skip, decide, text, tool, Scenario};
use serde_json::json;

const DENY_SCRIPT: &str = r#"#!/bin/bash
cat > /dev/null
printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"e2e-deny: deleting build/ is not allowed here"}}'
"#;

/// Blocks the first stop; lets the stop after a block (`stop_hook_active: true`) through.
const BLOCK_ONCE_SCRIPT: &str = r#"#!/bin/bash
payload=$(cat)
if printf '%s' "$payload" | grep -Eq '"stop_hook_active"[[:space:]]*:[[:space:]]*true'; then exit 0; fi
printf '%s' '{"decision":"block","reason":"e2e-stop: show the check output before you finish"}'
"#;

#[test]
fn bash_tool_result_reaches_the_model() {
    let Some(out) = Scenario::new()
        .turn(bash("echo hi", "Say hi"))
        .turn(decide(|req| {
            let said = req.tool_results().first().map(|r| r.text.clone());
            text(format!(
                "The command printed: {}",
                said.unwrap_or_default().trim()
            ))
        }))
        .run()
    else {
        return;
    };
    let after_tool = out.main_requests()[1];
    let results = after_tool.tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].text.trim(), "hi");
    assert!(!results[0].is_error);
    assert_eq!(out.result.result, "The command printed: hi");
    assert!(out.result.permission_denials.is_empty());
    assert!(!out.result.is_error);
    assert_eq!(out.main_requests().len(), 2);
}

#[test]
fn pre_tool_use_deny_is_enforced_and_its_reason_reaches_the_model() {
    let Some(out) = Scenario::new()
        .file("build/keep.txt", "still here")
        .hook_script("PreToolUse", Some("Bash"), "deny.sh", DENY_SCRIPT)
        .record_hook("PreToolUse", Some("Bash"))
        .turn(bash("rm -rf build", "Clean"))
        .turn(text("Understood, I left build/ alone."))
        .run()
    else {
        return;
    };
    let denials = &out.result.permission_denials;
    assert_eq!(denials.len(), 1, "{denials:?}");
    assert_eq!(denials[0].tool_name, "Bash");
    assert_eq!(denials[0].tool_input["command"], "rm -rf build");

    let results = out.main_requests()[1].tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].is_error);
    assert!(
        results[0]
            .text
            .contains("e2e-deny: deleting build/ is not allowed here"),
        "{results:?}"
    );
    // The hook really stopped the command.
    assert!(out.project_dir().join("build/keep.txt").is_file());
    // The recorder saw the payload the deny hook saw.
    let payloads = out.hook_payloads("PreToolUse");
    assert_eq!(payloads.len(), 1, "{payloads:?}");
    assert_eq!(payloads[0]["tool_name"], "Bash");
    assert_eq!(payloads[0]["tool_input"]["command"], "rm -rf build");
    assert_eq!(out.result.result, "Understood, I left build/ alone.");
}

#[test]
fn stop_hook_blocking_once_feeds_its_reason_back_then_the_session_ends() {
    let Some(out) = Scenario::new()
        .hook_script("Stop", None, "block-once.sh", BLOCK_ONCE_SCRIPT)
        .record_hook("Stop", None)
        .turn(text("All done."))
        .turn(decide(|req| {
            // Answer only if the CLI really fed the hook's reason back.
            if req
                .text_since_last_answer()
                .contains("e2e-stop: show the check output")
            {
                text("Check output: 3 passed.")
            } else {
                text("no stop feedback seen")
            }
        }))
        .run()
    else {
        return;
    };
    out.stop_blocked_once_with("e2e-stop: show the check output before you finish");
    assert_eq!(out.result.result, "Check output: 3 passed.");
    let stops = out.hook_payloads("Stop");
    assert_eq!(stops[0]["last_assistant_message"], "All done.");
    assert_eq!(
        stops[1]["last_assistant_message"],
        "Check output: 3 passed."
    );
}

#[test]
fn subagent_requests_are_answered_from_their_own_script() {
    let Some(out) = Scenario::new()
        .allowed_tools(&["Bash", "Agent"])
        .turn(tool(
            "Agent",
            json!({"description": "Count files", "prompt": "Count the files here.",
                   "subagent_type": "general-purpose", "run_in_background": false}),
        ))
        .subagent_turn(text("There are 0 files."))
        .turn(text("The subagent reported back."))
        .run()
    else {
        return;
    };
    let sub = out.subagent_requests();
    assert_eq!(sub.len(), 1);
    assert!(sub[0].mentions("Count the files here."));
    let results = out.main_requests()[1].tool_results();
    assert!(
        results
            .iter()
            .any(|r| r.text.contains("There are 0 files.")),
        "{results:?}"
    );
}

#[test]
fn a_hook_that_does_not_act_fails_the_strict_run() {
    // The same script shape as the Stop scenario, but the hook lets every stop through: the
    // scripted continuation is never asked for, and the harness must report that.
    let Some(cli) = cli_or_skip() else {
        return;
    };
    let scenario = Scenario::new()
        .hook_script(
            "Stop",
            None,
            "allow.sh",
            "#!/bin/sh\ncat >/dev/null\nexit 0\n",
        )
        .turn(text("All done."))
        .turn(text("never asked for"));
    let failed = catch_unwind(AssertUnwindSafe(|| scenario.run_with(&cli)));
    let message = failed
        .err()
        .and_then(|p| p.downcast_ref::<String>().cloned())
        .expect("a run with an unused turn must fail");
    assert!(
        message.contains("scripted turns unused (main: 1"),
        "{message}"
    );
}

#[test]
fn workspace_binaries_are_built_and_located_through_cargo() {
    let path = e2e_harness::bin("agent-guards");
    assert!(path.is_absolute() && path.is_file(), "{}", path.display());
    assert_eq!(
        path.file_name().and_then(|n| n.to_str()),
        Some("agent-guards")
    );
    // A second ask in the same process is answered from the cache, same path.
    assert_eq!(e2e_harness::bin("agent-guards"), path);
    let ran = std::process::Command::new(&path)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the built binary starts");
    assert!(ran.status.code().is_some(), "exited by a signal: {ran:?}");
}

#[test]
fn session_end_hook_report_appears_on_the_cli_stderr() {
    let Some(out) = Scenario::new()
        .hook_script(
            "SessionEnd",
            None,
            "report.sh",
            "#!/bin/sh\ncat >/dev/null\necho 'e2e-sessionend: 2 stray processes swept' >&2\nexit 2\n",
        )
        .turn(text("Finished."))
        .run()
    else {
        return;
    };
    assert!(
        out.stderr
            .contains("e2e-sessionend: 2 stray processes swept"),
        "stderr: {}",
        out.stderr
    );
    assert!(
        out.stderr.contains("SessionEnd hook ["),
        "stderr: {}",
        out.stderr
    );
    assert_eq!(out.result.result, "Finished.");
}
