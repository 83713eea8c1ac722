//! tool-containment and stray-process-sweep driven by the real Claude Code CLI (issue 6): with
//! `CLAUDE_CODE_SHELL_PREFIX` set in the project's settings, the agent's commands run in the
//! session's cgroup; at session end the group's leftovers are stopped and reported, and the sweep
//! reports what it saw. Needs root and cgroup v1/v2 with pids+memory (as on CI); elsewhere the
//! containment assertions are skipped loudly.

mod common;
use common::{kill_new, processes_running};
use e2e_harness::{bin, decide, text, tool, Scenario};
use serde_json::json;

/// A duration no other test uses, so the leftover is ours to find.
const SLEEP: &str = "sleep 347";

fn backend_works() -> bool {
    let out = std::process::Command::new(bin("tool-containment"))
        .arg("--report")
        .output()
        .expect("tool-containment --report runs");
    let report = String::from_utf8_lossy(&out.stdout).to_lowercase();
    out.status.success() && report.contains("cgroup") && !report.contains("backend: none")
}

#[test]
fn agent_commands_run_in_the_session_group_and_leftovers_are_stopped_at_session_end() {
    if !backend_works() {
        hook_replay::skip::cannot_run(
            "e2e_containment",
            "no containment backend on this host (tool-containment --report)",
        );
        return;
    }
    let before = processes_running(SLEEP);
    let prefix = bin("tool-containment");
    let Some(out) = Scenario::new()
        .settings_env("CLAUDE_CODE_SHELL_PREFIX", prefix.to_str().unwrap())
        .hook_with_timeout("SessionEnd", None, bin("tool-containment"), &[], 30)
        .hook_with_timeout("SessionEnd", None, bin("stray-process-sweep"), &[], 30)
        .turn(tool("Bash", json!({"command": format!("(nohup {SLEEP} >/dev/null 2>&1 &) ; echo started"), "description": "start a leftover"})))
        .turn(tool("Bash", json!({"command": "cat /proc/self/cgroup", "description": "show the cgroup"})))
        .turn(decide(|req| {
            let seen = req.tool_results().first().map(|r| r.text.clone()).unwrap_or_default();
            text(format!("The command ran in:\n{seen}"))
        }))
        .run()
    else {
        return;
    };
    let session = &out.result.session_id;
    let cgroup_text = out.result.result.clone();
    assert!(
        cgroup_text.contains(&format!("agent-guards/session-{session}/cmd-")),
        "the agent's command ran in the session's group: {cgroup_text}"
    );
    // At session end the leftover was stopped (the CLI waits for SessionEnd hooks).
    let leftovers = kill_new(SLEEP, &before);
    assert!(
        leftovers.is_empty(),
        "tool-containment stopped the leftover: {leftovers:?}"
    );
    assert!(
        out.stderr.contains("sleep 347"),
        "the SessionEnd report names the leftover: {}",
        out.stderr
    );
    // No group of the session is left behind.
    for controller in ["pids", "memory"] {
        let mut found = Vec::new();
        let root = std::path::Path::new("/sys/fs/cgroup").join(controller);
        find_dirs(&root, &format!("session-{session}"), 0, &mut found);
        assert!(found.is_empty(), "groups left behind: {found:?}");
    }
}

fn find_dirs(dir: &std::path::Path, name: &str, depth: usize, out: &mut Vec<std::path::PathBuf>) {
    if depth > 6 {
        return;
    }
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            if e.file_name().to_string_lossy() == name {
                out.push(p.clone());
            }
            find_dirs(&p, name, depth + 1, out);
        }
    }
}
