//! Whole-process timings for G6/G7 (issue 5): the release binary started once per call with a
//! PreToolUse payload, as Claude Code runs it. Prints the median and p90 of each case.
//!
//! `cargo bench -p gh-write-guard --bench g6_g7_process` (figures in the crate README).
//! Targets: `git status` with cwd in a primary checkout < 4 ms; a 200-line script with
//! heredocs < 5 ms.

use hook_replay::bench::{time_runs, Timings};
use hook_replay::sandbox::Sandbox;
use std::path::Path;
use std::process::Command;

const RUNS: usize = 200;

/// A 200-line script: heredocs, loops (bounded and inside timeouts), git reads and, with
/// `assignments`, `x=$(...)` variable assignments every fifth statement.
fn script_200(assignments: bool) -> String {
    let mut s = String::new();
    let mut lines = 0;
    let mut i = 0;
    while lines < 200 {
        match i % 5 {
            0 => {
                s.push_str(&format!(
                    "cat > notes{i}.md <<'EOF'\nwhile true; do sleep 1; done\nline {i}\nEOF\n"
                ));
                lines += 4;
            }
            1 => {
                s.push_str(&format!(
                    "for ((n = 0; n < {i}; n++)); do sleep 0; echo \"$n\" >> log; done\n"
                ));
                lines += 1;
            }
            2 => {
                s.push_str("git status --short && git log --oneline -3 | cat\n");
                lines += 1;
            }
            3 => {
                s.push_str(
                    "timeout 60 bash -c 'until [ -f ready ]; do sleep 1; done' || echo late\n",
                );
                lines += 1;
            }
            _ if assignments => {
                s.push_str(&format!("x{i}=$(printf '%s' \"$HOME\" | wc -c)\n"));
                lines += 1;
            }
            _ => {
                s.push_str(&format!("cat <<EOF | wc -l\nrun {i} in $HOME\nEOF\n"));
                lines += 3;
            }
        }
        i += 1;
    }
    s
}

fn measure(hook: &mut Command, cwd: &Path, command: &str) -> Timings {
    let payload = serde_json::json!({
        "hook_event_name": "PreToolUse",
        "session_id": "bench",
        "tool_use_id": "t",
        "cwd": cwd,
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
    .to_string();
    time_runs(hook, payload.as_bytes(), RUNS, |run| {
        assert!(run.status.success())
    })
}

fn main() {
    let home = Sandbox::new(env!("CARGO_BIN_EXE_gh-write-guard"));
    let mut hook = home.command();
    hook.env("GIT_CONFIG_NOSYSTEM", "1");
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = tmp.path().join("primary");
    hook_replay::git::init_with_commit(&repo, &[("a.txt", "a\n")]);
    let plain = script_200(false);
    let mixed = script_200(true);
    for s in [&plain, &mixed] {
        assert!(
            (200..=203).contains(&s.lines().count()),
            "{}",
            s.lines().count()
        );
    }
    let cases = [
        ("git status, cwd in a primary checkout", "git status"),
        (
            "git reset --hard, cwd in a primary checkout (G6 deny)",
            "git reset --hard",
        ),
        (
            "200-line script: heredocs, loops, git, timeouts",
            plain.as_str(),
        ),
        (
            "200-line script: the same with 40 x=$(...) assignments",
            mixed.as_str(),
        ),
    ];
    for (name, command) in cases {
        let t = measure(&mut hook, &repo, command);
        println!("{name}: {}", t.summary());
    }
}
