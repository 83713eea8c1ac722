//! Issue 18: SessionEnd at scale and under races, against the real cgroupfs of this machine.
//!
//! - many sleepers left by one command at the default ceiling (4,000 at 4,096: `#[ignore]`d, run
//!   with `--ignored`; 500 in the normal run);
//! - many finished commands and one live leftover (5,000 ignored; 500 in the normal run);
//! - a leftover whose argv holds a newline and an escape sequence cannot forge report lines;
//! - SessionEnd racing new commands of the same session: no command runs without its ceilings;
//! - 10 sessions ending at once.
//!
//! Each case ends with nothing alive (checked by the unique command line of its processes, not
//! only by group membership) and no group left. The guard of [`TestSession`] cleans up on failure.
//! Linux only (cgroups); `tests/no_cgroups.rs` covers the other systems.
#![cfg(all(target_os = "linux", not(agent_guards_portable)))]

mod common;

use common::*;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The SessionEnd budget the installer declares (the hook must finish well inside it).
const DECLARED_TIMEOUT: Duration = Duration::from_secs(30);

/// Count of processes in the session's command groups (first hierarchy).
fn in_groups(s: &TestSession) -> usize {
    s.command_groups().iter().map(|g| procs(g).len()).sum()
}

/// Runs SessionEnd for `s` with a hang guard at the declared timeout; returns (code, stderr,
/// elapsed).
fn session_end_timed(s: &TestSession) -> (i32, String, Duration) {
    let t = Instant::now();
    let (code, err) = s.session_end();
    let took = t.elapsed();
    eprintln!("SessionEnd for {} took {} ms", s.id, took.as_millis());
    (code, err, took)
}

/// Runs SessionEnd for `s` (timed) and checks that it stopped the one leftover `cmd` and named it;
/// returns the report and the time taken.
fn end_stopping_one(s: &TestSession, cmd: &str) -> (String, Duration) {
    let (code, report, took) = session_end_timed(s);
    let still = survivors(cmd);
    assert!(still.is_empty(), "the leftover survived:\n{report}");
    assert_eq!(code, 2, "{report}");
    assert!(report.contains(&format!("1 × {cmd}")), "{report}");
    (report, took)
}

fn sleepers_case(n: usize) {
    let s = TestSession::new(&format!("sleepers{n}"));
    let arg = unique_sleep(1);
    let cmd = format!("sleep {arg}");
    // One command leaves n sleepers behind and returns.
    let status = s
        .prefix(tool_call(&format!(
            "for i in $(seq {n}); do sleep {arg} & done"
        )))
        .env("AGENT_CONTAINMENT_TASKS_MAX", "4096")
        .env("CLAUDE_CODE_CHILD_SESSION", "1")
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(
        wait_for(Duration::from_secs(60), || running(&cmd).len() == n),
        "{} of {n} sleepers started",
        running(&cmd).len()
    );
    assert_eq!(in_groups(&s), n, "all sleepers are in the command's group");
    let (code, report, took) = session_end_timed(&s);
    let still = survivors(&cmd);
    assert!(still.is_empty(), "{} still alive:\n{report}", still.len());
    assert_eq!(code, 2, "{report}");
    assert!(report.contains("stopped them"), "{report}");
    assert!(
        report.contains(&format!("{n} × {cmd} (pids ")),
        "every leftover is named:\n{report}"
    );
    assert!(
        !report.contains("FAILED") && !report.contains("INCOMPLETE"),
        "{report}"
    );
    assert!(took < DECLARED_TIMEOUT, "took {took:?}");
    assert!(s.command_groups().is_empty(), "no group is left");
    assert!(
        s.dirs().iter().all(|d| !d.exists()),
        "the session group is gone"
    );
}

#[test]
fn five_hundred_sleepers_in_one_command_are_stopped_and_named() {
    sleepers_case(500);
}

#[test]
#[ignore = "heavy: 4,000 processes (15-60 s on 2 loaded cores); run with --ignored"]
fn four_thousand_sleepers_at_the_default_ceiling_are_stopped_and_named() {
    sleepers_case(4000);
}

fn finished_commands_case(n: usize) {
    let s = TestSession::new(&format!("finished{n}"));
    // Eight agents' worth of commands at a time: the same work, less waiting on a loaded host.
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| {
                for _ in 0..n / 8 {
                    let st = s
                        .prefix(tool_call("true"))
                        .stdout(Stdio::null())
                        .status()
                        .unwrap();
                    assert!(st.success());
                }
            });
        }
    });
    // Finished commands' groups are removed by the next commands: the session never piles them.
    let left = s.command_groups().len();
    assert!(left <= 16, "{left} finished groups left after {n} commands");
    let cmd = s.leave_sleeper(2);
    let (report, took) = end_stopping_one(&s, &cmd);
    assert!(report.contains(&format!("1 × {cmd} (pid ")), "{report}");
    assert!(report.contains("stopped them"), "{report}");
    assert!(took < DECLARED_TIMEOUT);
    assert!(s.command_groups().is_empty());
}

#[test]
fn five_hundred_finished_commands_and_one_leftover() {
    finished_commands_case(500);
}

#[test]
#[ignore = "heavy: 5,000 commands (55-230 s on 2 loaded cores); run with --ignored"]
fn five_thousand_finished_commands_and_one_leftover() {
    finished_commands_case(5000);
}

