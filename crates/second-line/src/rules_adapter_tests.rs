//! Tests of the adapter: the gate's verdicts against the guards' own rules on real repositories.

use super::*;

pub(super) fn launch(env: &[(&str, &str)]) -> LaunchContext {
    LaunchContext::new(
        env.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        None,
        None,
    )
    .with_config(Config::default())
}

fn exec(argv: &[&str], env: &[(&str, &str)]) -> ExecFacts {
    ExecFacts {
        program: format!("/usr/local/bin/{}", argv[0]),
        argv: argv.iter().map(|s| s.to_string()).collect(),
        cwd: std::env::temp_dir(),
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        caller: None,
    }
}

#[test]
fn a_launch_on_the_maintainer_tier_is_m3_unless_the_launch_environment_grants_it() {
    let m = ModelLaunches {
        launch: launch(&[("HOME", "/nonexistent")]),
    };
    let v = m.judge(&exec(&["claude", "--model", "fable", "-p", "hi"], &[]));
    assert!(
        matches!(&v, ExecVerdict::Deny { code, .. } if code == "M3.launch"),
        "{v:?}"
    );
    // The model chosen by the exec's own environment.
    let v = m.judge(&exec(
        &["claude", "-p", "hi"],
        &[("ANTHROPIC_MODEL", "fable")],
    ));
    assert!(matches!(&v, ExecVerdict::Deny { .. }), "{v:?}");
    // A permitted tier, and a grant in the exec's own environment that counts for nothing.
    assert_eq!(
        m.judge(&exec(&["claude", "--model", "sonnet"], &[])),
        ExecVerdict::Allow
    );
    let v = m.judge(&exec(
        &["claude", "--model", "fable"],
        &[("MODEL_TIER_GUARD_ALLOW", "1")],
    ));
    assert!(matches!(v, ExecVerdict::Deny { .. }));
    let granted = ModelLaunches {
        launch: launch(&[("MODEL_TIER_GUARD_ALLOW", "1")]),
    };
    assert_eq!(
        granted.judge(&exec(&["claude", "--model", "fable"], &[])),
        ExecVerdict::Allow
    );
}

#[test]
fn the_programs_the_gate_reads_are_the_shared_layers_answer() {
    for (name, want) in [
        ("git", Reads::GitHub),
        ("gh", Reads::GitHub),
        // git's dashed programs resolve to git in the shared layer.
        ("git-receive-pack", Reads::GitHub),
        ("claude", Reads::ModelLaunch),
        ("npx", Reads::ModelLaunch),
        ("bunx", Reads::ModelLaunch),
        ("pnpm", Reads::ModelLaunch),
        ("uvx", Reads::ModelLaunch),
        ("true", Reads::Nothing),
        ("python3", Reads::Nothing),
        ("cc", Reads::Nothing),
        ("ls", Reads::Nothing),
        ("gitk", Reads::Nothing),
        ("", Reads::Nothing),
    ] {
        assert_eq!(reads(name), want, "{name:?}");
    }
    let l = launch(&[]);
    assert_eq!(l.reads("git"), Reads::GitHub);
    assert_eq!(l.reads("git"), Reads::GitHub, "remembered");
}

#[test]
fn a_launch_through_a_package_runner_is_m3() {
    let m = ModelLaunches {
        launch: launch(&[("HOME", "/nonexistent")]),
    };
    assert!(m.wants("pnpm"));
    let v = m.judge(&exec(
        &[
            "pnpm",
            "dlx",
            "@anthropic-ai/claude-code",
            "--model",
            "fable",
        ],
        &[],
    ));
    assert!(
        matches!(&v, ExecVerdict::Deny { code, .. } if code.starts_with("M3")),
        "{v:?}"
    );
    assert_eq!(
        m.judge(&exec(&["pnpm", "install"], &[])),
        ExecVerdict::Allow
    );
}

