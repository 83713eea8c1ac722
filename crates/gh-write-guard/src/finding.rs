//! What a requirement concluded about a command: the requirement id, the deny's sub-code, the
//! verdict, the sentences the model sees (K4) and the evidence the maintainer sees in the audit
//! log.

pub use crate::codes::Code;
use serde::Serialize;
use serde_json::Value;

/// The requirements of gh-write-guard. `G0` is "the command could not be read" (G0-unparsed and
/// the fail-closed answers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Requirement {
    G0,
    G1,
    G2,
    G3,
    G4,
    G5,
    G6,
    G7,
}

impl Requirement {
    /// Every requirement, in number order.
    pub const ALL: [Requirement; 8] = [
        Requirement::G0,
        Requirement::G1,
        Requirement::G2,
        Requirement::G3,
        Requirement::G4,
        Requirement::G5,
        Requirement::G6,
        Requirement::G7,
    ];

    /// The order in which a deny reason picks the requirement it names ("Decision order and
    /// output"); G0 (the command could not be read) comes first because nothing else is certain.
    pub const DENY_ORDER: [Requirement; 8] = [
        Requirement::G0,
        Requirement::G4,
        Requirement::G6,
        Requirement::G7,
        Requirement::G1,
        Requirement::G2,
        Requirement::G3,
        Requirement::G5,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Requirement::G0 => "G0",
            Requirement::G1 => "G1",
            Requirement::G2 => "G2",
            Requirement::G3 => "G3",
            Requirement::G4 => "G4",
            Requirement::G5 => "G5",
            Requirement::G6 => "G6",
            Requirement::G7 => "G7",
        }
    }

    /// From the conformance cases' numbering (1-7 = G1-G7).
    pub fn from_number(n: u64) -> Option<Requirement> {
        Requirement::ALL.get(usize::try_from(n).ok()?).copied()
    }

    fn rank(self) -> usize {
        Requirement::DENY_ORDER
            .iter()
            .position(|r| *r == self)
            .unwrap_or(usize::MAX)
    }
}

/// Whether a finding refuses the command or only records a fact (for `explain` and the audit log).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Deny,
    /// A fact worth recording that does not refuse (a grant that was used, a lookup made).
    Note,
}

/// One requirement's conclusion about one shape in the command.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub requirement: Requirement,
    /// Which part of the requirement fired (denies only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<Code>,
    pub verdict: Verdict,
    /// What was refused, in plain words for the model (no matching internals).
    pub refused: String,
    /// What to do instead, one sentence.
    pub remedy: String,
    /// Full evidence for the audit log and `explain`.
    pub evidence: Value,
}

impl Finding {
    pub fn deny(
        code: Code,
        refused: impl Into<String>,
        remedy: impl Into<String>,
        evidence: Value,
    ) -> Finding {
        Finding {
            requirement: code.requirement(),
            code: Some(code),
            verdict: Verdict::Deny,
            refused: refused.into(),
            remedy: remedy.into(),
            evidence,
        }
    }

    pub fn note(requirement: Requirement, what: impl Into<String>, evidence: Value) -> Finding {
        Finding {
            requirement,
            code: None,
            verdict: Verdict::Note,
            refused: what.into(),
            remedy: String::new(),
            evidence,
        }
    }

    pub fn is_deny(&self) -> bool {
        self.verdict == Verdict::Deny
    }

    /// The code the reason starts with: the sub-code of a deny, the requirement id of a note.
    pub fn code_str(&self) -> &'static str {
        self.code.map_or(self.requirement.id(), Code::as_str)
    }

    /// The coarse reason the model sees (K4): sub-code, the refused shape, the remedy.
    pub fn reason(&self) -> String {
        safety_kernel::feedback::reason(self.code_str(), &self.refused, &self.remedy)
    }
}

/// The deny that names the decision: the first in [`Requirement::DENY_ORDER`], then in the order
/// found.
pub fn first_deny(findings: &[Finding]) -> Option<&Finding> {
    findings
        .iter()
        .filter(|f| f.is_deny())
        .min_by_key(|f| f.requirement.rank())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deny_order_picks_g4_over_g1_and_g3() {
        let f = |c| Finding::deny(c, "x", "y", json!({}));
        let findings = vec![
            f(Code::G3OtherOwner),
            Finding::note(Requirement::G6, "n", json!({})),
            f(Code::G1ResultHidden),
            f(Code::G4Rule),
        ];
        assert_eq!(first_deny(&findings).unwrap().requirement, Requirement::G4);
        assert_eq!(
            first_deny(&findings[..3]).unwrap().requirement,
            Requirement::G1
        );
        assert!(first_deny(&findings[1..2]).is_none());
    }

    #[test]
    fn reason_starts_with_the_sub_code_and_is_bounded() {
        let f = Finding::deny(Code::G2NodeId, "a".repeat(600), "do b", json!({}));
        assert_eq!(f.requirement, Requirement::G2);
        let r = f.reason();
        assert!(r.starts_with("G2.node-id: "), "{r}");
        assert!(r.chars().count() <= safety_kernel::feedback::MAX_REASON_CHARS);
    }

    #[test]
    fn numbers_map_to_requirements() {
        assert_eq!(Requirement::from_number(4), Some(Requirement::G4));
        assert_eq!(Requirement::from_number(8), None);
    }
}
