//! The credential broker (issue 38, C11) in a real Claude Code session: the CLI is launched with
//! the maintainer's GitHub token in `GH_TOKEN` and `CLAUDE_CODE_SHELL_PREFIX` naming
//! tool-containment. The agent's commands hold the session's placeholder (never the token), an
//! allowed push lands with the real token, a write to another owner's repository spoken by hand
//! at the wire is refused in GitHub's shape, and SessionEnd stops the broker. The "GitHub" is the
//! broker tests' loopback one (TLS with its own CA, real bare repositories, checking the token),
//! pinned by the launch environment; the rules come from the loopback rules server.
//!
//! Needs root (the mount namespace that shows the credential files with the placeholder) and
//! the pinned CLI; elsewhere it says why it did not run.
#![cfg(target_os = "linux")]

#[path = "../crates/credential-broker/tests/support/mod.rs"]
#[allow(unused_imports)]
mod support;

use e2e_harness::{bash, bin, text, Outcome, Scenario};
use support::{Scene, REAL};

/// The text of the tool result the model saw after its `n`-th call (0-based).
fn result_of(out: &Outcome, n: usize) -> String {
    let main = out.main_requests();
    let r = main[n + 1].tool_results();
    assert_eq!(r.len(), 1, "one tool result after call {n}");
    r[0].text.clone()
}

const STRANGER: &str = "curl -sS -i --max-time 20 -X POST -H \"Authorization: token $GH_TOKEN\" -d '{\"body\":\"hi\"}' https://api.github.com/repos/stranger/app/issues/1/comments";

#[test]
fn a_real_session_holds_the_placeholder_and_writes_through_the_broker() {
    if !nix_root() {
        hook_replay::skip::cannot_run("e2e_broker", "needs root for the mount namespace");
        return;
    }
    let s = Scene::new();
    let ca = s.dir.path().join("loopback-ca.pem");
    std::fs::write(&ca, &s.github.ca_pem).unwrap();
    let addr = s.github.addr;
    let pins = format!("github.com={addr},api.github.com={addr},uploads.github.com={addr}");
    let scenario = Scenario::new()
        .settings_env(
            "CLAUDE_CODE_SHELL_PREFIX",
            bin("tool-containment").to_str().unwrap(),
        )
        .hook_with_timeout("SessionEnd", None, bin("tool-containment"), &[], 30)
        .cli_env("GH_TOKEN", REAL)
        .cli_env("AGENT_GUARDS_BROKER_UPSTREAM", &pins)
        .cli_env("AGENT_GUARDS_BROKER_UPSTREAM_CA", ca.to_str().unwrap())
        .cli_env("AGENT_GUARDS_GITHUB_API", &s.rules.base())
        .cli_env("GIT_CONFIG_NOSYSTEM", "1")
        .cli_env("GH_WRITE_GUARD_ALLOW_PRIMARY_CHECKOUT", "1");
    // The project: the maintainer's repository, its origin on github.com.
    let project = scenario.project_dir();
    s.maintainers_work_in(&project);
    let out = scenario
        .turn(bash(
            "echo \"token=$GH_TOKEN\"; env | grep -c \"$(printf %s ghp_REAL)\"; cat \"$XDG_STATE_HOME\"/agent-guards/sessions/*/broker/broker.json",
            "look",
        ))
        .turn(bash(
            "git push -q origin HEAD:refs/heads/feature 2>&1; echo \"push $?\"",
            "push",
        ))
        .turn(bash(STRANGER, "comment"))
        .turn(text("done"))
        .run();
    let Some(out) = out else {
        return;
    };
    let look = result_of(&out, 0);
    assert!(look.contains("token=agp_"), "{look}");
    assert!(!look.contains(REAL), "{look}");
    let push = result_of(&out, 1);
    assert!(push.contains("push 0"), "{push}");
    assert!(
        s.github.auths("POST").contains(&"real"),
        "{:?}",
        s.github.seen()
    );
    let refused = result_of(&out, 2);
    assert!(
        refused.contains("403") && refused.contains("agent-guards: G3.other-owner"),
        "{refused}"
    );
    assert!(!refused.contains(REAL));
    // SessionEnd stopped the broker whose record the first command read.
    let record = look
        .lines()
        .find(|l| l.starts_with('{'))
        .expect("the broker's record");
    let v: serde_json::Value = serde_json::from_str(record).unwrap();
    let pid = v["pid"].as_i64().expect("its pid");
    let gone = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        !std::path::Path::new(&format!("/proc/{pid}")).exists()
    });
    assert!(gone, "the broker {pid} still runs after SessionEnd");
}

fn nix_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}
