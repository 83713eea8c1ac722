//! Stop with a success claim over a 10 MiB transcript (target: under 50 ms): the transcript is
//! scanned for the most recent test run and its result. Measured in process (the judgement) and
//! as a whole process. `cargo bench -p integrity-signals --bench stop_scan`

use hook_replay::bench::{ms, time_runs, Samples};
use hook_replay::sandbox::Sandbox;
use integrity_signals::i2_fabricated_claims::Runner;
use serde_json::json;
use std::time::Instant;

/// A transcript of ~10 MiB: many Bash calls with large outputs, a failing test run near the end.
fn transcript() -> String {
    let mut lines = Vec::new();
    let big_output = "src/module.rs:12: let value = compute(input);\n".repeat(200);
    let mut i = 0;
    let mut size = 0;
    while size < 10 * 1024 * 1024 {
        let call = json!({"type":"assistant","uuid":format!("a{i}"),"message":{"id":format!("m{i}"),"role":"assistant",
            "content":[{"type":"text","text":"Looking at the code."},{"type":"tool_use","id":format!("toolu_{i}"),"name":"Bash","input":{"command":format!("grep -rn compute src/ | head -n {i}")}}]}}).to_string();
        let result = json!({"type":"user","uuid":format!("u{i}"),"timestamp":"2026-12-01T00:00:00Z","message":{"role":"user",
            "content":[{"type":"tool_result","tool_use_id":format!("toolu_{i}"),"content":big_output,"is_error":false}]}}).to_string();
        size += call.len() + result.len() + 2;
        lines.push(call);
        lines.push(result);
        i += 1;
    }
    lines.push(json!({"type":"assistant","message":{"id":"mt","content":[{"type":"tool_use","id":"toolu_t","name":"Bash","input":{"command":"cargo test"}}]}}).to_string());
    lines.push(json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_t","is_error":true,"content":"Exit code 101\ntest result: FAILED. 3 passed; 1 failed"}]}}).to_string());
    lines.join("\n")
}

fn main() {
    let home = Sandbox::new(env!("CARGO_BIN_EXE_integrity-signals"));
    let path = home.path().join("t.jsonl");
    let body = transcript();
    std::fs::write(&path, &body).expect("write transcript");
    let mib = body.len() as f64 / (1024.0 * 1024.0);

    let mut samples = Samples::default();
    for _ in 0..30 {
        let start = Instant::now();
        let bytes = transcript::read_tail(&path, transcript::TAIL_BYTES).expect("read");
        let found = integrity_signals::hook::latest_results(
            Some(&bytes),
            &[Runner::Tests, Runner::Build],
            &|_| None,
        );
        assert!(found[&Runner::Tests].failed);
        samples.push(start.elapsed());
    }
    println!(
        "transcript scan {mib:.1} MiB (in process): median {:.1} ms, max {:.1} ms over {} runs",
        ms(samples.median()),
        ms(samples.max()),
        samples.len()
    );

    let mut hook = home.command();
    let payload =
        json!({"hook_event_name": "Stop", "session_id": "bench", "stop_hook_active": false,
        "last_assistant_message": "Done. All tests pass.", "transcript_path": path, "cwd": "/tmp"})
        .to_string();
    let t = time_runs(&mut hook, payload.as_bytes(), 30, |run| {
        assert!(
            String::from_utf8_lossy(&run.stdout).contains("I2"),
            "the claim was caught"
        );
    });
    println!(
        "Stop over a {mib:.1} MiB transcript (whole process): median {:.1} ms, max {:.1} ms over {} runs",
        ms(t.wall.median()),
        ms(t.wall.max()),
        t.len()
    );
}
