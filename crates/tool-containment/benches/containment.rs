//! Whole-process benchmarks (C8, C7), run with `cargo bench -p tool-containment`:
//!
//! 1. prefix overhead: median wall time of `tool-containment '<tool-shaped script>'` (an agent
//!    command: probe, ceilings, group creation, move, exec) minus that of `bash -c '<same>'`;
//! 2. SessionEnd with 50 live groups: 50 agent commands each leave `sleep 300 &` behind, then the
//!    SessionEnd mode is timed stopping and removing them all (median of 5 rounds).
//!
//! 3. SessionEnd at scale (issue 18), side by side with baselines measured in the same run:
//!    4,000 sleepers left by one command at the ceiling 4,096, against a bare `SIGKILL` of 4,000
//!    uncontained sleepers (the floor of any stop) and a SessionEnd with nothing to stop; and a
//!    session holding 5,000 finished command groups (as left before finished groups were removed
//!    by the next command) plus one live leftover.
//!
//! `cargo bench -p tool-containment -- scale` runs part 3 only.
//!
//! Needs a cgroup backend (root on v1 or v2); groups carry a unique session name and are removed.

use hook_replay::bench::{ms, print_load_average, run_once, Samples};
use hook_replay::process::processes_running;
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

fn wait_until(limit: Duration, mut cond: impl FnMut() -> bool) {
    let end = Instant::now() + limit;
    while !cond() {
        assert!(Instant::now() < end, "timed out waiting");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Part 3: SessionEnd at scale, with its baselines in the same run.
fn scale(home: &Sandbox) {
    let n = 4000;
    let (mut ours, mut floor, mut empty) =
        (Samples::default(), Samples::default(), Samples::default());
    for round in 0..3 {
        let arg = format!("4{round}00.{}", std::process::id());
        let cmd = format!("sleep {arg}");
        let spawn = format!("for i in $(seq {n}); do sleep {arg} & done");
        // Baseline: the same sleepers, uncontained, ended by a bare SIGKILL of each pid.
        Command::new("bash").arg("-c").arg(&spawn).status().unwrap();
        wait_until(Duration::from_secs(120), || {
            processes_running(&cmd).len() == n
        });
        let pids = processes_running(&cmd);
        let t = Instant::now();
        for p in &pids {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(*p as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        while pids
            .iter()
            .any(|p| std::path::Path::new(&format!("/proc/{p}")).exists())
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        floor.push(t.elapsed());
        // Ours: one agent command leaves them in its group; SessionEnd holds, names, kills.
        let s = format!("bench4k-{}-{round}", std::process::id());
        let mut c = prefix(home, &s, &tool_call(&spawn));
        c.env("AGENT_CONTAINMENT_TASKS_MAX", "4096")
            .env("CLAUDE_CODE_CHILD_SESSION", "1");
        time_run(c);
        wait_until(Duration::from_secs(120), || {
            processes_running(&cmd).len() == n
        });
        let (d, code) = session_end(home, &s);
        assert_eq!(code, 2);
        assert!(processes_running(&cmd).is_empty(), "all stopped");
        ours.push(d);
        let (d, _) = session_end(home, &format!("bench-empty-{}-{round}", std::process::id()));
        empty.push(d);
    }
    println!(
        "SessionEnd, 4,000 sleepers in one command (C7): median {:.1} ms (max {:.1}) | baseline bare SIGKILL of 4,000 pids until gone: median {:.1} ms | baseline SessionEnd with nothing to stop: median {:.1} ms (3 rounds)",
        ms(ours.median()), ms(ours.max()), ms(floor.median()), ms(empty.median())
    );

    let mut piled = Samples::default();
    for round in 0..3 {
        let s = format!("bench5k-{}-{round}", std::process::id());
        let arg = format!("5{round}00.{}", std::process::id());
        let mut c = prefix(home, &s, &tool_call(&format!("sleep {arg} &")));
        c.env("CLAUDE_CODE_CHILD_SESSION", "1");
        time_run(c);
        let group = tool_containment::c3_groups::session_group_name(Some(&s));
        let backend = tool_containment::c4_backends::choose(&tool_containment::c4_backends::probe(
            std::path::Path::new("/proc/self"),
            nix::unistd::geteuid().as_raw(),
            &|k| std::env::var(k).ok(),
        ));
        for d in tool_containment::c3_groups::session_dirs(&backend, &group) {
            for i in 0..5000 {
                std::fs::create_dir(d.join(format!("cmd-{i}-finished"))).unwrap();
            }
        }
        wait_until(Duration::from_secs(30), || {
            processes_running(&format!("sleep {arg}")).len() == 1
        });
        let (d, code) = session_end(home, &s);
        assert_eq!(code, 2);
        assert!(processes_running(&format!("sleep {arg}")).is_empty());
        piled.push(d);
    }
    println!(
        "SessionEnd, 5,000 finished command groups + 1 live leftover (C7): median {:.1} ms (max {:.1}) (3 rounds; same run's baseline with nothing to stop above)",
        ms(piled.median()), ms(piled.max())
    );
}

fn main() {
    print_load_average();
    let home = Sandbox::new(BIN);
    if std::env::args().any(|a| a == "scale") {
        scale(&home);
        print_load_average();
        return;
    }
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
    scale(&home);
    print_load_average();
}
