//! The sub-codes of this binary's blocks: the one place that lists them. A code is
//! `E5.<what fired>`, named for the first detector the final message violated; the reason the
//! agent sees starts with it and the audit record carries it as `code` (beside `requirement`).
//! `spec/egress-audit.md` lists each code once (checked by a test below).

/// A permission gate ("let me know if you want me to continue") without a recorded blocker.
pub const E5_PERMISSION_GATE: &str = "E5.permission-gate";
/// An admitted error of the agent's own without a durable fix bound to it.
pub const E5_SELF_ERROR: &str = "E5.self-error";
/// A command handed to the operator to run instead of running it.
pub const E5_COMMAND_HANDED_BACK: &str = "E5.command-handed-back";
/// A violation of a detector this table does not know yet (a detector added to phrase-gate).
pub const E5_HAND_BACK: &str = "E5.hand-back";

/// Every code, once.
pub const ALL: &[&str] = &[
    E5_PERMISSION_GATE,
    E5_SELF_ERROR,
    E5_COMMAND_HANDED_BACK,
    E5_HAND_BACK,
];

/// The code of a block whose first violation is the detector `diagnostic_id`.
pub fn of_detector(diagnostic_id: &str) -> &'static str {
    match diagnostic_id {
        "permission_gate_without_blocker" => E5_PERMISSION_GATE,
        "self_error_without_capture" => E5_SELF_ERROR,
        "command_displacement_to_operator" => E5_COMMAND_HANDED_BACK,
        _ => E5_HAND_BACK,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_spec_lists_each_code_once() {
        let spec = include_str!("../../../spec/egress-audit.md");
        let problems = safety_kernel::feedback::code_table_problems(spec, super::ALL);
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn every_detector_has_its_own_code() {
        for d in phrase_gate::egress::DETECTORS {
            assert_ne!(super::of_detector(d.diagnostic_id), super::E5_HAND_BACK);
        }
    }
}
