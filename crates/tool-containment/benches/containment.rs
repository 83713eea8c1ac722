//! Whole-process benchmarks (C8, C7), run with `cargo bench -p tool-containment`:
//!
//! 1. prefix overhead: median wall time of `tool-containment '<tool-shaped script>'` (an agent
//!    command: probe, ceilings, group creation, move, exec) minus that of `bash -c '<same>'`;
//! 2. SessionEnd with 50 live groups: 50 agent commands each leave `sleep 300 &` behind, then the
//!    SessionEnd mode is timed stopping and removing them all (median of 5 rounds).
//!
//! Needs a cgroup backend (root on v1 or v2); groups carry a unique session name and are removed.

use hook_replay::bench::{ms, print_load_average, run_once, Samples};
use hook_replay::sandbox::Sandbox;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_tool-containment");

fn tool_call(command: &str) -> String {
    format!(
        "source /nonexistent/.claude/shell-snapshots/snapshot-bash-0-bench.sh 2>/dev/null || true && eval '{command}' < /dev/null && pwd -P >| /tmp/claude-bench-{}-cwd",
        std::process::id()
    )
}

/// The prefix mode as the CLI runs it for an agent command of `session`.
fn prefix(home: &Sandbox, session: &str, script: &str) -> Command {
    let mut c = Command::new(BIN);
    c.arg(script).env("CLAUDE_CODE_SESSION_ID", session);
    home.isolate(&mut c);
    c
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

fn session_end(home: &Sandbox, session: &str) -> (Duration, i32) {
    let mut c = Command::new(BIN);
    home.isolate(&mut c);
    let payload =
        format!(r#"{{"hook_event_name":"SessionEnd","session_id":"{session}","reason":"other"}}"#);
    let run = run_once(&mut c, payload.as_bytes());
    (run.wall, run.status.code().unwrap_or(-1))
}

fn main() {
    print_load_average();
    let home = Sandbox::new(BIN);
    let session = format!("bench-{}", std::process::id());
    let script = tool_call("true");
    let rounds = 300;
    let (mut bash, mut wrapped) = (Samples::default(), Samples::default());
    for _ in 0..rounds {
        let mut b = Command::new("bash");
        b.arg("-c").arg(&script);
        bash.push(time_run(b));
        wrapped.push(time_run(prefix(&home, &session, &script)));
    }
    let (mb, mw) = (ms(bash.median()), ms(wrapped.median()));
    println!(
        "prefix overhead (C8): bash -c median {mb:.3} ms, tool-containment median {mw:.3} ms, overhead {:.3} ms over {rounds} runs",
        mw - mb
    );
    let (d, code) = session_end(&home, &session);
    println!(
        "cleanup: SessionEnd removed {rounds} empty groups in {:.1} ms (exit {code})",
        ms(d)
    );

    let mut ends = Samples::default();
    for round in 0..5 {
        let s = format!("bench50-{}-{round}", std::process::id());
        for _ in 0..50 {
            time_run(prefix(&home, &s, &tool_call("(sleep 300 &)")));
        }
        let (d, code) = session_end(&home, &s);
        assert_eq!(code, 2, "the 50 sleeps were reported");
        ends.push(d);
    }
    println!(
        "SessionEnd with 50 live groups (C7): median {:.1} ms over 5 rounds (max {:.1} ms)",
        ms(ends.median()),
        ms(ends.max())
    );
}
