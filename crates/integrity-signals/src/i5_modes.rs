//! I5: modes. `observe` (the default) records signals; `enforce` also denies the critical actions
//! at PreToolUse (reads outside the workspace, restricted paths, network escapes). I3 tamper
//! protection denies in both modes.

use crate::signal::{Kind, Severity};

/// Config `integrity_mode` (older name `mode`): an unrecognised value observes, and guard-config's
/// diagnosis names it.
pub use guard_config::IntegrityMode as Mode;

/// Whether a PreToolUse signal of `kind` denies the call in `mode`.
pub fn denies(mode: Mode, kind: Kind) -> bool {
    match kind {
        Kind::GuardTamper => true,
        k => mode == Mode::Enforce && k.severity() == Severity::Critical,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observe_records_enforce_denies_critical_tamper_always() {
        assert!(denies(Mode::Observe, Kind::GuardTamper));
        assert!(!denies(Mode::Observe, Kind::NetworkEscape));
        assert!(denies(Mode::Enforce, Kind::NetworkEscape));
        assert!(denies(Mode::Enforce, Kind::OutsideWorkspace));
        assert!(!denies(Mode::Enforce, Kind::JudgeManipulation));
        assert!(!denies(Mode::Enforce, Kind::RetrySpam));
    }
}
