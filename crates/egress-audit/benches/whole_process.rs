//! The whole process answering a Stop payload with a 64 KiB message (target: median under 3 ms).
//! `cargo bench -p egress-audit --bench whole_process`

use hook_replay::bench::time_runs;
use hook_replay::sandbox::Sandbox;

fn main() {
    let home = Sandbox::new(env!("CARGO_BIN_EXE_egress-audit"));
    let mut command = home.command();
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
        let t = time_runs(&mut command, payload.as_bytes(), 200, |_| {});
        println!("egress-audit Stop 64 KiB {name}: {}", t.summary());
    }
}
