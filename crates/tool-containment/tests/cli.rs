//! The binary's own surface: `--selftest` replays the embedded fixtures, `--help`, `--version`,
//! usage errors.

#[cfg(all(target_os = "linux", not(agent_guards_portable)))]
use hook_replay::sandbox::{self, Sandbox};
#[cfg(all(target_os = "linux", not(agent_guards_portable)))]
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_tool-containment");

hook_replay::surface_tests!(
    BIN,
    min_cases: 30,
    help_mentions: "CLAUDE_CODE_SHELL_PREFIX",
    version_prefix: "tool-containment 0.",
    bad_usage: &["a", "b"],
);

#[test]
#[cfg(all(target_os = "linux", not(agent_guards_portable)))]
fn session_end_with_unreadable_input_reports_loudly() {
    let home = Sandbox::new(BIN);
    let out = sandbox::run(home.isolate(&mut Command::new(BIN)), b"{not json");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("FAILED"));
}
