//! What every hook binary's `--selftest` and its tests share.
//!
//! * [`replay`] runs a checker over the fixtures a binary embedded at build time and builds the
//!   metadata-only record `--selftest` prints (counts and failing case names with the reason,
//!   never case contents);
//! * [`run_with_payload`] starts a hook binary, writes a payload to its stdin and collects its
//!   exit code, stdout and stderr (for tests).

use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

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

/// Runs `command` with `payload` on stdin; returns (exit code, stdout, stderr). A process killed
/// by a signal reports exit code -1.
pub fn run_with_payload(
    mut command: Command,
    payload: &Value,
) -> std::io::Result<(i32, String, String)> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(payload.to_string().as_bytes())?;
    }
    let out = child.wait_with_output()?;
    Ok((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// Runs `<bin> --selftest` and checks that it passed with at least `min_cases` cases; returns the
/// record (for tests).
pub fn assert_selftest_passes(bin: &str, min_cases: u64) -> Value {
    let out = Command::new(bin)
        .arg("--selftest")
        .output()
        .expect("the binary starts");
    let record: Value = serde_json::from_slice(&out.stdout).expect("the record is JSON");
    assert!(out.status.success(), "{record}");
    assert_eq!(record["status"], "pass", "{record}");
    assert!(
        record["cases"].as_u64().unwrap_or(0) >= min_cases,
        "{record}"
    );
    assert_eq!(record["cases"], record["passed"]);
    record
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
    fn drives_a_real_process_with_a_payload() {
        let mut c = Command::new("sh");
        c.arg("-c").arg("cat; echo err >&2; exit 3");
        let (code, out, err) = run_with_payload(c, &json!({"a": 1})).unwrap();
        assert_eq!((code, out.as_str(), err.trim()), (3, r#"{"a":1}"#, "err"));
    }
}

/// Helpers for the benchmarks' printed figures.
pub mod timing {
    use std::time::Duration;

    /// The median of `samples` (zero for none).
    pub fn median(mut samples: Vec<Duration>) -> Duration {
        samples.sort();
        samples.get(samples.len() / 2).copied().unwrap_or_default()
    }

    /// Prints the load average: whole-process figures scale with it, so it goes beside them.
    pub fn print_load_average() {
        println!(
            "load average: {}",
            std::fs::read_to_string("/proc/loadavg")
                .unwrap_or_default()
                .trim()
        );
    }
}
