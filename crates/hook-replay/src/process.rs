//! Driving a binary as a process in tests: payload on stdin, answer collected from stdout and
//! stderr, and the checks every binary's tests make of that answer.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

/// `exe` with a clean environment: `PATH` only, so no setting of the developer's
/// (`AGENT_GUARDS_CONFIG`, grants, `CLAUDE_*`, HOME) leaks into a test; the test adds the rest.
pub fn clean_command(exe: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut c = Command::new(exe);
    c.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    c
}

/// `/proc/<pid>/cmdline`, its arguments joined by spaces (empty once the process is gone).
#[cfg(feature = "test-support")]
pub fn cmdline(pid: u32) -> String {
    let line = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    String::from_utf8_lossy(&line)
        .replace('\0', " ")
        .trim()
        .to_string()
}

/// The pids whose command line is exactly `command` (arguments joined by spaces): how tests and
/// benchmarks find the processes they left behind, to check and to clean up.
#[cfg(feature = "test-support")]
pub fn processes_running(command: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|pid| cmdline(*pid) == command)
        .collect()
}

/// Runs `command` with `stdin` written to it and returns its output. The input is written on its
/// own thread: a binary may answer (and exit) before it has read everything, and a large input
/// must not fill the pipe while nobody reads the output.
pub fn run(command: &mut Command, stdin: &[u8]) -> std::io::Result<Output> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let writer = child.stdin.take().map(|mut pipe| {
        let data = stdin.to_vec();
        // A write error means the binary closed its stdin early; its answer says the rest.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&data);
        })
    });
    let out = child.wait_with_output()?;
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    Ok(out)
}

/// Runs `command` with `payload` on stdin; returns (exit code, stdout, stderr). A process killed
/// by a signal reports exit code -1.
pub fn run_with_payload(
    mut command: Command,
    payload: &Value,
) -> std::io::Result<(i32, String, String)> {
    let out = run(&mut command, payload.to_string().as_bytes())?;
    Ok((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// The one JSON line a hook answer has on stdout; panics (a test failure) on anything else.
pub fn stdout_json(out: &Output) -> Value {
    let s = String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8");
    assert_eq!(s.lines().count(), 1, "exactly one line on stdout: {s:?}");
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {s:?}"))
}

/// Checks a binary's own surface: `--help` succeeds and mentions `help_mentions`, `--version`
/// prints a line starting with `version_prefix`, and the arguments `bad_usage` are a usage error
/// (exit code 2).
pub fn assert_flags(bin: &str, help_mentions: &str, version_prefix: &str, bad_usage: &[&str]) {
    let run = |args: &[&str]| {
        Command::new(bin)
            .args(args)
            .output()
            .expect("the binary starts")
    };
    let help = run(&["--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(help.status.success(), "--help: {}", help.status);
    assert!(text.contains(help_mentions), "--help: {text}");
    let version = run(&["--version"]);
    let text = String::from_utf8_lossy(&version.stdout);
    assert!(text.starts_with(version_prefix), "--version: {text}");
    assert_eq!(run(bad_usage).status.code(), Some(2), "{bad_usage:?}");
}

/// The two tests of a binary's own surface, in its `tests/cli.rs`:
/// `selftest_replays_every_fixture_and_passes` ([`assert_selftest_passes`] with `min_cases`) and
/// `help_version_and_usage` ([`assert_flags`]).
#[macro_export]
macro_rules! surface_tests {
    ($bin:expr, min_cases: $min:expr, help_mentions: $help:expr, version_prefix: $version:expr, bad_usage: $bad:expr $(,)?) => {
        #[test]
        fn selftest_replays_every_fixture_and_passes() {
            $crate::process::assert_selftest_passes($bin, $min);
        }

        #[test]
        fn help_version_and_usage() {
            $crate::process::assert_flags($bin, $help, $version, $bad);
        }
    };
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

/// Another process holding an exclusive `flock` on a file, taken through a read-only handle the
/// way an agent command can (`(flock -x 9; sleep 60) 9<file &`): the lock is held once
/// [`LockHolder::hold`] returns, and let go when the holder is dropped. The file is created empty
/// when missing.
#[cfg(feature = "test-support")]
pub struct LockHolder(std::process::Child);

#[cfg(feature = "test-support")]
impl LockHolder {
    /// Starts the holder and waits until it holds the lock.
    pub fn hold(file: &std::path::Path) -> LockHolder {
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).expect("the file's folder");
        }
        if !file.exists() {
            std::fs::write(file, b"").expect("the file to lock");
        }
        let mut child = Command::new("bash")
            .args([
                "-c",
                "exec 9<\"$1\"; flock -x 9; echo held; exec sleep 60",
                "_",
            ])
            .arg(file)
            .stdout(Stdio::piped())
            .spawn()
            .expect("bash and flock");
        let mut line = String::new();
        let stdout = child.stdout.as_mut().expect("the holder's stdout");
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)
            .expect("the holder's word");
        assert_eq!(line.trim(), "held", "flock did not take the lock");
        LockHolder(child)
    }
}

#[cfg(feature = "test-support")]
impl Drop for LockHolder {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn drives_a_real_process_with_a_payload() {
        let mut c = Command::new("sh");
        c.arg("-c").arg("cat; echo err >&2; exit 3");
        let (code, out, err) = run_with_payload(c, &json!({"a": 1})).unwrap();
        assert_eq!((code, out.as_str(), err.trim()), (3, r#"{"a":1}"#, "err"));
    }

    #[test]
    fn a_binary_that_answers_before_reading_its_input_does_not_hang_the_test() {
        let big = vec![b'x'; 1 << 20];
        let out = run(Command::new("sh").arg("-c").arg("echo '{}'"), &big).unwrap();
        assert!(out.status.success());
        assert_eq!(stdout_json(&out), json!({}));
    }

    #[test]
    #[should_panic(expected = "exactly one line")]
    fn two_lines_on_stdout_are_not_an_answer() {
        let out = run(
            Command::new("sh").arg("-c").arg("echo '{}'; echo '{}'"),
            b"",
        )
        .unwrap();
        stdout_json(&out);
    }
}
