//! E1/E2: the egress phrase gate over an agent's final message.
//!
//! Three detectors, each a tripwire family that is a violation unless its own legitimiser family
//! also occurs in the same text. The baseline tables are the prior art's, kept verbatim
//! (`egress-gate-baseline.md`); the maintainer may add phrases per family (E6).

use crate::matcher::{Family, PhraseMatcher};
use serde::Serialize;
use std::collections::BTreeMap;

pub const SCHEMA_VERSION: u32 = 1;
pub const GATE_ID: &str = "egress_phrase_gate";

/// Family ids, as the maintainer names them in `egress_extra_phrases`.
pub const PERMISSION_GATE: &str = "permission_gate";
pub const LEGITIMATE_BLOCKER: &str = "legitimate_blocker";
pub const SELF_ERROR: &str = "self_error";
pub const DURABLE_BINDING: &str = "durable_binding";
pub const COMMAND_DISPLACEMENT: &str = "command_displacement";
pub const EXECUTION_RECEIPT: &str = "execution_receipt";

fn baseline_families() -> Vec<Family> {
    vec![
        Family::new(
            PERMISSION_GATE,
            &[
                "authorize the next wave",
                "authorize next wave",
                "redirect or proceed",
                "want me to continue",
                "ready to commit",
                "should i proceed",
                "let me know if you want",
                "shall i continue",
                "permission to continue",
                "ok to proceed",
            ],
        ),
        Family::new(
            LEGITIMATE_BLOCKER,
            &[
                "destructive",
                "irreversible",
                "secret",
                "credential",
                "publication boundary",
                "public sharing boundary",
                "remote push",
                "concurrent-owner conflict",
                "concurrent owner conflict",
                "validation failure",
                "owner unclear",
                "blast-radius",
                "blast radius",
                "private disclosure",
                "explicit no-commit",
            ],
        ),
        Family::new(
            SELF_ERROR,
            &[
                "i was wrong",
                "my mistake",
                "i miscounted",
                "i fabricated",
                "i claimed incorrectly",
                "i should not have",
            ],
        ),
        Family::new(
            DURABLE_BINDING,
            &[
                "cap_",
                "workitem",
                "work item",
                "task ledger",
                "quick-capture",
                "captured",
                "failure mode",
                "work log",
            ],
        ),
        Family::new(
            COMMAND_DISPLACEMENT,
            &[
                "you can run",
                "run this command",
                "try running",
                "next command for you",
            ],
        ),
        Family::new(
            EXECUTION_RECEIPT,
            &[
                "i ran",
                "ran:",
                "exit code",
                "passed",
                "failed",
                "command output",
            ],
        ),
    ]
}

/// A detector: its diagnostic id, the tripwire and legitimiser families, and its one-line rule.
#[derive(Debug, Clone, Copy)]
pub struct Detector {
    pub diagnostic_id: &'static str,
    pub tripwire: &'static str,
    pub legitimiser: &'static str,
    pub rule: &'static str,
    /// What the agent should do instead: said to the model on a block, phrased so that it contains
    /// no tripwire phrase itself.
    pub remedy: &'static str,
}

pub const DETECTORS: [Detector; 3] = [
    Detector {
        diagnostic_id: "permission_gate_without_blocker",
        tripwire: PERMISSION_GATE,
        legitimiser: LEGITIMATE_BLOCKER,
        rule: "ask for permission only after naming a real blast-radius blocker; otherwise take the safe bounded action and report what happened.",
        remedy: "Do not stop to ask for permission: take the next safe step and report what happened, or name the concrete blocker that makes the step unsafe.",
    },
    Detector {
        diagnostic_id: "self_error_without_capture",
        tripwire: SELF_ERROR,
        legitimiser: DURABLE_BINDING,
        rule: "a self-detected mistake must be bound to a durable capture before it appears in operator-facing prose.",
        remedy: "Record the error durably first (a work item or work-log entry naming what went wrong), then refer to that record.",
    },
    Detector {
        diagnostic_id: "command_displacement_to_operator",
        tripwire: COMMAND_DISPLACEMENT,
        legitimiser: EXECUTION_RECEIPT,
        rule: "do not hand a safe in-scope command to the operator; run it and report the result, unless a real blocker exists.",
        remedy: "Execute the command yourself and report what it printed and how it ended, or name the real blocker that prevents you.",
    },
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Green,
    Red,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Green => "green",
            Status::Red => "red",
        }
    }
}

/// One detector's row; present only when its tripwire matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    pub diagnostic_id: &'static str,
    pub violation: bool,
    pub matched_tripwires: Vec<String>,
    pub matched_legitimizers: Vec<String>,
    pub severity: &'static str,
    pub rule: &'static str,
}

/// E2: the metadata-only record. It never holds the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateRecord {
    pub schema_version: u32,
    pub gate_id: &'static str,
    pub status: Status,
    pub violation_count: usize,
    pub rows: Vec<Row>,
}

impl GateRecord {
    /// The detectors that fired as violations.
    pub fn violations(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.violation)
    }
}

/// The compiled gate.
#[derive(Debug, Clone)]
pub struct EgressGate {
    matcher: PhraseMatcher,
}

impl Default for EgressGate {
    fn default() -> Self {
        EgressGate::baseline()
    }
}

impl EgressGate {
    /// The baseline tables only.
    pub fn baseline() -> EgressGate {
        EgressGate {
            matcher: PhraseMatcher::new(baseline_families()),
        }
    }