#[test]
fn what_judgements_share_is_rebuilt_when_ghs_hosts_file_changes() {
    // One judge for many execs keeps the world it built; gh's hosts.yml (enterprise hosts)
    // is the one file that world read, so a host added mid-command must count at once.
    let home = tempfile::tempdir().unwrap();
    let h = home.path().display().to_string();
    let judge = GitHubWrites::new(launch(&[
        ("HOME", &h),
        ("AGENT_GUARDS_GITHUB_API", "http://127.0.0.1:9/"),
    ]));
    let push = ExecFacts {
        program: "/usr/bin/git".into(),
        argv: ["git", "push", "https://ghe.example/acme/w.git", "HEAD:main"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        cwd: home.path().to_path_buf(),
        env: Vec::new(),
        caller: None,
    };
    assert_eq!(judge.judge(&push), ExecVerdict::Allow, "not a GitHub host");
    assert_eq!(
        judge.judge(&push),
        ExecVerdict::Allow,
        "judged again, shared"
    );
    std::fs::create_dir_all(home.path().join(".config/gh")).unwrap();
    std::fs::write(
        home.path().join(".config/gh/hosts.yml"),
        "ghe.example:\n    user: someone\n",
    )
    .unwrap();
    assert!(
        matches!(judge.judge(&push), ExecVerdict::Deny { .. }),
        "a GitHub host now: its rules cannot be read, so the push is refused"
    );
}

/// A new repository in a temporary folder (`git init`, then `git` with `then` if given).
fn primary_checkout(then: &[&str]) -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    for args in [&["init", "-q"][..], then] {
        if args.is_empty() {
            continue;
        }
        let st = std::process::Command::new("git")
            .args(args)
            .current_dir(repo.path())
            .status()
            .unwrap();
        assert!(st.success());
    }
    repo
}

#[test]
fn a_git_read_is_allowed_by_the_rules_and_no_write_passes_for_a_read() {
    // A primary checkout, where G6 refuses what mutates it.
    let repo = primary_checkout(&[]);
    let home = repo.path().display().to_string();
    let judge = GitHubWrites::new(launch(&[("HOME", &home)]));
    let facts = |argv: &[&str]| ExecFacts {
        program: "/usr/bin/git".into(),
        argv: argv.iter().map(|s| s.to_string()).collect(),
        cwd: repo.path().to_path_buf(),
        env: Vec::new(),
        caller: None,
    };
    let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    for read in [
        &["git", "--version"][..],
        &["git"],
        &["git", "status", "--short"],
        &["git", "log", "--oneline", "-5"],
        &["git", "-C", &home, "diff", "--stat"],
        &["git", "--no-pager", "-c", "core.pager=cat", "show", "HEAD"],
        &["git", "rev-parse", "--abbrev-ref", "HEAD"],
        &["git", "stash", "list"],
        &["git", "branch", "--list"],
        &["git", "fetch", "origin"],
    ] {
        assert!(gh_face::git_read(&argv(read)), "{read:?} is a read");
        assert_eq!(judge.judge(&facts(read)), ExecVerdict::Allow, "{read:?}");
    }
    for write in [
        &["git", "push", "origin", "main"][..],
        &["git", "--git-dir=.git", "push"],
        &["git", "commit", "-m", "x"],
        &["git", "-c", "core.hooksPath=/dev/null", "commit", "-m", "x"],
        &["git", "merge", "topic"],
        &["git", "pull"],
        &["git", "am", "p.patch"],
        &["git", "reset", "--hard"],
        &["git", "checkout", "-f", "main"],
        &["git", "checkout", "topic"],
        &["git", "branch", "-D", "topic"],
        &["git", "stash"],
        &["git", "clean", "-fd"],
        // Not a builtin: an alias, which may stand for a push.
        &["git", "st"],
    ] {
        assert!(!gh_face::git_read(&argv(write)), "{write:?} is not a read");
    }
    // The comparison can fail: the rules refuse these here.
    for refused in [
        &["git", "reset", "--hard"][..],
        &["git", "commit", "--no-verify", "-m", "x"],
    ] {
        assert!(
            matches!(judge.judge(&facts(refused)), ExecVerdict::Deny { .. }),
            "{refused:?}"
        );
    }
}

