//! The whole process answering an Agent PreToolUse with agent folders of 200 definitions in the
//! project and 200 in the user's home (target: median under 2 ms), plus a transcript to read;
//! and a fork at the first tool call, before the transcript exists: the main model learned from
//! the CLI's command line (this process stands in for it) and the settings files (M1).
//! `cargo bench -p model-tier-guard --bench whole_process`

use hook_replay::bench::{ms, print_load_average, time_runs};
use hook_replay::sandbox::Sandbox;
use std::io::Write;

fn main() {
    let sandbox = Sandbox::new(env!("CARGO_BIN_EXE_model-tier-guard"));
    let home = sandbox.path();
    // The project is outside HOME, as usual: the user's agents are not found by walking up.
    let root = tempfile::tempdir().expect("temp dir");
    let project = root.path().join("project");
    let mut hook = sandbox.command();
    hook.env("CLAUDE_PROJECT_DIR", &project)
        .env("CLAUDE_PID", std::process::id().to_string());
    for (dir, model) in [
        (home.join(".claude/agents"), "opus"),
        (project.join(".claude/agents"), "haiku"),
    ] {
        std::fs::create_dir_all(&dir).expect("agent dir");
        for i in 0..200 {
            let body = format!(
                "---\nname: agent-{i}\ndescription: Benchmark agent number {i}, does one thing well.\ntools: Read, Grep, Glob\nmodel: {model}\n---\n\nYou are agent {i}. {}\n",
                "Follow the instructions carefully. ".repeat(20)
            );
            std::fs::write(dir.join(format!("agent-{i}.md")), body).expect("write agent");
        }
    }
    // A transcript whose last assistant line names the main model, behind 1 MiB of other lines.
    let transcript = root.path().join("t.jsonl");
    let mut t = std::fs::File::create(&transcript).expect("transcript");
    let filler = serde_json::json!({"type": "attachment", "attachment": {"type": "skill_listing", "content": "x".repeat(8000)}}).to_string();
    for _ in 0..128 {
        writeln!(t, "{filler}").expect("write");
    }
    writeln!(t, "{}", serde_json::json!({"type": "assistant", "message": {"model": "claude-opus-5-5", "content": []}})).expect("write");
    drop(t);
    // Settings files as a maintainer has them: hooks and permissions, no `model`, so every
    // layer is read and the CLI's default answers.
    let settings = serde_json::json!({
        "permissions": {"allow": ["Bash(git status)", "Read"]},
        "hooks": {"PreToolUse": [{"matcher": "Agent|Task", "hooks": [{"type": "command", "command": "model-tier-guard", "args": []}]}]},
    })
    .to_string();
    std::fs::write(home.join(".claude/settings.json"), &settings).expect("settings");
    std::fs::write(project.join(".claude/settings.json"), &settings).expect("settings");
    let not_yet = root.path().join("not-written-yet.jsonl");
    // The definition the call names is read last in its folder's order: scan cost included.
    let cases = [
        (
            "definition (project, 200 files)",
            serde_json::json!({"subagent_type": "agent-199", "description": "d", "prompt": "p"}),
            &transcript,
        ),
        (
            "user definition (400 files scanned)",
            serde_json::json!({"subagent_type": "missing-in-project", "description": "d", "prompt": "p"}),
            &transcript,
        ),
        (
            "call model fable (deny)",
            serde_json::json!({"subagent_type": "agent-5", "model": "fable", "description": "d", "prompt": "p"}),
            &transcript,
        ),
        (
            "fork naming haiku, no transcript yet (main model from the launch)",
            serde_json::json!({"model": "haiku", "description": "d", "prompt": "p"}),
            &not_yet,
        ),
    ];
    for (name, tool_input, transcript) in cases {
        let payload = serde_json::json!({
            "hook_event_name": "PreToolUse", "session_id": "bench", "tool_name": "Agent",
            "tool_use_id": "toolu_bench", "cwd": project, "transcript_path": transcript,
            "tool_input": tool_input,
        })
        .to_string();
        let t = time_runs(&mut hook, payload.as_bytes(), 300, |_| {});
        println!(
            "model-tier-guard Agent PreToolUse, {name}: median {:.2} ms, p90 {:.2} ms wall; median {:.2} ms CPU (user+sys) over {} runs",
            ms(t.wall.median()),
            ms(t.wall.p90()),
            ms(t.cpu.median()),
            t.len()
        );
    }
    print_load_average();
}
