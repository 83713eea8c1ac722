//! The exec gate, for real: programs hidden in scripts are judged on their real argv, cwd and
//! environment by the guards' own rules. A Python script pushing to a protected branch through
//! a real git (git daemon on 127.0.0.1, rules from a loopback rules API) is refused with G4 and
//! nothing lands, while a push to an unprotected branch lands; a stand-in `claude --model fable`
//! is refused with M3 while `--model sonnet` runs; an exec whose arguments cannot be read fails
//! closed with a line; ordinary work is unchanged.

mod common;
use branch_rules::test_support::{Reply, TestServer};
use common::*;
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

#[test]
fn a_script_pushing_to_a_protected_branch_is_refused_with_g4_and_nothing_lands() {
    if !is_root() {
        return;
    }
    let server = TestServer::start().unwrap();
    server.route(
        "/repos/acme/widget/rules/branches/main",
        Reply::rules(&["pull_request"]),
    );
    server.route(
        "/repos/acme/widget/rules/branches/feature",
        Reply::rules(&[]),
    );
    let srv = tempfile::tempdir().unwrap();
    let bare = srv.path().join("acme/widget.git");
    std::fs::create_dir_all(&bare).unwrap();
    git(&bare, &["init", "-q", "--bare", "-b", "main"]);
    let d = hook_replay::git::Daemon::start(srv.path());
    let mut w = World::new("g4");
    let project = w.project();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["commit", "-q", "--allow-empty", "-m", "work"]);
    git(&project, &["branch", "feature"]);
    let url = format!("git://127.0.0.1:{}/acme/widget.git", d.port);
    git(&project, &["remote", "add", "origin", &url]);
    w.env("GH_HOST", "127.0.0.1")
        .env("GH_ENTERPRISE_TOKEN", "test-token")
        .env("AGENT_GUARDS_GITHUB_API", &server.base())
        // The push runs from a primary checkout: G6 is granted so G4 alone decides.
        .env("GH_WRITE_GUARD_ALLOW_PRIMARY_CHECKOUT", "1");
    std::fs::write(project.join("deploy.py"), PUSH).unwrap();

    let out = w.run("python3", &["deploy.py", "main"]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(stdout.contains("push main refused 1"), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("agent-guards: refused git push -q origin main (G4"),
        "{stderr}"
    );
    assert!(git(&bare, &["for-each-ref"]).is_empty(), "nothing landed");
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

    // The look-alike: a branch the rules leave open.
    let out = w.run("python3", &["deploy.py", "feature"]);
    assert!(
        text(&out.stdout).contains("push feature exit 0"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        git(&bare, &["rev-parse", "feature"]),
        git(&project, &["rev-parse", "feature"])
    );
    assert!(server.count("/repos/acme/widget/rules/branches/main") >= 1);
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
    if !is_root() {
        return;
    }
    let w = World::new("m3");
    let out = w.run("python3", &["-c", LAUNCH]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        stdout.contains("claude --model fable -p hi refused: 1"),
        "{stdout}\n{stderr}"
    );
    assert!(stdout.contains("claude -p hi refused: 1"), "{stdout}");
    assert!(
        stdout.contains("claude --model sonnet -p hi ran: stand-in claude --model sonnet -p hi"),
        "{stdout}"
    );
    assert!(
        stderr.contains("agent-guards: refused claude --model fable -p hi (M3.launch: "),
        "{stderr}"
    );
    assert_eq!(stderr.matches("(M3.launch: ").count(), 2, "{stderr}");

    // The grant comes from the session's launch environment only.
    let mut granted = World::new("m3-granted");
    granted.env("MODEL_TIER_GUARD_ALLOW", "1");
    let out = granted.run("python3", &["-c", LAUNCH]);
    assert!(
        !text(&out.stdout).contains("refused"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn an_exec_whose_arguments_cannot_be_read_fails_closed_with_a_line() {
    if !is_root() {
        return;
    }
    let w = World::new("unreadable");
    // execve("/…/git", <pointer to unmapped memory>, NULL) through ctypes.
    let script = r#"
import ctypes, shutil
libc = ctypes.CDLL(None, use_errno=True)
git = shutil.which("git").encode()
r = libc.execve(git, ctypes.c_void_p(0x10), None)
print("execve", r, ctypes.get_errno())
"#;
    let out = w.run("python3", &["-c", script]);
    assert!(
        text(&out.stdout).contains("execve -1 1"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stderr)
            .contains("agent-guards: refused an exec (C10.unjudged: the exec could not be judged"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn ordinary_work_runs_unchanged() {
    if !is_root() {
        return;
    }
    let w = World::new("ordinary");
    std::fs::write(
        w.project().join("Makefile"),
        "app: src/app.c\n\tcc -O0 -o app src/app.c\n",
    )
    .unwrap();
    std::fs::write(
        w.project().join("src/app.c"),
        "#include <stdio.h>\nint main(void){puts(\"built\");return 0;}\n",
    )
    .unwrap();
    // Commits happen in a linked worktree, as the guards ask (G6 keeps the primary checkout).
    let repo = w.project().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["commit", "-q", "--allow-empty", "-m", "root"]);
    git(&repo, &["worktree", "add", "-q", "../wt"]);
    let script = "for i in $(seq 200); do /bin/true; done; echo execs done; \
                  (cd wt && echo a >> f && git add f && git -c user.name=a -c user.email=a@b commit -qm x && git log -1 --format=%s); \
                  make -s app && ./app; ls src; rm -f app";
    let gated = w.run("bash", &["-c", script]);
    let plain = w.plain("bash", &["-c", script]).output().unwrap();
    assert!(gated.status.success(), "{}", text(&gated.stderr));
    assert_eq!(text(&gated.stdout), text(&plain.stdout));
    assert_eq!(text(&gated.stderr), text(&plain.stderr));
    assert!(
        text(&gated.stdout).contains("execs done\nx\nbuilt\n"),
        "{}",
        text(&gated.stdout)
    );
}

#[test]
fn a_link_to_a_judged_program_is_judged_by_the_real_name() {
    if !is_root() {
        return;
    }
    let w = World::new("links");
    let claude = w.bin_dir().join("claude");
    std::os::unix::fs::symlink(&claude, w.project().join("helper")).unwrap();
    std::os::unix::fs::symlink(w.bin_dir(), w.project().join("tools")).unwrap();
    let script =
        "./helper --model fable; echo helper $?; tools/claude --model fable; echo tools $?; \
                  ./helper --model sonnet";
    let out = w.run("bash", &["-c", script]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(stdout.contains("helper 126"), "{stdout}\n{stderr}");
    assert!(stdout.contains("tools 126"), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("stand-in claude --model sonnet"),
        "{stdout}\n{stderr}"
    );
    assert_eq!(stderr.matches("(M3").count(), 2, "{stderr}");
}