/// What G2–G6 over the exec's command line refuse it with (code and reason), the way the
/// PreToolUse guard reads `NAME=value git ...`.
pub(super) fn by_all_of_g2_to_g6(
    judge: &GitHubWrites,
    facts: &ExecFacts,
) -> Option<(String, String)> {
    let all = judge.shared();
    let mut cx = all.cx.clone();
    cx.cwd.clone_from(&facts.cwd);
    let line = facts.as_command(rule_relevant);
    gh_face::judge(&GitHubOp::Text(&line), &cx, &all.world.again()).map(|r| (r.code, r.reason))
}

pub(super) fn by_gate(judge: &GitHubWrites, facts: &ExecFacts) -> Option<(String, String)> {
    match judge.judge(facts) {
        ExecVerdict::Deny { code, reason, .. } => Some((code, reason)),
        ExecVerdict::Allow => None,
    }
}

/// An exec of `/usr/bin/git` with `argv` in `cwd`, with what the supervisor keeps of its
/// environment `env`.
pub(super) fn git_exec(argv: Vec<String>, env: &[(&str, &str)], cwd: &str) -> ExecFacts {
    ExecFacts {
        program: "/usr/bin/git".into(),
        argv,
        cwd: PathBuf::from(cwd),
        env: env
            .iter()
            .filter(|(k, _)| rule_relevant(k))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        caller: None,
    }
}

