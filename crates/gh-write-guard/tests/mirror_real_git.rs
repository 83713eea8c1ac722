//! A mirror push (`--mirror`, `remote.<r>.mirror`) deletes every branch of the remote that has
//! no local branch of its name, besides forcing the local ones. Real git shows the deletion;
//! the first line counts as deleted the remote's branches its remote-tracking refs record and
//! the protected-by-default names, all missing locally, and judges each deletion by G4.

use hook_replay::git::{git, init_with_commit};

mod offline_support;
use offline_support::denies_protecting;

#[test]
fn a_mirror_push_deletes_the_remotes_branches_that_are_not_local() {
    let tmp = tempfile::tempdir().unwrap();
    init_with_commit(&tmp.path().join("seed"), &[]);
    git(&tmp.path().join("seed"), &["branch", "release/1"]);
    git(tmp.path(), &["clone", "-q", "--bare", "seed", "origin.git"]);
    git(tmp.path(), &["clone", "-q", "origin.git", "work"]);
    let work = tmp.path().join("work");
    git(&work, &["checkout", "-q", "-b", "feature"]);
    git(&work, &["branch", "-q", "-D", "main"]);
    // Real git: main and release/1 are deleted on the remote, feature is created.
    let out = git(
        &work,
        &["push", "--mirror", "--dry-run", "--porcelain", "origin"],
    );
    for line in [
        "-\t:refs/heads/main\t[deleted]",
        "-\t:refs/heads/release/1\t[deleted]",
    ] {
        assert!(out.lines().any(|l| l == line), "{line:?} in {out}");
    }
    // The same clone, its origin on GitHub, judged from a linked worktree (G6 does not apply).
    let url = "https://github.com/acme/widget.git";
    git(&work, &["remote", "set-url", "origin", url]);
    git(&work, &["worktree", "add", "-q", "-b", "wt", "../wt"]);
    let wt = tmp.path().join("wt");
    let judge = |cmd: &str, protected: &[&str]| denies_protecting(cmd, &wt, tmp.path(), protected);
    let refusals = |n: usize| vec!["G4.fail-closed".to_string(); n];
    for cmd in [
        "git push --mirror origin",
        "git -c remote.origin.mirror=true push",
    ] {
        // main, master and develop: protected by default, not local (one refusal each).
        assert_eq!(judge(cmd, &[]), refusals(3), "{cmd}");
    }
    // With those local (force-pushed, their rules unknown: refused all the same), release/1
    // is deleted, as its remote-tracking branch shows: refused once the config protects it.
    for b in ["main", "master", "develop"] {
        git(&work, &["branch", "-q", b]);
    }
    let cmd = "git push --mirror origin";
    assert_eq!(judge(cmd, &[]), refusals(3), "{cmd}");
    assert_eq!(judge(cmd, &["release/*"]), refusals(4), "{cmd}");
    // Look-alikes: a dry run; every local branch but the protected ones pushed, none deleted.
    let cmd = "git push --mirror --dry-run origin";
    assert_eq!(judge(cmd, &["release/*"]), refusals(0), "{cmd}");
    for b in ["main", "master", "develop"] {
        git(&work, &["branch", "-q", "-D", b]);
    }
    let cmd = "git push --all origin";
    assert_eq!(judge(cmd, &["release/*"]), refusals(0), "{cmd}");
}

#[test]
fn prune_deletes_the_remotes_branches_only_when_a_namespace_is_pushed() {
    let tmp = tempfile::tempdir().unwrap();
    init_with_commit(&tmp.path().join("seed"), &[]);
    git(tmp.path(), &["clone", "-q", "--bare", "seed", "origin.git"]);
    git(tmp.path(), &["clone", "-q", "origin.git", "work"]);
    let work = tmp.path().join("work");
    git(&work, &["checkout", "-q", "-b", "feature"]);
    git(&work, &["branch", "-q", "-D", "main"]);
    // (arguments after `git`, whether real git deletes main)
    let cases: [(&[&str], bool); 5] = [
        (&["push", "--all", "--prune", "origin"], true),
        (
            &["-c", "push.default=matching", "push", "--prune", "origin"],
            true,
        ),
        (
            &["push", "--prune", "origin", "refs/heads/*:refs/heads/*"],
            true,
        ),
        (&["push", "--prune", "origin", "feature"], false),
        (&["push", "--all", "origin"], false),
    ];
    let deleted = "-\t:refs/heads/main\t[deleted]";
    for (args, deletes) in cases {
        let dry = [args, &["--dry-run", "--porcelain"]].concat();
        let out = git(&work, &dry);
        assert_eq!(
            out.lines().any(|l| l == deleted),
            deletes,
            "git {args:?}: {out}"
        );
    }
    let url = "https://github.com/acme/widget.git";
    git(&work, &["remote", "set-url", "origin", url]);
    git(&work, &["worktree", "add", "-q", "-b", "wt", "../wt"]);
    let wt = tmp.path().join("wt");
    for (args, deletes) in cases {
        let cmd = format!("git {}", shell_words::join(args));
        let found = denies_protecting(&cmd, &wt, tmp.path(), &[]);
        // main, master and develop are not local: each deletion refused (rules unknown).
        let want = if deletes { 3 } else { 0 };
        assert_eq!(found, vec!["G4.fail-closed".to_string(); want], "{cmd}");
    }
}
