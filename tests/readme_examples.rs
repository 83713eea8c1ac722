//! The README's example refusal is the binary's real answer (issue 46: the example had drifted
//! from the text the agent sees, which starts with the sub-code). The example is the first fenced
//! block under "## What a refusal looks like"; the answer is gh-write-guard's to the same command
//! in a fresh primary checkout, compared with the line breaks of the README's wrapping ignored.

use hook_replay::sandbox::Sandbox;
use serde_json::{json, Value};
use std::process::Command;

const README: &str = include_str!("../README.md");

/// The first fenced block after `heading`, its lines joined with spaces.
fn example_after(heading: &str) -> String {
    let start = README.find(heading).expect("the README has the heading");
    let rest = &README[start..];
    let open = rest.find("```\n").expect("a fenced block under it") + 4;
    let close = rest[open..].find("```").expect("a closed block") + open;
    rest[open..close]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_readme_refusal_example_is_the_real_answer() {
    let home = Sandbox::new(e2e_harness::bin("gh-write-guard"));
    let repo = home.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let made = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .unwrap();
    assert!(made.success());
    let payload = json!({"hook_event_name": "PreToolUse", "session_id": "readme", "cwd": repo,
        "tool_name": "Bash", "tool_input": {"command": "git commit -am wip"},
        "tool_use_id": "toolu_1", "transcript_path": "/nonexistent"});
    let out =
        hook_replay::process::run(&mut home.command(), payload.to_string().as_bytes()).unwrap();
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    let real = answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .expect("a refusal with a reason")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(
        example_after("## What a refusal looks like"),
        real,
        "README.md's example refusal is not the real one; paste the real reason into it"
    );
}
