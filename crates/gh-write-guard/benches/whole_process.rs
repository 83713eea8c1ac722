//! Whole-process time of the hook on Bash payloads (targets: a non-write command under 2 ms, a
//! `gh pr comment` in a checkout with an origin under 5 ms; the prior-art Python guard took
//! about 75-80 ms per call). Runs the release binary as the harness would: spawn, payload on
//! stdin, wait for the answer.
//! `cargo bench -p gh-write-guard --bench whole_process`

use hook_replay::bench::time_runs;
use hook_replay::git::git;
use hook_replay::sandbox::Sandbox;
use std::path::Path;

const RUNS: usize = 300;

fn main() {
    let home = Sandbox::new(env!("CARGO_BIN_EXE_gh-write-guard"));
    let mut hook = home.command();
    hook.env("GIT_CONFIG_GLOBAL", "/dev/null");
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
        let t = time_runs(&mut hook, payload.as_bytes(), RUNS, |_| {});
        println!("gh-write-guard {name}: {}", t.summary());
    }
}