/// A primary checkout with a GitHub origin (G6 refuses what mutates it, and G3 and G4 would
/// read a push here) and a linked worktree of it on `topic` (G6 lets it be mutated): the
/// repository, the checkout's path, the worktree's path.
pub(super) fn checkout_and_worktree() -> (tempfile::TempDir, String, String) {
    let repo = primary_checkout(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@e",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    ]);
    let git = |args: &[&str]| {
        let st = std::process::Command::new("git")
            .args(args)
            .current_dir(repo.path())
            .status()
            .unwrap();
        assert!(st.success(), "{args:?}");
    };
    git(&[
        "remote",
        "add",
        "origin",
        "https://github.com/acme/widget.git",
    ]);
    git(&["worktree", "add", "-q", "wt", "-b", "topic"]);
    let primary = repo.path().display().to_string();
    let linked = repo.path().join("wt").display().to_string();
    (repo, primary, linked)
}

#[test]
fn a_git_exec_judged_from_its_argv_gets_what_g2_to_g6_give_its_command_line() {
    let (repo, primary, linked) = checkout_and_worktree();
    let git_dir = format!("{primary}/.git");
    let linked_git_dir = format!("{primary}/.git/worktrees/wt");
    let git_dir_option = format!("--git-dir={linked_git_dir}");
    let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // (argv, the exec's environment, its cwd, refused?)
    let p = primary.as_str();
    let l = linked.as_str();
    type Case<'a> = (Vec<&'a str>, Vec<(&'a str, &'a str)>, &'a str, bool);
    let cases: Vec<Case> = vec![
        (vec!["git", "stash"], vec![], p, true),
        (
            vec!["git", "-C", p, "stash", "push", "-m", "x"],
            vec![],
            l,
            true,
        ),
        (vec!["git", "-C", "..", "stash"], vec![], l, true),
        (vec!["git", "-C", "wt", "stash"], vec![], p, false),
        (vec!["git", "-C", l, "reset", "--hard"], vec![], p, false),
        (
            vec!["git", "-c", "core.hooksPath=/dev/null", "stash"],
            vec![],
            p,
            true,
        ),
        (vec!["git", "reset", "--hard", "HEAD~1"], vec![], p, true),
        (vec!["git", "reset", "--hard", "HEAD~1"], vec![], l, false),
        (vec!["git", "checkout", "-f", "main"], vec![], p, true),
        (vec!["git", "checkout", "-f", "main"], vec![], l, false),
        (
            vec!["git", "switch", "--discard-changes", "main"],
            vec![],
            p,
            true,
        ),
        (vec!["git", "clean", "-fdx"], vec![], p, true),
        (vec!["git", "branch", "-D", "topic"], vec![], p, true),
        (vec!["git", "rebase", "main"], vec![], p, true),
        (vec!["git", "cherry-pick", "abc123"], vec![], p, true),
        (vec!["git", "restore", "."], vec![], p, true),
        (vec!["git", "rm", "-r", "src"], vec![], p, true),
        (
            vec!["git", "update-ref", "-d", "refs/heads/main"],
            vec![],
            p,
            true,
        ),
        (
            vec!["git", "worktree", "remove", "--force", "wt"],
            vec![],
            p,
            true,
        ),
        // The repository named by the environment or the options, not the cwd.
        (vec!["git", "stash"], vec![("GIT_DIR", &git_dir)], l, true),
        (
            vec!["git", "stash"],
            vec![("GIT_DIR", &linked_git_dir)],
            p,
            false,
        ),
        (vec!["git", "--git-dir", &git_dir, "stash"], vec![], l, true),
        (vec!["git", &git_dir_option, "stash"], vec![], p, false),
        (
            vec!["git", "--work-tree", p, "reset", "--hard"],
            vec![],
            l,
            true,
        ),
        (
            vec!["git", "reset", "--hard"],
            vec![("GIT_WORK_TREE", p)],
            l,
            true,
        ),
        // Literal words: a `$` or `~` in an exec's argv is not expanded by anything.
        (vec!["git", "-C", "$HOME", "stash"], vec![], l, false),
        (
            vec!["git", "-C", "/nonexistent/dir", "stash"],
            vec![],
            p,
            false,
        ),
        // Hooked subcommands: G4's hook check and G6.
        (vec!["git", "commit", "-m", "x"], vec![], p, true),
        (vec!["git", "commit", "-m", "x"], vec![], l, false),
        (
            vec!["git", "commit", "--no-verify", "-m", "x"],
            vec![],
            l,
            true,
        ),
        (
            vec!["git", "commit", "--no-verify", "-m", "x"],
            vec![],
            p,
            true,
        ),
        (
            vec!["git", "commit", "--no-verif", "-m", "x"],
            vec![],
            l,
            true,
        ),
        (vec!["git", "commit", "-nm", "x"], vec![], l, true),
        (vec!["git", "commit", "-mn"], vec![], l, false),
        (
            vec!["git", "-c", "core.hooksPath=/dev/null", "commit", "-m", "x"],
            vec![],
            l,
            true,
        ),
        (
            vec!["git", "commit", "-m", "x"],
            vec![
                ("GIT_CONFIG_COUNT", "1"),
                ("GIT_CONFIG_KEY_0", "core.hooksPath"),
                ("GIT_CONFIG_VALUE_0", "/x"),
            ],
            l,
            true,
        ),
        (
            vec!["git", "--config-env=core.hooksPath=HP", "commit", "-m", "x"],
            vec![("HP", "/dev/null")],
            l,
            true,
        ),
        (
            vec!["git", "commit", "--verify", "-m", "x"],
            vec![],
            l,
            false,
        ),
        (
            vec!["git", "commit", "-n", "--verify", "-m", "x"],
            vec![],
            l,
            false,
        ),
        (vec!["git", "merge", "--no-verify", "main"], vec![], l, true),
        (vec!["git", "merge", "--ff-only", "main"], vec![], l, false),
        (vec!["git", "pull", "--ff-only"], vec![], l, false),
        (vec!["git", "pull", "--no-verify"], vec![], l, true),
        (vec!["git", "am", "--no-verify", "x.patch"], vec![], l, true),
    ];
    let judge = GitHubWrites::new(launch(&[("HOME", p)]));
    let (mut refused, mut allowed, mut hooks) = (0, 0, 0);
    for (args, env, cwd, refuse) in &cases {
        let facts = git_exec(argv(args), env, cwd);
        let reach = gh_face::exec_reach(&facts.argv);
        assert!(
            matches!(reach, Reach::Checkout | Reach::Hooks),
            "{args:?}: {reach:?}"
        );
        let all = by_all_of_g2_to_g6(&judge, &facts);
        hooks += usize::from(all.as_ref().is_some_and(|(c, _)| c == "G4.hooks-bypass"));
        assert_eq!(all.is_some(), *refuse, "{args:?} {env:?} in {cwd}: {all:?}");
        assert_eq!(by_gate(&judge, &facts), all, "{args:?} {env:?} in {cwd}");
        match refuse {
            true => refused += 1,
            false => allowed += 1,
        }
    }
    assert!(
        refused > 25 && allowed > 10 && hooks >= 9,
        "{refused} {allowed} {hooks}"
    );
    // The maintainer's grant and config allow it both ways.
    for env in [
        &[("HOME", p), (gh_face::PRIMARY_CHECKOUT_GRANT, "1")][..],
        &[("HOME", p), (gh_face::PRIMARY_CHECKOUT_GRANT, "maybe")],
    ] {
        let judge = GitHubWrites::new(launch(env));
        let facts = ExecFacts {
            program: "/usr/bin/git".into(),
            argv: argv(&["git", "stash"]),
            cwd: repo.path().to_path_buf(),
            env: Vec::new(),
            caller: None,
        };
        let all = by_all_of_g2_to_g6(&judge, &facts);
        assert_eq!(all.is_some(), env[1].1 == "maybe", "{env:?}");
        assert_eq!(by_gate(&judge, &facts), all, "{env:?}");
    }
    let config = Config {
        primary_checkout: Some(guard_config::CheckoutConfig::Allow),
        ..Config::default()
    };
    let judge = GitHubWrites::new(launch(&[("HOME", p)]).with_config(config));
    let facts = ExecFacts {
        program: "/usr/bin/git".into(),
        argv: argv(&["git", "clean", "-fd"]),
        cwd: repo.path().to_path_buf(),
        env: Vec::new(),
        caller: None,
    };
    assert_eq!(by_all_of_g2_to_g6(&judge, &facts), None);
    assert_eq!(by_gate(&judge, &facts), None);
    assert_eq!(
        gh_face::exec_reach(&argv(&["git", "push", "origin", "main"])),
        Reach::Push
    );
    for (all_of_them, why) in [
        (&["git", "-c", "alias.ci=push", "ci"][..], "an alias"),
        (&["git", "st"], "an alias"),
    ] {
        assert_eq!(gh_face::exec_reach(&argv(all_of_them)), Reach::All, "{why}");
    }
    for hooked in [
        &["git", "commit", "-m", "x"][..],
        &["git", "pull", "--ff-only"],
    ] {
        assert_eq!(
            gh_face::exec_reach(&argv(hooked)),
            Reach::Hooks,
            "{hooked:?}"
        );
    }
    assert_eq!(gh_face::exec_reach(&argv(&["git", "status"])), Reach::Read);
}

#[test]
fn every_model_variable_is_kept() {
    // `rule_relevant` tests the name's ending before the list.
    for v in tier_face::MODEL_VARS {
        assert!(rule_relevant(v), "{v}");
    }
}

#[test]
fn secrets_and_grants_never_reach_the_command_line() {
    for k in [
        "GH_TOKEN",
        "GIT_PASSWORD",
        "GH_WRITE_GUARD_ALLOW",
        "PATH",
        "HOME",
    ] {
        assert!(!rule_relevant(k), "{k}");
    }
    // GIT_CONFIG_KEY_0 had been dropped for its `_KEY`: `GIT_CONFIG_COUNT=1
    // GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null` in a script's `git commit`
    // skipped the hooks past the gate.
    for k in [
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_CONFIG_KEY_0",
        "GIT_CONFIG_VALUE_0",
        "ANTHROPIC_MODEL",
    ] {
        assert!(rule_relevant(k), "{k}");
    }
}

#[test]
fn a_hook_managers_switch_the_agent_set_is_g4_and_one_the_session_was_launched_with_is_not() {
    let (_repo, primary, linked) = checkout_and_worktree();
    let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let commit = ["git", "commit", "-m", "x"];
    // (the session's launch environment, the exec's, argv, refused?)
    type Case<'a> = (
        Vec<(&'a str, &'a str)>,
        Vec<(&'a str, &'a str)>,
        Vec<&'a str>,
        bool,
    );
    let cases: Vec<Case> = vec![
        (vec![], vec![("HUSKY", "0")], commit.to_vec(), true),
        (vec![], vec![("HUSKY", "1")], commit.to_vec(), false),
        (vec![], vec![("SKIP", "lint")], commit.to_vec(), true),
        (
            vec![],
            vec![("LEFTHOOK", "0")],
            vec!["git", "pull", "--ff-only"],
            true,
        ),
        (
            vec![("HUSKY", "0")],
            vec![("HUSKY", "0")],
            commit.to_vec(),
            false,
        ),
        (
            vec![("HUSKY", "1")],
            vec![("HUSKY", "0")],
            commit.to_vec(),
            true,
        ),
        (vec![], vec![("HUSKY", "0")], vec!["git", "stash"], false),
        // Through the command-line path (an alias of commit).
        (
            vec![],
            vec![("HUSKY", "0")],
            vec!["git", "-c", "alias.ci=commit", "ci", "-m", "x"],
            true,
        ),
        (
            vec![("HUSKY", "0")],
            vec![("HUSKY", "0")],
            vec!["git", "-c", "alias.ci=commit", "ci", "-m", "x"],
            false,
        ),
    ];
    for (launch_env, env, args, refused) in &cases {
        let mut launch_env = launch_env.clone();
        launch_env.push(("HOME", &primary));
        let judge = GitHubWrites::new(launch(&launch_env));
        let facts = ExecFacts {
            program: "/usr/bin/git".into(),
            argv: argv(args),
            cwd: PathBuf::from(&linked),
            // What the supervisor keeps of an exec's environment.
            env: env
                .iter()
                .filter(|(k, _)| judge.reads_var(k))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            caller: None,
        };
        let code = by_gate(&judge, &facts).map(|(c, _)| c);
        let want = refused.then(|| "G4.hooks-bypass".to_string());
        assert_eq!(
            code, want,
            "{args:?} with {env:?}, launched with {launch_env:?}"
        );
    }
}

