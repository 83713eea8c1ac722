//! Pushes judged at exec time on a real repository (a primary checkout whose origin is
//! `github.com/acme/widget`, a linked worktree, a loopback rules API where `main` needs a pull
//! request), through `GitHubWrites` as the supervisor calls it.
//!
//! - The supervisor keeps a repository, and the entries of its config files, from one judged
//!   exec to the next while the files are unchanged (`repo_cache`). A config change between two
//!   execs must reach the next judgement: an entry list that outlived its file would let a push
//!   through an alias or a configured refspec pass.
//! - A push whose destination the command text cannot show: in `git checkout -b fix
//!   origin/main && git -c push.default=upstream push` git pushes `fix` to its upstream,
//!   `main`, which the first line can only call a branch decided at run time
//!   (gh-write-guard `tests/g4_upstream_after_switch.rs`). By the time the push is exec'd the
//!   branch and its upstream exist, and the gate reads them.

use branch_rules::test_support::TestServer;
use second_line::judge::{ExecFacts, ExecJudge, ExecVerdict};
use second_line::rules_adapter::{GitHubWrites, LaunchContext};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn git(dir: &Path, args: &[&str]) {
    hook_replay::git::git(dir, args);
}

/// The repository, its worktree (`wt`, made by `worktree add` with `worktree_args`), the home
/// and a judge over the loopback rules API.
struct Fixture {
    _tmp: tempfile::TempDir,
    _server: TestServer,
    home: PathBuf,
    main: PathBuf,
    wt: PathBuf,
    judge: GitHubWrites,
}

fn fixture(worktree_args: &[&str]) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let (home, main, wt) = (
        tmp.path().join("home"),
        tmp.path().join("main"),
        tmp.path().join("wt"),
    );
    std::fs::create_dir_all(&home).unwrap();
    hook_replay::git::init_with_commit(&main, &[("f", "a\n")]);
    let origin = "https://github.com/acme/widget.git";
    git(&main, &["remote", "add", "origin", origin]);
    // The remote-tracking branches a fetch would have made.
    for b in ["main", "docs"] {
        git(
            &main,
            &["update-ref", &format!("refs/remotes/origin/{b}"), "HEAD"],
        );
    }
    let mut add = vec!["worktree", "add", "-q"];
    add.extend_from_slice(worktree_args);
    add.push(wt.to_str().unwrap());
    git(&main, &add);
    let server = TestServer::protecting_main().unwrap();
    let env = [
        ("HOME", home.display().to_string()),
        ("GH_TOKEN", "test-token".into()),
        ("AGENT_GUARDS_GITHUB_API", server.base()),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
    ];
    let judge = GitHubWrites::new(LaunchContext::new(
        env.iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        Some(home.join(".local/state/agent-guards")),
        Some("judged-repository".into()),
    ));
    Fixture {
        _tmp: tmp,
        _server: server,
        home,
        main,
        wt,
        judge,
    }
}

impl Fixture {
    /// The code of the deny for `argv` run in the worktree; `None`: allowed.
    fn refused(&self, argv: &[&str]) -> Option<String> {
        let facts = ExecFacts {
            program: format!("/usr/bin/{}", argv[0]),
            argv: argv.iter().map(|s| s.to_string()).collect(),
            cwd: self.wt.clone(),
            env: vec![
                ("PATH".into(), "/usr/bin:/bin".into()),
                ("HOME".into(), self.home.display().to_string()),
            ],
            caller: None,
        };
        match self.judge.judge(&facts) {
            ExecVerdict::Deny { code, .. } => Some(code),
            ExecVerdict::Allow => None,
        }
    }

    /// Files changed within a second of an opening are not kept: let the repository settle,
    /// then judge twice so the second judgement is answered from the kept repository.
    fn settle_and_keep(&self, argv: &[&str]) -> Option<String> {
        std::thread::sleep(Duration::from_millis(1100));
        let first = self.refused(argv);
        assert_eq!(self.refused(argv), first, "kept: the same verdict");
        first
    }
}

#[test]
fn a_config_change_between_two_execs_reaches_the_next_judgement() {
    // A linked worktree on `feature`, where G6 lets work happen.
    let f = fixture(&["-b", "feature"]);
    // An alias added after the repository was kept: `git p origin main` is then a push to a
    // branch that needs a pull request.
    let p = ["git", "p", "origin", "main"];
    let before = f.settle_and_keep(&p);
    assert_ne!(before.as_deref(), Some("G4.rule"), "{before:?}");
    git(&f.main, &["config", "alias.p", "push"]);
    assert_eq!(
        f.refused(&p).as_deref(),
        Some("G4.rule"),
        "the new alias is read"
    );

    // `git push` on `feature` goes to `main` once `remote.origin.push` says so.
    let push = ["git", "push"];
    git(&f.main, &["config", "push.default", "current"]);
    assert_eq!(f.settle_and_keep(&push), None, "feature is not protected");
    git(&f.main, &["config", "remote.origin.push", "HEAD:main"]);
    assert_eq!(
        f.refused(&push).as_deref(),
        Some("G4.rule"),
        "the configured refspec is read"
    );

    // And taken away again: the entries follow the file both ways.
    git(&f.main, &["config", "--unset", "remote.origin.push"]);
    assert_eq!(f.settle_and_keep(&push), None);
}

#[test]
fn a_push_to_the_upstream_of_a_branch_made_in_the_same_command_is_judged_on_the_real_upstream() {
    let f = fixture(&["--detach"]);
    let upstream_push = ["git", "-c", "push.default=upstream", "push"];
    // What the command's first half did by the time its push is exec'd (real git: `fix ->
    // main`).
    git(&f.wt, &["checkout", "-q", "-b", "fix", "origin/main"]);
    assert_eq!(
        f.refused(&upstream_push).as_deref(),
        Some("G4.rule"),
        "fix's upstream is main"
    );
    // `current` pushes fix to fix (`simple`, git's default, refuses an upstream of another
    // name itself).
    assert_eq!(
        f.refused(&["git", "-c", "push.default=current", "push"]),
        None
    );
    // The look-alike that must pass: a branch whose upstream is an unprotected branch.
    git(&f.wt, &["checkout", "-q", "-b", "docs-fix", "origin/docs"]);
    assert_eq!(f.refused(&upstream_push), None);
}
