//! The whole process answering a Stop payload with a 64 KiB message (target: median under 3 ms).
//! `cargo bench -p egress-audit --bench whole_process`

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let exe = env!("CARGO_BIN_EXE_egress-audit");
    let home = std::env::temp_dir().join(format!("egress-bench-{}", std::process::id()));
    std::fs::create_dir_all(&home).expect("temp dir");
    let mut message = String::new();
    while message.len() < 64 * 1024 {
        message.push_str("I ran the suite and collected the output of every step in the log. ");
    }
    for (name, text) in [
        ("green", message.clone()),
        ("red", format!("{message} You can run make smoke.")),
    ] {
        let payload = serde_json::json!({
            "hook_event_name": "Stop", "session_id": "bench", "stop_hook_active": false,
            "last_assistant_message": text, "cwd": "/tmp", "transcript_path": "/nonexistent"
        })
        .to_string();
        let mut samples = Vec::new();
        for _ in 0..200 {
            let start = Instant::now();
            let mut child = Command::new(exe)
                .env("HOME", &home)
                .env("XDG_STATE_HOME", home.join("state"))
                .env("XDG_CONFIG_HOME", home.join("config"))
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
            "egress-audit Stop 64 KiB {name}: median {:.2} ms, p90 {:.2} ms over {} runs",
            samples[samples.len() / 2],
            samples[samples.len() * 9 / 10],
            samples.len()
        );
    }
    let _ = std::fs::remove_dir_all(&home);
}
