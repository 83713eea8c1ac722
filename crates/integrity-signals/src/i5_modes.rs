//! I5: modes. `observe` (the default) records signals; `enforce` also denies the critical actions
//! at PreToolUse (reads outside the workspace, restricted paths, network escapes). I3 tamper
//! protection denies in both modes.

use crate::signal::{Kind, Severity};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Observe,
    Enforce,
}

impl Mode {
    /// Config `mode`: `enforce` (any case) enforces; anything else, or nothing, observes. An
    /// unrecognised value is returned as a notice for the user.
    pub fn from_config(value: Option<&str>) -> (Mode, Option<String>) {
        match value.map(|v| v.trim().to_ascii_lowercase()) {
            None => (Mode::Observe, None),
            Some(v) if v == "enforce" => (Mode::Enforce, None),
            Some(v) if v == "observe" => (Mode::Observe, None),
            Some(v) => (
                Mode::Observe,
                Some(format!(
                    "agent-guards config: mode {v:?} is not \"observe\" or \"enforce\"; observing"
                )),
            ),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Observe => "observe",
            Mode::Enforce => "enforce",
        }
    }

    /// Whether a PreToolUse signal of `kind` denies the call in this mode.
    pub fn denies(self, kind: Kind) -> bool {
        match kind {
            Kind::GuardTamper => true,
            k => self == Mode::Enforce && k.severity() == Severity::Critical,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observe_records_enforce_denies_critical_tamper_always() {
        assert_eq!(Mode::from_config(None).0, Mode::Observe);
        assert_eq!(Mode::from_config(Some(" ENFORCE ")).0, Mode::Enforce);
        let (m, notice) = Mode::from_config(Some("strict"));
        assert_eq!(m, Mode::Observe);
        assert!(notice.unwrap().contains("strict"));
        assert!(Mode::Observe.denies(Kind::GuardTamper));
        assert!(!Mode::Observe.denies(Kind::NetworkEscape));
        assert!(Mode::Enforce.denies(Kind::NetworkEscape));
        assert!(Mode::Enforce.denies(Kind::OutsideWorkspace));
        assert!(!Mode::Enforce.denies(Kind::JudgeManipulation));
        assert!(!Mode::Enforce.denies(Kind::RetrySpam));
    }
}
