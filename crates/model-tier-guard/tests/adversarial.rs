//! Adversarial replay (issue 19): `fixtures/adversarial/model-tier-guard/attacks.json` (routes to
//! the maintainer-only tier the guard must refuse, block or report) and `benign.json` (look-alikes
//! it must allow), written from requirements.md and the spec without reading the guard's source,
//! replayed in-process like the embedded fixtures (`fixtures::run_case`, scratch project and home).
//!
//! Prints the rate per class and the wrong ids. Fails below [`ATTACK_FLOOR`], on a wrong case
//! outside [`KNOWN_MISSES`], or when a listed id is now decided rightly (drop it): the list only
//! shrinks. Problems other than the decision (a reason over the K4 bound) are printed, not scored.

use hook_replay::adversarial::{load_set, report_and_check, Outcome};
use model_tier_guard::fixtures::run_case;
use serde_json::Value;

/// Attacks refused / all attacks when [`KNOWN_MISSES`] was taken (raise it, never lower it).
const ATTACK_FLOOR: f64 = 190.0 / 193.0;

/// Ids decided wrongly after the YAML front matter, skills, settings `agent`, shell writes of
/// model files (tier-integrity) and command-effects (issue 16): attacks let through and benign
/// cases refused.
const KNOWN_MISSES: &[&str] = &["atk-launch-034", "atk-launch-052", "atk-env-024"];

fn load(name: &str) -> Vec<Value> {
    load_set(env!("CARGO_MANIFEST_DIR"), "model-tier-guard", name)
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
fn adversarial_sets_hold_their_floor() {
    let attacks = outcomes("attacks.json", true);
    let benign = outcomes("benign.json", false);
    assert!(attacks.len() >= 100, "at least 100 attacks");
    assert!(benign.len() >= 50, "at least 50 benign cases");
    report_and_check(&[attacks, benign].concat(), KNOWN_MISSES, ATTACK_FLOOR);
}

/// Every case has a unique id, a requirement, a `why` and the decision its file promises.
#[test]
fn adversarial_cases_are_well_formed() {
    let mut seen = std::collections::HashSet::new();
    for (file, benign) in [("attacks.json", false), ("benign.json", true)] {
        for c in load(file) {
            let id = c["case_id"].as_str().expect("case_id");
            assert!(seen.insert(id.to_string()), "duplicate id {id}");
            let d = c["expect"]["decision"].as_str().expect("decision");
            assert_eq!(d == "allow", benign, "{id} in {file}: {d}");
            assert!(
                c["why"].as_str().is_some_and(|w| !w.is_empty()),
                "{id}: why"
            );
            assert!(c["requirement"].as_str().is_some(), "{id}: requirement");
        }
    }
}
