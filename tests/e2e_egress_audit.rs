//! egress-audit driven by the real Claude Code CLI (issue 2): a final message that hands a command
//! to the operator is blocked at Stop, the model's next request carries our reason, the model
//! answers with a receipt, and the session ends.

mod common;
use common::with_egress_audit_at_stop;
use e2e_harness::{decide, text};

#[test]
fn egress_audit_blocks_a_displaced_command_then_lets_the_session_end() {
    let Some(out) = with_egress_audit_at_stop()
        .turn(text("Done. You can run make smoke to verify."))
        .turn(decide(|req| {
            assert!(
                req.text_since_last_answer()
                    .contains("Stop hook blocking error"),
                "the CLI relays our block"
            );
            text("I ran make smoke; it passed with exit code 0.")
        }))
        .run()
    else {
        return;
    };
    let feedback = out.stop_blocked_once_with("E5.");
    assert!(
        !phrase_gate::EgressGate::baseline()
            .mentions_tripwire(&feedback.replace("Done. You can run make smoke to verify.", "")),
        "the reason holds no tripwire phrase: {feedback}"
    );
    assert_eq!(
        out.result.result,
        "I ran make smoke; it passed with exit code 0."
    );
    assert!(!out.result.is_error);
    // The maintainer's audit log holds the block with its evidence.
    let decisions = out.audit_records();
    assert_eq!(decisions[0]["decision"], "block");
    assert_eq!(decisions[0]["requirement"], "E5");
    assert_eq!(decisions[1]["decision"], "allow");
}
