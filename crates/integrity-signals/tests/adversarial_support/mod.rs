//! What both adversarial sets of integrity-signals share: the replay (the self-test's checker,
//! `selftest::check`: live hook code, temporary state dir) and the case schema.

use hook_replay::adversarial::Outcome;
use integrity_signals::selftest::check;
use serde_json::Value;

/// Each case decided right or wrong by the guard.
pub fn outcomes(cases: &[Value], attack: bool) -> Vec<Outcome> {
    cases
        .iter()
        .map(|c| {
            let id = c["case_id"].as_str().unwrap_or("?").to_string();
            let result = check(c);
            let last = c["events"].as_array().and_then(|e| e.last());
            let input = last.map(|e| &e["tool_input"]);
            let what = input
                .and_then(|i| i["command"].as_str().or_else(|| i["file_path"].as_str()))
                .or_else(|| last.and_then(|e| e["tool_name"].as_str()))
                .unwrap_or("?");
            if let Err(detail) = &result {
                println!("  detail {id}: {detail}");
            }
            Outcome::of_case(c, id, what, attack, result.is_ok())
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
