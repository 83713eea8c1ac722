//! S5 benchmarks, run with `cargo bench -p stray-process-sweep`:
//!
//! 1. the pure part (index, agent, survivors, roots, kill command) over a synthetic 5,000-entry
//!    table shaped like a busy host: an agent with 40 tool shells (half left running, each with a
//!    small subtree), 300 reparented marker-carrying daemons, the rest unrelated processes;
//! 2. a full sweep over this machine's real `/proc` (read, discover, report), in-process;
//! 3. the whole binary answering a SessionEnd payload (process start to exit).

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

fn main() {
    print_load_average();
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
}
