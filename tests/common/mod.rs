//! Helpers shared by the root package's tests: the installer's binary list, the folder they are
//! built into, and finding leftover processes by their exact command line.
#![allow(dead_code)] // each test file uses a subset

use std::path::PathBuf;
use std::process::Command;

/// The installer's own list of binaries (`agent-guards binaries`).
pub fn installed_binaries() -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-guards"))
        .arg("binaries")
        .output()
        .expect("agent-guards binaries");
    String::from_utf8(out.stdout)
        .expect("UTF-8 names")
        .lines()
        .map(str::to_string)
        .collect()
}

/// The folder holding every binary the installer stages (each built once per test process).
pub fn built_bins() -> PathBuf {
    let mut dir = None;
    for name in installed_binaries() {
        dir = Some(
            e2e_harness::bin(&name)
                .parent()
                .expect("a folder")
                .to_path_buf(),
        );
    }
    dir.expect("at least one binary")
}

pub use hook_replay::process::processes_running;

/// The pids of `command` that were not running `before`, each already killed so a test never
/// leaves a stray behind (even when its assertion that there were none then fails).
pub fn kill_new(command: &str, before: &[u32]) -> Vec<u32> {
    let new: Vec<u32> = processes_running(command)
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    for pid in &new {
        kill(*pid);
    }
    new
}

/// A scenario with egress-audit as the Stop hook and the Stop payloads recorded.
pub fn with_egress_audit_at_stop() -> e2e_harness::Scenario {
    e2e_harness::Scenario::new()
        .hook("Stop", None, e2e_harness::bin("egress-audit"), &[])
        .record_hook("Stop", None)
}

/// Fails the test with the exit status and stderr of `out` unless the process succeeded.
pub fn assert_succeeded(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// SIGKILL, for cleanup only.
pub fn kill(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status();
}