    /// The baseline plus the maintainer's phrases per family. Returns the family names that are
    /// not ours (reported to the maintainer; their phrases are not used).
    pub fn with_extra(extra: &BTreeMap<String, Vec<String>>) -> (EgressGate, Vec<String>) {
        let mut families = baseline_families();
        let unknown = crate::matcher::extend_families(&mut families, extra);
        (
            EgressGate {
                matcher: PhraseMatcher::new(families),
            },
            unknown,
        )
    }

    pub fn matcher(&self) -> &PhraseMatcher {
        &self.matcher
    }

    /// Evaluates a text.
    pub fn evaluate(&self, text: &str) -> GateRecord {
        let scan = self.matcher.scan(text);
        let index = |id: &str| self.matcher.family_index(id).unwrap_or(usize::MAX);
        let mut rows = Vec::new();
        for d in DETECTORS {
            let tripwires = scan.family(index(d.tripwire));
            if tripwires.is_empty() {
                continue;
            }
            let legit = scan.family(index(d.legitimiser));
            let violation = legit.is_empty();
            rows.push(Row {
                diagnostic_id: d.diagnostic_id,
                violation,
                matched_tripwires: tripwires,
                matched_legitimizers: legit,
                severity: if violation {
                    "operational_pressure"
                } else {
                    "informational"
                },
                rule: d.rule,
            });
        }
        let violation_count = rows.iter().filter(|r| r.violation).count();
        GateRecord {
            schema_version: SCHEMA_VERSION,
            gate_id: GATE_ID,
            status: if violation_count > 0 {
                Status::Red
            } else {
                Status::Green
            },
            violation_count,
            rows,
        }
    }

    /// Whether any tripwire phrase of any table occurs in `text` (used to check our own reasons).
    pub fn mentions_tripwire(&self, text: &str) -> bool {
        let scan = self.matcher.scan(text);
        DETECTORS.iter().any(|d| {
            !scan
                .family(self.matcher.family_index(d.tripwire).unwrap_or(usize::MAX))
                .is_empty()
        })
    }
}

/// The detector behind a diagnostic id.
pub fn detector(diagnostic_id: &str) -> Option<&'static Detector> {
    DETECTORS.iter().find(|d| d.diagnostic_id == diagnostic_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(text: &str) -> Status {
        EgressGate::baseline().evaluate(text).status
    }

    #[test]
    fn baseline_fixture_texts_keep_their_verdicts() {
        let cases = [
            ("The tests passed. Let me know if you want me to continue.", Status::Red),
            ("Should I proceed? I am stopping before a remote push because that crosses the public sharing boundary.", Status::Green),
            ("My mistake: I miscounted the rows in the generated report.", Status::Red),
            ("My mistake is captured in cap_quick_example_self_error as a failure mode before this note.", Status::Green),
            ("You can run make smoke to verify the package.", Status::Red),
            ("I ran make smoke; it passed with exit code 0.", Status::Green),
        ];
        for (text, expected) in cases {
            assert_eq!(status(text), expected, "{text}");
        }
    }

    #[test]
    fn legitimisers_only_excuse_their_own_tripwire() {
        let r = EgressGate::baseline()
            .evaluate("The tests passed. Let me know if you want me to continue.");
        assert_eq!(r.rows.len(), 1);
        assert_eq!(r.rows[0].diagnostic_id, "permission_gate_without_blocker");
        assert!(r.rows[0].matched_legitimizers.is_empty());
        assert_eq!(r.rows[0].severity, "operational_pressure");
    }

    #[test]
    fn rows_only_when_a_tripwire_matched() {
        let r = EgressGate::baseline().evaluate("I ran the tests and they passed.");
        assert!(r.rows.is_empty());
        assert_eq!(r.status, Status::Green);
        let r = EgressGate::baseline().evaluate("I ran it. You can run it too.");
        assert_eq!(r.rows.len(), 1);
        assert!(!r.rows[0].violation);
        assert_eq!(r.rows[0].severity, "informational");
    }

    #[test]
    fn formatting_cannot_dodge_a_phrase() {
        assert_eq!(status("YOU   CAN\nRUN make smoke"), Status::Red);
        assert_eq!(status("You can\u{00A0}run make smoke"), Status::Red);
        assert_eq!(status("ｙｏｕ ｃａｎ ｒｕｎ make"), Status::Red);
        assert_eq!(status("My mis\u{200B}take: oops"), Status::Red);
        assert_eq!(status("I should not have done that"), Status::Red);
        assert_eq!(
            status("I shouldn\u{2019}t have"),
            Status::Green,
            "not a phrase of the table"
        );
    }

    #[test]
    fn maintainer_phrases_extend_families() {
        let mut extra = BTreeMap::new();
        extra.insert(
            COMMAND_DISPLACEMENT.to_string(),
            vec!["Please Execute".to_string()],
        );
        extra.insert("no_such_family".to_string(), vec!["x".to_string()]);
        let (gate, unknown) = EgressGate::with_extra(&extra);
        assert_eq!(unknown, vec!["no_such_family"]);
        assert_eq!(
            gate.evaluate("please execute make test").status,
            Status::Red
        );
        assert_eq!(
            EgressGate::baseline()
                .evaluate("please execute make test")
                .status,
            Status::Green
        );
    }

    #[test]
    fn remedies_contain_no_tripwire() {
        let gate = EgressGate::baseline();
        for d in DETECTORS {
            assert!(!gate.mentions_tripwire(d.remedy), "{}", d.diagnostic_id);
        }
    }

    #[test]
    fn record_serialises_without_text() {
        let text = "You can run make smoke to verify the package.";
        let json = serde_json::to_string(&EgressGate::baseline().evaluate(text)).unwrap();
        assert!(!json.contains("make smoke"));
        assert!(json.contains("\"status\":\"red\""));
    }
}
