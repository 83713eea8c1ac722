//! A git remote helper in the exec gate, for real. git runs `git remote-http <remote> <url>`
//! for every push and fetch over HTTP (the push was judged when it ran); a script running the
//! helper itself pushes whatever it writes on the helper's stdin, which no judge can read. So
//! the gate lets a helper through when git runs it (the calling process's program,
//! `/proc/<pid>/exe`, is git or one of its dashed programs) and judges any other as a push of
//! branches decided at run time (G4.run-time-branch on a GitHub repository). The origin is
//! real: `git http-backend` on 127.0.0.1, a GitHub host here (`GH_HOST`).

mod common;
use branch_rules::test_support::TestServer;
use common::*;
use hook_replay::git::Origin;

fn git(dir: &std::path::Path, args: &[&str]) -> String {
    hook_replay::git::git(dir, args).trim().to_string()
}

/// Runs the helper given as arguments (its URL appended) and tells it to push main.
const HELPER: &str = r#"
import subprocess, sys
url = subprocess.run(["git", "remote", "get-url", "origin"], stdout=subprocess.PIPE, text=True).stdout.strip()
try:
    r = subprocess.run(sys.argv[1:] + [url], input=b"push refs/heads/main:refs/heads/main\n\n", stdout=subprocess.DEVNULL)
    print("helper exit", r.returncode)
except PermissionError as e:
    print("helper refused", e.errno)
"#;

/// What git runs its helper for: a push, a fetch, a listing.
const GIT: &str = r#"
import subprocess, sys
r = subprocess.run(["git"] + sys.argv[1:], stdout=subprocess.PIPE, text=True)
print(" ".join(sys.argv[1:]), "exit", r.returncode, r.stdout.strip())
"#;

#[test]
fn a_helper_run_by_a_script_is_refused_and_the_helpers_git_runs_are_not() {
    let Some(mut w) = root_world("helper") else {
        return;
    };
    let server = TestServer::protecting_main().unwrap();
    let origin = Origin::serve();
    let project = w.project();
    origin.checkout_in(&project);
    git(
        &project,
        &["remote", "set-url", "origin", &origin.http_url()],
    );
    w.env("GH_HOST", "127.0.0.1")
        .env("GH_ENTERPRISE_TOKEN", "test-token")
        .env("AGENT_GUARDS_GITHUB_API", &server.base())
        // From a primary checkout: G6 is granted so G4 alone decides.
        .env("GH_WRITE_GUARD_ALLOW_PRIMARY_CHECKOUT", "1");
    w.write("helper.py", HELPER);
    w.write("git.py", GIT);

    w.ran("python3", &["helper.py", "git", "remote-http", "origin"])
        .prints(&["helper refused 1"])
        .says(&[
            "agent-guards: refused git remote-http origin",
            "(G4.run-time-branch",
        ]);
    let exec_path = git(&project, &["--exec-path"]);
    let dashed = format!("{exec_path}/git-remote-http");
    w.ran("python3", &["helper.py", &dashed, "origin"])
        .prints(&["helper refused 1"])
        .says(&[
            "agent-guards: refused git-remote-http origin",
            "(G4.run-time-branch",
        ]);
    assert!(origin.git(&["for-each-ref"]).is_empty(), "nothing landed");
    let r = w.wait_record(|r| r["code"] == "G4.run-time-branch");
    assert!(r.iter().any(|r| r["argv"][1] == "remote-http"), "{r:?}");

    // The helpers git runs itself: a push of an open branch lands, a fetch and a listing work.
    w.ran("python3", &["git.py", "push", "-q", "origin", "feature"])
        .prints(&["push -q origin feature exit 0"]);
    assert_eq!(
        origin.git(&["rev-parse", "feature"]),
        git(&project, &["rev-parse", "feature"])
    );
    w.ran("python3", &["git.py", "fetch", "-q", "origin"])
        .prints(&["fetch -q origin exit 0"]);
    w.ran("python3", &["git.py", "ls-remote", "--heads", "origin"])
        .prints(&["exit 0", "refs/heads/feature"]);
    // A push to main through git is judged by the rules as before (G4.rule: a pull request).
    w.ran("python3", &["git.py", "push", "-q", "origin", "main"])
        .says(&["agent-guards: refused git push -q origin main (G4.rule"]);
    assert!(origin.git(&["for-each-ref", "refs/heads/main"]).is_empty());
}
