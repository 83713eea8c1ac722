//! C10 under the real prefix: the three cases hidden in scripts (a push to a protected branch,
//! a write to a hook registration, a nested launch on the maintainer's tier) are refused with
//! G4, I3 and M3 while the look-alikes run; `--report` names the layers; SessionEnd stops the
//! supervisor a background process kept alive.
//! Linux only (cgroups); `tests/no_cgroups.rs` covers the other systems.
#![cfg(all(target_os = "linux", not(agent_guards_portable)))]

mod common;
use branch_rules::test_support::TestServer;
use common::*;
use hook_replay::git::Origin;
use std::path::PathBuf;
use std::time::Duration;

/// Root (the second line's layers need it here); otherwise the check is said not to run.
fn root() -> bool {
    let root = nix::unistd::geteuid().is_root();
    if !root {
        hook_replay::skip::cannot_run("tool-containment second_line", "needs root");
    }
    root
}

const HIDDEN: &str = r#"
import os, subprocess, sys
def attempt(what, argv):
    try:
        r = subprocess.run(argv)
        print(what, "exit", r.returncode)
    except OSError as e:
        print(what, "refused", e.errno)
attempt("push-main", ["git", "push", "-q", "origin", "main"])
attempt("push-feature", ["git", "push", "-q", "origin", "feature"])
attempt("fable", [sys.argv[1], "--model", "fable"])
attempt("sonnet", [sys.argv[1], "--model", "sonnet"])
for p in [os.path.expanduser("~/.claude/settings.json"), ".claude/settings.local.json", "notes.txt"]:
    try:
        open(p, "w").write("x")
        print("write", p, "ok")
    except OSError as e:
        print("write", p, "refused", e.errno)
"#;

#[test]
fn hidden_push_launch_and_registration_write_are_refused_with_g4_m3_and_i3() {
    if !root() {
        return;
    }
    let server = TestServer::protecting_main().unwrap();
    let origin = Origin::serve();

    let s = TestSession::new("second-line");
    let home = s.home.path().to_path_buf();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(home.join(".claude/settings.json"), "{}").unwrap();
    let project = tempfile::tempdir().unwrap();
    let project = project.path();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    origin.checkout_in(project);
    let claude = project.join("claude");
    std::fs::write(&claude, "#!/bin/sh\necho stand-in\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(project.join("hidden.py"), HIDDEN).unwrap();

    let out = s
        .prefix(tool_call("python3 hidden.py ./claude"))
        .current_dir(project)
        .env("GH_HOST", "127.0.0.1")
        .env("GH_ENTERPRISE_TOKEN", "test-token")
        .env("AGENT_GUARDS_GITHUB_API", server.base())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GH_WRITE_GUARD_ALLOW_PRIMARY_CHECKOUT", "1")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    for expected in [
        "push-main refused 1",
        "push-feature exit 0",
        "fable refused 1",
        "sonnet exit 0",
        ".claude/settings.json refused 30",
        "write .claude/settings.local.json refused 30",
        "write notes.txt ok",
    ] {
        assert!(stdout.contains(expected), "{expected}: {stdout}\n{stderr}");
    }
    // A reason starts with its requirement's code, bare (`M3: `) or a sub-code (`G4.rule: `).
    for code in ["(G4", "(M3", "(I3"] {
        assert!(stderr.contains(code), "{code}: {stderr}");
    }
    assert!(origin.git(&["for-each-ref", "refs/heads/main"]).is_empty());
    assert_eq!(
        std::fs::read_to_string(home.join(".claude/settings.json")).unwrap(),
        "{}"
    );
}

/// Runs a command that leaves `sleep <secs>` in the background (which keeps its supervisor);
/// returns the folder of the session's supervisor records.
fn leave_background_sleep(s: &TestSession, secs: u32) -> PathBuf {
    let out = s
        .prefix(tool_call(&format!(
            "(sleep {secs} >/dev/null 2>&1 &) ; echo started"
        )))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("started"));
    s.home
        .state_home()
        .join("agent-guards/sessions")
        .join(&s.id)
        .join("second-line")
}

