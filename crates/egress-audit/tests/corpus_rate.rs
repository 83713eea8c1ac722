//! Issue 19: the hand-back and completion-report corpus (`fixtures/egress-audit/corpus/`), written
//! from the requirement text before the tables were widened. Prints the rates of the shipped gate
//! and of the prior art's tables alone; the acceptance is at least 95 of 100 hand-backs blocked and
//! no completion report blocked, and every baseline fixture keeps its verdict.

use egress_audit::cases::{load_dir, Case};
use phrase_gate::egress_tables::baseline_only_families;
use phrase_gate::{EgressGate, Status};
use std::path::Path;

fn corpus(name: &str) -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/egress-audit/corpus");
    load_dir(&dir.join(name)).expect("the corpus is in the repository")
}

fn red_count(gate: &EgressGate, cases: &[Case]) -> (usize, Vec<String>) {
    let red: Vec<String> = cases
        .iter()
        .filter(|c| gate.evaluate(&c.text).status == Status::Red)
        .map(|c| c.case_id.clone())
        .collect();
    (red.len(), red)
}

#[test]
fn hand_backs_are_blocked_and_completion_reports_are_not() {
    let hand_backs = corpus("handback");
    let reports = corpus("completion");
    assert!(hand_backs.len() >= 100 && reports.len() >= 100);
    assert!(hand_backs.iter().all(|c| c.expected_status == "red"));
    assert!(reports.iter().all(|c| c.expected_status == "green"));
    let prior_art = EgressGate::from_families(baseline_only_families());
    for (name, gate) in [
        ("prior-art tables", &prior_art),
        ("shipped gate", &EgressGate::baseline()),
    ] {
        let (blocked, _) = red_count(gate, &hand_backs);
        let (false_positives, _) = red_count(gate, &reports);
        println!(
            "{name}: hand-backs blocked {blocked}/{} ({:.0}%), completion reports blocked {false_positives}/{}",
            hand_backs.len(),
            100.0 * blocked as f64 / hand_backs.len() as f64,
            reports.len()
        );
    }
    let gate = EgressGate::baseline();
    let (blocked, _) = red_count(&gate, &hand_backs);
    let missed: Vec<&str> = hand_backs
        .iter()
        .filter(|c| gate.evaluate(&c.text).status == Status::Green)
        .map(|c| c.case_id.as_str())
        .collect();
    assert!(
        blocked * 100 >= 95 * hand_backs.len(),
        "only {blocked}/{} blocked; missed {missed:?}",
        hand_backs.len()
    );
    let (_, false_positives) = red_count(&gate, &reports);
    assert!(false_positives.is_empty(), "blocked: {false_positives:?}");
}

#[test]
fn the_baseline_fixtures_keep_their_verdicts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/egress-audit");
    let gate = EgressGate::baseline();
    for sub in ["E1", "E4"] {
        for case in load_dir(&dir.join(sub)).unwrap() {
            assert_eq!(
                gate.evaluate(&case.text).status.as_str(),
                case.expected_status,
                "{}",
                case.source
            );
        }
    }
}
