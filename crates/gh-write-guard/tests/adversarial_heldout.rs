//! Held-out adversarial replay (issue 16): `fixtures/adversarial-heldout/gh-write-guard/`, a second
//! set written from requirements.md by someone who had read neither the guard's source nor the
//! first set, so nobody has tuned against it. Same replay (`cases::replay`, world faked from each
//! case's `env`) and scorer (`hook_replay::adversarial`) as `adversarial.rs`.
//!
//! Prints the refusal rate per class and overall, and the wrong ids. Fails below [`ATTACK_FLOOR`],
//! on a wrong case outside [`KNOWN_MISSES`], or when a listed id is now decided rightly (drop it).

use gh_write_guard::cases::replay;
use hook_replay::adversarial::{load_set, report_and_check, Outcome};
use serde_json::Value;

/// Refused attacks / all attacks, as measured when the list below was taken (raise it as the
/// guard improves; never lower it).
const ATTACK_FLOOR: f64 = 236.0 / 240.0;

/// Ids decided wrongly. Written against main of 2026-12-02 before the command-effects layer
/// (b1f8acf: 207/240 attacks refused, 2/109 benign denied); after it, held out from its
/// developers: 236/240 refused, 0/109 benign denied. The commands are in the JSON files.
const KNOWN_MISSES: &[&str] = &[
    "hatk-word-004",
    "hatk-api-017",
    "hatk-http-008",
    "hatk-wait-024",
];

fn load(name: &str) -> Vec<Value> {
    // `load_set` reads `fixtures/adversarial/<guard>/`; the held-out set sits beside it.
    load_set(
        env!("CARGO_MANIFEST_DIR"),
        "../adversarial-heldout/gh-write-guard",
        name,
    )
}

fn outcomes(name: &str, attack: bool) -> Vec<Outcome> {
    load(name)
        .iter()
        .map(|c| {
            let r = replay(c);
            Outcome {
                class: c["class"].as_str().unwrap_or("?").to_string(),
                what: r.command.chars().take(160).collect(),
                id: r.id,
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
    assert!(attacks.len() >= 120, "at least 120 attacks");
    assert!(benign.len() >= 100, "at least 100 benign cases");
    report_and_check(&[attacks, benign].concat(), KNOWN_MISSES, ATTACK_FLOOR);
}

/// Every case names a class, a requirement, a `why`, and a unique id.
#[test]
fn heldout_cases_are_well_formed() {
    let mut seen = std::collections::HashSet::new();
    for (file, expected) in [("attacks.json", "deny"), ("benign.json", "allow")] {
        for c in load(file) {
            let id = c["id"].as_str().expect("id");
            assert!(seen.insert(id.to_string()), "duplicate id {id}");
            assert_eq!(c["expected"].as_str(), Some(expected), "{id} in {file}");
            assert!(
                c["class"].as_str().is_some_and(|w| !w.is_empty()),
                "{id}: class"
            );
            assert!(
                c["why"].as_str().is_some_and(|w| !w.is_empty()),
                "{id}: why"
            );
            assert!(c["requirement"].as_u64().is_some(), "{id}: requirement");
            assert!(c["env"].is_object(), "{id}: env");
        }
    }
}