#[test]
fn report_names_the_layers_and_session_end_stops_the_supervisor() {
    if !root() {
        return;
    }
    let report = std::process::Command::new(BIN)
        .arg("--report")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(
        text.contains("second line: protected files read-only (mount namespace): active"),
        "{text}"
    );
    assert!(
        text.contains("second line: exec gate (seccomp user notification): active"),
        "{text}"
    );

    let s = TestSession::new("second-line-end");
    let pids = leave_background_sleep(&s, 120);
    let live = || {
        std::fs::read_dir(&pids)
            .map(|d| d.flatten().count())
            .unwrap_or(0)
    };
    assert_eq!(live(), 1, "the background sleep keeps its supervisor");
    let (code, err) = s.session_end();
    assert_eq!(code, 2, "{err}");
    assert_eq!(live(), 0, "SessionEnd stopped the supervisor");
}

#[test]
fn a_dead_supervisor_hangs_nothing_and_session_end_still_stops_and_reports_everything() {
    if !root() {
        return;
    }
    let s = TestSession::new("second-line-dead");
    let pids = leave_background_sleep(&s, 253);
    let supervisors: Vec<i32> = std::fs::read_dir(&pids)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    assert_eq!(
        supervisors.len(),
        1,
        "the background sleep keeps its supervisor"
    );
    // The background exec happens after the command returned: wait for it, or the killed
    // supervisor would make it fail (ENOSYS) instead of leaving a leftover.
    let sleeping = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .any(|pid| cmdline(pid) == "sleep 253")
    };
    assert!(
        wait_for(Duration::from_secs(20), sleeping),
        "the sleep started"
    );
    // The supervisor dies (killed from outside).
    // SAFETY: signalling the supervisor this test's command started.
    unsafe { libc::kill(supervisors[0], libc::SIGKILL) };
    assert!(wait_for(Duration::from_secs(10), || !alive(supervisors[0])));
    // The next command gets a supervisor of its own and runs judged.
    let out = s
        .prefix(tool_call("git --version >/dev/null && echo after"))
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("after"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // SessionEnd stops the leftover the dead supervisor served and names it.
    let (code, err) = s.session_end();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("sleep 253"), "the leftover is reported: {err}");
    let left = std::fs::read_dir(&pids)
        .map(|d| d.flatten().count())
        .unwrap_or(0);
    assert_eq!(left, 0, "no supervisor record is left");
}

/// Issue 41 item 3: a user who is not root had no read-only mounts at all. Through the real
/// prefix as uid 65534: a registration under the user's home is read-only (EROFS, with the I3
/// line), `unshare -m` is refused, a write in the project and a commit run; `--report` names
/// the user namespace.
#[test]
fn a_non_root_users_registrations_are_read_only_through_the_real_prefix() {
    if !root() {
        eprintln!("skipped: needs root to become uid 65534");
        return;
    }
    let s = TestSession::new("second-line-userns");
    let home = s.home.path().to_path_buf();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(home.join(".claude/settings.json"), "{}").unwrap();
    std::fs::create_dir_all(home.join("project/r")).unwrap();
    for args in [
        &["init", "-q"][..],
        &["commit", "-q", "--allow-empty", "-m", "one"],
    ] {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.email=a@b", "-c", "user.name=n"])
            .args(args)
            .current_dir(home.join("project/r"))
            .status()
            .unwrap();
        assert!(ok.success());
    }
    let bin = hand_to_nobody(&home);
    let script = "echo x >> ~/.claude/settings.json; echo registration $?; \
        unshare -m true; echo unshare $?; echo y > notes.txt; echo project $?; \
        git -C r worktree add -q ../wt -b wt && \
        git -C wt -c user.email=a@b -c user.name=n commit -q --allow-empty -m two; echo commit $?";
    let (stdout, stderr) = s.prefix_as_nobody(
        &bin,
        &tool_call(&format!("{{ {script}; }} 2>&1 | cat")),
        &home.join("project"),
        &[("GIT_CONFIG_NOSYSTEM", "1")],
    );
    for expected in ["registration 1", "unshare 1", "project 0", "commit 0"] {
        assert!(stdout.contains(expected), "{expected}:\n{stdout}\n{stderr}");
    }
    assert!(stdout.contains("Read-only file system"), "{stdout}");
    assert!(stdout.contains("agent-guards: refused writing"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(home.join(".claude/settings.json")).unwrap(),
        "{}"
    );
    let text = report_as_nobody(&bin, &home);
    assert!(
        text.contains(
            "protected files read-only (mount namespace): active (not root: a user namespace"
        ),
        "{text}"
    );
}
