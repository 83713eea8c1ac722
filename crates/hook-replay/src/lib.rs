//! What every hook binary's `--selftest`, its tests and its benchmarks share.
//!
//! * [`replay`] runs a checker over the fixtures a binary embedded at build time and builds the
//!   metadata-only record `--selftest` prints (counts and failing case names with the reason,
//!   never case contents); [`print_selftest`] is every binary's last `--selftest` step;
//! * [`process`] starts a binary, writes a payload to its stdin and collects its answer (tests);
//! * [`bounded`] (feature `test-support`) runs a longer-lived child under a hard deadline, killing
//!   its whole process group (the end-to-end harness runs the Claude Code CLI through it);
//! * [`sandbox`] (feature `test-support`) is a temp HOME with the XDG config and state dirs
//!   inside it, so that a test never touches the real user's files;
//! * [`bench`](mod@bench) (feature `test-support`) times a hook binary as Claude Code runs it, one process
//!   per call, and prints order statistics of the runs;
//! * [`git`] (feature `test-support`) runs the real git on temp repositories, isolated from the
//!   machine's git config;
//! * [`loopback`] (feature `test-support`) is the accept loop of the tests' loopback servers;
//! * [`skip`] (feature `test-support`) says a check this host cannot run (a failure under CI);
//! * [`adversarial`] (feature `test-support`) scores an adversarial set against a floor and a
//!   list of known misses that can only shrink.

#![warn(missing_docs)]

use serde_json::{json, Value};

pub mod process;
pub use process::{assert_selftest_passes, run_with_payload};

#[cfg(feature = "test-support")]
pub mod adversarial;
#[cfg(feature = "test-support")]
pub mod bench;
#[cfg(feature = "test-support")]
pub mod bounded;
#[cfg(feature = "test-support")]
pub mod git;
#[cfg(feature = "test-support")]
pub mod git_http;
#[cfg(feature = "test-support")]
pub mod loopback;
#[cfg(feature = "test-support")]
pub mod sandbox;
#[cfg(feature = "test-support")]
pub mod skip;

/// Replays `fixtures` (`(relative name, JSON text)`) with `check`; returns the record and whether
/// every case passed (an empty fixture set is a failure: nothing was proven).
pub fn replay(
    binary: &str,
    version: &str,
    fixtures: &[(&str, &str)],
    check: impl Fn(&str, &Value) -> Result<(), String>,
) -> (Value, bool) {
    let mut failed = Vec::new();
    for (name, text) in fixtures {
        let result = serde_json::from_str::<Value>(text)
            .map_err(|e| format!("not JSON: {e}"))
            .and_then(|case| check(name, &case));
        if let Err(why) = result {
            failed.push(json!({"case": name, "why": why}));
        }
    }
    let ok = failed.is_empty() && !fixtures.is_empty();
    (
        json!({
            "binary": binary,
            "version": version,
            "cases": fixtures.len(),
            "passed": fixtures.len() - failed.len(),
            "failed": failed,
            "status": if ok { "pass" } else { "fail" },
        }),
        ok,
    )
}

/// `--selftest`'s last step in every binary: prints the record as one line of JSON on stdout
/// and gives the exit code, 1 unless every case passed (the installer reads both).
pub fn print_selftest<R: serde::Serialize>((record, passed): (R, bool)) -> i32 {
    println!("{}", selftest_line(&record));
    i32::from(!passed)
}

fn selftest_line(record: &impl serde::Serialize) -> String {
    // A record that cannot be written as JSON prints nothing the installer could take for a pass.
    serde_json::to_string(record)
        .unwrap_or_else(|e| json!({"status": "fail", "error": e.to_string()}).to_string())
}

/// A checker's last step: `Ok` when what the case produced is the case's `expect`, else the two
/// side by side (the why of a failing case).
pub fn expect_equals(got: &Value, case: &Value) -> Result<(), String> {
    if *got == case["expect"] {
        Ok(())
    } else {
        Err(format!("got {got}, expected {}", case["expect"]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_counts_and_names_failures_only() {
        let fixtures = [("A/one.json", r#"{"x":1}"#), ("A/two.json", "{bad")];
        let (rec, ok) = replay("b", "0", &fixtures, |_, v| {
            (v["x"] == 1).then_some(()).ok_or("x".into())
        });
        assert!(!ok);
        assert_eq!(rec["cases"], 2);
        assert_eq!(rec["passed"], 1);
        assert_eq!(rec["failed"][0]["case"], "A/two.json");
        assert!(!rec.to_string().contains("\"x\":1"), "no case contents");
        let (_, ok) = replay("b", "0", &[], |_, _| Ok(()));
        assert!(!ok, "nothing replayed is not a pass");
    }

    #[test]
    fn the_printed_record_is_one_line_and_the_exit_code_follows_the_verdict() {
        let record = json!({"status": "pass", "why": "two\nlines"});
        assert_eq!(
            selftest_line(&record),
            r#"{"status":"pass","why":"two\nlines"}"#
        );
        assert_eq!(print_selftest((record.clone(), true)), 0);
        assert_eq!(print_selftest((record, false)), 1);
    }

    #[test]
    fn expect_equals_names_both_sides() {
        let case = json!({"expect": {"a": 1}});
        assert_eq!(expect_equals(&json!({"a": 1}), &case), Ok(()));
        let why = expect_equals(&json!({"a": 2}), &case).unwrap_err();
        assert_eq!(why, r#"got {"a":2}, expected {"a":1}"#);
    }
}
