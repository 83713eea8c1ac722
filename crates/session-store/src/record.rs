//! One audit record: the fields every line of a session's `audit.jsonl` has, typed, and the rest
//! its evidence (issue 44: ~32 records were built by hand with free-form `decision` strings that
//! drifted apart). The JSON line is this type's serialisation; readers of the log (egress-audit's
//! recorded refusals, integrity-signals' outcomes, the tests over every scenario's log) parse it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What the record says was done. Each binary's answers map onto these; a new kind of decision
/// is added here, once, with what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The call or message was let through.
    Allow,
    /// The call was refused (PreToolUse deny, an exec or write refused by the second line).
    Deny,
    /// A final message was blocked (Stop: the agent must go on).
    Block,
    /// A final message was let through with what it admits recorded (E3).
    AllowRecorded,
    /// Evidence only: nothing was answered (taint, a connect observed, a session report).
    Recorded,
    /// A session report was written.
    Report,
    /// No session report was written (nothing to report, or it could not be).
    NoReport,
    /// The event is not this binary's (a payload it does not judge).
    Ignored,
    /// The judge did not finish (deadline, crash) and the requirement fails closed: refused.
    DenyUnjudged,
    /// The judge did not finish and the requirement fails open by its spec: let through.
    AllowUnjudged,
    /// The second line's supervisor did not answer in time: the call failed closed.
    DenyUnanswered,
    /// A binary's own failure answer (its judge could not run), neither allow nor deny.
    Failure,
    /// The act already happened and is one the rules refuse: reported after the fact (M6: a
    /// subagent ran on the maintainer-only tier).
    Critical,
}

impl Decision {
    /// The word the log spells it with.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Deny => "deny",
            Decision::Block => "block",
            Decision::AllowRecorded => "allow_recorded",
            Decision::Recorded => "recorded",
            Decision::Report => "report",
            Decision::NoReport => "no_report",
            Decision::Ignored => "ignored",
            Decision::DenyUnjudged => "deny_unjudged",
            Decision::AllowUnjudged => "allow_unjudged",
            Decision::DenyUnanswered => "deny_unanswered",
            Decision::Failure => "failure",
            Decision::Critical => "critical",
        }
    }

    /// Whether the act was refused (a deny or a block, judged or not).
    pub fn refused(self) -> bool {
        matches!(
            self,
            Decision::Deny | Decision::Block | Decision::DenyUnjudged | Decision::DenyUnanswered
        )
    }
}

/// One line of the audit log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// The binary (or layer: `second-line`) that wrote it.
    pub binary: String,
    /// What was done.
    pub decision: Decision,
    /// When (RFC 3339; the log adds it when a writer did not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// The requirement (`G4`), when one decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requirement: Option<String>,
    /// The sub-code (`G4.rule`), when one fired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Everything else the record carries (its evidence).
    #[serde(flatten)]
    pub evidence: Map<String, Value>,
}

impl AuditRecord {
    /// Reads one line of the log.
    pub fn parse(line: &str) -> Result<AuditRecord, String> {
        serde_json::from_str(line).map_err(|e| format!("not an audit record ({e}): {line}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_reads_into_its_type_and_back() {
        let line = r#"{"binary":"gh-write-guard","decision":"deny","requirement":"G4","code":"G4.rule","time":"t","command":"git push"}"#;
        let r = AuditRecord::parse(line).unwrap();
        assert_eq!(r.decision, Decision::Deny);
        assert!(r.decision.refused());
        assert_eq!(r.evidence["command"], "git push");
        let back: Value = serde_json::to_value(&r).unwrap();
        assert_eq!(back, serde_json::from_str::<Value>(line).unwrap());
        // Every decision's word is its serialisation.
        for d in [
            Decision::Allow,
            Decision::AllowRecorded,
            Decision::DenyUnanswered,
            Decision::NoReport,
        ] {
            assert_eq!(serde_json::to_value(d).unwrap(), d.as_str());
        }
        // A decision nobody declared, or a record with none, is not a record.
        assert!(AuditRecord::parse(r#"{"binary":"x","decision":"maybe"}"#).is_err());
        assert!(AuditRecord::parse(r#"{"binary":"x"}"#).is_err());
    }
}
