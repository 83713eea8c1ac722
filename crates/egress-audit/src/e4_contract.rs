//! E4: the audit contract behind `--selftest`.
//!
//! Every verdict is recomputed through the live gate (a stored verdict is never trusted). The
//! contract passes only when there is at least one positive and one negative case, every positive
//! is green, every negative is red with its expected diagnostic among the firing rows, and both
//! planted negatives are present. The record is metadata only: ids, counts, problems.

use crate::cases::{Case, CaseType};
use phrase_gate::{EgressGate, Status};
use serde::Serialize;

/// The negatives every build must carry: (case id, diagnostic it must raise).
pub const PLANTED_NEGATIVES: [(&str, &str); 2] = [
    (
        "permission_gate_without_blocker",
        "permission_gate_without_blocker",
    ),
    (
        "command_displacement_no_receipt",
        "command_displacement_to_operator",
    ),
];

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Problem {
    pub case_id: String,
    pub problem: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ContractReport {
    pub schema_version: u32,
    pub binary: &'static str,
    pub check: &'static str,
    pub status: &'static str,
    pub case_count: usize,
    pub positive_count: usize,
    pub negative_count: usize,
    pub fixture_case_count: usize,
    pub fixture_cases_met: usize,
    pub problems: Vec<Problem>,
}

impl ContractReport {
    pub fn passed(&self) -> bool {
        self.status == "pass"
    }
}

fn problem(case_id: &str, text: impl Into<String>) -> Problem {
    Problem {
        case_id: case_id.to_string(),
        problem: text.into(),
    }
}

/// Runs the contract over the typed cases (those with `case_type`), and checks every case's
/// `expected_status` as well.
pub fn run(gate: &EgressGate, cases: &[Case]) -> ContractReport {
    let mut problems = Vec::new();
    let typed: Vec<&Case> = cases.iter().filter(|c| c.case_type.is_some()).collect();
    let positives = typed
        .iter()
        .filter(|c| c.case_type == Some(CaseType::Positive))
        .count();
    let negatives = typed.len() - positives;
    if positives == 0 {
        problems.push(problem("-", "no positive case"));
    }
    if negatives == 0 {
        problems.push(problem("-", "no negative case"));
    }
    for case in &typed {
        let record = gate.evaluate(&case.text);
        match case.case_type {
            Some(CaseType::Positive) if record.status != Status::Green => {
                problems.push(problem(&case.case_id, "positive case is red"))
            }
            Some(CaseType::Negative) => {
                if record.status != Status::Red {
                    problems.push(problem(&case.case_id, "negative case is green"));
                }
                match &case.expected_diagnostic {
                    None => problems.push(problem(
                        &case.case_id,
                        "negative case names no expected_diagnostic",
                    )),
                    Some(d) if !record.violations().any(|r| r.diagnostic_id == d) => {
                        problems.push(problem(
                            &case.case_id,
                            format!("expected diagnostic {d} did not fire"),
                        ))
                    }
                    Some(_) => {}
                }
            }
            _ => {}
        }
    }
    for (id, diag) in PLANTED_NEGATIVES {
        let present = typed.iter().any(|c| {
            c.case_id == id
                && c.case_type == Some(CaseType::Negative)
                && c.expected_diagnostic.as_deref() == Some(diag)
        });
        if !present {
            problems.push(problem(id, "planted negative is missing"));
        }
    }
    let outcomes = crate::e3_cli::outcomes(gate, cases);
    let met = outcomes.iter().filter(|o| o.met).count();
    for o in outcomes.iter().filter(|o| !o.met) {
        problems.push(problem(
            &o.case_id,
            format!(
                "{}: expected {}, got {}",
                o.source, o.expected_status, o.actual_status
            ),
        ));
    }
    ContractReport {
        schema_version: 1,
        binary: "egress-audit",
        check: "audit_contract",
        status: if problems.is_empty() { "pass" } else { "fail" },
        case_count: typed.len(),
        positive_count: positives,
        negative_count: negatives,
        fixture_case_count: cases.len(),
        fixture_cases_met: met,
        problems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cases::embedded_cases;

    #[test]
    fn embedded_fixtures_pass_the_contract() {
        let report = run(&EgressGate::baseline(), &embedded_cases().unwrap());
        assert!(report.passed(), "{:?}", report.problems);
        assert_eq!(report.case_count, 4);
        // The ten baseline cases and the issue-19 corpus, every one meeting its expectation.
        assert!(report.fixture_case_count >= 210);
        assert_eq!(report.fixture_cases_met, report.fixture_case_count);
    }

    #[test]
    fn repairing_a_negative_fails_the_contract() {
        let mut cases = embedded_cases().unwrap();
        let neg = cases
            .iter_mut()
            .find(|c| c.case_id == "command_displacement_no_receipt")
            .unwrap();
        neg.text.push_str(" I ran it myself: exit code 0.");
        let report = run(&EgressGate::baseline(), &cases);
        assert!(!report.passed());
        assert!(
            report
                .problems
                .iter()
                .any(|p| p.case_id == "command_displacement_no_receipt"
                    && p.problem.contains("green"))
        );
    }

    #[test]
    fn a_missing_planted_negative_fails() {
        let cases: Vec<_> = embedded_cases()
            .unwrap()
            .into_iter()
            .filter(|c| !(c.case_id == "permission_gate_without_blocker" && c.case_type.is_some()))
            .collect();
        let report = run(&EgressGate::baseline(), &cases);
        assert!(!report.passed());
        assert!(report
            .problems
            .iter()
            .any(|p| p.problem == "planted negative is missing"));
    }

    #[test]
    fn record_holds_no_case_text() {
        let cases = embedded_cases().unwrap();
        let json = serde_json::to_string(&run(&EgressGate::baseline(), &cases)).unwrap();
        for c in &cases {
            assert!(!json.contains(&c.text));
        }
    }
}
