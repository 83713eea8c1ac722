//! The supervisor keeps a repository, and the entries of its config files, from one judged exec
//! to the next while the files are unchanged (`repo_cache`). A config change between two execs
//! must reach the next judgement: a cached entry list that outlived its file would let a push
//! through an alias or a redirected remote pass.

use branch_rules::test_support::TestServer;
use second_line::judge::{ExecFacts, ExecJudge, ExecVerdict};
use second_line::rules_adapter::{GitHubWrites, LaunchContext};
use std::path::Path;
use std::time::Duration;

fn git(dir: &Path, args: &[&str]) {
    hook_replay::git::git(dir, args);
}

fn facts(argv: &[&str], cwd: &Path, home: &Path) -> ExecFacts {
    ExecFacts {
        program: format!("/usr/bin/{}", argv[0]),
        argv: argv.iter().map(|s| s.to_string()).collect(),
        cwd: cwd.to_path_buf(),
        env: vec![
            ("PATH".into(), "/usr/bin:/bin".into()),
            ("HOME".into(), home.display().to_string()),
        ],
    }
}

fn refused(judge: &GitHubWrites, facts: &ExecFacts) -> Option<String> {
    match judge.judge(facts) {
        ExecVerdict::Deny { code, .. } => Some(code),
        ExecVerdict::Allow => None,
    }
}

/// Files changed within a second of an opening are not kept: let the repository settle, then
/// judge twice so the second judgement is answered from the kept repository and entries.
fn settle_and_keep(judge: &GitHubWrites, facts: &ExecFacts) -> Option<String> {
    std::thread::sleep(Duration::from_millis(1100));
    let first = refused(judge, facts);
    assert_eq!(refused(judge, facts), first, "kept: the same verdict");
    first
}

#[test]
fn a_config_change_between_two_execs_reaches_the_next_judgement() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, main, repo) = (
        tmp.path().join("home"),
        tmp.path().join("main"),
        tmp.path().join("wt"),
    );
    std::fs::create_dir_all(&home).unwrap();
    hook_replay::git::init_with_commit(&main, &[("f", "a\n")]);
    git(
        &main,
        &[
            "remote",
            "add",
            "origin",
            "https://github.com/acme/widget.git",
        ],
    );
    // A linked worktree on `feature`, where G6 lets work happen.
    let wt = repo.to_str().unwrap();
    git(&main, &["worktree", "add", "-q", "-b", "feature", wt]);
    let server = TestServer::protecting_main().unwrap();
    let env = [
        ("HOME", home.display().to_string()),
        ("GH_TOKEN", "test-token".into()),
        ("AGENT_GUARDS_GITHUB_API", server.base()),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
    ];
    let launch = LaunchContext::new(
        env.iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        Some(home.join(".local/state/agent-guards")),
        Some("kept-config".into()),
    );
    let judge = GitHubWrites::new(launch);

    // An alias added after the repository was kept: `git p origin main` is then a push to a
    // branch that needs a pull request.
    let p = facts(&["git", "p", "origin", "main"], &repo, &home);
    let before = settle_and_keep(&judge, &p);
    assert_ne!(before.as_deref(), Some("G4.rule"), "{before:?}");
    git(&repo, &["config", "alias.p", "push"]);
    assert_eq!(
        refused(&judge, &p).as_deref(),
        Some("G4.rule"),
        "the new alias is read"
    );

    // The default push's remote redirected by the config: `git push` on `feature` goes to
    // `main` once `remote.origin.push` says so.
    let push = facts(&["git", "push"], &repo, &home);
    git(&repo, &["config", "push.default", "current"]);
    assert_eq!(
        settle_and_keep(&judge, &push),
        None,
        "feature is not protected"
    );
    git(&repo, &["config", "remote.origin.push", "HEAD:main"]);
    assert_eq!(
        refused(&judge, &push).as_deref(),
        Some("G4.rule"),
        "the configured refspec is read"
    );

    // And taken away again: the entries follow the file both ways.
    git(&repo, &["config", "--unset", "remote.origin.push"]);
    assert_eq!(settle_and_keep(&judge, &push), None);
}
