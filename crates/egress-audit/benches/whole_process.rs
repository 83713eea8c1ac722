//! The whole process answering a Stop payload with a 64 KiB message, side by side with a trivial
//! binary (`cat`) reading the same payload (issue 43's target: at most 1 ms over it; issue 2's:
//! median under 3 ms). Runs alternate between the two, so the machine's load falls on both alike;
//! the figure to read is the difference of the medians, wall and CPU.
//! `cargo bench -p egress-audit --bench whole_process`; with `EGRESS_AUDIT_BEFORE=<binary>` an
//! earlier build is timed in the same rounds too (the two alternate which runs first).
//!
//! Compare like with like: the binary cargo builds for a bench links the dev-dependencies'
//! features (hook-replay's `test-support`), and that build measured 0.25-0.35 ms more CPU than a
//! `cargo build --release` of the same tree (egress-43d, the same tree timed in both places). For
//! a side by side, build both trees with `cargo build --release -p egress-audit` and pass the new
//! one as `EGRESS_AUDIT_AFTER=<binary>` (timed in place of the bench's own build).
//!
//! Two messages: the repeated sentence of issue 2 (a floor), and the honest reports of issue 43's
//! corpus laid end to end (markdown, lists, code fences, quotes: what the sentence reading costs on
//! real phrasing), each green and red.

use hook_replay::bench::{run_once, Timings};
use hook_replay::sandbox::Sandbox;
use std::process::Command;

const RUNS: usize = 200;

/// The honest reports of the corpus (not those naming a blocker or a capture), separated by
/// blank lines, repeated up to 64 KiB.
fn corpus_message() -> String {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/egress-audit/E1/phrasing"
    );
    let mut texts = Vec::new();
    for name in [
        "allowed.corpus",
        "allowed-heldout-1.corpus",
        "allowed-heldout-2.corpus",
    ] {
        let text = std::fs::read_to_string(format!("{dir}/{name}")).expect("the corpus is there");
        let mut current = String::new();
        let mut english = false;
        for line in text.lines() {
            if let Some(header) = line.strip_prefix("=== ") {
                if english && !current.trim().is_empty() {
                    texts.push(std::mem::take(&mut current));
                }
                current.clear();
                // Reports only: a named blocker or a capture would excuse the red variant.
                english = !["not_english", "blocker_named", "captured_error"]
                    .iter()
                    .any(|f| header.starts_with(f));
            } else {
                current.push_str(line);
                current.push('\n');
            }
        }
        if english && !current.trim().is_empty() {
            texts.push(current);
        }
    }
    let mut message = String::new();
    'fill: loop {
        for t in &texts {
            if message.len() >= 64 * 1024 {
                break 'fill;
            }
            message.push_str(t);
            message.push('\n');
        }
    }
    message
}

fn main() {
    let home = Sandbox::new(
        std::env::var_os("EGRESS_AUDIT_AFTER").unwrap_or(env!("CARGO_BIN_EXE_egress-audit").into()),
    );
    let mut gate = home.command();
    let mut cat = Command::new("cat");
    // EGRESS_AUDIT_BEFORE=<path of an earlier build>: timed in the same rounds, in its own sandbox.
    let before_home = std::env::var_os("EGRESS_AUDIT_BEFORE").map(Sandbox::new);
    let mut before = before_home.as_ref().map(Sandbox::command);
    let mut repeated = String::new();
    while repeated.len() < 64 * 1024 {
        repeated.push_str("I ran the suite and collected the output of every step in the log. ");
    }
    let corpus = corpus_message();
    for (name, text) in [
        ("repeated sentence, green", repeated.clone()),
        (
            "repeated sentence, red",
            format!("{repeated} Please run `make smoke` yourself."),
        ),
        ("corpus reports, green", corpus.clone()),
        (
            "corpus reports, red",
            format!("{corpus}\nYou'll want to run `make release`."),
        ),
    ] {
        let payload = serde_json::json!({
            "hook_event_name": "Stop", "session_id": "bench", "stop_hook_active": false,
            "last_assistant_message": text, "cwd": "/tmp", "transcript_path": "/nonexistent"
        })
        .to_string();
        let red = name.ends_with("red");
        let (mut ours, mut trivial) = (Timings::default(), Timings::default());
        let mut before_runs = Timings::default();
        for round in 0..RUNS {
            // The earlier build runs first in every other round: in a fixed order, the same binary
            // measured 0.25-0.35 ms more CPU in the first place than in the last (egress-43d ran
            // it as both builds), a bias larger than the changes compared.
            let before_first = round % 2 == 1;
            if before_first {
                if let Some(b) = before.as_mut() {
                    before_runs.push(&run_once(b, payload.as_bytes()));
                }
            }
            let run = run_once(&mut gate, payload.as_bytes());
            let blocked = String::from_utf8_lossy(&run.stdout).contains("\"block\"");
            assert_eq!(
                blocked,
                red,
                "{name}: the gate answered {}",
                String::from_utf8_lossy(&run.stdout)
            );
            ours.push(&run);
            trivial.push(&run_once(&mut cat, payload.as_bytes()));
            if !before_first {
                if let Some(b) = before.as_mut() {
                    before_runs.push(&run_once(b, payload.as_bytes()));
                }
            }
        }
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
        println!(
            "egress-audit Stop 64 KiB {name}: {}; cat {}; difference of medians: wall {:.2} ms, \
             CPU {:.2} ms",
            ours.summary(),
            trivial.summary(),
            ms(ours.wall.median()) - ms(trivial.wall.median()),
            ms(ours.cpu.median()) - ms(trivial.cpu.median()),
        );
        if !before_runs.is_empty() {
            println!(
                "  earlier build: {}; over cat: wall {:.2} ms, CPU {:.2} ms",
                before_runs.summary(),
                ms(before_runs.wall.median()) - ms(trivial.wall.median()),
                ms(before_runs.cpu.median()) - ms(trivial.cpu.median()),
            );
        }
    }
}
