//! Issue 45 item 2 with real processes: the OTLP sender that outlives the hook.
//!
//! A real-CLI-shaped SessionEnd payload goes into the real `integrity-signals` hook while the
//! collector (a real OTLP/HTTP receiver on 127.0.0.1, `crates/audit-export/tests/common`) is
//! down; the sender the hook started tries, gives up and leaves its pending mark. The collector
//! comes up; the next session's Stop (the later hook) starts a sender again, whose first request
//! is held by the receiver after the hook has answered and exited; released, every record of
//! every log arrives exactly once. With no `otlp_endpoint` nothing starts and nothing is written.
//! The stray-process sweep does not list a live sender (it carries the session's marker, as
//! every child of a hook does) while it lists a real leftover beside it.
//!
//! `cargo test --test otlp_sender -- --ignored --nocapture` prints the hook's latency with the
//! exporter off and on, side by side in one run (BENCHMARKS.md).
#![cfg(target_os = "linux")]

#[path = "../crates/audit-export/tests/common/mod.rs"]
mod otlp;

use audit_export::{status_with, Endpoint, Exporter, Limits};
use hook_replay::sandbox::Sandbox;
use otlp::{closed_port, write_records, Receiver};
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn hook_bin() -> PathBuf {
    e2e_harness::bin("integrity-signals")
}

/// The environment the CLI gives a hook (e2e-harness.md), `harness`: with 2.1.332's `AI_AGENT`.
fn cli_env(session: &str, project: &Path, harness: bool) -> Vec<(String, String)> {
    let mut env = vec![
        ("CLAUDECODE".into(), "1".into()),
        ("CLAUDE_CODE_SESSION_ID".into(), session.into()),
        ("CLAUDE_CODE_CHILD_SESSION".into(), "1".into()),
        ("CLAUDE_CODE_ENTRYPOINT".into(), "sdk-cli".into()),
        ("CLAUDE_PROJECT_DIR".into(), project.display().to_string()),
    ];
    if harness {
        env.push(("AI_AGENT".into(), "claude-code_2-1-332_harness".into()));
    }
    env
}

fn session_end(session: &str, project: &Path) -> Vec<u8> {
    serde_json::json!({
        "session_id": session,
        "transcript_path": project.join(format!("{session}.jsonl")),
        "cwd": project,
        "hook_event_name": "SessionEnd",
        "reason": "other",
    })
    .to_string()
    .into_bytes()
}

fn stop(session: &str, project: &Path) -> Vec<u8> {
    serde_json::json!({
        "session_id": session,
        "transcript_path": project.join(format!("{session}.jsonl")),
        "cwd": project,
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": false,
        "last_assistant_message": "Done.",
        "background_tasks": [],
        "session_crons": [],
    })
    .to_string()
    .into_bytes()
}

/// Runs the hook as the CLI does and returns once it has exited and its stdout has closed.
/// Panics when it does not exit in 20 s, or when something it left holds its stdout (the CLI
/// reads a hook's stdout until it closes: a sender holding it would make the CLI wait).
fn run_hook(sb: &Sandbox, env: &[(String, String)], payload: &[u8]) -> Output {
    let mut cmd = sb.command();
    cmd.current_dir(sb.path())
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the hook starts");
    child.stdin.take().unwrap().write_all(payload).unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (mut o, mut e) = (Vec::new(), Vec::new());
        let _ = out.read_to_end(&mut o);
        let _ = err.read_to_end(&mut e);
        let _ = tx.send((o, e));
    });
    let until = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > until {
            let _ = child.kill();
            panic!("the hook did not exit within 20 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let (stdout, stderr) = rx
        .recv_timeout(Duration::from_secs(5))
        .expect("the hook's stdout and stderr close when it exits (nothing it left holds them)");
    Output {
        status,
        stdout,
        stderr,
    }
}

/// The running senders of this sandbox: `integrity-signals otlp-send` with its state folder.
fn senders(sb: &Sandbox) -> Vec<i32> {
    let cmd = format!("{}\0otlp-send\0", hook_bin().display());
    let state = format!("XDG_STATE_HOME={}", sb.state_home().display());
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|p| std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| c == cmd.as_bytes()))
        .filter(|p| {
            std::fs::read(format!("/proc/{p}/environ"))
                .is_ok_and(|e| e.split(|b| *b == 0).any(|v| v == state.as_bytes()))
        })
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| !s.contains(") Z "))
        })
        .collect()
}