#[test]
fn a_gh_read_is_allowed_by_the_rules_and_no_write_passes_for_a_read() {
    let (_repo, primary, _) = checkout_and_worktree();
    let judge = GitHubWrites::new(launch(&[("HOME", &primary)]));
    let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let facts = |a: &[&str]| ExecFacts {
        program: "/usr/bin/gh".into(),
        argv: argv(a),
        cwd: PathBuf::from(&primary),
        env: Vec::new(),
        caller: None,
    };
    let stranger_issue = &[
        "gh",
        "issue",
        "create",
        "-R",
        "stranger/tools",
        "-t",
        "t",
        "-b",
        "b",
    ][..];
    for read in [
        &["gh", "--version"][..],
        &["gh"],
        &["gh", "pr", "view", "1"],
        &["gh", "pr", "checks", "1", "--watch"],
        &["gh", "pr", "list", "--json", "number"],
        &["gh", "pr", "diff", "1"],
        &["gh", "pr", "checkout", "1"],
        &["gh", "-R", "acme/widget", "issue", "view", "3"],
        &["gh", "run", "view", "42", "--log-failed"],
        &["gh", "run", "watch", "42"],
        &["gh", "repo", "view"],
        &["gh", "repo", "clone", "stranger/tools"],
        &["gh", "search", "prs", "x"],
        &["gh", "auth", "status"],
        &["gh", "pr", "create", "--help"],
    ] {
        assert!(gh_face::gh_read(&argv(read)), "{read:?} is a read");
        assert_eq!(judge.judge(&facts(read)), ExecVerdict::Allow, "{read:?}");
    }
    for write in [
        &["gh", "pr", "create", "--title", "t", "--body", "b"][..],
        &["gh", "pr", "merge", "1", "--admin"],
        &["gh", "pr", "merge", "1"],
        &["gh", "pr", "review", "1", "--approve"],
        stranger_issue,
        &["gh", "api", "repos/acme/widget"],
        &[
            "gh",
            "api",
            "-X",
            "DELETE",
            "repos/acme/widget/branches/main/protection",
        ],
        &["gh", "ruleset", "list"],
        &["gh", "release", "create", "v1"],
        &["gh", "secret", "set", "X"],
        &["gh", "auth", "login"],
        &["gh", "repo", "delete", "acme/widget", "--yes"],
        // Not a builtin: an alias or an extension, which may stand for a write.
        &["gh", "co", "1"],
        &["gh", "my-extension"],
    ] {
        assert!(!gh_face::gh_read(&argv(write)), "{write:?} is not a read");
    }
    // The comparison can fail: the rules refuse these here.
    for refused in [&["gh", "pr", "merge", "1", "--admin"][..], stranger_issue] {
        assert!(
            matches!(judge.judge(&facts(refused)), ExecVerdict::Deny { .. }),
            "{refused:?}"
        );
    }
}

