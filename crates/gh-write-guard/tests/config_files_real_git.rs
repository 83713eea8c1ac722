//! Config files a command names are read by git as its own settings: real git with `-c
//! include.path=<file>` (`remote.origin.push = HEAD:main` there) pushes main, with
//! `GIT_CONFIG_GLOBAL=<file>` (an alias `p = push origin HEAD:main`) `git p` pushes main, and
//! with another `HOME` whose `.gitconfig` sets `core.hooksPath` a commit skips the hook, unless
//! `GIT_CONFIG_GLOBAL` names the global file in its place (`/dev/null`: empty). The first line reads the same files and
//! refuses those shapes where main is protected by default (command-effects'
//! `git_config_files`).

use hook_replay::git::{command, git, init_with_commit};
use std::path::Path;

mod offline_support;
use offline_support::{denies, github_worktree};

/// The refs `git <args>` would push from `dir` (its dry run), with `env` set.
fn would_push(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let mut c = command(dir, args);
    c.envs(env.iter().copied());
    hook_replay::git::checked(&mut c, args)
}

#[test]
fn the_settings_of_a_named_config_file_are_the_commands_own() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    git(t, &["init", "-q", "--bare", "-b", "main", "o.git"]);
    let work = t.join("work");
    init_with_commit(&work, &[]);
    git(&work, &["checkout", "-q", "-b", "feature"]);
    git(&work, &["remote", "add", "origin", "../o.git"]);
    std::fs::write(
        t.join("push.cfg"),
        "[remote \"origin\"]\n\tpush = HEAD:main\n",
    )
    .unwrap();
    std::fs::write(
        t.join("alias.cfg"),
        "[alias]\n\tp = push origin HEAD:main\n",
    )
    .unwrap();
    std::fs::create_dir_all(t.join("other")).unwrap();
    std::fs::write(
        t.join("other/.gitconfig"),
        "[core]\n\thooksPath = /dev/null\n",
    )
    .unwrap();
    let include = format!("include.path={}", t.join("push.cfg").display());
    let global = t.join("alias.cfg").display().to_string();
    let home = t.join("other").display().to_string();

    // Real git: each file's settings apply.
    let dry = ["--dry-run", "--porcelain"];
    let out = would_push(&work, &[&["-c", &include, "push"][..], &dry].concat(), &[]);
    assert!(out.contains("refs/heads/main"), "{out}");
    let out = would_push(
        &work,
        &[&["p"][..], &dry].concat(),
        &[("GIT_CONFIG_GLOBAL", &global)],
    );
    assert!(out.contains("refs/heads/main"), "{out}");
    let hook = work.join(".git/hooks/pre-commit");
    std::fs::write(&hook, "#!/bin/sh\nexit 1\n").unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // `command` sets GIT_CONFIG_GLOBAL=/dev/null, which git reads in place of HOME's file.
    let commit = |env: &[(&str, &str)], global: bool| {
        let mut c = command(&work, &["commit", "-q", "--allow-empty", "-m", "x"]);
        if !global {
            c.env_remove("GIT_CONFIG_GLOBAL");
        }
        c.envs(env.iter().copied());
        c.status().unwrap().success()
    };
    assert!(
        commit(&[("HOME", &home)], false),
        "the other home's hooksPath skips the hook"
    );
    assert!(
        !commit(&[("HOME", &home)], true),
        "with GIT_CONFIG_GLOBAL the home's file is not read: the hook runs and refuses"
    );

    // The first line, from a linked worktree of the same repository with its origin on GitHub.
    let wt = github_worktree(&work);
    let judge = |cmd: &str| denies(cmd, &wt, t);
    assert_eq!(
        judge(&format!("git -c {include} push")),
        vec!["G4.fail-closed"]
    );
    assert_eq!(
        judge(&format!("GIT_CONFIG_GLOBAL={global} git p")),
        vec!["G4.fail-closed"]
    );
    assert_eq!(
        judge(&format!("HOME={home} git commit -m x")),
        vec!["G4.hooks-bypass"]
    );
    for fine in [
        "GIT_CONFIG_GLOBAL=/dev/null git commit -m x",
        &format!("GIT_CONFIG_GLOBAL=/dev/null HOME={home} git commit -m x"),
        "git push",
        &format!("HOME={} git commit -m x", t.join("nothing").display()),
    ] {
        assert_eq!(judge(fine), Vec::<String>::new(), "{fine}");
    }
}
