//! A check this host cannot run, said so it cannot pass unseen (issue 46). cargo's test harness
//! has no run-time "ignored", so a test that finds its check impossible here calls [`cannot_run`]
//! and returns: the notice is written to the process's real stderr (`eprintln!` inside a test is
//! captured and shown only on failure), and under `CI=true` (where `.ci/run` installs everything
//! the checks need) it is a failure instead.

use std::io::Write;

/// Whether missing prerequisites fail the test instead of skipping it: `CI=true`, or
/// `AGENT_GUARDS_REQUIRE_ALL=1`.
pub fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("AGENT_GUARDS_REQUIRE_ALL").is_ok_and(|v| v == "1")
}

/// Says that `test`'s check did not run and why (`why`), past the harness's capture; panics
/// when the checks are [`required`].
pub fn cannot_run(test: &str, why: &str) {
    if required() {
        panic!("{test}: its check cannot run here ({why}), and CI=true requires every check");
    }
    let line = format!("SKIPPED (the check did NOT run, counted as passed): {test}: {why}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}