#[test]
fn g3_in_the_gate_compares_with_the_project_the_hook_recorded() {
    // The project (acme/widget) and a clone of a stranger's repository the agent cd'd into.
    let project = primary_checkout(&[
        "remote",
        "add",
        "origin",
        "https://github.com/acme/widget.git",
    ]);
    let stranger = primary_checkout(&[
        "remote",
        "add",
        "origin",
        "https://github.com/stranger/tools.git",
    ]);
    let state = tempfile::tempdir().unwrap();
    session_store::Session::new(state.path(), Some("recorded"))
        .record_project_dir(project.path())
        .unwrap();
    let home = project.path().display().to_string();
    let judge = |session: &str| {
        GitHubWrites::new(
            LaunchContext::new(
                [("HOME".to_string(), home.clone())].into(),
                Some(state.path().to_path_buf()),
                Some(session.to_string()),
            )
            .with_config(Config::default()),
        )
    };
    let facts = ExecFacts {
        program: "/usr/bin/gh".into(),
        argv: ["gh", "issue", "create", "-t", "t", "-b", "b"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        cwd: stranger.path().to_path_buf(),
        env: Vec::new(),
        caller: None,
    };
    let code = |j: &GitHubWrites| by_gate(j, &facts).map(|(c, _)| c);
    assert!(
        code(&judge("recorded")).is_some_and(|c| c.starts_with("G3")),
        "{:?}",
        code(&judge("recorded"))
    );
    // Without the record the gate can only compare with the folder's own origin.
    assert_eq!(code(&judge("other")), None);
    // The launch environment's own CLAUDE_PROJECT_DIR is kept.
    let launch = LaunchContext::new(
        [(
            "CLAUDE_PROJECT_DIR".to_string(),
            stranger.path().display().to_string(),
        )]
        .into(),
        Some(state.path().to_path_buf()),
        Some("recorded".into()),
    );
    assert_eq!(
        launch.env.get("CLAUDE_PROJECT_DIR").map(PathBuf::from),
        Some(stranger.path().to_path_buf())
    );
}
