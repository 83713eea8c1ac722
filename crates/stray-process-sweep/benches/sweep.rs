//! S5 benchmarks, run with `cargo bench -p stray-process-sweep`:
//!
//! 1. the pure part (index, agent, survivors, roots, kill command) over a synthetic 5,000-entry
//!    table shaped like a busy host: an agent with 40 tool shells (half left running, each with a
//!    small subtree), 300 reparented marker-carrying daemons, the rest unrelated processes;
//! 2. a full sweep over this machine's real `/proc` (read, discover, report), in-process;
//! 3. the whole binary answering a SessionEnd payload (process start to exit);
//! 4. S5 on a real `/proc` with 5,000 extra processes (issue 18), side by side in one run: the
//!    sweep (lean read: `stat` for all, environments only for candidates) with an agent found,
//!    the same with no agent (every environment of this user read), and the baseline — the full
//!    read of every process's `stat`, command line and environment that the sweep did before.
//!
//! `cargo bench -p stray-process-sweep -- big` runs part 4 only; `-- tree` runs S5 after a
//! session that left 4,000 processes below its tool shell (issue 47).

use hook_replay::bench::{ms, print_load_average, time_runs, Samples};
use hook_replay::sandbox::Sandbox;
use proc_table::{EnvMarker, ProcEntry};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use stray_process_sweep::s1_discovery::{find_agent, survivors, Index, Query};
use stray_process_sweep::s2_report::{kill_command, roots};
use stray_process_sweep::sweep::{sweep, Request};

fn entry(pid: i32, ppid: i32, sid: i32, session: Option<&str>, child: bool) -> ProcEntry {
    ProcEntry {
        pid,
        ppid,
        pgid: sid,
        sid,
        uid: 1000,
        age_secs: 600,
        comm: "proc".into(),
        start_ticks: 0,
        cmdline: format!("/usr/bin/proc --id {pid}"),
        env: EnvMarker {
            session_id: session.map(str::to_string),
            child_session: child,
            harness: false,
            readable: true,
            truncated: false,
        },
    }
}

fn synthetic(n: i32) -> Vec<ProcEntry> {
    let mut t = vec![entry(1, 0, 1, None, false)];
    let mut agent = entry(100, 1, 100, None, false);
    agent.comm = "claude".into();
    agent.cmdline = "/usr/local/bin/claude".into();
    t.push(agent);
    let mut pid = 200;
    for shell in 0..40 {
        let s = pid;
        t.push(entry(s, 100, s, Some("S"), true));
        pid += 1;
        if shell % 2 == 0 {
            for _ in 0..5 {
                t.push(entry(pid, s, s, Some("S"), true));
                pid += 1;
            }
        }
    }
    for _ in 0..300 {
        t.push(entry(pid, 1, pid, Some("S"), true));
        pid += 1;
    }
    while (t.len() as i32) < n {
        t.push(entry(pid, 1, pid, Some("OTHER"), pid % 3 == 0));
        pid += 1;
    }
    t
}

/// Starts `n` sleepers (uncontained) and returns the command line they share.
fn start_sleepers(n: usize) -> String {
    let arg = format!("6000.{}", std::process::id());
    Command::new("bash")
        .arg("-c")
        .arg(format!("for i in $(seq {n}); do sleep {arg} & done"))
        .status()
        .unwrap();
    format!("sleep {arg}")
}

fn pids_running(cmd: &str) -> Vec<i32> {
    proc_table::entry::pids(Path::new("/proc"))
        .unwrap()
        .filter(|p| {
            let line = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&line).replace('\0', " ").trim() == cmd
        })
        .collect()
}

