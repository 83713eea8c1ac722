//! The installed suite end to end (issue 9): the installer registers every hook in a temp HOME's
//! `~/.claude/settings.json`, then one scripted session through the real Claude Code CLI exercises
//! each registered hook: a denied push (gh-write-guard), a denied subagent on the maintainer-only
//! tier (model-tier-guard), a contained command (tool-containment as the shell prefix), a blocked
//! final message (egress-audit), and the session-end reports (tool-containment,
//! stray-process-sweep, integrity-signals).
//!
//! The installer runs as `./install.sh --from <the test build>`: the script exactly as a maintainer
//! runs it, minus its release build (which would cost minutes per test run).

mod common;
use common::{assert_succeeded, built_bins, kill_new, processes_running};
use e2e_harness::{decide, text, tool, Scenario};
use hook_replay::git::git;
use serde_json::json;
use std::process::Command;

/// A duration no other test uses, so the leftover is ours to find.
const SLEEP: &str = "sleep 353";

#[test]
fn every_registered_hook_acts_in_one_installed_session() {
    let from = built_bins();
    let scenario = Scenario::new()
        .allowed_tools(&["Bash", "Agent"])
        // Rules cannot be read (nothing listens there): a push to main fails closed (G4).
        .cli_env("AGENT_GUARDS_GITHUB_API", "http://127.0.0.1:9")
        .turn(tool("Bash", json!({"command": "git push origin main", "description": "push"})))
        .turn(tool(
            "Agent",
            json!({"description": "Review", "prompt": "Review the change.", "subagent_type": "general-purpose", "model": "fable", "run_in_background": false}),
        ))
        .turn(tool("Bash", json!({"command": format!("(nohup {SLEEP} >/dev/null 2>&1 &); cat /proc/self/cgroup"), "description": "contained"})))
        .turn(text("Done. You can run make smoke to verify."))
        .turn(decide(|req| {
            assert!(req.text_since_last_answer().contains("E5."), "egress-audit blocked the stop");
            text("I ran make smoke; it passed with exit code 0.")
        }));
    let home = scenario.home_dir();
    let project = scenario.project_dir();
    git(&project, &["init", "-q", "-b", "main"]);
    git(
        &project,
        &[
            "remote",
            "add",
            "origin",
            "https://github.com/acme/widget.git",
        ],
    );
    let install = Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/install.sh"))
        .arg("--from")
        .arg(&from)
        .env("HOME", &home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("AGENT_GUARDS_CONFIG")
        .output()
        .unwrap();
    assert_succeeded(&install);
    let before = processes_running(SLEEP);
    let Some(out) = scenario.run() else { return };
    let stray = kill_new(SLEEP, &before);
    assert!(
        stray.is_empty(),
        "the leftover {SLEEP} was not stopped at session end: {stray:?}"
    );

    // gh-write-guard and model-tier-guard denied their calls.
    let denied: Vec<&str> = out
        .result
        .permission_denials
        .iter()
        .map(|d| d.tool_name.as_str())
        .collect();
    assert!(denied.contains(&"Bash"), "the push was denied: {denied:?}");
    assert!(
        denied.iter().any(|t| *t == "Task" || *t == "Agent"),
        "the fable subagent was denied: {denied:?}"
    );
    let main = out.main_requests();
    let push_result = &main[1].tool_results()[0];
    assert!(
        push_result.is_error && push_result.text.contains("G4"),
        "{}",
        push_result.text
    );
    let agent_result = &main[2].tool_results()[0];
    assert!(
        agent_result.is_error && agent_result.text.contains("M2"),
        "{}",
        agent_result.text
    );
    assert!(out.subagent_requests().is_empty(), "no subagent ran");
    // tool-containment placed the agent's command in the session's group.
    let session = &out.result.session_id;
    let contained = &main[3].tool_results()[0].text;
    assert!(
        contained.contains(&format!("agent-guards/session-{session}/cmd-")),
        "{contained}"
    );
    // egress-audit blocked the first final message; the second ended the session.
    assert_eq!(
        out.result.result,
        "I ran make smoke; it passed with exit code 0."
    );
    // Session-end reports reached the user on stderr: containment named what it stopped.
    assert!(
        out.stderr.contains(SLEEP),
        "session-end report: {}",
        out.stderr
    );
    // The audit log holds every binary's records for this session.
    let records = out.audit_records();
    for binary in ["gh-write-guard", "model-tier-guard", "egress-audit"] {
        assert!(
            records.iter().any(|r| r.to_string().contains(binary)),
            "no audit record from {binary}"
        );
    }
}
