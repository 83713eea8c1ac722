//! The whole process answering an Agent PreToolUse with agent folders of 200 definitions in the
//! project and 200 in the user's home (target: median under 2 ms), plus a transcript to read;
//! and a fork at the first tool call, before the transcript exists: the main model learned from
//! the CLI's command line (this process stands in for it) and the settings files (M1).
//! `cargo bench -p model-tier-guard --bench whole_process`

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let exe = env!("CARGO_BIN_EXE_model-tier-guard");
    let root = std::env::temp_dir().join(format!("mtg-bench-{}", std::process::id()));
    let home = root.join("home");
    let project = root.join("project");
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
    let transcript = root.join("t.jsonl");
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
    let not_yet = root.join("not-written-yet.jsonl");
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
        let mut samples = Vec::new();
        let mut cpu = Vec::new();
        for _ in 0..300 {
            let start = Instant::now();
            // Reaped by `reap_cpu_ms` (wait4), which also reads its CPU time.
            #[allow(clippy::zombie_processes)]
            let mut child = Command::new(exe)
                .env_clear()
                .env("HOME", &home)
                .env("XDG_STATE_HOME", root.join("state"))
                .env("XDG_CONFIG_HOME", root.join("config"))
                .env("CLAUDE_PROJECT_DIR", &project)
                .env("CLAUDE_PID", std::process::id().to_string())
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
            cpu.push(reap_cpu_ms(child.id()));
            samples.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        samples.sort_by(|a, b| a.total_cmp(b));
        cpu.sort_by(|a, b| a.total_cmp(b));
        println!(
            "model-tier-guard Agent PreToolUse, {name}: median {:.2} ms, p90 {:.2} ms wall; median {:.2} ms CPU (user+sys) over {} runs",
            samples[samples.len() / 2],
            samples[samples.len() * 9 / 10],
            cpu[cpu.len() / 2],
            samples.len()
        );
    }
    let _ = std::fs::remove_dir_all(&root);
    println!(
        "load average at the end: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
}

/// Waits for the child and returns its CPU time (user + system): on a shared machine the wall
/// time mostly measures the other tenants.
fn reap_cpu_ms(pid: u32) -> f64 {
    let mut status = 0;
    // SAFETY: plain FFI call with valid out-pointers; the pid is our own unreaped child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(r, pid as libc::pid_t, "wait4");
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1000.0 + t.tv_usec as f64 / 1000.0;
    ms(usage.ru_utime) + ms(usage.ru_stime)
}
