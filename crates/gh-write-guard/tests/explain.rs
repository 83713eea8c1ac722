//! `gh-write-guard explain` as a maintainer runs it: the real binary, a real repository with a
//! persisted alias, text and JSON output, exit codes, and no writes (no audit record, no change
//! to the repository).

use hook_replay::git::git;
use hook_replay::sandbox::Sandbox;

fn explain(home: &Sandbox, args: &[&str]) -> (i32, String) {
    let out = home
        .command()
        .arg("explain")
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("run gh-write-guard");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A sandboxed HOME for the binary, and a temporary directory for repositories.
fn sandbox() -> (Sandbox, tempfile::TempDir) {
    (
        Sandbox::new(env!("CARGO_BIN_EXE_gh-write-guard")),
        tempfile::tempdir().unwrap(),
    )
}

/// A new repository (branch `main`) under `tmp`.
fn new_repo(tmp: &tempfile::TempDir) -> std::path::PathBuf {
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    repo
}

#[test]
fn explains_g6_and_g7_with_their_facts() {
    let (home, tmp) = sandbox();
    let repo = new_repo(&tmp);
    git(&repo, &["commit", "-q", "--allow-empty", "-m", "one"]);
    git(&repo, &["config", "alias.wipe", "reset --hard"]);
    let head_before = std::fs::read_to_string(repo.join(".git/HEAD")).unwrap();
    let cwd = repo.to_str().unwrap();

    let cmd = "git status && git wipe; timeout -s 0 60 bash -c 'while :; do sleep 1; done'";
    let (code, text) = explain(&home, &[cmd, "--cwd", cwd]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("aliases: wipe"), "{text}");
    assert!(text.contains("repository: Primary"), "{text}");
    assert!(text.contains("G6: deny"), "{text}");
    assert!(text.contains("G7: deny"), "{text}");
    assert!(text.contains("signal is 0"), "{text}");
    assert!(text.contains("deny G6.primary-checkout: "), "{text}");
    assert!(text.contains("deny G7.unbounded-wait: "), "{text}");
    assert!(
        text.contains("decision: deny: G6.primary-checkout: "),
        "{text}"
    );

    let (code, out) = explain(&home, &["--json", "--cwd", cwd, "git checkout main"]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["decision"], "allow");
    assert_eq!(v["cwd_repo_kind"], "primary");
    assert_eq!(v["g6"][0]["repo_kind"], "primary");
    assert_eq!(v["g6"][0]["mutating"], serde_json::Value::Null);
    assert_eq!(v["requirements"]["G6"]["verdict"], "allow");

    let (code, out) = explain(
        &home,
        &[
            "--json",
            "--cwd",
            cwd,
            "timeout 60 bash -c 'while :; do sleep 1; done'",
        ],
    );
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["g7"][0]["loop"]["bound"]["timeout"], "timeout 60");

    // Read-only: no audit record or state, the repository untouched.
    assert!(!home.state_home().exists());
    assert_eq!(
        std::fs::read_to_string(repo.join(".git/HEAD")).unwrap(),
        head_before
    );

    let (code, _) = explain(&home, &["--bogus"]);
    assert_eq!(code, 2);
}

/// Without `--live` no rules lookup is made, so none can have timed out: the reason says the
/// rules were not fetched (issue 20).
#[test]
fn offline_explain_says_the_rules_were_not_fetched_not_that_they_timed_out() {
    let (home, tmp) = sandbox();
    let repo = new_repo(&tmp);
    git(
        &repo,
        &["remote", "add", "origin", "https://github.com/o/r.git"],
    );
    let cwd = repo.to_str().unwrap();
    let (code, text) = explain(&home, &["git push --force origin main", "--cwd", cwd]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("G4: deny"), "{text}");
    assert!(text.contains("deny G4.fail-closed: "), "{text}");
    assert!(text.contains("not fetched: explain runs offline"), "{text}");
    assert!(
        !text.contains("deadline") && !text.contains("Timeout"),
        "{text}"
    );
}
