//! The real binary as a process, against real git repositories in temp dirs and a real HTTP
//! server on 127.0.0.1 standing in for GitHub's rules endpoint: G4 verdicts, fail-closed when
//! the server is down, hangs or answers 500, the rules cache (one request for two pushes, ETag
//! revalidation after the TTL), injected faults, the self-test.

use branch_rules::test_support::{Reply, TestServer};
use hook_replay::git::git;
use hook_replay::sandbox::{self, Sandbox};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_gh-write-guard");
const MAIN_RULES: &str = "/repos/acme/widget/rules/branches/main";

/// A temp HOME with a real repository whose origin is `github.com/acme/widget`.
struct World {
    home: Sandbox,
    repo: PathBuf,
}

impl World {
    fn new() -> World {
        let home = Sandbox::new(EXE);
        let repo = home.path().join("widget");
        std::fs::create_dir_all(&repo).unwrap();
        git(&repo, &["init", "-q", "-b", "main"]);
        git(&repo, &["commit", "-q", "--allow-empty", "-m", "init"]);
        git(
            &repo,
            &[
                "remote",
                "add",
                "origin",
                "https://github.com/acme/widget.git",
            ],
        );
        git(&repo, &["branch", "feature/x"]);
        World { home, repo }
    }

    fn config(&self, text: &str) {
        self.home.write_config(text);
    }

    fn command(&self, api: &str, extra: &[(&str, &str)]) -> Command {
        let mut c = self.home.command();
        c.env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GH_TOKEN", "test-token")
            // These pushes run from a primary checkout; G6 would deny them (push is on its
            // mutating list), so it is granted here and G4 alone decides.
            .env("GH_WRITE_GUARD_ALLOW_PRIMARY_CHECKOUT", "1")
            .env("AGENT_GUARDS_GITHUB_API", api);
        for (k, v) in extra {
            c.env(k, v);
        }
        c
    }

    fn hook(&self, api: &str, command: &str, extra: &[(&str, &str)]) -> (Output, Duration) {
        let payload = json!({
            "hook_event_name": "PreToolUse",
            "session_id": "sess-1",
            "tool_use_id": "tu-1",
            "cwd": self.repo,
            "tool_name": "Bash",
            "tool_input": {"command": command},
        });
        run(self.command(api, extra), payload.to_string().as_bytes())
    }

    fn ledger(&self) -> PathBuf {
        let sessions = self.home.state_home().join("agent-guards/sessions");
        let dir = std::fs::read_dir(&sessions)
            .expect("a session dir")
            .flatten()
            .next()
            .expect("one session")
            .path();
        dir.join("ledger.json")
    }
}

fn run(mut c: Command, stdin: &[u8]) -> (Output, Duration) {
    let started = Instant::now();
    let out = sandbox::run(&mut c, stdin);
    (out, started.elapsed())
}

