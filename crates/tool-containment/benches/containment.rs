//! Whole-process benchmarks (C8, C7), run with `cargo bench -p tool-containment`:
//!
//! 1. prefix overhead: median wall time of `tool-containment '<tool-shaped script>'` (an agent
//!    command: probe, ceilings, group creation, move, exec) minus that of `bash -c '<same>'`;
//! 2. SessionEnd with 50 live groups: 50 agent commands each leave `sleep 300 &` behind, then the
//!    SessionEnd mode is timed stopping and removing them all (median of 5 rounds).
//!
//! Needs a cgroup backend (root on v1 or v2); groups carry a unique session name and are removed.

use hook_replay::timing::{median, print_load_average};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_tool-containment");

fn tool_call(command: &str) -> String {
    format!(
        "source /nonexistent/.claude/shell-snapshots/snapshot-bash-0-bench.sh 2>/dev/null || true && eval '{command}' < /dev/null && pwd -P >| /tmp/claude-bench-{}-cwd",
        std::process::id()
    )
}

fn time_run(mut c: Command) -> Duration {
    let t = Instant::now();
    let s = c
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("spawn");
    let d = t.elapsed();
    assert!(s.success());
    d
}

fn session_end(home: &std::path::Path, session: &str) -> (Duration, i32) {
    let t = Instant::now();
    let mut child = Command::new(BIN)
        .env("HOME", home)
        .env("XDG_STATE_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let payload =
        format!(r#"{{"hook_event_name":"SessionEnd","session_id":"{session}","reason":"other"}}"#);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let status = child.wait().unwrap();
    (t.elapsed(), status.code().unwrap_or(-1))
}

fn main() {
    print_load_average();
    let home = tempfile::tempdir().unwrap();
    let session = format!("bench-{}", std::process::id());
    let script = tool_call("true");
    let rounds = 300;
    let (mut bash, mut wrapped) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let mut b = Command::new("bash");
        b.arg("-c").arg(&script);
        bash.push(time_run(b));
        let mut w = Command::new(BIN);
        w.arg(&script)
            .env("CLAUDE_CODE_SESSION_ID", &session)
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path());
        wrapped.push(time_run(w));
    }
    let (mb, mw) = (median(bash), median(wrapped));
    println!(
        "prefix overhead (C8): bash -c median {:.3} ms, tool-containment median {:.3} ms, overhead {:.3} ms over {rounds} runs",
        mb.as_secs_f64() * 1e3,
        mw.as_secs_f64() * 1e3,
        (mw.as_secs_f64() - mb.as_secs_f64()) * 1e3
    );
    let (d, code) = session_end(home.path(), &session);
    println!(
        "cleanup: SessionEnd removed {rounds} empty groups in {:.1} ms (exit {code})",
        d.as_secs_f64() * 1e3
    );

    let mut ends = Vec::new();
    for round in 0..5 {
        let s = format!("bench50-{}-{round}", std::process::id());
        for _ in 0..50 {
            let mut w = Command::new(BIN);
            w.arg(tool_call("(sleep 300 &)"))
                .env("CLAUDE_CODE_SESSION_ID", &s)
                .env("HOME", home.path())
                .env("XDG_CONFIG_HOME", home.path());
            time_run(w);
        }
        let (d, code) = session_end(home.path(), &s);
        assert_eq!(code, 2, "the 50 sleeps were reported");
        ends.push(d);
    }
    println!(
        "SessionEnd with 50 live groups (C7): median {:.1} ms over 5 rounds (max {:.1} ms)",
        median(ends.clone()).as_secs_f64() * 1e3,
        ends.iter().max().unwrap().as_secs_f64() * 1e3
    );
}
