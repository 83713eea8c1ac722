//! A `git push` exec judged from its argv (gh-write-guard's `exec_argv::judge_push`) against
//! the same exec read as a command line by G2–G6, on a real repository whose GitHub rules are
//! served on 127.0.0.1: the same refusals, codes and reasons.

use super::tests::{by_all_of_g2_to_g6, by_gate, checkout_and_worktree, git_exec, launch};
use super::*;

/// The argv after `git`, split at spaces; its environment; its cwd; refused with?
type Case<'a> = (String, &'a [(&'a str, &'a str)], &'a str, Option<&'a str>);

#[test]
fn a_git_push_judged_from_its_argv_gets_what_g2_to_g6_give_its_command_line() {
    let (_repo, primary, linked) = checkout_and_worktree();
    let server = branch_rules::test_support::TestServer::protecting_main().unwrap();
    let base = server.base();
    let (p, l) = (primary.as_str(), linked.as_str());
    // A folder in no repository.
    let elsewhere = tempfile::tempdir().unwrap();
    let e = elsewhere.path().to_str().unwrap();
    let run_time = Some("G4.run-time-branch");
    let (rule, hooks, owner) = (
        Some("G4.rule"),
        Some("G4.hooks-bypass"),
        Some("G3.other-owner"),
    );
    // The primary checkout's branch (`git init`'s default, `init.defaultBranch` if set): a
    // push of it meets `main`'s rule, fails closed for another protected-by-default name.
    let head = std::process::Command::new("git")
        .args(["-C", p, "symbolic-ref", "--short", "HEAD"])
        .output()
        .unwrap();
    let closed = match String::from_utf8_lossy(&head.stdout).trim() {
        "main" => rule,
        "master" | "develop" => Some("G4.fail-closed"),
        _ => None,
    };
    let cfg_hooks = [("GIT_CONFIG_PARAMETERS", "'core.hookspath'='/dev/null'")];
    let cfg_stranger = [(
        "GIT_CONFIG_PARAMETERS",
        "'remote.origin.url'='https://github.com/stranger/w.git'",
    )];
    let hooks_by_env = [
        ("GIT_CONFIG_COUNT", "1"),
        ("GIT_CONFIG_KEY_0", "core.hooksPath"),
        ("GIT_CONFIG_VALUE_0", "/x"),
    ];
    let cases: Vec<Case> = vec![
        // The branch rules: main needs a pull request, feature has none.
        ("push origin HEAD:main".into(), &[], l, rule),
        ("push origin HEAD:main".into(), &[], p, rule),
        ("push -q origin HEAD".into(), &[], l, None),
        ("push origin HEAD:feature".into(), &[], l, None),
        ("push origin +HEAD:feature".into(), &[], l, None),
        ("push origin HEAD:refs/heads/main".into(), &[], l, rule),
        ("push origin topic:main".into(), &[], l, rule),
        ("push origin HEAD:main HEAD:feature".into(), &[], l, rule),
        (
            "push --force-with-lease origin HEAD:main".into(),
            &[],
            l,
            rule,
        ),
        // A dry run updates nothing.
        ("push -n origin HEAD:main".into(), &[], l, None),
        ("push --dry-run origin HEAD:main".into(), &[], l, None),
        ("push --dry origin HEAD:main".into(), &[], l, None),
        // Where the push acts: `-C`, `--git-dir`, the repository's URL spelled out.
        (format!("-C {p} push origin HEAD:main"), &[], l, rule),
        ("-C .. push origin HEAD:main".into(), &[], l, rule),
        (format!("-C {p} push origin HEAD:main"), &[], e, rule),
        (
            format!("--git-dir={p}/.git push origin HEAD:main"),
            &[],
            l,
            rule,
        ),
        (
            "push https://github.com/acme/widget.git HEAD:main".into(),
            &[],
            l,
            rule,
        ),
        (
            "push git@github.com:acme/widget.git HEAD:main".into(),
            &[],
            p,
            rule,
        ),
        (
            "push https://github.com/acme/widget HEAD:feature".into(),
            &[],
            l,
            None,
        ),
        // In no repository, `origin` names nothing git can find: main fails closed.
        (
            "push origin HEAD:main".into(),
            &[],
            e,
            Some("G4.unknown-destination"),
        ),
        ("push origin HEAD:feature".into(), &[], e, None),
        // Another owner's repository (G3), by URL or by a remote set on the command line.
        (
            "push https://github.com/stranger/widget.git HEAD:feature".into(),
            &[],
            l,
            owner,
        ),
        (
            "-c remote.origin.url=https://github.com/stranger/w.git push origin HEAD:feature"
                .into(),
            &[],
            l,
            owner,
        ),
        (
            "-c remote.origin.pushurl=https://github.com/acme/widget.git push origin HEAD:main"
                .into(),
            &[],
            l,
            rule,
        ),
        // A push that is not GitHub's.
        (
            format!("push file://{p}/.git HEAD:refs/heads/copy"),
            &[],
            l,
            None,
        ),
        // The hooks a push runs (G4's hook check), in every spelling.
        ("push --no-verify origin HEAD:feature".into(), &[], l, hooks),
        ("push --no-verif origin HEAD:feature".into(), &[], l, hooks),
        (
            "push --no-verify --verify origin HEAD:feature".into(),
            &[],
            l,
            None,
        ),
        (
            "-c core.hooksPath=/dev/null push origin HEAD:feature".into(),
            &[],
            l,
            hooks,
        ),
        ("push origin HEAD:feature".into(), &hooks_by_env, l, hooks),
        // Settings handed over in GIT_CONFIG_PARAMETERS (as `git -c` exports them).
        ("push origin HEAD:feature".into(), &cfg_hooks, l, hooks),
        ("push origin HEAD:feature".into(), &cfg_stranger, l, owner),
        // Where the push goes, named by an option; what it pushes, by an option or config. The
        // primary checkout's branch (`master` with `git init`'s default) has no rules
        // served: it fails closed. A deletion is no update: `pull_request` allows it,
        // as GitHub does. With no upstream, `push.default=simple` pushes nothing.
        (
            "push --repo=https://github.com/stranger/w.git HEAD:feature".into(),
            &[],
            l,
            owner,
        ),
        (
            "push --repo https://github.com/acme/widget.git HEAD:main".into(),
            &[],
            l,
            rule,
        ),
        ("push --mirror origin".into(), &[], l, closed),
        ("push --mirr origin".into(), &[], l, closed),
        ("push --all origin".into(), &[], l, closed),
        ("push --tags origin".into(), &[], l, None),
        ("push --delete origin main".into(), &[], l, None),
        ("push --delet origin main".into(), &[], l, None),
        ("push origin :main".into(), &[], l, None),
        ("push -d origin feature".into(), &[], l, None),
        ("push origin @:main".into(), &[], l, rule),
        ("push -u origin HEAD:main".into(), &[], l, rule),
        ("push origin HEAD:main --push-option=x".into(), &[], l, rule),
        ("push -f origin HEAD:feature".into(), &[], l, None),
        ("push origin -- HEAD:main".into(), &[], l, rule),
        ("-c push.default=current push".into(), &[], l, None),
        ("-c push.default=current push origin".into(), &[], p, closed),
        ("-c remote.origin.push=HEAD:main push".into(), &[], l, rule),
        ("push".into(), &[], l, None),
        ("push origin".into(), &[], l, None),
        ("--namespace=x push origin HEAD:main".into(), &[], l, rule),
        // git's push plumbing and a remote helper's half, run by something other than git
        // (no caller here): what they push is decided at run time, or named.
        (
            "send-pack https://github.com/acme/widget.git main".into(),
            &[],
            l,
            rule,
        ),
        (
            "send-pack --stdin https://github.com/acme/widget.git".into(),
            &[],
            l,
            run_time,
        ),
        (
            "remote-https origin https://github.com/acme/widget.git".into(),
            &[],
            l,
            run_time,
        ),
        // Literal words: nothing expands `$B` in an exec's argv.
        ("push origin HEAD:$B".into(), &[], l, None),
        // The repository named by the environment: one git cannot open fails the push
        // anyway; the guards still read the remote of the folder it runs in.
        (
            "push origin HEAD:main".into(),
            &[("GIT_DIR", "/nonexistent")],
            l,
            rule,
        ),
    ];
    let judge = GitHubWrites::new(launch(&[("HOME", p), ("AGENT_GUARDS_GITHUB_API", &base)]));
    let mut refused = 0;
    for (args, env, cwd, code) in &cases {
        let argv = std::iter::once("git").chain(args.split(' '));
        let facts = git_exec(argv.map(String::from).collect(), env, cwd);
        assert_eq!(gh_face::exec_reach(&facts.argv), Reach::Push, "{args}");
        let all = by_all_of_g2_to_g6(&judge, &facts);
        let what = format!("git {args} {env:?} in {cwd}");
        assert_eq!(
            all.as_ref().map(|(c, _)| c.as_str()),
            *code,
            "{what}: {all:?}"
        );
        assert_eq!(by_gate(&judge, &facts), all, "{what}");
        refused += usize::from(all.is_some());
    }
    assert!(refused >= 15, "{refused}");
}
