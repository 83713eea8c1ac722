//! The exec gate, for real: programs hidden in scripts are judged on their real argv, cwd and
//! environment by the guards' own rules. A Python script pushing to a protected branch through
//! a real git (git daemon on 127.0.0.1, rules from a loopback rules API) is refused with G4 and
//! nothing lands, while a push to an unprotected branch lands; a stand-in `claude --model fable`
//! is refused with M3 while `--model sonnet` runs; an exec whose arguments cannot be read fails
//! closed with a line; ordinary work is unchanged.

mod common;
use branch_rules::test_support::{TestServer, PROTECTED_MAIN};
use common::*;
use hook_replay::git::Origin;
use std::path::Path;

fn git(dir: &Path, args: &[&str]) -> String {
    hook_replay::git::git(dir, args).trim().to_string()
}

const PUSH: &str = r#"
import subprocess, sys
try:
    r = subprocess.run(["git", "push", "-q", "origin", sys.argv[1]])
    print("push", sys.argv[1], "exit", r.returncode)
except PermissionError as e:
    print("push", sys.argv[1], "refused", e.errno)
"#;

/// git's push plumbing: the same push, spelled `git send-pack <url> <ref>`.
const SEND_PACK: &str = r#"
import subprocess, sys
url = subprocess.run(["git", "remote", "get-url", "origin"], stdout=subprocess.PIPE, text=True).stdout.strip()
try:
    r = subprocess.run(["git", "send-pack", url, sys.argv[1]])
    print("send-pack", sys.argv[1], "exit", r.returncode)
except PermissionError as e:
    print("send-pack", sys.argv[1], "refused", e.errno)
"#;

/// The same push with git told it is `git-push` (its `argv[0]`): git runs `push` (issue 41).
const ARGV0: &str = r#"
import shutil, subprocess, sys
try:
    r = subprocess.run([sys.argv[1], "-q"] + sys.argv[2:], executable=shutil.which("git"))
    print(sys.argv[1], "exit", r.returncode)
except PermissionError as e:
    print(sys.argv[1], "refused", e.errno)
"#;

#[test]
fn a_script_pushing_to_a_protected_branch_is_refused_with_g4_and_nothing_lands() {
    let Some(mut w) = root_world("g4") else {
        return;
    };
    let server = TestServer::protecting_main().unwrap();
    let origin = Origin::serve();
    let project = w.project();
    origin.checkout_in(&project);
    w.env("GH_HOST", "127.0.0.1")
        .env("GH_ENTERPRISE_TOKEN", "test-token")
        .env("AGENT_GUARDS_GITHUB_API", &server.base())
        // The push runs from a primary checkout: G6 is granted so G4 alone decides.
        .env("GH_WRITE_GUARD_ALLOW_PRIMARY_CHECKOUT", "1");
    w.write("deploy.py", PUSH);

    w.ran("python3", &["deploy.py", "main"])
        .prints(&["push main refused 1"])
        .says(&["agent-guards: refused git push -q origin main (G4"]);
    assert!(origin.git(&["for-each-ref"]).is_empty(), "nothing landed");
    let records = w.wait_record(|r| r["requirement"] == "G4");
    let r = records
        .iter()
        .find(|r| r["requirement"] == "G4")
        .expect("a G4 record");
    assert_eq!(r["code"], "G4.rule", "the record carries the sub-code");
    assert_eq!(
        r["argv"],
        serde_json::json!(["git", "push", "-q", "origin", "main"])
    );
    assert_eq!(r["cwd"], project.display().to_string().as_str());
    assert_eq!(r["disposition"]["label"], "halt");

    // git under another name runs the subcommand its name carries; a read so named still runs.
    w.write("argv0.py", ARGV0);
    w.ran("python3", &["argv0.py", "git-push", "origin", "main"])
        .prints(&["git-push refused 1"])
        .says(&["agent-guards: refused git push -q origin main (G4"]);
    assert!(origin.git(&["for-each-ref"]).is_empty(), "nothing landed");
    w.ran("python3", &["argv0.py", "git-log", "-1"])
        .prints(&["git-log exit 0"]);

    // The look-alike: a branch the rules leave open.
    w.ran("python3", &["deploy.py", "feature"])
        .prints(&["push feature exit 0"]);
    assert_eq!(
        origin.git(&["rev-parse", "feature"]),
        git(&project, &["rev-parse", "feature"])
    );
    assert!(server.count(PROTECTED_MAIN) >= 1);

    // The push plumbing is judged as the push it is (a real `git send-pack` updates the ref).
    w.write("plumb.py", SEND_PACK);
    w.ran("python3", &["plumb.py", "main"])
        .prints(&["send-pack main refused 1"])
        .says(&["agent-guards: refused git send-pack", "(G4"]);
    assert!(
        origin.git(&["for-each-ref", "refs/heads/main"]).is_empty(),
        "main did not land"
    );
    git(&project, &["checkout", "-q", "-b", "plumbing"]);
    w.ran("python3", &["plumb.py", "plumbing"])
        .prints(&["send-pack plumbing exit 0"]);
    assert_eq!(
        origin.git(&["rev-parse", "plumbing"]),
        git(&project, &["rev-parse", "plumbing"])
    );
}