fn decision(out: &Output) -> (String, String) {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let h = &v["hookSpecificOutput"];
    (
        h["permissionDecision"]
            .as_str()
            .unwrap_or("allow")
            .to_string(),
        h["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_string(),
    )
}

#[test]
fn push_to_a_branch_that_requires_pull_requests_is_denied() {
    let w = World::new();
    let server = TestServer::start().unwrap();
    server.route(MAIN_RULES, Reply::rules(&["pull_request", "deletion"]));
    let (out, _) = w.hook(&server.base(), "git push origin main", &[]);
    let (d, reason) = decision(&out);
    assert_eq!(d, "deny");
    assert!(
        reason.starts_with("G4.rule: ") && reason.contains("pull_request"),
        "{reason}"
    );
    assert!(reason.chars().count() <= 400);
    // The token went to our server, and the audit log has the evidence.
    let req = &server.requests()[0];
    assert_eq!(req.header("authorization"), Some("Bearer test-token"));
    let audit = std::fs::read_to_string(w.ledger().with_file_name("audit.jsonl")).unwrap();
    assert!(
        audit.contains("\"requirement\":\"G4\"")
            && audit.contains("\"code\":\"G4.rule\"")
            && audit.contains("git push origin main"),
        "{audit}"
    );
    // A branch without rules is allowed.
    let (out, _) = w.hook(&server.base(), "git push origin feature/x", &[]);
    assert_eq!(decision(&out).0, "allow");
}

fn fail_closed(api: &str, w: &World) {
    let (out, took) = w.hook(api, "git push origin main", &[]);
    let (d, reason) = decision(&out);
    assert_eq!(d, "deny", "{reason}");
    assert!(reason.contains("could not be read"), "{reason}");
    // Within the hook's deadline (2 s by config below) with room for process start.
    assert!(took < Duration::from_secs(4), "took {took:?}");
    let (out, _) = w.hook(api, "git push origin feature/x", &[]);
    assert_eq!(decision(&out).0, "allow");
}

#[test]
fn server_down_fails_closed_for_main_only() {
    let w = World::new();
    let base = {
        let s = TestServer::start().unwrap();
        s.base()
    };
    fail_closed(&base, &w);
}

#[test]
fn server_500_fails_closed_for_main_only() {
    let w = World::new();
    let server = TestServer::start().unwrap();
    server.route(MAIN_RULES, Reply::error(500, "boom"));
    server.route(
        "/repos/acme/widget/rules/branches/feature%2Fx",
        Reply::error(500, "boom"),
    );
    fail_closed(&server.base(), &w);
}

#[test]
fn hanging_server_fails_closed_within_the_deadline() {
    let w = World::new();
    w.config("rules_timeout_ms = 400\nhook_deadline_ms = 2000\n");
    let server = TestServer::start().unwrap();
    server.route(MAIN_RULES, Reply::Hang);
    server.route("/repos/acme/widget/rules/branches/feature%2Fx", Reply::Hang);
    fail_closed(&server.base(), &w);
}

#[test]
fn two_pushes_make_one_request_and_a_stale_entry_revalidates_with_its_etag() {
    let w = World::new();
    let server = TestServer::start().unwrap();
    server.route_rules_with_etag(MAIN_RULES, &["non_fast_forward"], "\"v1\"");
    for _ in 0..2 {
        let (out, _) = w.hook(&server.base(), "git push origin main", &[]);
        assert_eq!(decision(&out).0, "allow");
    }
    assert_eq!(server.count(MAIN_RULES), 1);
    // Age the cached entry past the TTL, as time would.
    let ledger = w.ledger();
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&ledger).unwrap()).unwrap();
    for (_, entry) in v["gh_write_guard_rules"]
        .as_object_mut()
        .expect("rules cache")
        .iter_mut()
    {
        entry["fetched_at_ms"] = json!(0);
    }
    std::fs::write(&ledger, v.to_string()).unwrap();
    let (out, _) = w.hook(&server.base(), "git push --force origin main", &[]);
    let (d, reason) = decision(&out);
    assert_eq!(
        d, "deny",
        "the cached non_fast_forward rule applies to a force push"
    );
    assert!(reason.contains("non_fast_forward"), "{reason}");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[1].header("if-none-match"), Some("\"v1\""));
}

#[test]
fn injected_panic_and_hang_are_denials() {
    let w = World::new();
    let server = TestServer::start().unwrap();
    for fault in ["panic", "hang"] {
        if fault == "hang" {
            w.config("hook_deadline_ms = 500\n");
        }
        let (out, took) = w.hook(
            &server.base(),
            "ls -la",
            &[("AGENT_GUARDS_INJECT_FAULT", fault)],
        );
        let (d, reason) = decision(&out);
        assert_eq!(d, "deny", "{fault}");
        assert!(
            reason.starts_with("G0.unjudged: could not be judged"),
            "{fault}: {reason}"
        );
        // The watchdog answers, not the hang (a generous bound).
        assert!(
            fault != "hang" || took < Duration::from_secs(3),
            "took {took:?}"
        );
    }
    // The audit record carries the sub-code (written by the failure answer).
    let audit = std::fs::read_to_string(w.ledger().with_file_name("audit.jsonl")).unwrap();
    assert_eq!(
        audit.matches("\"code\":\"G0.unjudged\"").count(),
        2,
        "{audit}"
    );
}

