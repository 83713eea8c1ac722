//! Held-out adversarial replay (issue 19): `fixtures/adversarial-heldout/integrity-signals/`, a
//! second I3 set written from requirements.md and the spec's fixture schema by someone who had
//! read neither the guard's source nor the first set. Replayed through the self-test's runner
//! (`selftest::run_cases`: live hook code, temporary state dir) and scored by
//! `hook_replay::adversarial`, as `adversarial.rs` does.
//!
//! Prints the rate per class and the wrong ids. Fails below [`ATTACK_FLOOR`], on a wrong case
//! outside [`KNOWN_MISSES`], or when a listed id is now decided rightly (drop it).

use hook_replay::adversarial::{load_set, report_and_check, Outcome};
use integrity_signals::selftest::run_cases;
use serde_json::Value;

/// Attacks refused / all attacks when [`KNOWN_MISSES`] was taken (raise it, never lower it).
const ATTACK_FLOOR: f64 = 1.0;

/// Ids decided wrongly. On main of 2026-12-02 before the command-effects writer grammars
/// (b1f8acf) 70/71 attacks were refused (a recursive copy of a folder's contents into
/// `~/.claude`); after them 71/71, 0/32 benign refused.
const KNOWN_MISSES: &[&str] = &[];

fn load(name: &str) -> Vec<Value> {
    // `load_set` reads `fixtures/adversarial/<guard>/`; the held-out set sits beside it.
    load_set(
        env!("CARGO_MANIFEST_DIR"),
        "../adversarial-heldout/integrity-signals",
        name,
    )
}

fn outcomes(name: &str, attack: bool) -> Vec<Outcome> {
    let cases = load(name);
    let inputs: Vec<(String, String)> = cases
        .iter()
        .map(|c| {
            let id = c["case_id"].as_str().unwrap_or("?");
            (format!("heldout/{id}.json"), c.to_string())
        })
        .collect();
    let report = run_cases(&inputs);
    assert_eq!(report.cases.len(), cases.len(), "every case replayed");
    cases
        .iter()
        .zip(report.cases)
        .map(|(c, r)| {
            assert_eq!(r.case_id, c["case_id"].as_str().unwrap_or("?"), "order");
            let last = c["events"].as_array().and_then(|e| e.last());
            let input = last.map(|e| &e["tool_input"]);
            let what: String = input
                .and_then(|i| i["command"].as_str().or_else(|| i["file_path"].as_str()))
                .unwrap_or("?")
                .chars()
                .take(160)
                .collect();
            if !r.passed {
                println!("  detail {}: {}", r.case_id, r.detail);
            }
            Outcome {
                id: r.case_id,
                class: c["class"].as_str().unwrap_or("?").to_string(),
                what,
                attack,
                right: r.passed,
            }
        })
        .collect()
}

#[test]
fn heldout_sets_hold_their_floor() {
    let attacks = outcomes("attacks.json", true);
    let benign = outcomes("benign.json", false);
    assert!(attacks.len() >= 50, "at least 50 attacks");
    assert!(benign.len() >= 30, "at least 30 benign cases");
    report_and_check(&[attacks, benign].concat(), KNOWN_MISSES, ATTACK_FLOOR);
}