/// Waits (at most 40 s: a sender lives at most 20) until no sender of `sb` runs.
fn wait_senders_gone(sb: &Sandbox) {
    let until = Instant::now() + Duration::from_secs(40);
    while !senders(sb).is_empty() {
        assert!(Instant::now() < until, "a sender outlived its lifetime");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn wait_for(what: &str, secs: u64, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < until, "{what} within {secs} s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every line of every session's audit log, sorted.
fn all_lines(state: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(state.join("sessions")).unwrap().flatten() {
        let text = std::fs::read_to_string(e.path().join("audit.jsonl")).unwrap_or_default();
        out.extend(text.lines().map(str::to_string));
    }
    out.sort();
    out
}

fn exporter(base: &str) -> Exporter {
    Exporter {
        endpoint: Endpoint {
            url: audit_export::endpoint::logs_url(base),
            headers: Vec::new(),
            source: "test",
        },
        limits: Limits::default(),
    }
}

fn state_of(sb: &Sandbox) -> PathBuf {
    sb.state_home().join("agent-guards")
}

#[test]
fn a_collector_down_at_session_end_gets_every_record_once_from_a_later_hook() {
    let sb = Sandbox::new(hook_bin());
    let addr = closed_port();
    sb.write_config(&format!("otlp_endpoint = \"http://{addr}\"\n"));
    let state = state_of(&sb);
    let project = sb.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    // A session whose SessionEnd never ran, and the one that ends now.
    write_records(&state, "earlier", 0, 3);
    write_records(&state, "s-one", 100, 5);

    let out = run_hook(
        &sb,
        &cli_env("s-one", &project, true),
        &session_end("s-one", &project),
    );
    assert!(out.status.success(), "{out:?}");
    // The sender tried the collector that is down, gave up, and left everything for later.
    wait_senders_gone(&sb);
    let ex = exporter(&format!("http://{addr}"));
    let st = status_with(&state, Some(&ex));
    let lines = all_lines(&state);
    assert!(
        lines.len() > 8,
        "the hook's own SessionEnd record is in the log too"
    );
    assert_eq!(st.queued.records, lines.len() as u64, "{st}");
    assert!(st.last_error.is_some(), "{st}");
    assert!(state.join(audit_export::sender::PENDING_FILE).exists());
    assert!(!state.join(audit_export::sender::RECORD_FILE).exists());

    // The collector comes up; the next session's first Stop starts the sender again. The
    // receiver holds its answers: the hook has answered and exited while the send waits.
    let rx = Receiver::start(&addr.to_string(), vec![]);
    rx.hold();
    let out = run_hook(
        &sb,
        &cli_env("s-two", &project, true),
        &stop("s-two", &project),
    );
    assert!(out.status.success(), "{out:?}");
    wait_for("the sender's first request", 20, || {
        !rx.captured().is_empty()
    });
    assert_eq!(
        senders(&sb).len(),
        1,
        "one sender, waiting on the collector"
    );
    rx.release();
    wait_senders_gone(&sb);

    let mut got = rx.accepted_bodies();
    got.sort();
    assert_eq!(
        got,
        all_lines(&state),
        "every record of every log, exactly once"
    );
    assert!(!state.join(audit_export::sender::PENDING_FILE).exists());
    assert!(!state.join(audit_export::sender::RECORD_FILE).exists());
    assert_eq!(status_with(&state, Some(&ex)).queued.records, 0);
}

#[test]
fn with_no_endpoint_nothing_starts_and_nothing_is_written() {
    let sb = Sandbox::new(hook_bin());
    let state = state_of(&sb);
    let project = sb.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    write_records(&state, "s-off", 0, 4);
    // A pending mark from a time the exporter was on does not start one either.
    std::fs::write(state.join(audit_export::sender::PENDING_FILE), "").unwrap();
    for payload in [stop("s-off", &project), session_end("s-off", &project)] {
        let out = run_hook(&sb, &cli_env("s-off", &project, true), &payload);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(senders(&sb), Vec::<i32>::new());
    }
    let mut written: Vec<String> = std::fs::read_dir(&state)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("otlp-") && n != audit_export::sender::PENDING_FILE)
        .collect();
    for s in std::fs::read_dir(state.join("sessions")).unwrap().flatten() {
        written.extend(
            std::fs::read_dir(s.path())
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("otlp-")),
        );
    }
    assert_eq!(written, Vec::<String>::new());
}

#[test]
fn the_sweep_does_not_list_the_sender_and_lists_a_leftover_beside_it() {
    let sb = Sandbox::new(hook_bin());
    // The collector never answers while this test runs: the sender stays, waiting on it.
    let rx = Receiver::start("127.0.0.1:0", vec![]);
    rx.hold();
    sb.write_config(&format!("otlp_endpoint = \"{}\"\n", rx.base()));
    let state = state_of(&sb);
    let project = sb.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let session = format!("sweep-otlp-{}", std::process::id());
    write_records(&state, &session, 0, 2);
    // A CLI without AI_AGENT (before 2.1.332): nothing in the sender's environment says "hook",
    // and it carries the session's marker, as the leftover does.
    let env = cli_env(&session, &project, false);
    let out = run_hook(&sb, &env, &session_end(&session, &project));
    assert!(out.status.success(), "{out:?}");
    wait_for("the sender's first request", 20, || {
        !rx.captured().is_empty()
    });
    let sender = senders(&sb);
    assert_eq!(sender.len(), 1);
    let mut leftover = Command::new("sleep");
    leftover.arg("307").envs(env.iter().map(|(k, v)| (k, v)));
    // SAFETY: setsid is async-signal-safe.
    unsafe {
        leftover.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let mut leftover = leftover.spawn().unwrap();

    let mut sweep = Command::new(e2e_harness::bin("stray-process-sweep"));
    sb.isolate(&mut sweep)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("AI_AGENT", "claude-code_2-1-332_harness");
    let out = hook_replay::sandbox::run(&mut sweep, &session_end(&session, &project));
    let report = String::from_utf8_lossy(&out.stderr).into_owned();
    // Cleanup first (the test's own processes), so a failed assertion leaves nothing running.
    let _ = leftover.kill();
    let _ = leftover.wait();
    for pid in &sender {
        // SAFETY: a pid this test's hook started, checked alive just above.
        unsafe { libc::kill(*pid, libc::SIGKILL) };
    }
    assert!(
        report.contains(&format!("pid {} ", leftover.id())),
        "the sweep sees the session's leftovers: {report}"
    );
    assert!(
        !report.contains(&format!("pid {} ", sender[0]))
            && !report.contains(&format!(" {}", sender[0])),
        "the sender is not a leftover, nor in the kill command: {report}"
    );
}

/// The hook's latency with the exporter off and on, alternating in one run (the collector up,
/// so the "on" runs' senders send while the next runs are timed). Spawn to exit and stdout
/// closed, as the CLI waits for it.
#[test]
#[ignore = "a measurement: cargo test --test otlp_sender -- --ignored --nocapture"]
fn measure_session_end_latency_exporter_off_and_on() {
    use hook_replay::bench::{run_once, Timings};
    let rx = Receiver::start("127.0.0.1:0", vec![]);
    let off = Sandbox::new(hook_bin());
    let on = Sandbox::new(hook_bin());
    on.write_config(&format!("otlp_endpoint = \"{}\"\n", rx.base()));
    let mut t = [Timings::default(), Timings::default()];
    let rounds = 60;
    for i in 0..rounds {
        for (k, sb) in [&off, &on].into_iter().enumerate() {
            let project = sb.path().join("project");
            std::fs::create_dir_all(&project).unwrap();
            let session = format!("bench-{i}");
            write_records(&state_of(sb), &session, 0, 20);
            let mut cmd = sb.command();
            cmd.envs(
                cli_env(&session, &project, true)
                    .into_iter()
                    .collect::<Vec<_>>(),
            );
            t[k].push(&run_once(&mut cmd, &session_end(&session, &project)));
        }
    }
    wait_senders_gone(&on);
    hook_replay::bench::print_load_average();
    println!(
        "integrity-signals SessionEnd, exporter off: {}",
        t[0].summary()
    );
    println!(
        "integrity-signals SessionEnd, exporter on:  {}",
        t[1].summary()
    );
    println!(
        "records the collector took: {} of {}",
        rx.accepted_bodies().len(),
        all_lines(&state_of(&on)).len()
    );
}
