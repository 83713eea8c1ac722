//! `sudo` under the second line, as root and as a non-root user (`nobody`, through `setpriv`).
//!
//! As root the filter is installed with `CAP_SYS_ADMIN`, without `no_new_privs`: `sudo` works and
//! what it runs is still judged (a `sudo claude --model fable` is refused with M3). As a non-root
//! user the command runs in a user namespace of the user's own (issue 41): the gate judges its
//! execs and `sudo`, set-uid to a root the namespace does not map, gains nothing and says so.
//! With `AGENT_GUARDS_SECOND_LINE_USER_NAMESPACE=off` the maintainer keeps `sudo`: the gate is
//! off and commands behave exactly as without the prefix, unless the maintainer also opts into
//! `no_new_privs` (`AGENT_GUARDS_SECOND_LINE_NO_NEW_PRIVS=1`): then the gate judges and `sudo`
//! refuses to run, as the spec documents.

mod common;
use common::*;
use std::process::Command;

/// Whether `program` is on PATH.
fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program} >/dev/null")])
        .status()
        .is_ok_and(|s| s.success())
}

/// Root, with `setpriv` and `sudo` present; otherwise says why the test is skipped.
fn can_run(with_sudo: bool) -> bool {
    if !is_root() {
        hook_replay::skip::cannot_run("sudo", "needs root (to run as root and to become nobody)");
        return false;
    }
    for p in ["setpriv"].iter().chain(with_sudo.then_some(&"sudo")) {
        if !have(p) {
            let why = format!("`{p}` is not installed here (CI installs it: .ci/run)");
            hook_replay::skip::cannot_run("sudo", &why);
            return false;
        }
    }
    true
}

const LAUNCH: &str = "claude --model fable; echo launch $?";
const SUDO: &str = "sudo -n true; echo sudo $?";

#[test]
fn as_root_sudo_free_commands_are_judged_and_unchanged() {
    if !can_run(false) {
        return;
    }
    let w = World::new("root-plain");
    let out = w.ran("bash", &["-c", &format!("id -u; echo work; {LAUNCH}")]);
    assert!(out.stdout.starts_with("0\nwork\n"), "{}", out.stdout);
    out.prints(&["launch 126"]).says(&["(M3"]);
}

#[test]
fn as_root_sudo_works_and_what_it_runs_is_still_judged() {
    if !can_run(true) {
        return;
    }
    let w = World::new("root-sudo");
    let script = format!(
        "{SUDO}; sudo -n id -u; sudo -n \"$(command -v claude)\" --model sonnet; \
         sudo -n \"$(command -v claude)\" --model fable; echo sudo-launch $?"
    );
    let out = w.ran("bash", &["-c", &script]);
    assert!(
        out.stdout.starts_with("sudo 0\n0\n"),
        "sudo works: {}\n{}",
        out.stdout,
        out.stderr
    );
    out.prints(&["stand-in claude --model sonnet", "sudo-launch 1"])
        // The exec under sudo is judged.
        .says(&["agent-guards: refused claude --model fable (M3"]);
}

#[test]
fn as_a_non_root_user_the_gate_judges_in_a_user_namespace_where_sudo_gains_nothing() {
    if !can_run(true) {
        return;
    }
    let w = nobodys_world("nobody-default");
    let out = as_nobody(&w, true, &format!("id -u; {LAUNCH}; {SUDO}"));
    assert!(out.starts_with("65534\n"), "the user's own uid: {out}");
    assert!(out.contains("launch 126"), "judged: {out}");
    assert!(
        out.contains("agent-guards: refused claude --model fable (M3"),
        "{out}"
    );
    // sudo is set-uid root, and root is not mapped in the user's namespace.
    assert!(out.contains("sudo 1"), "{out}");
    // Which check sudo fails first depends on the host's sudo and its files (seen: "effective
    // uid is not 0"; in CI "/etc/sudo.conf is owned by uid 65534" and "must be owned by uid 0
    // and have the setuid bit set"): each says root is not mapped here.
    let why = [
        "effective uid is not 0",
        "must be owned by uid 0 and have the setuid bit set",
        "is owned by uid 65534, should be 0",
    ];
    assert!(why.iter().any(|w| out.contains(w)), "sudo says why: {out}");
    // And the gate says why in the suite's words, with the switch that keeps sudo.
    assert!(
        out.contains("sudo is set-uid or set-gid and runs without its privileges")
            && out.contains("(C10.namespace)")
            && out.contains("AGENT_GUARDS_SECOND_LINE_USER_NAMESPACE=off"),
        "{out}"
    );
}

