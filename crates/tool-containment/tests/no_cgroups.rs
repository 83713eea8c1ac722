//! The binary where cgroups do not exist (macOS and the BSDs; on Linux, a build with
//! `--cfg agent_guards_portable`, which CI runs): an agent command runs unchanged with its own
//! exit status and signals and one C6 notice, other commands run silently, `--report` names the
//! reason, SessionEnd reports that there is no containment on this system, whatever its payload.
//! (`tests/cli.rs` runs the selftest here too.)
#![cfg(any(not(target_os = "linux"), agent_guards_portable))]

use hook_replay::sandbox::{self, Sandbox};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_tool-containment");
const REASON: &str = "no containment on this system";

/// The CLI's Bash tool wrapper around `command` (the shape C2 recognises).
fn tool_call(command: &str) -> String {
    let quoted = command.replace('\'', r"'\''");
    format!(
        "source /nonexistent/.claude/shell-snapshots/snapshot-bash-0-test.sh 2>/dev/null || true && eval '{quoted}' < /dev/null && pwd -P >| /tmp/claude-test-{}-cwd",
        std::process::id()
    )
}

fn prefix(home: &Sandbox, script: &str, ai_agent: &str) -> Output {
    let mut c = home.command();
    c.arg(script).env("AI_AGENT", ai_agent);
    sandbox::run(&mut c, b"")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn an_agent_command_runs_unchanged_with_one_notice() {
    let home = Sandbox::new(BIN);
    // Where /proc exists (Linux, portable build), the command shows it joined no group.
    let look = "echo out; if [ -r /proc/self/cgroup ]; then cat /proc/self/cgroup; fi; exit 7";
    let out = prefix(&home, &tool_call(look), "claude-code_2-1-332_agent");
    assert_eq!(out.status.code(), Some(7), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("out\n"), "{stdout}");
    assert!(!stdout.contains("agent-guards"), "no group: {stdout}");
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("without ceilings (C6.no-backend)") && stderr.contains(REASON),
        "{stderr}"
    );
}

#[test]
fn a_signal_ending_the_command_is_its_own() {
    let home = Sandbox::new(BIN);
    let out = prefix(
        &home,
        &tool_call("kill -TERM $$"),
        "claude-code_2-1-332_agent",
    );
    assert_eq!(out.status.signal(), Some(15));
}

#[test]
fn harness_and_plain_commands_run_silently() {
    let home = Sandbox::new(BIN);
    for (script, ai_agent) in [
        (tool_call("echo hook"), "claude-code_2-1-332_harness"),
        ("echo hook".to_string(), "claude-code_2-1-332_agent"),
    ] {
        let out = prefix(&home, &script, ai_agent);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(text(&out.stdout), "hook\n");
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    }
}

#[test]
fn report_names_the_reason() {
    let home = Sandbox::new(BIN);
    let mut c = home.command();
    c.arg("--report");
    let out = sandbox::run(&mut c, b"");
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("tool-containment backend: none\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(REASON) && stdout.contains("WITHOUT ceilings"),
        "{stdout}"
    );
    assert!(stdout.contains("second line: off"), "{stdout}");
}

#[test]
fn session_end_says_there_is_no_containment_whatever_the_payload() {
    let home = Sandbox::new(BIN);
    let payload = br#"{"session_id":"s-1","hook_event_name":"SessionEnd","reason":"exit","cwd":"/tmp","transcript_path":"/tmp/t.jsonl"}"#;
    for stdin in [&payload[..], b"{not json", b""] {
        let out = home.run(stdin);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(REASON) && stderr.contains("nothing was stopped"),
            "{stderr}"
        );
    }
}

#[test]
fn help_says_it_is_linux_only() {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    assert!(text(&out.stdout).contains("Linux only"));
}
