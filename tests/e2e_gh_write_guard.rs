//! gh-write-guard driven by the real Claude Code CLI (issue 4): the scripted model runs
//! `git push origin main` in a checkout whose origin is a repository on a GitHub host.
//!
//! The host is real end to end: `git daemon` on 127.0.0.1 serves a bare repository (receive-pack
//! enabled), origin is `git://127.0.0.1:PORT/acme/widget.git`, and the hook's environment names
//! 127.0.0.1 as an enterprise GitHub host (`GH_HOST`) whose API is our loopback rules server
//! (`AGENT_GUARDS_GITHUB_API`). So the guard reads origin with git2, classifies the push URL as
//! `acme/widget` on a GitHub host, asks the live rules endpoint over HTTP, and — when it allows —
//! git really pushes to the bare repository. (A `url.<local>.insteadOf` rewrite would make the
//! destination a local path, which G4 rightly does not treat as a GitHub write, so it could not
//! show a deny.)

use branch_rules::test_support::TestServer;
use e2e_harness::{bin, decide, text, tool, Outcome, Scenario, Turn};
use hook_replay::git::Origin;
use serde_json::json;

/// A bare `acme/widget.git` behind git daemon, and a checkout of it in the scenario's project.
fn setup(scenario: &Scenario) -> Origin {
    let origin = Origin::serve();
    origin.checkout_in(&scenario.project_dir());
    origin
}

fn scenario(server: &TestServer) -> Scenario {
    Scenario::new()
        .hook("PreToolUse", Some("Bash"), bin("gh-write-guard"), &[])
        .cli_env("GH_HOST", "127.0.0.1")
        .cli_env("GH_ENTERPRISE_TOKEN", "test-token")
        .cli_env("AGENT_GUARDS_GITHUB_API", &server.base())
        .cli_env("GIT_CONFIG_NOSYSTEM", "1")
        // The push runs from a primary checkout: G6 is granted so G4 alone decides.
        .cli_env("GH_WRITE_GUARD_ALLOW_PRIMARY_CHECKOUT", "1")
}

const RULES_PATH: &str = "/repos/acme/widget/rules/branches/main";

/// Runs `git push origin main` in the scenario, then `after` answers the push's result.
fn push_main(s: Scenario, after: Turn) -> Option<Outcome> {
    s.turn(tool("Bash", json!({"command": "git push origin main"})))
        .turn(after)
        .run()
}

#[test]
fn push_to_main_is_denied_when_the_rules_require_pull_requests() {
    let server =
        TestServer::with_rules(RULES_PATH, &["pull_request", "required_status_checks"]).unwrap();
    let s = scenario(&server);
    let origin = setup(&s);
    let refused = decide(|req| {
        let r = &req.tool_results()[0];
        assert!(r.is_error, "the push was refused: {}", r.text);
        text(format!("refused: {}", r.text))
    });
    let Some(out) = push_main(s, refused) else {
        return;
    };
    assert_eq!(out.only_denial().tool_name, "Bash");
    let main = out.main_requests();
    let result = &main[1].tool_results()[0].text;
    assert!(
        result.contains("G4.rule:") && result.contains("pull_request"),
        "our G4 reason reached the model: {result}"
    );
    assert_eq!(server.count(RULES_PATH), 1, "the live endpoint was asked");
    let refs = origin.git(&["for-each-ref"]);
    assert!(refs.is_empty(), "nothing landed: {refs}");
}

#[test]
fn push_to_main_is_allowed_when_the_rules_say_nothing_and_lands() {
    let server = TestServer::with_rules(RULES_PATH, &[]).unwrap();
    let s = scenario(&server);
    let origin = setup(&s);
    let head = hook_replay::git::git(&s.project_dir(), &["rev-parse", "HEAD"]);
    let pushed = decide(|req| {
        let r = &req.tool_results()[0];
        assert!(!r.is_error, "the push ran: {}", r.text);
        text("pushed")
    });
    let Some(out) = push_main(s, pushed) else {
        return;
    };
    assert!(
        out.result.permission_denials.is_empty(),
        "{:?}",
        out.result.raw
    );
    assert_eq!(server.count(RULES_PATH), 1, "the live endpoint was asked");
    assert_eq!(
        origin.git(&["rev-parse", "main"]),
        head.trim(),
        "the push landed"
    );
}

/// Issue 19: the guards agree. G4 refuses the push and tells the agent to hand the maintainer the
/// command; the final message that does so (naming the refusal, leaving the push to the
/// maintainer) is not blocked by egress-audit, because the refusal is in the session's audit log.
/// The same message with nothing refused is blocked (`tests/binary.rs` in egress-audit).
/// The agent's final message after the refused push.
const REPORT: &str =
    "The push to main was refused by G4: the branch rules require a pull request. \
                      I did not retry it. Please run `git push origin main` yourself if you want \
                      it on main directly, or merge a pull request.";

#[test]
fn a_push_refused_by_g4_then_reported_and_left_to_the_maintainer_is_not_blocked() {
    let server = TestServer::with_rules(RULES_PATH, &["pull_request"]).unwrap();
    let s = scenario(&server)
        .hook("Stop", None, bin("egress-audit"), &[])
        .record_hook("Stop", None);
    let _origin = setup(&s);
    let reported = decide(|req| {
        let r = &req.tool_results()[0];
        assert!(
            r.is_error && r.text.contains("G4.rule:"),
            "refused: {}",
            r.text
        );
        text(REPORT)
    });
    let Some(out) = push_main(s, reported) else {
        return;
    };
    assert_eq!(out.only_denial().tool_name, "Bash");
    assert_eq!(
        out.main_requests().len(),
        2,
        "the push and the report: no Stop block"
    );
    assert_eq!(out.result.result, REPORT);
    let stops = out.hook_payloads("Stop");
    assert_eq!(stops.len(), 1, "one stop, not continued");
    let records = out.audit_records();
    let deny = records
        .iter()
        .find(|r| r["binary"] == "gh-write-guard")
        .unwrap();
    assert_eq!(deny["decision"], "deny");
    assert_eq!(deny["requirement"], "G4");
    let stop = records
        .iter()
        .find(|r| r["binary"] == "egress-audit")
        .unwrap();
    assert_eq!(stop["decision"], "allow", "{stop}");
    assert_eq!(stop["recorded_refusals"]["count"], 1);
}