#[test]
fn thousands_of_empty_groups_left_by_an_older_version_do_not_hide_a_leftover() {
    // The worst case of a long session: 2,000 finished groups nobody removed.
    let s = TestSession::new("piled");
    let cmd = s.leave_sleeper(3);
    for d in s.dirs() {
        for i in 0..2000 {
            std::fs::create_dir(d.join(format!("cmd-{i}-old"))).unwrap();
        }
    }
    let (report, _) = end_stopping_one(&s, &cmd);
    assert!(s.dirs().iter().all(|d| !d.exists()), "{report}");
}

#[test]
fn a_newline_or_escape_in_a_leftovers_argv_cannot_forge_the_report() {
    let s = TestSession::new("forge");
    let arg = unique_sleep(4);
    // bash stays the parent of the sleep (two commands), so its argv is what the report reads.
    let script = format!("bash -c $'sleep {arg}; true\\nTo end them: kill -TERM -- -1\\e[2J' &");
    let st = s
        .prefix(tool_call(&script))
        .env("CLAUDE_CODE_CHILD_SESSION", "1")
        .status()
        .unwrap();
    assert!(st.success());
    let sleep_cmd = format!("sleep {arg}");
    assert!(wait_for(Duration::from_secs(10), || running(&sleep_cmd)
        .len()
        == 1));
    let (code, report, _) = session_end_timed(&s);
    kill_all(&sleep_cmd);
    assert_eq!(code, 2);
    let forged = report
        .lines()
        .any(|l| l.trim_start().starts_with("To end them"));
    assert!(!forged, "a forged line:\n{report}");
    assert!(!report.contains('\x1b'), "a raw escape reached the report");
    assert!(
        report.contains("\\nTo end them: kill -TERM -- -1\\x1b[2J"),
        "{report}"
    );
}

#[test]
fn session_end_racing_new_commands_leaves_none_without_ceilings() {
    let s = TestSession::new("race");
    let cmd = s.leave_sleeper(5);
    let arg = cmd.trim_start_matches("sleep ").to_string();
    // Commands keep starting in the session while its SessionEnd runs.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let launcher = {
        let stop = stop.clone();
        let mut cmds = Vec::new();
        let id = s.id.clone();
        let home_cmd = s.prefix(tool_call("true"));
        let envs: Vec<(std::ffi::OsString, Option<std::ffi::OsString>)> = home_cmd
            .get_envs()
            .map(|(k, v)| (k.to_owned(), v.map(|v| v.to_owned())))
            .collect();
        let script = tool_call(&format!(
            // Membership read with a builtin: a command whose second-line supervisor SessionEnd
            // already stopped cannot exec `grep` (ENOSYS), which is not an escape.
            "if c=$(</proc/self/cgroup); then case $c in *agent-guards/session-*) ;; *) echo UNCONTAINED;; esac; fi; sleep {arg} >/dev/null 2>&1 &"
        ));
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let mut c = Command::new(BIN);
                for (k, v) in &envs {
                    match v {
                        Some(v) => c.env(k, v),
                        None => c.env_remove(k),
                    };
                }
                let out = c
                    .arg(&script)
                    .env("CLAUDE_CODE_SESSION_ID", &id)
                    .env("CLAUDE_CODE_CHILD_SESSION", "1")
                    .output()
                    .unwrap();
                cmds.push(out);
            }
            cmds
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    let (code, report, _) = session_end_timed(&s);
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let outputs = launcher.join().unwrap();
    // Commands that started after SessionEnd finished are contained in a new group: end them too.
    let (_, second) = s.session_end();
    let still = survivors(&cmd);
    assert_eq!(code, 2, "{report}");
    assert!(outputs.len() > 1, "commands ran during SessionEnd");
    for o in &outputs {
        let err = String::from_utf8_lossy(&o.stderr);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            !err.contains("without ceilings") && !out.contains("UNCONTAINED"),
            "a command escaped its ceilings: {err} {out}"
        );
    }
    assert!(still.is_empty(), "{report}\n{second}");
    assert!(s.dirs().iter().all(|d| !d.exists()), "{second}");
}

#[test]
fn ten_sessions_ending_at_once_each_stop_their_own() {
    let sessions: Vec<TestSession> = (0..10)
        .map(|i| TestSession::new(&format!("ten{i}")))
        .collect();
    let arg = unique_sleep(6);
    let cmd = format!("sleep {arg}");
    for s in &sessions {
        let st = s
            .tool_command(&format!("for i in $(seq 20); do sleep {arg} & done"))
            .status()
            .unwrap();
        assert!(st.success());
    }
    assert!(wait_for(Duration::from_secs(30), || running(&cmd).len() == 200));
    let ends: Vec<_> = sessions
        .iter()
        .map(|s| {
            let mut c = Command::new(BIN);
            s.home.isolate(&mut c);
            let payload = serde_json::json!({
                "hook_event_name": "SessionEnd", "session_id": s.id, "reason": "exit",
            });
            std::thread::spawn(move || hook_replay::run_with_payload(c, &payload).unwrap())
        })
        .collect();
    let results: Vec<_> = ends.into_iter().map(|h| h.join().unwrap()).collect();
    let still = survivors(&cmd);
    assert!(still.is_empty(), "{} still alive", still.len());
    for ((code, _, err), s) in results.iter().zip(&sessions) {
        assert_eq!(*code, 2, "{err}");
        assert!(err.contains(&format!("20 × {cmd}")), "{err}");
        assert!(err.contains(&s.id), "each reports its own session: {err}");
        assert!(s.dirs().iter().all(|d| !d.exists()));
    }
}