#[test]
fn other_tools_and_reads_pass_silently() {
    let w = World::new();
    let payload = json!({"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "/x"}, "cwd": w.repo});
    let (out, _) = run(
        w.command("http://127.0.0.1:9", &[]),
        payload.to_string().as_bytes(),
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "{}");
    let (out, _) = w.hook("http://127.0.0.1:9", "gh pr comment 5 --body ok", &[]);
    assert_eq!(decision(&out).0, "allow");
    // Another owner, through the real origin read with git2.
    let (out, _) = w.hook(
        "http://127.0.0.1:9",
        "gh pr comment 5 --body ok -R stranger/x",
        &[],
    );
    let (d, reason) = decision(&out);
    assert_eq!(d, "deny");
    assert!(reason.starts_with("G3.other-owner: "), "{reason}");
}

#[test]
fn selftest_replays_the_embedded_fixtures() {
    let w = World::new();
    let mut c = w.command("http://127.0.0.1:9", &[]);
    let out = c.arg("--selftest").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let record: serde_json::Value = serde_json::from_str(&text).expect("one JSON record");
    assert_eq!(record["status"], "pass", "{text}");
    assert!(record["case_count"].as_u64().unwrap() >= 100);
    assert_eq!(record["failed"], serde_json::json!([]));
    hook_replay::process::assert_flags(EXE, "--selftest", "gh-write-guard ", &["--bogus"]);
}

#[test]
fn pushes_resolve_through_real_remotes() {
    let w = World::new();
    let server = TestServer::start().unwrap();
    let upstream_main = "/repos/acme/upstream-repo/rules/branches/main";
    server.route(upstream_main, Reply::rules(&["update"]));
    git(
        &w.repo,
        &[
            "remote",
            "add",
            "upstream",
            "git@github.com:acme/upstream-repo.git",
        ],
    );
    // The rules are asked of the remote's own repository, not origin's.
    let (out, _) = w.hook(&server.base(), "git push upstream HEAD:main", &[]);
    let (d, reason) = decision(&out);
    assert_eq!(d, "deny", "{reason}");
    assert!(
        reason.contains("acme/upstream-repo") && reason.contains("`update`"),
        "{reason}"
    );
    assert_eq!(server.count(upstream_main), 1);
    assert_eq!(server.count(MAIN_RULES), 0);

    // A push URL that names another owner is a G3 target even though the fetch URL is ours.
    git(
        &w.repo,
        &[
            "remote",
            "set-url",
            "--push",
            "upstream",
            "https://github.com/stranger/fork.git",
        ],
    );
    let (out, _) = w.hook(&server.base(), "git push upstream feature/x", &[]);
    let (d, reason) = decision(&out);
    assert_eq!(d, "deny");
    assert!(
        reason.starts_with("G3.other-owner: ") && reason.contains("stranger/fork"),
        "{reason}"
    );

    // The command's own `-c` settings are read last, as git reads them.
    let (out, _) = w.hook(
        &server.base(),
        "git -c url.https://github.com/stranger/.pushInsteadOf=https://github.com/acme/ push origin feature/x",
        &[],
    );
    let (d, reason) = decision(&out);
    assert_eq!(d, "deny");
    assert!(
        reason.starts_with("G3.other-owner: ") && reason.contains("stranger/widget"),
        "{reason}"
    );

    // pushInsteadOf sends origin's pushes to a local mirror: not a GitHub write.
    let mirror = w.home.path().join("mirror.git");
    git(
        w.home.path(),
        &["init", "-q", "--bare", &mirror.display().to_string()],
    );
    git(
        &w.repo,
        &[
            "config",
            &format!("url.{}.pushInsteadOf", mirror.display()),
            "https://github.com/acme/widget.git",
        ],
    );
    server.route(MAIN_RULES, Reply::rules(&["pull_request"]));
    let (out, _) = w.hook(&server.base(), "git push origin main", &[]);
    assert_eq!(decision(&out).0, "allow");
    assert_eq!(
        server.count(MAIN_RULES),
        0,
        "no lookup for a local destination"
    );
    git(
        &w.repo,
        &[
            "config",
            "--unset",
            &format!("url.{}.pushInsteadOf", mirror.display()),
        ],
    );

    // No refspec: push.default=upstream sends feature/x to its upstream branch, main.
    git(&w.repo, &["checkout", "-q", "feature/x"]);
    git(&w.repo, &["config", "branch.feature/x.remote", "origin"]);
    git(
        &w.repo,
        &["config", "branch.feature/x.merge", "refs/heads/main"],
    );
    git(&w.repo, &["config", "push.default", "upstream"]);
    let (out, _) = w.hook(&server.base(), "git push", &[]);
    let (d, reason) = decision(&out);
    assert_eq!(d, "deny", "{reason}");
    assert!(
        reason.contains("main") && reason.contains("pull_request"),
        "{reason}"
    );
    assert_eq!(server.count(MAIN_RULES), 1);

    // No remote-tracking branch: the push may create release/2, which `creation` restricts.
    let release = "/repos/acme/widget/rules/branches/release%2F2";
    server.route(release, Reply::rules(&["creation"]));
    let (out, _) = w.hook(&server.base(), "git push origin HEAD:release/2", &[]);
    let (d, reason) = decision(&out);
    assert_eq!(d, "deny", "{reason}");
    assert!(reason.contains("`creation`"), "{reason}");
    git(
        &w.repo,
        &["update-ref", "refs/remotes/origin/release/2", "HEAD"],
    );
    let (out, _) = w.hook(&server.base(), "git push origin HEAD:release/2", &[]);
    assert_eq!(decision(&out).0, "allow", "an update of an existing branch");

    // An enterprise host named by GH_HOST, with its token.
    git(
        &w.repo,
        &[
            "remote",
            "add",
            "ghe",
            "https://ghe.example.com/corp/app.git",
        ],
    );
    server.route(
        "/repos/corp/app/rules/branches/release",
        Reply::rules(&["pull_request"]),
    );
    let (out, _) = w.hook(
        &server.base(),
        "git push ghe HEAD:release",
        &[
            ("GH_HOST", "ghe.example.com"),
            ("GH_ENTERPRISE_TOKEN", "ghe-token"),
            ("GH_WRITE_GUARD_ALLOW", "corp/*"),
        ],
    );
    let (d, reason) = decision(&out);
    assert_eq!(d, "deny", "{reason}");
    assert!(reason.contains("corp/app"), "{reason}");
    let req = server.requests().into_iter().last().unwrap();
    assert_eq!(req.header("authorization"), Some("Bearer ghe-token"));
}

/// Issue 16: `git push origin HEAD` / `git push -u origin HEAD` from a feature branch push that
/// branch (HEAD read with git2 in the repository), not "a branch decided at run time"; the
/// same from `main` is still judged as a push to main.
#[test]
fn push_of_head_from_a_feature_branch_is_that_branch() {
    let w = World::new();
    let server = TestServer::start().unwrap();
    server.route(MAIN_RULES, Reply::rules(&["pull_request"]));
    git(&w.repo, &["checkout", "-q", "feature/x"]);
    for cmd in [
        "git push origin HEAD",
        "git push -u origin HEAD",
        "git push origin @",
    ] {
        let (out, _) = w.hook(&server.base(), cmd, &[]);
        let (d, reason) = decision(&out);
        assert_eq!(d, "allow", "{cmd}: {reason}");
    }
    git(&w.repo, &["checkout", "-q", "main"]);
    let (out, _) = w.hook(&server.base(), "git push -u origin HEAD", &[]);
    let (d, reason) = decision(&out);
    assert_eq!(d, "deny", "{reason}");
    assert!(
        reason.contains("main") && reason.contains("pull_request"),
        "{reason}"
    );
}

#[test]
fn the_hook_records_the_sessions_project_folder_for_the_exec_gate() {
    let w = World::new();
    let project = w.repo.display().to_string();
    let (out, _) = w.hook(
        "http://127.0.0.1:9",
        "git status",
        &[("CLAUDE_PROJECT_DIR", &project)],
    );
    assert_eq!(decision(&out).0, "allow");
    let recorded = w.ledger().with_file_name("project_dir");
    assert_eq!(std::fs::read_to_string(&recorded).unwrap(), project);
    // Without the variable nothing is recorded or changed.
    let (out, _) = w.hook("http://127.0.0.1:9", "git status", &[]);
    assert_eq!(decision(&out).0, "allow");
    assert_eq!(std::fs::read_to_string(&recorded).unwrap(), project);
}
