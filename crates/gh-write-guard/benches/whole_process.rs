//! Whole-process time of the hook on Bash payloads (targets: a non-write command under 2 ms, a
//! `gh pr comment` in a checkout with an origin under 5 ms; the prior-art Python guard took
//! about 75-80 ms per call). Runs the release binary as the harness would: spawn, payload on
//! stdin, wait for the answer.
//! `cargo bench -p gh-write-guard --bench whole_process`

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

const RUNS: usize = 300;

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .expect("git runs")
        .success();
    assert!(ok, "git {args:?}");
}

fn main() {
    let exe = env!("CARGO_BIN_EXE_gh-write-guard");
    let home = tempfile::tempdir().expect("temp dir");
    let repo = home.path().join("checkout");
    std::fs::create_dir_all(&repo).expect("repo dir");
    git(&repo, &["init", "-q", "-b", "main"]);
    git(
        &repo,
        &["remote", "add", "origin", "git@github.com:acme/widget.git"],
    );
    let plain = home.path().join("plain");
    std::fs::create_dir_all(&plain).expect("plain dir");
    let cases: [(&str, &Path, &str); 4] = [
        ("ls -la (no repository)", &plain, "ls -la"),
        ("cargo test (in the checkout)", &repo, "cargo test"),
        (
            "gh pr comment (checkout with origin)",
            &repo,
            "gh pr comment 5 --body ok",
        ),
        (
            "gh pr comment -R stranger/x (deny, audit written)",
            &repo,
            "gh pr comment 5 --body ok -R stranger/x",
        ),
    ];
    for (name, cwd, command) in cases {
        let payload = serde_json::json!({
            "hook_event_name": "PreToolUse", "session_id": "bench", "tool_use_id": "t",
            "cwd": cwd, "tool_name": "Bash", "tool_input": {"command": command},
        })
        .to_string();
        let mut samples = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let start = Instant::now();
            let mut child = Command::new(exe)
                .env_clear()
                .env("PATH", std::env::var("PATH").unwrap_or_default())
                .env("HOME", home.path())
                .env("XDG_STATE_HOME", home.path().join("state"))
                .env("XDG_CONFIG_HOME", home.path().join("config"))
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(payload.as_bytes())
                .expect("write");
            child.wait().expect("wait");
            samples.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        samples.sort_by(|a, b| a.total_cmp(b));
        println!(
            "gh-write-guard {name}: median {:.2} ms, p90 {:.2} ms over {RUNS} runs",
            samples[RUNS / 2],
            samples[RUNS * 9 / 10]
        );
    }
}
