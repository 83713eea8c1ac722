//! Shared by the integration tests: the hand-written corpus of shapes and a runner for bash.
#![allow(dead_code)]

use std::process::Command;

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

/// Whether `bash -n` accepts `src`. bash sometimes reports an error in `[[ ]]` and still
/// exits 0, so an error message counts as rejection too (warnings do not).
pub fn bash_accepts(src: &str) -> bool {
    let out = Command::new("bash")
        .arg("-n")
        .arg("-c")
        .arg(src)
        .env("HOME", "/nonexistent")
        .output()
        .expect("bash must be installed for the differential tests");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let reported = stderr.lines().any(|l| !l.contains("warning:"));
    out.status.success() && !reported
}
