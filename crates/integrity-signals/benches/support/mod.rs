//! Timing one hook process: spawn with a clean environment, feed the payload, wait.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Instant;

/// Runs `exe` once with `env` only and `payload` on stdin; returns milliseconds and the output.
pub fn time_hook(exe: &str, env: &[(&str, &Path)], payload: &str) -> (f64, Output) {
    let start = Instant::now();
    let mut cmd = Command::new(exe);
    cmd.env_clear();
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(payload.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    (start.elapsed().as_secs_f64() * 1000.0, out)
}

/// Median and the value at `q` (0..1) of sorted samples.
pub fn stats(samples: &mut [f64], q: f64) -> (f64, f64) {
    samples.sort_by(|a, b| a.total_cmp(b));
    let at = ((samples.len() as f64 * q) as usize).min(samples.len() - 1);
    (samples[samples.len() / 2], samples[at])
}