const LAUNCH: &str = r#"
import os, subprocess, sys
for argv, env in [(["claude", "--model", "fable", "-p", "hi"], {}),
                  (["claude", "-p", "hi"], {"ANTHROPIC_MODEL": "claude-fable-1"}),
                  (["claude", "--model", "sonnet", "-p", "hi"], {})]:
    try:
        r = subprocess.run(argv, env=dict(os.environ, **env), stdout=subprocess.PIPE, text=True)
        print(" ".join(argv), "ran:", r.stdout.strip())
    except PermissionError as e:
        print(" ".join(argv), "refused:", e.errno)
"#;

#[test]
fn a_script_starting_claude_on_the_maintainer_tier_is_refused_with_m3() {
    let Some(w) = root_world("m3") else {
        return;
    };
    let out = w.ran("python3", &["-c", LAUNCH]);
    out.prints(&[
        "claude --model fable -p hi refused: 1",
        "claude -p hi refused: 1",
        "claude --model sonnet -p hi ran: stand-in claude --model sonnet -p hi",
    ])
    .says(&["agent-guards: refused claude --model fable -p hi (M3.launch: "]);
    assert_eq!(out.said("(M3.launch: "), 2, "{}", out.stderr);

    // The grant comes from the session's launch environment only.
    let mut granted = World::new("m3-granted");
    granted.env("MODEL_TIER_GUARD_ALLOW", "1");
    let out = granted.ran("python3", &["-c", LAUNCH]);
    assert!(!out.stdout.contains("refused"), "{}", out.stdout);
}

#[test]
fn an_exec_whose_arguments_cannot_be_read_fails_closed_with_a_line() {
    let Some(w) = root_world("unreadable") else {
        return;
    };
    // execve("/…/git", <pointer to unmapped memory>, NULL) through ctypes.
    let script = r#"
import ctypes, shutil
libc = ctypes.CDLL(None, use_errno=True)
git = shutil.which("git").encode()
r = libc.execve(git, ctypes.c_void_p(0x10), None)
print("execve", r, ctypes.get_errno())
"#;
    w.ran("python3", &["-c", script])
        .prints(&["execve -1 1"])
        .says(&["agent-guards: refused an exec (C10.unjudged: the exec could not be judged"]);
}

