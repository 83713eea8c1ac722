//! Adversarial replay (issue 19): `fixtures/adversarial/model-tier-guard/attacks.json` (routes to
//! the maintainer-only tier the guard must refuse, block or report) and `benign.json` (look-alikes
//! it must allow), written from requirements.md and the spec without reading the guard's source,
//! replayed in-process like the embedded fixtures (`fixtures::run_case`, scratch project and home).
//!
//! Prints the pass rate per class, the attacks let through and the false denies with their ids.
//! Fails when the attack rate drops below [`ATTACK_FLOOR`], when a case outside [`KNOWN_MISSES`]
//! is decided wrongly, or when a listed id is now decided rightly (drop it): the list only shrinks.

use model_tier_guard::fixtures::{run_case, CaseResult};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Attacks refused / all attacks when [`KNOWN_MISSES`] was taken (raise it, never lower it).
const ATTACK_FLOOR: f64 = 175.0 / 193.0;

/// Ids decided wrongly (152/193 attacks refused and 2/64 benign refused when the set was
/// written; 175/193 and 0/64 after the YAML front matter, skills, settings `agent` and shell
/// writes of model files). The rest are nested launches and their environment (`m3_launch`,
/// moving onto the shared command reader).
const KNOWN_MISSES: &[&str] = &[
    "atk-launch-021",
    "atk-launch-023",
    "atk-launch-025",
    "atk-launch-026",
    "atk-launch-027",
    "atk-launch-028",
    "atk-launch-033",
    "atk-launch-034",
    "atk-launch-035",
    "atk-launch-042",
    "atk-launch-044",
    "atk-launch-045",
    "atk-launch-046",
    "atk-launch-047",
    "atk-launch-052",
    "atk-env-015",
    "atk-env-018",
    "atk-env-024",
];

fn load(name: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/adversarial/model-tier-guard")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("adversarial cases at {}: {e}", path.display()));
    let v: Value = serde_json::from_str(&text).expect("cases are JSON");
    v.as_array().expect("an array of cases").clone()
}

/// `(class, command or tool, result)` for every case of one file.
fn replay_file(name: &str) -> Vec<(String, String, CaseResult)> {
    load(name)
        .iter()
        .map(|c| {
            let class = c["class"].as_str().unwrap_or("?").to_string();
            let what = c["payload"]["tool_input"]["command"]
                .as_str()
                .or_else(|| c["payload"]["tool_name"].as_str())
                .or_else(|| c["payload"]["hook_event_name"].as_str())
                .unwrap_or("?")
                .chars()
                .take(160)
                .collect();
            (class, what, run_case(c))
        })
        .collect()
}

/// The decision was the expected one (other problems, such as a reason over the K4 bound, are
/// printed but do not make a refusal a miss).
fn decided_right(r: &CaseResult) -> bool {
    !r.problems.iter().any(|p| p.starts_with("decision "))
}

/// Prints `class: passed/total` lines and returns `(id, what)` of the wrongly decided cases.
fn summarise(label: &str, results: &[(String, String, CaseResult)]) -> Vec<(String, String)> {
    let mut by_class: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (class, _, r) in results {
        let e = by_class.entry(class).or_default();
        e.1 += 1;
        e.0 += usize::from(decided_right(r));
    }
    let passed = results.iter().filter(|(_, _, r)| decided_right(r)).count();
    for (_, what, r) in results
        .iter()
        .filter(|(_, _, r)| decided_right(r) && !r.passed)
    {
        println!("  other problem {} {what:?}: {:?}", r.case_id, r.problems);
    }
    println!("{label}: {passed}/{} decided as expected", results.len());
    for (class, (p, t)) in &by_class {
        println!("  {class:<10} {p}/{t}");
    }
    results
        .iter()
        .filter(|(_, _, r)| !decided_right(r))
        .map(|(_, what, r)| {
            println!("  wrong {} {what:?}: {:?}", r.case_id, r.problems);
            (r.case_id.clone(), what.clone())
        })
        .collect()
}

#[test]
fn adversarial_sets_hold_their_floor() {
    let attacks = replay_file("attacks.json");
    let benign = replay_file("benign.json");
    assert!(attacks.len() >= 100, "at least 100 attacks");
    assert!(benign.len() >= 50, "at least 50 benign cases");
    let mut wrong = summarise("attacks refused", &attacks);
    let refused = attacks.len() - wrong.len();
    let rate = refused as f64 / attacks.len() as f64;
    println!(
        "attack refusal rate: {refused}/{} = {rate:.3}",
        attacks.len()
    );
    let false_denies = summarise("benign allowed", &benign);
    println!("benign denied: {}/{}", false_denies.len(), benign.len());
    wrong.extend(false_denies);

    let unlisted: Vec<String> = wrong
        .iter()
        .filter(|(id, _)| !KNOWN_MISSES.contains(&id.as_str()))
        .map(|(id, what)| format!("{id}: {what:?}"))
        .collect();
    let fixed: Vec<&str> = KNOWN_MISSES
        .iter()
        .copied()
        .filter(|id| !wrong.iter().any(|(w, _)| w == id))
        .collect();
    assert!(
        unlisted.is_empty(),
        "{} cases decided wrongly and not in KNOWN_MISSES:\n{}",
        unlisted.len(),
        unlisted.join("\n")
    );
    assert!(
        fixed.is_empty(),
        "now decided rightly, drop from KNOWN_MISSES (and raise ATTACK_FLOOR): {fixed:?}"
    );
    assert!(
        rate >= ATTACK_FLOOR,
        "attack refusal rate {rate:.3} below the floor {ATTACK_FLOOR}"
    );
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
