//! The whole process answering a PreToolUse on a Read (target: median under 2 ms), and a Bash
//! call for comparison. `cargo bench -p integrity-signals --bench whole_process`

mod support;

fn main() {
    let exe = env!("CARGO_BIN_EXE_integrity-signals");
    let home = std::env::temp_dir().join(format!("integrity-bench-{}", std::process::id()));
    let project = home.join("proj");
    std::fs::create_dir_all(&project).expect("temp dir");
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
        let mut samples = Vec::new();
        for i in 0..200 {
            let payload = serde_json::json!({
                "hook_event_name": "PreToolUse", "session_id": "bench", "cwd": project,
                "tool_name": tool, "tool_input": input, "tool_use_id": format!("toolu_{i}"),
                "transcript_path": "/nonexistent", "permission_mode": "default"
            })
            .to_string();
            let env = [
                ("HOME", home.as_path()),
                ("XDG_STATE_HOME", &home.join("state")),
                ("XDG_CONFIG_HOME", &home.join("config")),
                ("CLAUDE_PROJECT_DIR", project.as_path()),
            ];
            samples.push(support::time_hook(exe, &env, &payload).0);
        }
        let (median, p90) = support::stats(&mut samples, 0.9);
        println!(
            "integrity-signals PreToolUse {name}: median {median:.2} ms, p90 {p90:.2} ms over {} runs",
            samples.len()
        );
    }
    let _ = std::fs::remove_dir_all(&home);
}
