//! Adversarial replay (issue 19): `fixtures/adversarial/integrity-signals/attacks.json` (writes
//! to the suite's hooks, binaries, config, ledger and logs, and durable memory while tainted, that
//! I3 must deny) and `benign.json` (look-alikes it must allow without a tamper signal), written
//! from requirements.md and the spec without reading the guard's source, replayed through the
//! self-test's runner (`selftest::run_cases`: live hook code, temporary state dir).
//!
//! Prints the rate per class and the wrong ids. Fails below [`ATTACK_FLOOR`], on a wrong case
//! outside [`KNOWN_MISSES`], or when a listed id is now decided rightly (drop it): the list only
//! shrinks.

use hook_replay::adversarial::{load_set, report_and_check, Outcome};
use integrity_signals::selftest::run_cases;
use serde_json::Value;

/// Attacks refused / all attacks when [`KNOWN_MISSES`] was taken (raise it, never lower it).
const ATTACK_FLOOR: f64 = 1.0; // 156/156

/// Ids decided wrongly on 2026-12-02, after variables the command assigns, folders filled by
/// `tar -x`/`unzip -d`/`cp -r`, compressors, sed `w`, awk `print >`, `find -exec ... {}` and
/// words piped into `xargs` (156/156 attacks refused, 0/56 benign denied): attacks let through
/// and benign cases denied or flagged.
const KNOWN_MISSES: &[&str] = &[];

fn load(name: &str) -> Vec<Value> {
    load_set(env!("CARGO_MANIFEST_DIR"), "integrity-signals", name)
}

fn outcomes(name: &str, attack: bool) -> Vec<Outcome> {
    let cases = load(name);
    let inputs: Vec<(String, String)> = cases
        .iter()
        .map(|c| {
            let id = c["case_id"].as_str().unwrap_or("?");
            (format!("adversarial/{id}.json"), c.to_string())
        })
        .collect();
    let report = run_cases(&inputs);
    assert_eq!(report.cases.len(), cases.len(), "every case replayed");
    cases
        .iter()
        .zip(report.cases)
        .map(|(c, r)| {
            let last = c["events"].as_array().and_then(|e| e.last());
            let input = last.map(|e| &e["tool_input"]);
            let what: String = input
                .and_then(|i| i["command"].as_str().or_else(|| i["file_path"].as_str()))
                .or_else(|| last.and_then(|e| e["tool_name"].as_str()))
                .unwrap_or("?")
                .chars()
                .take(160)
                .collect();
            assert_eq!(
                r.case_id,
                c["case_id"].as_str().unwrap_or("?"),
                "case order"
            );
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
fn adversarial_sets_hold_their_floor() {
    let attacks = outcomes("attacks.json", true);
    let benign = outcomes("benign.json", false);
    assert!(attacks.len() >= 100, "at least 100 attacks");
    assert!(benign.len() >= 50, "at least 50 benign cases");
    report_and_check(&[attacks, benign].concat(), KNOWN_MISSES, ATTACK_FLOOR);
}

/// Every case has a unique id, a `why`, and the expectation its file promises.
#[test]
fn adversarial_cases_are_well_formed() {
    let mut seen = std::collections::HashSet::new();
    // Durable-memory attacks expect the denial without a tamper signal (I3 lists only the deny).
    for (file, expect, decision) in [
        ("attacks.json", "raise", "deny"),
        ("benign.json", "no_signal", "allow"),
    ] {
        for c in load(file) {
            let id = c["case_id"].as_str().expect("case_id");
            assert!(seen.insert(id.to_string()), "duplicate id {id}");
            let memory = c["class"] == "memory" && decision == "deny";
            let want = if memory { "no_signal" } else { expect };
            assert_eq!(c["expect"].as_str(), Some(want), "{id} in {file}");
            assert_eq!(c["expect_decision"].as_str(), Some(decision), "{id}");
            assert!(
                c["why"].as_str().is_some_and(|w| !w.is_empty()),
                "{id}: why"
            );
            assert!(
                c["events"].as_array().is_some_and(|e| !e.is_empty()),
                "{id}"
            );
        }
    }
}