fn big(n: usize) {
    let cmd = start_sleepers(n);
    let end = Instant::now() + Duration::from_secs(120);
    while pids_running(&cmd).len() < n {
        assert!(Instant::now() < end, "sleepers did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    // A stand-in agent started after them: a copy of sleep named `claude`.
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path().join("claude");
    std::fs::copy("/bin/sleep", &claude).unwrap();
    let mut agent = Command::new(&claude).arg("1000").spawn().unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let uid = nix::unistd::geteuid().as_raw();
    let req = |claude_pid: Option<i32>| Request {
        query: Query {
            session_id: "bench-big".into(),
            reason: None,
            self_pid: std::process::id() as i32,
            uid,
        },
        claude_pid,
        project: None,
        deadline: Instant::now() + Duration::from_secs(10),
        suite_own: Vec::new(),
    };
    let (mut lean, mut blind, mut full) =
        (Samples::default(), Samples::default(), Samples::default());
    let mut procs = 0;
    for _ in 0..20 {
        let t = Instant::now();
        let r = sweep(Path::new("/proc"), &req(Some(agent.id() as i32)));
        lean.push(t.elapsed());
        assert!(r.agent.is_some(), "the stand-in agent is found");
        let t = Instant::now();
        std::hint::black_box(sweep(Path::new("/proc"), &req(None)));
        blind.push(t.elapsed());
        // Baseline: the full read the sweep did before, then the same pure part.
        let t = Instant::now();
        let read = proc_table::read_table(Path::new("/proc"), uid, None).unwrap();
        let index = Index::new(&read.entries);
        let q = req(None).query;
        let a = find_agent(&index, Some(agent.id() as i32), q.self_pid).ok();
        let s = survivors(&index, &q, a.as_ref());
        std::hint::black_box(kill_command(&index, &roots(&index, &s, &|_| None)));
        full.push(t.elapsed());
        procs = read.entries.len();
    }
    let _ = agent.kill();
    let _ = agent.wait();
    for p in pids_running(&cmd) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(p),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    println!(
        "S5 on the real /proc with {procs} processes, 20 interleaved rounds: sweep with the agent found median {:.1} ms (p90 {:.1}) | sweep with no agent (every environment read) median {:.1} ms | baseline full read + same discovery median {:.1} ms (p90 {:.1})",
        ms(lean.median()), ms(lean.p90()), ms(blind.median()), ms(full.median()), ms(full.p90())
    );
}

/// S5 after a session that ran `n` processes (issue 47: "SessionEnd after 4,000 processes"): a
/// stand-in agent (bash named `claude`) whose tool shell, carrying the session's marker, left `n`
/// sleepers in its own session. The sweep with the agent found reads no environment below the
/// tool shell; the sweep with no agent reads every one (what the sweep read here before); and the
/// baseline full read. 20 interleaved rounds.
fn tree(n: usize) {
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path().join("claude");
    std::fs::copy("/bin/bash", &claude).unwrap();
    let session = "bench-tree";
    let script = format!(
        "CLAUDE_CODE_SESSION_ID={session} CLAUDE_CODE_CHILD_SESSION=1 setsid bash -c 'for i in $(seq {n}); do sleep 1001 & done; wait' & wait"
    );
    let mut agent = Command::new(&claude).args(["-c", &script]).spawn().unwrap();
    let end = Instant::now() + Duration::from_secs(120);
    while pids_running("sleep 1001").len() < n {
        assert!(Instant::now() < end, "sleepers did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let uid = nix::unistd::geteuid().as_raw();
    let req = |claude_pid: Option<i32>| Request {
        query: Query {
            session_id: session.into(),
            reason: None,
            self_pid: std::process::id() as i32,
            uid,
        },
        claude_pid,
        project: None,
        deadline: Instant::now() + Duration::from_secs(10),
        suite_own: Vec::new(),
    };
    let (mut lean, mut blind, mut full) =
        (Samples::default(), Samples::default(), Samples::default());
    let (mut procs, mut found) = (0, 0);
    for _ in 0..20 {
        let t = Instant::now();
        let r = sweep(Path::new("/proc"), &req(Some(agent.id() as i32)));
        lean.push(t.elapsed());
        assert!(r.agent.is_some(), "the stand-in agent is found");
        found = r.roots.iter().map(|root| root.processes).sum::<usize>();
        let t = Instant::now();
        std::hint::black_box(sweep(Path::new("/proc"), &req(None)));
        blind.push(t.elapsed());
        let t = Instant::now();
        let read = proc_table::read_table(Path::new("/proc"), uid, None).unwrap();
        let index = Index::new(&read.entries);
        let q = req(None).query;
        let a = find_agent(&index, Some(agent.id() as i32), q.self_pid).ok();
        let s = survivors(&index, &q, a.as_ref());
        std::hint::black_box(kill_command(&index, &roots(&index, &s, &|_| None)));
        full.push(t.elapsed());
        procs = read.entries.len();
    }
    for p in pids_running("sleep 1001") {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(p),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let _ = agent.kill();
    let _ = agent.wait();
    println!(
        "S5 after a session of {n} processes ({procs} on the host, {found} reported), 20 interleaved rounds: sweep with the agent found median {:.1} ms (p90 {:.1}) | sweep with no agent (every environment read) median {:.1} ms | baseline full read + same discovery median {:.1} ms (p90 {:.1})",
        ms(lean.median()), ms(lean.p90()), ms(blind.median()), ms(full.median()), ms(full.p90())
    );
}

fn main() {
    print_load_average();
    if std::env::args().any(|a| a == "tree") {
        tree(4000);
        print_load_average();
        return;
    }
    if std::env::args().any(|a| a == "big") {
        big(5000);
        print_load_average();
        return;
    }
    let table = synthetic(5000);
    let query = Query {
        session_id: "S".into(),
        reason: Some("other".into()),
        self_pid: 99_999,
        uid: 1000,
    };
    let mut times = Samples::default();
    let mut found = 0;
    for _ in 0..50 {
        let t = Instant::now();
        let index = Index::new(&table);
        let agent = find_agent(&index, Some(100), query.self_pid).ok();
        let s = survivors(&index, &query, agent.as_ref());
        let r = roots(&index, &s, &|_| None);
        let k = kill_command(&index, &r);
        times.push(t.elapsed());
        std::hint::black_box(k);
        found = s.len();
    }
    println!(
        "pure sweep over a synthetic {}-entry table (S5): median {:.2} ms ({found} survivors)",
        table.len(),
        ms(times.median())
    );

    let uid = nix::unistd::geteuid().as_raw();
    let mut times = Samples::default();
    let mut n = 0;
    for _ in 0..30 {
        let req = Request {
            query: Query {
                session_id: "bench-none".into(),
                reason: None,
                self_pid: std::process::id() as i32,
                uid,
            },
            claude_pid: None,
            project: None,
            deadline: Instant::now() + Duration::from_secs(5),
            suite_own: Vec::new(),
        };
        let t = Instant::now();
        let r = sweep(Path::new("/proc"), &req);
        times.push(t.elapsed());
        n = r.roots.len();
    }
    let procs = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .count();
    println!(
        "full sweep over this machine's /proc ({procs} processes, in-process): median {:.2} ms ({n} roots)",
        ms(times.median())
    );

    let bin = env!("CARGO_BIN_EXE_stray-process-sweep");
    let home = Sandbox::new(bin);
    let mut hook = Command::new(bin);
    home.isolate(&mut hook).env_remove("CLAUDE_PID");
    let payload = br#"{"hook_event_name":"SessionEnd","session_id":"bench-none","reason":"other"}"#;
    let t = time_runs(&mut hook, payload, 30, |_| {});
    println!(
        "whole binary on a SessionEnd payload: median {:.2} ms",
        ms(t.wall.median())
    );
    big(5000);
    print_load_average();
}