#[test]
fn as_a_non_root_user_who_keeps_sudo_the_gate_is_off_and_commands_run_as_without_it() {
    if !can_run(true) {
        return;
    }
    let mut w = nobodys_world("nobody-keeps-sudo");
    w.env("AGENT_GUARDS_SECOND_LINE_USER_NAMESPACE", "off");
    let script = format!("id -u; {LAUNCH}; {SUDO}");
    let gated = as_nobody(&w, true, &script);
    let plain = as_nobody(&w, false, &script);
    assert!(gated.starts_with("65534\n"), "{gated}");
    // No gate: the launch runs (the command guards still read the text), and sudo behaves
    // exactly as it does without the prefix.
    assert!(gated.contains("stand-in claude --model fable"), "{gated}");
    assert!(gated.contains("sudo 1"), "{gated}");
    assert_eq!(gated, plain);
    assert!(!gated.contains("agent-guards:"));
}

#[test]
fn as_a_non_root_user_who_opted_into_no_new_privs_the_gate_judges_and_sudo_refuses() {
    if !can_run(true) {
        return;
    }
    let mut w = nobodys_world("nobody-nnp");
    w.env("AGENT_GUARDS_SECOND_LINE_USER_NAMESPACE", "off");
    w.env("AGENT_GUARDS_SECOND_LINE_NO_NEW_PRIVS", "1");
    let out = as_nobody(&w, true, &format!("{LAUNCH}; {SUDO}; id -u"));
    assert!(out.contains("launch 126"), "judged: {out}");
    assert!(
        out.contains("agent-guards: refused claude --model fable (M3"),
        "{out}"
    );
    assert!(out.contains("sudo 1"), "sudo refuses: {out}");
    assert!(
        out.to_lowercase().contains("no new privileges"),
        "sudo says why: {out}"
    );
    assert!(out.ends_with("65534\n"), "the command went on: {out}");
}

const TAKE_LISTENER: &str = r#"
import ctypes, os, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
def took(pid):
    pfd = libc.syscall(434, pid, 0)  # pidfd_open
    if pfd < 0:
        return "pidfd_open errno %d" % ctypes.get_errno()
    errs = set()
    for fd in range(64):
        r = libc.syscall(438, pfd, fd, 0)  # pidfd_getfd
        if r >= 0:
            return "took fd %d" % fd
        errs.add(ctypes.get_errno())
    return "errnos %s" % sorted(errs)
sups = [int(p) for p in os.listdir(sys.argv[1])] if os.path.isdir(sys.argv[1]) else []
print("supervisor", took(sups[0]) if sups else "none")
child = subprocess.Popen(["/bin/sleep", "5"])
print("own child", took(child.pid))
child.kill()
"#;

#[test]
fn a_non_root_command_cannot_take_its_supervisors_listener() {
    // Issue 41: an agent command stopped its supervisor and took the notification listener with
    // pidfd_getfd to answer "continue" to every exec. The supervisor (and its watchdog) are not
    // dumpable, so a process of the same non-root user cannot; a dumpable one can (the control).
    if !can_run(false) {
        return;
    }
    let mut w = nobodys_world("nobody-getfd");
    w.env("AGENT_GUARDS_SECOND_LINE_NO_NEW_PRIVS", "1");
    let sup_dir = w.session_dir().join("second-line");
    let script = format!(
        "/usr/bin/python3 -c '{}' {}",
        TAKE_LISTENER.replace('\'', "'\\''"),
        sup_dir.display()
    );
    // The control, outside the gate: a dumpable process of the same user gives its descriptors.
    let out = as_nobody(&w, false, &script);
    assert!(
        out.contains("own child took fd"),
        "the control works: {out}"
    );
    // Under the gate the filter refuses pidfd_getfd itself (issue 38: the CLI's descriptors),
    // and the supervisor would refuse it anyway (not dumpable).
    let out = as_nobody(&w, true, &script);
    assert!(out.contains("supervisor errnos [1]"), "{out}");
    assert!(out.contains("own child errnos [1]"), "{out}");
}
