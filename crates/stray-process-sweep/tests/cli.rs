//! The binary's own surface: `--selftest` replays the embedded fixtures, `--help`, `--version`.

const BIN: &str = env!("CARGO_BIN_EXE_stray-process-sweep");

#[test]
fn selftest_replays_every_fixture_and_passes() {
    hook_replay::assert_selftest_passes(BIN, 7);
}

#[test]
fn help_and_version() {
    hook_replay::process::assert_flags(BIN, "never kills", "stray-process-sweep 0.", &["--kill"]);
}
