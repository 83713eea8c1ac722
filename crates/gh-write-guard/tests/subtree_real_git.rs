//! `git subtree push <repository> [+][<rev>:]<ref>` as real git-subtree reads it: a leading `+`
//! is dropped (`+main` pushes main, unforced) and `<ref>` becomes `refs/heads/<ref>` whatever it
//! is (`refs/heads/x` is a branch named `refs/heads/x`). The first line reads the same branch
//! (command-effects' `git_subtree::push_target`): `+main` is refused where main is protected by
//! default, `refs/heads/main` is not main.

use hook_replay::git::{git, init_with_commit};
use std::path::{Path, PathBuf};

mod offline_support;
use offline_support::{denies, github_worktree};

/// git-subtree ships in git's contrib: in git's exec path, or a distribution's git-core.
fn subtree_dir() -> Option<PathBuf> {
    let exec_path = git(Path::new("/"), &["--exec-path"]).trim().to_string();
    [
        exec_path.as_str(),
        "/usr/lib/git-core",
        "/usr/libexec/git-core",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|d| d.join("git-subtree").is_file())
}

#[test]
fn a_subtree_push_goes_to_the_branch_git_subtree_names() {
    let Some(dir) = subtree_dir() else {
        hook_replay::skip::cannot_run("subtree_real_git", "no git-subtree on this host");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    std::fs::create_dir_all(work.join("docs")).unwrap();
    init_with_commit(&work, &[("docs/a", "a\n")]);
    git(tmp.path(), &["init", "-q", "--bare", "-b", "main", "o.git"]);
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for refspec in ["+main", "refs/heads/x"] {
        let st = hook_replay::git::command(&work, &["subtree", "push", "-P", "docs", "../o.git"])
            .arg(refspec)
            .env("PATH", &path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(st.success(), "git subtree push {refspec}");
    }
    let refs = git(
        &tmp.path().join("o.git"),
        &["for-each-ref", "--format=%(refname)"],
    );
    assert_eq!(
        refs.lines().collect::<Vec<_>>(),
        vec!["refs/heads/main", "refs/heads/refs/heads/x"]
    );

    let wt = github_worktree(&work);
    assert_eq!(
        denies("git subtree push -P docs origin +main", &wt, tmp.path()),
        vec!["G4.fail-closed".to_string()]
    );
    assert_eq!(
        denies(
            "git subtree push -P docs origin refs/heads/main",
            &wt,
            tmp.path()
        ),
        Vec::<String>::new()
    );
}
