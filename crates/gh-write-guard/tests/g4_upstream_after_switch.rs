//! G4 on a push with no refspec after a branch switch in the same command, when `push.default`
//! is `upstream` (or its old name `tracking`): git pushes the new branch to that branch's own
//! upstream, which a branch made from a remote-tracking branch gets only when the command runs
//! (`git checkout -b fix origin/main` tracks `origin/main`). The first line cannot name that
//! branch, so it is judged as a branch decided at run time; `current` and the default `simple`
//! push the branch under its own name.

use hook_replay::git::{git, init_with_commit};

mod offline_support;
use offline_support::denies;
use std::path::Path;

/// The repository's origin (no network: the rules server below is a closed port).
const ORIGIN: &str = "https://github.com/acme/widget.git";

/// The G4 denies of `cmd` (the repository is a primary checkout: G6 refuses the switch).
fn g4_denies(cmd: &str, repo: &Path, home: &Path) -> Vec<String> {
    let found = denies(cmd, repo, home);
    found.into_iter().filter(|c| c.starts_with("G4.")).collect()
}

#[test]
fn real_git_pushes_a_new_branch_to_its_upstream_under_push_default_upstream() {
    let tmp = tempfile::tempdir().unwrap();
    let (origin, work) = (tmp.path().join("origin.git"), tmp.path().join("work"));
    init_with_commit(&tmp.path().join("seed"), &[]);
    git(tmp.path(), &["clone", "-q", "--bare", "seed", "origin.git"]);
    git(
        tmp.path(),
        &["clone", "-q", origin.to_str().unwrap(), "work"],
    );
    git(&work, &["checkout", "-q", "-b", "fix", "origin/main"]);
    let pushed = |mode: &str| {
        let setting = format!("push.default={mode}");
        let args = ["-c", &setting, "push", "--dry-run", "--porcelain"];
        let out = git(&work, &args);
        out.lines()
            .find_map(|l| l.split('\t').nth(1).map(str::to_string))
            .unwrap_or_default()
    };
    assert_eq!(pushed("upstream"), "refs/heads/fix:refs/heads/main");
    assert_eq!(pushed("current"), "refs/heads/fix:refs/heads/fix");
}

#[test]
fn the_first_line_does_not_name_the_upstream_a_switch_in_the_command_gives() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    init_with_commit(&repo, &[]);
    git(&repo, &["remote", "add", "origin", ORIGIN]);
    let home = tmp.path();
    let switch = "git checkout -b fix origin/main && ";
    let run_time = |cmd: &str| {
        let found = g4_denies(cmd, &repo, home);
        assert_eq!(found, ["G4.run-time-branch"], "{cmd}");
    };
    for mode in ["upstream", "tracking", "UPSTREAM"] {
        run_time(&format!("{switch}git -c push.default={mode} push"));
    }
    // The same mode from the repository's config.
    git(&repo, &["config", "push.default", "upstream"]);
    run_time(&format!("{switch}git push"));
    git(&repo, &["config", "--unset", "push.default"]);
    // Without a switch in the command, the branch's configured upstream is read as before
    // (main: protected by default, its rules unknown here).
    git(&repo, &["checkout", "-q", "-b", "feature"]);
    git(&repo, &["config", "branch.feature.remote", "origin"]);
    git(
        &repo,
        &["config", "branch.feature.merge", "refs/heads/main"],
    );
    let cmd = "git -c push.default=upstream push";
    assert_eq!(g4_denies(cmd, &repo, home), ["G4.fail-closed"], "{cmd}");
    git(&repo, &["checkout", "-q", "main"]);
    // Look-alikes: the branch under its own name (not protected, rules unknown: allowed).
    for cmd in [
        format!("{switch}git push"),
        format!("{switch}git -c push.default=current push"),
        format!("{switch}git -c push.default=simple push"),
        format!("{switch}git -c push.default=upstream push origin fix"),
    ] {
        assert_eq!(g4_denies(&cmd, &repo, home), Vec::<String>::new(), "{cmd}");
    }
}
