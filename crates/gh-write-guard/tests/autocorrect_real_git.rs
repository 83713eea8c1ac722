//! A git subcommand git does not know is not harmless: with `help.autocorrect` set (in the
//! command's `-c`, or in the maintainer's config, a popular tip) git runs the most similar
//! command in its place, in the same process, so no exec of `push` or `reset` is ever seen.
//! `psh` becomes `push`, `rset --hard` becomes `reset --hard`. Such a subcommand, and any
//! subcommand decided at run time, is judged as a push of its arguments (G4) and as mutating
//! (G6). Real git shows the correction; the first line is asked through `RealWorld`.

use hook_replay::git::{git, init_with_commit};

mod offline_support;
use offline_support::denies;

#[test]
fn real_git_runs_a_similar_command_in_place_of_an_unknown_one() {
    let tmp = tempfile::tempdir().unwrap();
    init_with_commit(&tmp.path().join("seed"), &[("f", "kept\n")]);
    git(tmp.path(), &["clone", "-q", "--bare", "seed", "origin.git"]);
    git(tmp.path(), &["clone", "-q", "origin.git", "work"]);
    let work = tmp.path().join("work");
    // `psh` is pushed as `push`.
    let args = [
        "-c",
        "help.autocorrect=1",
        "psh",
        "--dry-run",
        "--porcelain",
    ];
    let out = git(&work, &[&args[..], &["origin", "HEAD:release"]].concat());
    assert!(out.contains(":refs/heads/release\t[new branch]"), "{out}");
    // `rset --hard` throws away an edit, as `reset --hard` does.
    std::fs::write(work.join("f"), "edited\n").unwrap();
    git(
        &work,
        &["-c", "help.autocorrect=immediate", "rset", "-q", "--hard"],
    );
    assert_eq!(std::fs::read_to_string(work.join("f")).unwrap(), "kept\n");
}

#[test]
fn an_unknown_or_run_time_subcommand_is_judged_as_what_it_may_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, wt, home) = (tmp.path().join("repo"), tmp.path().join("wt"), tmp.path());
    init_with_commit(&repo, &[]);
    let url = "https://github.com/acme/widget.git";
    git(&repo, &["remote", "add", "origin", url]);
    git(&repo, &["worktree", "add", "-q", "-b", "feature", "../wt"]);
    let fail_closed = ["G4.fail-closed".to_string()];
    // In a linked worktree (G6 does not apply): a push to main, protected by default.
    for cmd in [
        "git -c help.autocorrect=1 psh origin HEAD:main",
        "git -c help.autocorrect=immediate psh origin HEAD:main",
        "git $SUB origin HEAD:main",
    ] {
        assert_eq!(denies(cmd, &wt, home), fail_closed, "{cmd}");
    }
    // A setting decided at run time may be the one: refused (where the push goes is unknown).
    let cmd = "git -c help.autocorrect=\"$A\" psh origin HEAD:main";
    assert_eq!(denies(cmd, &wt, home), ["G4.unknown-destination"], "{cmd}");
    // Look-alikes: no correction runs, or what runs would not touch a protected branch.
    for cmd in [
        "git psh origin HEAD:main",
        "git -c help.autocorrect=0 psh origin HEAD:main",
        "git -c help.autocorrect=never psh origin HEAD:main",
        "git -c help.autocorrect=1 psh origin HEAD:feature",
        "git $SUB origin HEAD:feature",
        "for c in status log; do git $c; done",
    ] {
        assert_eq!(denies(cmd, &wt, home), Vec::<String>::new(), "{cmd}");
    }
    // The maintainer's config sets it: the same as on the command line.
    git(&repo, &["config", "help.autocorrect", "immediate"]);
    let cmd = "git psh origin HEAD:main";
    assert_eq!(denies(cmd, &wt, home), fail_closed, "{cmd}");
    // In the primary checkout, a correction may be any mutating command (G6).
    let cmd = "git rset --hard";
    assert_eq!(denies(cmd, &repo, home), ["G6.primary-checkout"], "{cmd}");
    git(&repo, &["config", "help.autocorrect", "0"]);
    assert_eq!(denies(cmd, &repo, home), Vec::<String>::new(), "{cmd}");
}
