//! Shared by the integration tests: the hand-written corpus of shapes and a runner for bash.
#![allow(dead_code)]

use std::process::{Command, Output};

/// `(name, source)` pairs from `tests/corpus/shapes.sh` (`### name` headers).
pub fn shapes() -> Vec<(String, String)> {
    let text = include_str!("../corpus/shapes.sh");
    let mut out: Vec<(String, String)> = Vec::new();
    for chunk in text.split("### ").skip(1) {
        let (name, body) = chunk.split_once('\n').unwrap_or((chunk, ""));
        let body = body.strip_suffix('\n').unwrap_or(body);
        out.push((name.trim().to_string(), body.to_string()));
    }
    out
}

/// bash run with `args`, its `HOME` pointing nowhere (no start-up file of the machine counts).
pub fn bash(args: &[&str]) -> Output {
    Command::new("bash")
        .args(args)
        .env("HOME", "/nonexistent")
        .output()
        .expect("bash must be installed for the differential tests")
}

/// The standard output of `bash args`, which must succeed.
pub fn bash_stdout(args: &[&str]) -> String {
    let out = bash(args);
    assert!(
        out.status.success(),
        "bash failed on {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Whether `bash -n` accepts `src`. bash sometimes reports an error in `[[ ]]` and still
/// exits 0, so an error message counts as rejection too (warnings do not).
pub fn bash_accepts(src: &str) -> bool {
    let out = bash(&["-n", "-c", src]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let reported = stderr.lines().any(|l| !l.contains("warning:"));
    out.status.success() && !reported
}