/// Commits from a script: the hooks skipped by `--no-verify`, by a `core.hooksPath` set in the
/// environment, in a config file it names (`GIT_CONFIG_GLOBAL`) or in another home's
/// `.gitconfig`, or by a hook manager's switch the script set (`HUSKY=0`), then a plain commit
/// whose hook runs, and one with an empty global file (`/dev/null`) whose hook runs too.
const COMMIT: &str = r#"
import os, subprocess
base = ["git", "-c", "user.name=a", "-c", "user.email=a@b"]
for name, extra, env in [("no-verify", ["--no-verify"], {}),
                         ("env hooksPath", [], {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": "/dev/null"}),
                         ("global file", [], {"GIT_CONFIG_GLOBAL": os.path.abspath("../hooks.cfg")}),
                         ("other home", [], {"HOME": os.path.abspath("../otherhome")}),
                         ("husky off", [], {"HUSKY": "0"}),
                         ("null global", [], {"GIT_CONFIG_GLOBAL": "/dev/null"}),
                         ("plain", [], {})]:
    try:
        r = subprocess.run(base + ["commit", "-q", "--allow-empty", "-m", name] + extra, env=dict(os.environ, **env))
        print(name, "exit", r.returncode)
    except PermissionError as e:
        print(name, "refused", e.errno)
"#;

#[test]
fn a_script_skipping_a_commits_hooks_is_refused_with_g4_and_a_plain_commit_runs_its_hook() {
    let Some(w) = root_world("hooks") else {
        return;
    };
    // In a linked worktree (G6 lets commits happen there), with a pre-commit hook.
    let repo = w.project().join("repo");
    hook_replay::git::init_with_commit(&repo, &[]);
    git(&repo, &["worktree", "add", "-q", "../wt"]);
    let hook = repo.join(".git/hooks/pre-commit");
    std::fs::write(
        &hook,
        "#!/bin/sh
echo hook ran >&2
",
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    w.write("wt/commit.py", COMMIT);
    let skip = "[core]\n\thooksPath = /dev/null\n";
    w.write("hooks.cfg", skip);
    std::fs::create_dir_all(w.project().join("otherhome")).unwrap();
    w.write("otherhome/.gitconfig", skip);
    let before = git(&w.project().join("wt"), &["rev-list", "--count", "HEAD"]);
    let out = w.ran("bash", &["-c", "cd wt && python3 commit.py"]);
    out.prints(&[
        "no-verify refused 1",
        "env hooksPath refused 1",
        "global file refused 1",
        "other home refused 1",
        "husky off refused 1",
        "null global exit 0",
        "plain exit 0",
    ])
    .says(&["(G4.hooks-bypass", "hook ran"]);
    // One line per exec tried (Python tries each `git` on PATH in turn).
    assert!(out.said("--no-verify skips the repository's hooks") >= 1);
    assert!(out.said("core.hooksPath overridden (GIT_CONFIG_COUNT)") >= 1);
    assert!(out.said("with HUSKY=0, which switches the repository's hooks off") >= 1);
    let after = git(&w.project().join("wt"), &["rev-list", "--count", "HEAD"]);
    assert_eq!(
        after.parse::<u32>().unwrap(),
        before.parse::<u32>().unwrap() + 2,
        "only the plain commits landed"
    );
}

#[test]
fn ordinary_work_runs_unchanged() {
    let Some(w) = root_world("ordinary") else {
        return;
    };
    w.write("Makefile", "app: src/app.c\n\tcc -O0 -o app src/app.c\n");
    w.write(
        "src/app.c",
        "#include <stdio.h>\nint main(void){puts(\"built\");return 0;}\n",
    );
    // Commits happen in a linked worktree, as the guards ask (G6 keeps the primary checkout).
    let repo = w.project().join("repo");
    hook_replay::git::init_with_commit(&repo, &[]);
    git(&repo, &["worktree", "add", "-q", "../wt"]);
    let script = "for i in $(seq 200); do /bin/true; done; echo execs done; \
                  (cd wt && echo a >> f && git add f && git -c user.name=a -c user.email=a@b commit -qm x && git log -1 --format=%s); \
                  make -s app && ./app; ls src; rm -f app";
    let gated = w.ran("bash", &["-c", script]);
    let plain = Ran::from(w.plain("bash", &["-c", script]).output().unwrap());
    assert!(gated.status.success(), "{}", gated.stderr);
    assert_eq!(gated.stdout, plain.stdout);
    assert_eq!(gated.stderr, plain.stderr);
    gated.prints(&["execs done\nx\nbuilt\n"]);
}

#[test]
fn a_link_to_a_judged_program_is_judged_by_the_real_name() {
    let Some(w) = root_world("links") else {
        return;
    };
    let claude = w.bin_dir().join("claude");
    std::os::unix::fs::symlink(&claude, w.project().join("helper")).unwrap();
    std::os::unix::fs::symlink(w.bin_dir(), w.project().join("tools")).unwrap();
    let script =
        "./helper --model fable; echo helper $?; tools/claude --model fable; echo tools $?; \
                  ./helper --model sonnet";
    let out = w.ran("bash", &["-c", script]);
    out.prints(&["helper 126", "tools 126", "stand-in claude --model sonnet"]);
    assert_eq!(out.said("(M3"), 2, "{}", out.stderr);
}
