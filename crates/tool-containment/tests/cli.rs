//! The binary's own surface: `--selftest` replays the embedded fixtures, `--help`, `--version`,
//! usage errors.

#[cfg(all(target_os = "linux", not(agent_guards_portable)))]
use hook_replay::sandbox::{self, Sandbox};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_tool-containment");

#[test]
fn selftest_replays_every_fixture_and_passes() {
    hook_replay::assert_selftest_passes(BIN, 30);
}

#[test]
fn help_version_and_usage() {
    let help = Command::new(BIN).arg("--help").output().unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("CLAUDE_CODE_SHELL_PREFIX"));
    let version = Command::new(BIN).arg("--version").output().unwrap();
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("tool-containment 0."));
    let usage = Command::new(BIN).args(["a", "b"]).output().unwrap();
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
#[cfg(all(target_os = "linux", not(agent_guards_portable)))]
fn session_end_with_unreadable_input_reports_loudly() {
    let home = Sandbox::new(BIN);
    let out = sandbox::run(home.isolate(&mut Command::new(BIN)), b"{not json");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("FAILED"));
}
