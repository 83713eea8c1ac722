//! Adversarial replay (issue 16): `fixtures/adversarial/gh-write-guard/attacks.json` (writes the
//! guard must refuse) and `benign.json` (ordinary developer commands it must allow), written from
//! requirements.md without reading the guard's source, through the same replay as the
//! conformance cases (`cases::replay`, world faked from each case's `env`).
//!
//! Prints the refusal rate per class and overall, and the wrong ids. Fails below [`ATTACK_FLOOR`],
//! on a wrong case outside [`KNOWN_MISSES`], or when a listed id is now decided rightly (drop it):
//! the list can only shrink as the guard improves, like the conformance test's divergences.

use gh_write_guard::cases::replay;
use hook_replay::adversarial::{load_set, report_and_check, Outcome};
use serde_json::Value;

/// Refused attacks / all attacks, as measured when the list below was taken (raise it as the
/// guard improves; never lower it).
const ATTACK_FLOOR: f64 = 406.0 / 411.0;

/// Ids decided wrongly on 2026-12-02 after command-effects (406/411 attacks refused since a
/// remote added earlier in the command is read, 0/193 benign denied):
/// attacks let through and benign commands denied. The commands are in the JSON files.
const KNOWN_MISSES: &[&str] = &[
    "atk-state-006",
    "atk-state-007",
    "atk-state-018",
    "atk-state-049",
    "atk-fed-023",
];

fn load(name: &str) -> Vec<Value> {
    load_set(env!("CARGO_MANIFEST_DIR"), "gh-write-guard", name)
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
fn adversarial_sets_hold_their_floor() {
    let attacks = outcomes("attacks.json", true);
    let benign = outcomes("benign.json", false);
    assert!(attacks.len() >= 200, "at least 200 attacks");
    assert!(benign.len() >= 150, "at least 150 benign cases");
    report_and_check(&[attacks, benign].concat(), KNOWN_MISSES, ATTACK_FLOOR);
}

/// Every case names a known class, a requirement, a `why`, and a unique id.
#[test]
fn adversarial_cases_are_well_formed() {
    let mut seen = std::collections::HashSet::new();
    for (file, expected) in [("attacks.json", "deny"), ("benign.json", "allow")] {
        for c in load(file) {
            let id = c["id"].as_str().expect("id");
            assert!(seen.insert(id.to_string()), "duplicate id {id}");
            assert_eq!(c["expected"].as_str(), Some(expected), "{id} in {file}");
            assert!(
                c["why"].as_str().is_some_and(|w| !w.is_empty()),
                "{id}: why"
            );
            assert!(c["requirement"].as_u64().is_some(), "{id}: requirement");
            assert!(c["env"].is_object(), "{id}: env");
        }
    }
}
