//! The sub-codes of this binary's blocks, and which detector gets which. A code is
//! `E5.<what fired>`, named for the first detector the final message violated; the reason the
//! agent sees starts with it and the audit record carries it as `code` (beside `requirement`). The
//! one place that lists them is the code table of `spec/egress-audit.md`: the build makes a
//! constant of each row (`E5.self-error` → `E5_SELF_ERROR`).

// The constants, `ALL` and `requirement`: see `fixture_embed::code_table`.
include!(concat!(env!("OUT_DIR"), "/codes.rs"));

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
