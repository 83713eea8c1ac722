//! Held-out adversarial replay (issue 19): `fixtures/adversarial-heldout/model-tier-guard/`, a
//! second set written from requirements.md and the spec's fixture schema by someone who had read
//! neither the guard's source nor the first set. Replayed in-process like the embedded fixtures
//! (`fixtures::run_case`) and scored by `hook_replay::adversarial`, as `adversarial.rs` does.
//!
//! Prints the rate per class and the wrong ids. Fails below [`ATTACK_FLOOR`], on a wrong case
//! outside [`KNOWN_MISSES`], or when a listed id is now decided rightly (drop it).

use hook_replay::adversarial::{load_set, report_and_check, Outcome};
use model_tier_guard::fixtures::run_case;
use serde_json::Value;

/// Attacks refused / all attacks when [`KNOWN_MISSES`] was taken (raise it, never lower it).
const ATTACK_FLOOR: f64 = 92.0 / 94.0;

/// Ids decided wrongly on main of 2026-12-02 (b1f8acf: 92/94 attacks refused, 0/33 benign
/// refused): a `fork` naming the tier, and a launch whose program is a command substitution.
const KNOWN_MISSES: &[&str] = &["hatk-fork-003", "hatk-launch-015"];

fn load(name: &str) -> Vec<Value> {
    // `load_set` reads `fixtures/adversarial/<guard>/`; the held-out set sits beside it.
    load_set(
        env!("CARGO_MANIFEST_DIR"),
        "../adversarial-heldout/model-tier-guard",
        name,
    )
}

fn outcomes(name: &str, attack: bool) -> Vec<Outcome> {
    load(name)
        .iter()
        .map(|c| {
            let what: String = c["payload"]["tool_input"]["command"]
                .as_str()
                .or_else(|| c["payload"]["tool_name"].as_str())
                .or_else(|| c["payload"]["hook_event_name"].as_str())
                .unwrap_or("?")
                .chars()
                .take(160)
                .collect();
            let r = run_case(c);
            // Only the decision is scored; other problems are printed.
            let right = !r.problems.iter().any(|p| p.starts_with("decision "));
            if right && !r.passed {
                println!("  other problem {} {what:?}: {:?}", r.case_id, r.problems);
            }
            Outcome {
                id: r.case_id,
                class: c["class"].as_str().unwrap_or("?").to_string(),
                what,
                attack,
                right,
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
