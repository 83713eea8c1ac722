//! G7 against real bash and real `timeout`: every accepted timeout shape, run with a short
//! duration around an unbounded loop, ends (and leaves no loop behind); a sample of rejected
//! shapes (signal 0, a zero duration, forks out of the timeout's reach) leaves the loop running
//! after the timeout. Every loop records its pid, and every pid is killed afterwards.

use gh_write_guard::g7_wait_loops::{unbounded, wait_loops};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The loop under test: records its pid, touches a marker, sleeps briefly, forever.
const LOOP: &str = r#"while :; do echo $BASHPID >> "$P"; touch "$M"; sleep 0.2; done"#;

fn guard_unbounded(cmd: &str) -> bool {
    let parsed = shell_syntax::parse(cmd);
    let view = shell_syntax::commands(&parsed);
    let loops = wait_loops(cmd, &parsed, &view);
    let any = unbounded(&loops).next().is_some();
    any
}

/// Kills every recorded loop pid and the whole process group when dropped.
struct Reaper {
    pids_file: std::path::PathBuf,
    pgid: i32,
}

impl Drop for Reaper {
    fn drop(&mut self) {
        let pids = std::fs::read_to_string(&self.pids_file).unwrap_or_default();
        for p in pids.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
            if p > 1 {
                // SAFETY: plain kill(2) on a pid this test's loops wrote.
                unsafe { libc::kill(p, libc::SIGKILL) };
            }
        }
        if self.pgid > 1 {
            // SAFETY: kill(2) on the process group this test created.
            unsafe { libc::kill(-self.pgid, libc::SIGKILL) };
        }
    }
}

/// Whether the marker is touched again within a second (a loop is still running).
fn loop_alive(marker: &Path) -> bool {
    let _ = std::fs::remove_file(marker);
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(1200) {
        if marker.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// Run `cmd` with bash; `(ended within the limit, a loop still alive afterwards)`.
fn run(cmd: &str, limit: Duration) -> (bool, bool) {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let marker = dir.path().join("mark");
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(cmd)
        .env("P", &pids)
        .env("M", &marker)
        .env("HOME", dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("spawn bash");
    let _reaper = Reaper {
        pids_file: pids.clone(),
        pgid: child.id() as i32,
    };
    let start = Instant::now();
    let mut ended = false;
    while start.elapsed() < limit {
        if let Ok(Some(_)) = child.try_wait() {
            ended = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let alive = loop_alive(&marker);
    if !ended {
        let _ = child.kill();
    }
    let _ = child.wait();
    (ended, alive)
}

fn shape(template: &str) -> String {
    template.replace("LOOP", LOOP)
}

/// Shapes the guard accepts as bounded; each must end with the loop gone.
const ACCEPTED: &[&str] = &[
    "timeout 1 bash -c 'LOOP'",
    "timeout -k 1 1 bash -c 'LOOP'",
    "timeout -s KILL 1 bash -c 'LOOP'",
    "timeout -s 10 1 bash -c 'LOOP'",
    "timeout -s 0 -k 1 1 bash -c 'LOOP'",
    "timeout --kill-after=1 --signal 0 1 bash -c 'LOOP'",
    "timeout -s 0 -s KILL 1 bash -c 'LOOP'",
    "timeout -s 0 5 timeout 1 bash -c 'LOOP'",
    "timeout -s 0 5 timeout -s 0 4 timeout 1 bash -c 'LOOP'",
    "TMPDIR=/tmp timeout 1 bash -c 'LOOP'",
    "timeout 1 nice bash -c 'LOOP'",
    "timeout 1 env A=x~y bash -c 'LOOP'",
    "timeout 1 bash -c \"bash -c 'LOOP'\"",
    "timeout 1 bash -c 'eval \"LOOP\"'",
    "if timeout 1 bash -c 'LOOP'; then echo MET; fi",
    "x=$(timeout 1 bash -c 'LOOP')",
    "f() { timeout 1 bash -c 'LOOP'; }; f",
    "timeout 1s sh -c 'LOOP'",
];

/// The shapes (`LOOP` filled in) the guard does not decide as `unbounded` says, and those whose
/// real run `real` faults (it returns what went wrong).
fn failures(
    shapes: &[&str],
    unbounded: bool,
    real: impl Fn(&str) -> Option<String>,
) -> Vec<String> {
    let mut failures = Vec::new();
    for t in shapes {
        let cmd = shape(t);
        if guard_unbounded(&cmd) != unbounded {
            let verdict = if unbounded { "allowed" } else { "denied" };
            failures.push(format!("guard {verdict} {cmd:?}"));
            continue;
        }
        failures.extend(real(&cmd));
    }
    failures
}

#[test]
fn accepted_timeout_shapes_end() {
    let failures = failures(ACCEPTED, false, |cmd| {
        let (ended, alive) = run(cmd, Duration::from_secs(8));
        (!ended || alive).then(|| format!("{cmd:?}: ended={ended} loop alive after={alive}"))
    });
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Shapes the guard rejects; after the timeout's duration the loop is still running.
const REJECTED: &[&str] = &[
    "timeout -s 0 1 bash -c 'LOOP'",
    "timeout -s0 1 bash -c 'LOOP'",
    "timeout --sig=0 1 bash -c 'LOOP'",
    "timeout -s EXIT 1 bash -c 'LOOP'",
    "timeout -s sig00 1 bash -c 'LOOP'",
    "timeout -s 256 1 bash -c 'LOOP'",
    "timeout -s 0 -k 0 1 bash -c 'LOOP'",
    "timeout 0 bash -c 'LOOP'",
    "timeout 1 bash -c 'LOOP &'",
    "timeout 1 bash -c '(LOOP)&'",
    "timeout 1 bash -c 'LOOP & disown; wait'",
    "timeout 1 setsid --fork bash -c 'LOOP'",
    "timeout 1 bash -c \"bash -c 'LOOP' &\"",
];

#[test]
fn rejected_shapes_outlive_the_timeout() {
    let failures = failures(REJECTED, true, |cmd| {
        // Give the 1 s timeout time to act, then look for the loop.
        let (_, alive) = run(cmd, Duration::from_millis(2500));
        (!alive).then(|| format!("{cmd:?}: the loop did not outlive the timeout"))
    });
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The issue's examples, with real bash for the counter bound.
#[test]
fn issue_examples() {
    assert!(!guard_unbounded(
        r#"until [ "$i" -ge 10 ]; do sleep 1; i=$((i+1)); done"#
    ));
    assert!(guard_unbounded("while true; do sleep 5; done"));
    assert!(!guard_unbounded(
        "timeout 600 bash -c 'while true; do sleep 5; done'"
    ));
    assert!(guard_unbounded(
        "timeout -s 0 600 bash -c 'while true; do sleep 5; done'"
    ));
    assert!(guard_unbounded(
        "timeout 600 bash -c 'while :; do sleep 1; done &'"
    ));
    // The counter-bounded loop ends on its own.
    let (ended, _) = run(
        r#"i=0; until [ "$i" -ge 3 ]; do sleep 0.1; i=$((i+1)); done"#,
        Duration::from_secs(5),
    );
    assert!(ended);
}
