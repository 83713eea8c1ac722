//! The whole process answering a PreToolUse on a Read (target: median under 2 ms), and a Bash
//! call for comparison. `cargo bench -p integrity-signals --bench whole_process`

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

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
            let start = Instant::now();
            let mut child = Command::new(exe)
                .env_clear()
                .env("HOME", &home)
                .env("XDG_STATE_HOME", home.join("state"))
                .env("XDG_CONFIG_HOME", home.join("config"))
                .env("CLAUDE_PROJECT_DIR", &project)
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
            "integrity-signals PreToolUse {name}: median {:.2} ms, p90 {:.2} ms over {} runs",
            samples[samples.len() / 2],
            samples[samples.len() * 9 / 10],
            samples.len()
        );
    }
    let _ = std::fs::remove_dir_all(&home);
}
