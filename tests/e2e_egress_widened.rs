//! egress-audit's widened hand-back families, driven by the real Claude Code CLI (issue 19): a
//! reader-addressed "Please run `<command>` yourself" is blocked once with a reason that holds no
//! tripwire phrase, and an ordinary completion report is not blocked.

mod common;
use common::with_egress_audit_at_stop;
use e2e_harness::{decide, text};
use phrase_gate::EgressGate;

#[test]
fn a_hand_back_is_blocked_once_with_a_clean_reason() {
    let hand_back = "The release build is green. Please run `cargo publish` yourself.";
    let Some(out) = with_egress_audit_at_stop()
        .turn(text(hand_back))
        .turn(decide(|req| {
            let feedback = req.text_since_last_answer();
            assert!(
                feedback.contains("E5."),
                "our reason reached the model: {feedback}"
            );
            text("I ran `cargo publish --dry-run`; it ended with exit code 0.")
        }))
        .run()
    else {
        return;
    };
    let feedback = out.stop_blocked_once().replace(hand_back, "");
    assert!(
        !EgressGate::baseline().mentions_tripwire(&feedback),
        "the reason holds no tripwire phrase: {feedback}"
    );
}

#[test]
fn an_ordinary_completion_report_is_not_blocked() {
    let report = "I ran `cargo test`: 128 passed, 0 failed. You can now use the `--json` flag; \
                  the README documents `make deploy`.";
    let Some(out) = with_egress_audit_at_stop().turn(text(report)).run() else {
        return;
    };
    assert_eq!(out.main_requests().len(), 1, "no block");
    assert_eq!(out.result.result, report);
    assert_eq!(out.hook_payloads("Stop").len(), 1);
}
