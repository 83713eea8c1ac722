//! The sub-codes of this binary's blocks: the one place that lists them. A code is
//! `E5.<what fired>`, named for the first detector the final message violated; the reason the
//! agent sees starts with it and the audit record carries it as `code` (beside `requirement`).
//! `spec/egress-audit.md` lists each code once (checked by the test `safety_kernel::codes!`
//! declares).

safety_kernel::codes! {
    spec: "../../../spec/egress-audit.md";
    /// A permission gate ("let me know if you want me to continue") without a recorded blocker.
    E5_PERMISSION_GATE = "E5.permission-gate";
    /// An admitted error of the agent's own without a durable fix bound to it.
    E5_SELF_ERROR = "E5.self-error";
    /// A command handed to the operator to run instead of running it.
    E5_COMMAND_HANDED_BACK = "E5.command-handed-back";
    /// A violation of a detector this table does not know yet (a detector added to phrase-gate).
    E5_HAND_BACK = "E5.hand-back";
}

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
    fn every_detector_has_its_own_code() {
        for d in phrase_gate::egress::DETECTORS {
            assert_ne!(super::of_detector(d.diagnostic_id), super::E5_HAND_BACK);
        }
    }
}
