//! E3: the command line — `evaluate` one text, `evaluate-fixtures` over a folder of cases.
//!
//! Functions return what to print and the exit code, so tests call them directly and `main` only
//! prints. Neither output ever contains the evaluated text.

use crate::cases::Case;
use phrase_gate::{EgressGate, Status};
use serde_json::json;

/// `evaluate --text T [--json]`: exit 0 green, 1 red.
pub fn evaluate(gate: &EgressGate, text: &str, as_json: bool) -> (String, i32) {
    let record = gate.evaluate(text);
    let code = i32::from(record.status == Status::Red);
    let out = if as_json {
        serde_json::to_string_pretty(&record).unwrap_or_else(|_| "{}".into())
    } else {
        let mut s = record.status.as_str().to_string();
        for row in &record.rows {
            s.push_str(&format!(
                "\n  {} {}: {}",
                if row.violation {
                    "violation"
                } else {
                    "excused"
                },
                row.diagnostic_id,
                row.rule
            ));
        }
        s
    };
    (out, code)
}

/// `explain --text T`: the verdict, and for every detector that fired the rule, the words that
/// fired it (table phrases, or the sentence structure as table words: "you + will + want to +
/// run") and the words that excused it; for a red text, the code and the remedy the agent is given.
/// Exit 0 green, 1 red, like `evaluate`. It prints table words only, never the text.
pub fn explain(gate: &EgressGate, text: &str) -> (String, i32) {
    let record = gate.evaluate(text);
    let code = i32::from(record.status == Status::Red);
    let mut s = record.status.as_str().to_string();
    if let Some(why) = record.not_judged {
        s.push_str(&format!(" (not judged: {why})"));
    }
    if record.status == Status::Red {
        s.push_str(&format!(": {}", crate::e5_hook::block_code(&record)));
    }
    if record.rows.is_empty() && record.not_judged.is_none() {
        s.push_str("\n  nothing fired: no hand-back, permission ask or uncaptured mistake found");
    }
    for row in &record.rows {
        let verdict = if row.violation {
            "violation"
        } else {
            "excused"
        };
        s.push_str(&format!(
            "\n  {verdict} {}: {}",
            row.diagnostic_id, row.rule
        ));
        s.push_str(&format!(
            "\n    fired by: {}",
            row.matched_tripwires.join(" | ")
        ));
        let excuses = if row.matched_legitimizers.is_empty() {
            "nothing".to_string()
        } else {
            row.matched_legitimizers.join(" | ")
        };
        s.push_str(&format!("\n    excused by: {excuses}"));
    }
    if record.status == Status::Red {
        s.push_str(&format!(
            "\n  reason given to the agent: {}",
            crate::e5_hook::block_reason(&record)
        ));
    }
    (s, code)
}

/// One case's outcome (metadata only).
#[derive(Debug, Clone, serde::Serialize)]
pub struct CaseOutcome {
    pub case_id: String,
    pub source: String,
    pub expected_status: String,
    pub actual_status: &'static str,
    pub met: bool,
}

/// Recomputes every case through the live gate.
pub fn outcomes(gate: &EgressGate, cases: &[Case]) -> Vec<CaseOutcome> {
    cases
        .iter()
        .map(|c| {
            let actual = gate.evaluate(&c.text).status.as_str();
            CaseOutcome {
                case_id: c.case_id.clone(),
                source: c.source.clone(),
                expected_status: c.expected_status.clone(),
                actual_status: actual,
                met: actual == c.expected_status,
            }
        })
        .collect()
}

/// `evaluate-fixtures --input DIR [--json]`: exit 0 when every case met its expectation.
pub fn evaluate_fixtures(gate: &EgressGate, cases: &[Case], as_json: bool) -> (String, i32) {
    let results = outcomes(gate, cases);
    let passed = results.iter().filter(|r| r.met).count();
    let pass = passed == results.len() && !results.is_empty();
    let out = if as_json {
        serde_json::to_string_pretty(&json!({
            "schema_version": phrase_gate::egress::SCHEMA_VERSION,
            "gate_id": phrase_gate::egress::GATE_ID,
            "status": if pass { "pass" } else { "fail" },
            "case_count": results.len(),
            "passed_case_count": passed,
            "cases": results,
        }))
        .unwrap_or_else(|_| "{}".into())
    } else {
        let mut s = format!(
            "{}: {passed} of {} cases met",
            if pass { "pass" } else { "fail" },
            results.len()
        );
        for r in results.iter().filter(|r| !r.met) {
            s.push_str(&format!(
                "\n  {} ({}): expected {}, got {}",
                r.case_id, r.source, r.expected_status, r.actual_status
            ));
        }
        s
    };
    (out, if pass { 0 } else { 1 })
}
