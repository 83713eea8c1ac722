//! The binary's own surface: `--selftest` replays the embedded fixtures, `--help`, `--version`.

const BIN: &str = env!("CARGO_BIN_EXE_stray-process-sweep");

hook_replay::surface_tests!(
    BIN,
    min_cases: 7,
    help_mentions: "never kills",
    version_prefix: "stray-process-sweep 0.",
    bad_usage: &["--kill"],
);
