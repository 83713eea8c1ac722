//! Lifetime: a background server an agent command leaves behind keeps working after the command
//! returned (its execs are still judged, its connections still made), the command's output is
//! not held open by the supervisor, and once the supervisor is stopped (SessionEnd) an exec
//! fails closed at once instead of hanging.

mod common;
use common::*;
use std::io::{BufRead, BufReader};
use std::time::Duration;

const BACKGROUND: &str = r#"
import os, socket, subprocess, sys, time
# One connection, made while the supervisor answers: after it is stopped, new connects and
# write-opens fail too (ENOSYS), but an open socket keeps working.
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
def attempt(argv):
    try:
        return "exit %d" % subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    except OSError as e:
        return "errno %d" % e.errno
while True:
    line = "pid %d true:%s claude:%s\n" % (os.getpid(), attempt(["/bin/true"]),
                                          attempt(["claude", "--model", "fable"]))
    s.sendall(line.encode())
    time.sleep(0.05)
"#;

#[test]
fn a_background_server_keeps_working_and_a_stopped_supervisor_fails_execs_closed() {
    let Some(w) = root_world("lifetime") else {
        return;
    };
    w.write("bg.py", BACKGROUND);
    let (listener, port) = loopback_listener();
    let script = format!("python3 bg.py {port} >/dev/null 2>&1 & echo started");
    // output() returns only when every holder of the command's pipes is gone: the supervisor
    // must not be one of them.
    assert_eq!(w.ran("bash", &["-c", &script]).stdout.trim(), "started");
    assert_eq!(
        w.supervisors().len(),
        1,
        "one supervisor serves the background server"
    );

    let (conn, _) = listener.accept().unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut lines = BufReader::new(conn).lines();
    let mut next = || lines.next().expect("a line").expect("read in time");
    let mut pid = 0u32;
    for _ in 0..3 {
        let m = next();
        assert!(m.contains("true:exit 0 claude:errno 1"), "{m}");
        pid = m.split_whitespace().nth(1).unwrap().parse().unwrap();
    }

    // SessionEnd stops the supervisor; the server's next execs fail with ENOSYS, no hang.
    let stopped = second_line::stop_session(&w.session_dir());
    assert_eq!(stopped.len(), 1);
    let closed = (0..100).any(|_| next().contains("true:errno 38 claude:errno 38"));
    // SAFETY: killing the background server this test started.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    assert!(closed, "execs fail closed once the supervisor is gone");
}

#[test]
fn the_supervisor_exits_by_itself_when_the_command_tree_is_gone() {
    let Some(w) = root_world("lifetime-exit") else {
        return;
    };
    assert_eq!(
        w.ran("bash", &["-c", "sleep 0.2 & echo ok"]).stdout.trim(),
        "ok"
    );
    eventually("the supervisor exited after the last process", || {
        w.supervisors().is_empty()
    });
}
