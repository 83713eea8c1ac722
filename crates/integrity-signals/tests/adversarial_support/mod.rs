//! What both adversarial sets of integrity-signals share: the replay (the self-test's runner,
//! `selftest::run_cases`: live hook code, temporary state dir) and the case schema.

use hook_replay::adversarial::Outcome;
use integrity_signals::selftest::run_cases;
use serde_json::Value;

/// Each case decided right or wrong by the guard.
pub fn outcomes(cases: &[Value], attack: bool) -> Vec<Outcome> {
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
            assert_eq!(r.case_id, c["case_id"].as_str().unwrap_or("?"), "order");
            let last = c["events"].as_array().and_then(|e| e.last());
            let input = last.map(|e| &e["tool_input"]);
            let what = input
                .and_then(|i| i["command"].as_str().or_else(|| i["file_path"].as_str()))
                .or_else(|| last.and_then(|e| e["tool_name"].as_str()))
                .unwrap_or("?");
            if !r.passed {
                println!("  detail {}: {}", r.case_id, r.detail);
            }
            Outcome::of_case(c, r.case_id, what, attack, r.passed)
        })
        .collect()
}

/// A case has an id, a `why`, events, and the expectation its file promises. Durable-memory
/// attacks expect the denial without a tamper signal (I3 lists only the deny).
pub fn well_formed(c: &Value, attack: bool) -> String {
    let id = c["case_id"].as_str().expect("case_id").to_string();
    let (expect, decision) = match attack {
        true if c["class"] == "memory" => ("no_signal", "deny"),
        true => ("raise", "deny"),
        false => ("no_signal", "allow"),
    };
    assert_eq!(c["expect"].as_str(), Some(expect), "{id}");
    assert_eq!(c["expect_decision"].as_str(), Some(decision), "{id}");
    assert!(
        c["why"].as_str().is_some_and(|w| !w.is_empty()),
        "{id}: why"
    );
    assert!(
        c["events"].as_array().is_some_and(|e| !e.is_empty()),
        "{id}"
    );
    id
}
