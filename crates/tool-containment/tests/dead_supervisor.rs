//! C10 under the real prefix: the command's supervisor is killed from outside (SIGKILL) in the
//! middle of an agent command. Its watchdog answers in its place: the command does not hang,
//! its next execs fail closed with one line naming C10, the rest of the command (writes, its
//! own exit) carries on, and SessionEnd still stops the leftover the command started, reports
//! it, and leaves no supervisor or watchdog running.
#![cfg(all(target_os = "linux", not(agent_guards_portable)))]

mod common;
use common::*;
use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;
use std::time::Duration;

const SCRIPT: &str = r#"
import os, subprocess, sys, time
def attempt(what, argv):
    try:
        r = subprocess.run(argv, stdout=subprocess.DEVNULL)
        print(what, "exit", r.returncode, flush=True)
    except OSError as e:
        print(what, "errno", e.errno, flush=True)
attempt("before", ["/bin/true"])
# A leftover for SessionEnd, started while the supervisor answers.
subprocess.Popen(["sleep", sys.argv[2]], stdin=subprocess.DEVNULL,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("ready", flush=True)
deadline = time.time() + 60
while not os.path.exists(sys.argv[1]) and time.time() < deadline:
    time.sleep(0.02)
attempt("after-true", ["/bin/true"])
attempt("after-git", ["git", "--version"])
with open(sys.argv[1] + ".written", "w") as f:
    f.write("ok")
print("done", flush=True)
"#;

/// Root (the second line's layers need it here); otherwise the check is said not to run.
fn root() -> bool {
    let root = nix::unistd::geteuid().is_root();
    if !root {
        hook_replay::skip::cannot_run("tool-containment dead_supervisor", "needs root");
    }
    root
}

/// (pid, watchdog pid) from the session's one supervisor record.
fn supervisor_and_watchdog(dir: &std::path::Path) -> (i32, i32) {
    let files: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "one supervisor for the command");
    let pid = files[0].file_name().to_str().unwrap().parse().unwrap();
    let text = std::fs::read_to_string(files[0].path()).unwrap();
    let watchdog = text
        .lines()
        .nth(1)
        .and_then(|l| l.split_whitespace().next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("the record names the watchdog: {text:?}"));
    (pid, watchdog)
}

#[test]
fn a_supervisor_killed_mid_command_fails_the_next_exec_with_a_line_and_session_end_reports_all() {
    if !root() {
        return;
    }
    let s = TestSession::new("dead-supervisor");
    let work = tempfile::tempdir().unwrap();
    let script = work.path().join("mid.py");
    std::fs::write(&script, SCRIPT).unwrap();
    let go = work.path().join("go");
    let sleep_arg = unique_sleep(7);
    let mut child = s
        .tool_command(&format!(
            "python3 {} {} {sleep_arg}",
            script.display(),
            go.display()
        ))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("ready") {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "ended early: {seen}"
        );
        seen.push_str(&line);
    }
    assert!(seen.contains("before exit 0"), "{seen}");

    let records = (s.home.state_home()).join(format!("agent-guards/sessions/{}/second-line", s.id));
    let (supervisor, watchdog) = supervisor_and_watchdog(&records);
    assert!(alive(watchdog), "the watchdog runs beside the supervisor");
    // SAFETY: killing the supervisor this test's command started.
    unsafe { libc::kill(supervisor, libc::SIGKILL) };
    assert!(wait_for(Duration::from_secs(10), || !alive(supervisor)));
    std::fs::write(&go, "").unwrap();

    // The command ends on its own (bounded: a hang fails the test).
    if !wait_for(Duration::from_secs(60), || {
        child.try_wait().unwrap().is_some()
    }) {
        let _ = child.kill();
        panic!("the command hung after its supervisor died");
    }
    stdout.read_to_string(&mut seen).unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(child.wait().unwrap().success(), "{seen}\n{stderr}");
    assert!(seen.contains("after-true errno 1"), "{seen}\n{stderr}");
    assert!(seen.contains("after-git errno 1"), "{seen}\n{stderr}");
    assert!(seen.contains("done"), "writes still work: {seen}\n{stderr}");
    let line = "agent-guards: refused an exec (C10.unanswered: the second line's supervisor for this command died";
    assert!(
        stderr.matches(line).count() >= 2,
        "one line per refused exec:\n{stderr}"
    );
    assert!(std::fs::read_to_string(work.path().join("go.written")).is_ok());

    // SessionEnd stops the leftover, names it, and nothing of the second line keeps running.
    let sleep_cmd = format!("sleep {sleep_arg}");
    let (code, report) = s.session_end();
    let still = running(&sleep_cmd);
    kill_all(&sleep_cmd);
    assert!(still.is_empty(), "{report}");
    assert_eq!(code, 2, "{report}");
    assert!(
        report.contains(&sleep_cmd),
        "the leftover is reported: {report}"
    );
    assert!(
        !report.contains("STILL RUNNING") && !report.contains("FAILED"),
        "{report}"
    );
    assert!(!alive(watchdog), "SessionEnd stopped the watchdog");
    let left = std::fs::read_dir(&records)
        .map(|d| d.flatten().count())
        .unwrap_or(0);
    assert_eq!(left, 0, "no supervisor record is left");
}
