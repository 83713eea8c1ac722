//! C1–C3, C5–C7 against the real cgroupfs of this machine (root on cgroup v1 in CI): fork bomb,
//! memory hog, background survivors, harness pass-through, exit status and signals.
//! Linux only (cgroups); `tests/no_cgroups.rs` covers the other systems.
#![cfg(all(target_os = "linux", not(agent_guards_portable)))]

mod common;

use common::*;
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::Duration;

#[test]
fn agent_command_runs_in_its_session_group_with_exit_status_and_signals_its_own() {
    let s = TestSession::new("status");
    let agent = [
        ("AI_AGENT", "claude-code_2-1-332_agent"),
        ("AGENT_CONTAINMENT_TASKS_MAX", "200"),
    ];
    let out = s
        .call("cat /proc/self/cgroup; exit 7", &agent)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("/agent-guards/{}/cmd-", s.group())),
        "{text}"
    );
    assert!(
        out.stderr.is_empty(),
        "no notice when contained: {:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    let groups = s.command_groups();
    assert_eq!(groups.len(), 1);
    if let tool_containment::c4_backends::Backend::V1(_) = s.backend {
        let max = std::fs::read_to_string(groups[0].join("pids.max")).unwrap();
        assert_eq!(max.trim(), "200");
    }
    let status = s.call("kill -TERM $$", &[]).status().unwrap();
    assert_eq!(status.signal(), Some(15), "the signal is the command's own");
}

#[test]
fn a_script_that_is_not_utf8_runs_as_the_bytes_it_is() {
    // Issue 47: the prefix refused to run a script that is not valid UTF-8 (a Latin-1 file
    // name, a byte in a printf); bash runs bytes, and so must the prefix, contained.
    use std::os::unix::ffi::OsStringExt;
    let s = TestSession::new("bytes");
    let out_file = s.home.path().join("bytes.out");
    let script = tool_call(&format!("printf '%s' 'caf@' > '{}'", out_file.display()));
    let bytes: Vec<u8> = script
        .into_bytes()
        .into_iter()
        .map(|b| if b == b'@' { 0xE9 } else { b })
        .collect();
    let status = s
        .prefix(std::ffi::OsString::from_vec(bytes))
        .env("AI_AGENT", "claude-code_2-1-332_agent")
        .status()
        .unwrap();
    assert!(status.success(), "{status:?}");
    assert_eq!(std::fs::read(&out_file).unwrap(), b"caf\xE9");
}

#[test]
fn harness_and_plain_commands_are_never_placed_in_a_group() {
    let s = TestSession::new("harness");
    let harness = [("AI_AGENT", "claude-code_2-1-332_harness")];
    let harness = s.call("cat /proc/self/cgroup", &harness).output().unwrap();
    let plain = s.prefix("cat /proc/self/cgroup").output().unwrap();
    for out in [harness, plain] {
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("agent-guards"), "{text}");
        assert!(!text.is_empty());
    }
    assert!(s.command_groups().is_empty(), "no group was created");
}

#[test]
fn fork_bomb_stops_at_the_task_ceiling_and_session_end_removes_it() {
    let s = TestSession::new("bomb");
    let err_file = s.home.path().join("bomb.err");
    // The bomb goes on in the background inside the group; its own shell may sit in bash's
    // fork-retry backoff, so the test does not wait for it (SessionEnd stops it too).
    let mut shell = s
        .prefix(tool_call("b(){ b | b & }; b"))
        .env("AGENT_CONTAINMENT_TASKS_MAX", "64")
        .env("AGENT_CONTAINMENT_MEMORY_MAX", "512M")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err_file).unwrap())
        .spawn()
        .unwrap();
    assert!(wait_for(Duration::from_secs(5), || s
        .command_groups()
        .len()
        == 1));
    let groups = s.command_groups();
    assert_eq!(groups.len(), 1);
    let g = &groups[0];
    if let tool_containment::c4_backends::Backend::V1(_) = s.backend {
        let hits = || {
            std::fs::read_to_string(g.join("pids.events"))
                .ok()
                .and_then(|e| {
                    e.split_whitespace()
                        .nth(1)
                        .and_then(|n| n.parse::<u64>().ok())
                })
                .unwrap_or(0)
        };
        assert!(
            wait_for(Duration::from_secs(10), || hits() > 0),
            "the ceiling was hit"
        );
        let current: u64 = std::fs::read_to_string(g.join("pids.current"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(current <= 64, "pids.current {current} over the ceiling");
    }
    assert!(
        wait_for(Duration::from_secs(10), || std::fs::read_to_string(
            &err_file
        )
        .unwrap_or_default()
        .contains("Resource temporarily unavailable")),
        "visible error"
    );
    // The host stays fine: we can still start processes.
    assert!(std::process::Command::new("true")
        .status()
        .unwrap()
        .success());
    let err = std::fs::read_to_string(&err_file).unwrap();
    assert!(
        err.contains("Resource temporarily unavailable"),
        "visible error: {err}"
    );
    let (code, report) = s.session_end();
    assert_eq!(code, 2, "{report}");
    assert!(
        report.contains("stopped them") && report.contains("process(es)"),
        "{report}"
    );
    // The bomb's shell has ended: on its own, or stopped with its group.
    shell.wait().unwrap();
    assert!(!report.contains("FAILED"), "{report}");
    for d in s.dirs() {
        assert!(!d.exists(), "{} left behind", d.display());
    }
}

#[test]
fn memory_hog_is_killed_at_the_memory_ceiling() {
    let s = TestSession::new("hog");
    let out = s
        .prefix(tool_call(
            r#"x=$(head -c 700000000 /dev/zero | tr "\0" a); echo survived ${#x}"#,
        ))
        .env("AGENT_CONTAINMENT_MEMORY_MAX", "256M")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains("survived"),
        "the hog was not stopped: {stdout}"
    );
    assert!(
        out.status.signal() == Some(9) || out.status.code() == Some(137),
        "{:?}",
        out.status
    );
    if let tool_containment::c4_backends::Backend::V1(d) = &s.backend {
        let mem = d.memory.join("agent-guards").join(s.group());
        let cmd = std::fs::read_dir(&mem)
            .unwrap()
            .flatten()
            .find(|e| e.path().is_dir())
            .unwrap()
            .path();
        let oom = std::fs::read_to_string(cmd.join("memory.oom_control")).unwrap();
        assert!(
            oom.contains("oom_kill 1")
                || oom
                    .lines()
                    .any(|l| l.starts_with("oom_kill ") && l != "oom_kill 0"),
            "{oom}"
        );
        let limit = std::fs::read_to_string(cmd.join("memory.limit_in_bytes")).unwrap();
        assert_eq!(limit.trim(), (256u64 << 20).to_string());
    }
    // The killed shell's pipeline (head, tr, the substitution subshell) exits on its own.
    for g in s.command_groups() {
        assert!(wait_for(Duration::from_secs(5), || procs(&g).is_empty()));
    }
    let (code, report) = s.session_end();
    assert_eq!(code, 0, "nothing left to stop: {report}");
    for d in s.dirs() {
        assert!(!d.exists(), "{} left behind", d.display());
    }
}

