//! The binary's own surface: `--selftest` replays the embedded fixtures, `--help`, `--version`.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_stray-process-sweep");

#[test]
fn selftest_replays_every_fixture_and_passes() {
    hook_replay::assert_selftest_passes(BIN, 7);
}

#[test]
fn help_and_version() {
    let help = Command::new(BIN).arg("--help").output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("never kills"));
    let version = Command::new(BIN).arg("--version").output().unwrap();
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("stray-process-sweep 0."));
    assert_eq!(
        Command::new(BIN)
            .arg("--kill")
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );
}
