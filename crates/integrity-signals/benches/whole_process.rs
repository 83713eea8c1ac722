//! The whole process answering a PreToolUse on a Read (target: median under 2 ms), and a Bash
//! call for comparison. `cargo bench -p integrity-signals --bench whole_process`

use hook_replay::bench::{run_once, Timings};
use hook_replay::sandbox::Sandbox;

fn main() {
    let home = Sandbox::new(env!("CARGO_BIN_EXE_integrity-signals"));
    let project = home.path().join("proj");
    std::fs::create_dir_all(&project).expect("temp dir");
    let mut hook = home.command();
    hook.env("CLAUDE_PROJECT_DIR", &project);
    for (name, tool, input) in [
        (
            "Read",
            "Read",
            serde_json::json!({"file_path": project.join("src/lib.rs")}),
        ),
        (
            "Bash",
            "Bash",
            serde_json::json!({"command": "cd src && grep -rn TODO . | head -n 20 > /tmp/todo.txt"}),
        ),
    ] {
        let mut t = Timings::default();
        for i in 0..200 {
            let payload = serde_json::json!({
                "hook_event_name": "PreToolUse", "session_id": "bench", "cwd": project,
                "tool_name": tool, "tool_input": input, "tool_use_id": format!("toolu_{i}"),
                "transcript_path": "/nonexistent", "permission_mode": "default"
            })
            .to_string();
            t.push(&run_once(&mut hook, payload.as_bytes()));
        }
        println!("integrity-signals PreToolUse {name}: {}", t.summary());
    }
}