#[test]
fn background_commands_keep_their_ceiling_and_session_end_stops_and_reports_them() {
    let s = TestSession::new("bg");
    for cmd in [
        "(sleep 301 &)",
        "setsid sleep 302 &",
        "nohup sleep 303 >/dev/null 2>&1 &",
    ] {
        let err_file = s.home.path().join("bg.err");
        let status = s
            .prefix(tool_call(cmd))
            .env("AGENT_CONTAINMENT_TASKS_MAX", "100")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&err_file).unwrap())
            .status()
            .unwrap();
        let err = std::fs::read_to_string(&err_file).unwrap_or_default();
        assert!(status.success(), "{cmd}: {status:?} {err}");
    }
    let groups = s.command_groups();
    assert_eq!(groups.len(), 3);
    let mut sleepers = Vec::new();
    for g in &groups {
        // A backgrounded job is a forked shell until it execs: wait for the sleep itself.
        assert!(wait_for(Duration::from_secs(5), || {
            let p = procs(g);
            !p.is_empty() && p.iter().all(|pid| cmdline(*pid).starts_with("sleep 30"))
        }));
        for pid in procs(g) {
            let cmd = cmdline(pid);
            assert!(cmd.starts_with("sleep 30"), "{cmd}");
            assert!(alive(pid));
            let cg = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap();
            assert!(
                cg.contains(&s.group()),
                "the shell exited, the ceiling stays: {cg}"
            );
            sleepers.push(pid);
        }
        if let tool_containment::c4_backends::Backend::V1(_) = s.backend {
            assert_eq!(
                std::fs::read_to_string(g.join("pids.max")).unwrap().trim(),
                "100"
            );
        }
    }
    assert_eq!(sleepers.len(), 3);
    let (code, report) = s.session_end();
    assert_eq!(code, 2, "{report}");
    for n in ["sleep 301", "sleep 302", "sleep 303"] {
        assert!(report.contains(n), "{n} missing from: {report}");
    }
    assert!(wait_for(Duration::from_secs(2), || sleepers
        .iter()
        .all(|p| !alive(*p))));
    for d in s.dirs() {
        assert!(!d.exists(), "{} left behind", d.display());
    }
    let audit = s.home.session_dir(&s.id).join("audit.jsonl");
    assert!(std::fs::read_to_string(audit).unwrap().contains("\"C7\""));
}

#[test]
fn without_a_usable_backend_the_command_runs_unbounded_with_one_notice() {
    // An unprivileged user may write no cgroup here and has no user manager: no backend.
    let s = TestSession::new("nobackend");
    // A copy that uid 65534 can run even when the checkout sits under a private home.
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = dir.path().join("tool-containment");
    std::fs::copy(BIN, &bin).unwrap();
    let (stdout, stderr) = s.prefix_as_nobody(
        &bin,
        &tool_call("cat /proc/self/cgroup; echo ran"),
        std::path::Path::new("/"),
        &[],
    );
    assert!(
        stdout.contains("ran") && !stdout.contains("agent-guards"),
        "{stdout}"
    );
    assert_eq!(
        stderr.matches("ran without ceilings").count(),
        1,
        "{stderr}"
    );
    let text = report_as_nobody(&bin, s.home.path());
    assert!(
        text.contains("backend: none") && text.contains("WITHOUT ceilings"),
        "{text}"
    );
    assert!(text.contains("cgroup v1: not used"), "{text}");
}
