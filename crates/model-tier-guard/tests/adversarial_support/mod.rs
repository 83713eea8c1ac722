//! What both adversarial sets of model-tier-guard share: the replay (in-process like the embedded
//! fixtures, `fixtures::run_case`, scratch project and home) and the case schema.

use hook_replay::adversarial::Outcome;
use model_tier_guard::fixtures::run_case;
use serde_json::Value;

/// Each case decided right or wrong by the guard. Only the decision is scored; other problems
/// (a reason over the K4 bound) are printed.
pub fn outcomes(cases: &[Value], attack: bool) -> Vec<Outcome> {
    cases
        .iter()
        .map(|c| {
            let what = c["payload"]["tool_input"]["command"]
                .as_str()
                .or_else(|| c["payload"]["tool_name"].as_str())
                .or_else(|| c["payload"]["hook_event_name"].as_str())
                .unwrap_or("?");
            let r = run_case(c);
            let right = !r.problems.iter().any(|p| p.starts_with("decision "));
            if right && !r.passed {
                println!("  other problem {} {what:?}: {:?}", r.case_id, r.problems);
            }
            Outcome::of_case(c, r.case_id, what, attack, right)
        })
        .collect()
}

/// A case has an id, a requirement, a `why` and the decision its file promises.
pub fn well_formed(c: &Value, attack: bool) -> String {
    let id = c["case_id"].as_str().expect("case_id").to_string();
    let d = c["expect"]["decision"].as_str().expect("decision");
    assert_eq!(d != "allow", attack, "{id}: {d}");
    assert!(
        c["why"].as_str().is_some_and(|w| !w.is_empty()),
        "{id}: why"
    );
    assert!(c["requirement"].as_str().is_some(), "{id}: requirement");
    id
}
