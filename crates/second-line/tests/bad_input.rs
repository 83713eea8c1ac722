//! Bad input to the supervisor never hangs a command: what it cannot read about an exec fails
//! that exec closed with a line (too many arguments, a program path longer than it reads), a
//! call whose memory is garbage is left to the kernel (which fails it with `EFAULT`), and
//! processes that exit while their exec is being judged do not stop the supervisor from answering
//! the next one.

mod common;
use common::*;
use std::time::Duration;

/// `python3 -c script` under the second line, skipped (`None`) without root. The run is bounded
/// generously: a hang fails the test instead of stalling it.
fn run(name: &str, script: &str) -> Option<Ran> {
    let w = root_world(name)?;
    let mut command = w.command("python3", &["-c", script]);
    let out = hook_replay::bounded::run_bounded(&mut command, Duration::from_secs(120)).unwrap();
    assert!(!out.timed_out, "the command hung under the second line");
    Some(Ran {
        status: out.status.expect("an exit status"),
        stdout: out.stdout,
        stderr: out.stderr,
    })
}

const TOO_MUCH: &str = r#"
import subprocess
def attempt(what, argv, **kw):
    try:
        print(what, "exit", subprocess.run(argv, stdout=subprocess.DEVNULL, **kw).returncode)
    except OSError as e:
        print(what, "errno", e.errno)
attempt("git-9000-args", ["git", "--version"] + ["x"] * 9000)
attempt("true-9000-args", ["/bin/true"] + ["x"] * 9000)
attempt("long-path", ["/" + "a" * 200000])
attempt("git-after", ["git", "--version"])
"#;

#[test]
fn what_the_supervisor_cannot_read_fails_that_exec_closed_with_a_line() {
    let Some(out) = run("bad-too-much", TOO_MUCH) else {
        return;
    };
    out.prints(&[
        // A judged program whose argv is over the bounds: refused, with the reason.
        "git-9000-args errno 1",
        // A program no rule reads: its argv is never read, so it runs.
        "true-9000-args exit 0",
        // A path longer than the supervisor reads: refused closed (the kernel would refuse it
        // too).
        "long-path errno 1",
        // The supervisor goes on answering.
        "git-after exit 0",
    ])
    .says(&[
        "agent-guards: refused an exec (C10.unjudged: the exec could not be judged: its arguments: too many entries",
        "C10.unjudged: the exec could not be judged: the program path: too long",
    ]);
    // One line per refused attempt (a PATH search tries git in every folder that has it), and
    // none for the program whose argv is never read.
    assert_eq!(
        out.said("agent-guards: refused"),
        out.said("too many entries") + 1,
        "{}",
        out.stderr
    );
}

const GARBAGE: &str = r#"
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
bad = ctypes.c_void_p(0x10)
# openat(AT_FDCWD, <unmapped>, O_WRONLY|O_CREAT): a write-open the notifier cannot read.
r = libc.syscall(257, -100, bad, os.O_WRONLY | os.O_CREAT, 0o644)
print("openat", r, ctypes.get_errno())
# connect(fd, <unmapped>, 16)
import socket
s = socket.socket()
r = libc.connect(s.fileno(), bad, 16)
print("connect", r, ctypes.get_errno())
print("done")
"#;

#[test]
fn calls_whose_memory_is_garbage_are_left_to_the_kernel() {
    let Some(out) = run("bad-garbage", GARBAGE) else {
        return;
    };
    let efault = libc::EFAULT;
    out.prints(&[
        &format!("openat -1 {efault}"),
        &format!("connect -1 {efault}"),
    ]);
    assert!(out.stdout.ends_with("done\n"), "{}", out.stdout);
    assert!(!out.stderr.contains("agent-guards:"), "{}", out.stderr);
}

const EXIT_MID_CHECK: &str = r#"
import os, subprocess, threading, time
# Each child starts an exec of git with a large argv (the supervisor reads all of it) on one
# thread while its main thread exits at once: the process is gone while its exec is judged.
child = '''
import os, threading
big = ["x" * 100] * 4000
t = threading.Thread(target=lambda: os.execvp("git", ["git", "--version"] + big))
t.start()
os._exit(7)
'''
codes = set()
for i in range(30):
    codes.add(subprocess.run(["python3", "-c", child]).returncode)
print("children", sorted(codes))
try:
    subprocess.run(["claude", "--model", "fable"])
    print("fable ran")
except PermissionError:
    print("fable refused")
print("git", subprocess.run(["git", "--version"], stdout=subprocess.DEVNULL).returncode)
"#;

#[test]
fn processes_that_exit_while_their_exec_is_judged_do_not_stop_the_supervisor() {
    let Some(out) = run("bad-exit-mid-check", EXIT_MID_CHECK) else {
        return;
    };
    // After thirty processes vanished mid-check, the next judged execs are answered.
    out.prints(&["children [", "fable refused", "git 0"])
        .says(&["(M3"]);
}

const STOPPED_SUPERVISOR: &str = r#"
import os, subprocess, time
# Say we run, wait until the test has stopped our supervisor (it writes the marker), then exec
# a judged program: nobody receives the notification.
open(os.environ["STOPPED_MARKER"] + ".ready", "w").close()
while not os.path.exists(os.environ["STOPPED_MARKER"]):
    time.sleep(0.05)
t = time.time()
try:
    subprocess.run(["git", "--version"], stdout=subprocess.DEVNULL)
    print("git ran")
except PermissionError:
    print("git refused after", int(time.time() - t), "s")
"#;

#[test]
fn a_supervisor_that_stops_answering_is_ended_and_the_exec_fails_closed() {
    // Issue 47: the supervisor judged with no deadline (a repository config that includes a
    // FIFO stalled the command) and issue 41: SIGSTOP made it answer nothing. Its watchdog now
    // ends a supervisor that leaves an exec waiting past the deadline and refuses the exec.
    let Some(mut w) = root_world("bad-stopped") else {
        return;
    };
    let marker = w.home().join("stopped");
    w.env("STOPPED_MARKER", marker.to_str().unwrap());
    // The interpreter itself, not a shim that execs more programs before it runs.
    let mut command = w.command("/usr/bin/python3", &["-c", STOPPED_SUPERVISOR]);
    let stopper = {
        let dir = w.session_dir();
        let marker = marker.clone();
        std::thread::spawn(move || {
            let started = std::time::Instant::now();
            loop {
                let pids: Vec<i32> = std::fs::read_dir(dir.join("second-line"))
                    .into_iter()
                    .flatten()
                    .flatten()
                    .filter_map(|e| e.file_name().to_str()?.parse().ok())
                    .collect();
                let ready = marker.with_extension("ready").exists();
                if let (Some(pid), true) = (pids.first(), ready) {
                    // SAFETY: signalling the test's own supervisor process.
                    unsafe { libc::kill(*pid, libc::SIGSTOP) };
                    std::fs::write(&marker, b"").unwrap();
                    return;
                }
                assert!(started.elapsed() < Duration::from_secs(60), "no supervisor");
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let out = hook_replay::bounded::run_bounded(&mut command, Duration::from_secs(120)).unwrap();
    stopper.join().unwrap();
    assert!(
        !out.timed_out,
        "the command hung under a stopped supervisor"
    );
    assert!(
        out.stdout.contains("git refused after"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    assert!(out.stderr.contains("C10.unanswered"), "{}", out.stderr);
}
