//! K7 / I1: a report says what happened. A network destination is seen at PreToolUse, before
//! any guard has answered, so it is recorded `pending`; the report resolves it from the
//! session's audit log, which every guard writes: a `deny`/`block` record for the call's
//! `tool_use_id` (any guard: gh-write-guard, this one, ...) makes it `blocked` (with who refused
//! it), and a PostToolUse / PostToolUseFailure record makes it `allowed` (it ran). A call with
//! neither never ran (refused by the harness, or the session ended first): `blocked`.

use crate::signal::{Kind, Signal};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

/// What the audit log says about calls.
#[derive(Debug, Default)]
pub struct Outcomes {
    /// Call id → the refusing guard and requirement.
    refused: HashMap<String, String>,
    /// Calls that ran (a result came back).
    ran: HashSet<String>,
}

impl Outcomes {
    /// Reads the audit records of a session.
    pub fn from_audit(records: &[Value]) -> Outcomes {
        let mut o = Outcomes::default();
        for r in records {
            let Some(id) = r
                .get("tool_use_id")
                .and_then(Value::as_str)
                .filter(|i| !i.is_empty())
            else {
                continue;
            };
            let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("");
            match (s("event"), s("decision")) {
                ("PostToolUse" | "PostToolUseFailure", _) => {
                    o.ran.insert(id.to_string());
                }
                (_, d) if d.eq_ignore_ascii_case("deny") || d.eq_ignore_ascii_case("block") => {
                    let who = match (s("binary"), r.get("requirement").and_then(Value::as_str)) {
                        ("", _) => "a guard".to_string(),
                        (b, Some(req)) => format!("{b} {req}"),
                        (b, None) => b.to_string(),
                    };
                    o.refused.entry(id.to_string()).or_insert(who);
                }
                _ => {}
            }
        }
        o
    }

    /// Sets each network signal's `decision` to what happened.
    pub fn resolve(&self, signals: &mut [Signal]) {
        for s in signals.iter_mut().filter(|s| s.kind == Kind::NetworkEscape) {
            let id = crate::text_or_empty(s.evidence.get("tool_use_id"));
            let recorded = crate::text_or_empty(s.evidence.get("decision"));
            if let Some(who) = self.refused.get(&id) {
                s.evidence.insert("decision".into(), json!("blocked"));
                s.evidence.insert("blocked_by".into(), json!(who));
            } else if recorded == "blocked" {
                // Refused by this guard at the time (enforce mode).
            } else if self.ran.contains(&id) {
                s.evidence.insert("decision".into(), json!("allowed"));
                s.evidence.insert("ran".into(), json!(true));
            } else {
                s.evidence.insert("decision".into(), json!("blocked"));
                s.evidence.insert(
                    "blocked_by".into(),
                    json!("no result came back (refused by the harness, or never run)"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(id: &str, decision: &str) -> Signal {
        Signal::observed(
            Kind::NetworkEscape,
            &[
                ("destination", json!("evil.example")),
                ("timestamp", json!("t")),
                ("decision", json!(decision)),
                ("tool_use_id", json!(id)),
            ],
        )
    }

    #[test]
    fn refused_calls_are_blocked_and_calls_with_results_ran() {
        let audit = vec![
            json!({"binary": "gh-write-guard", "event": "PreToolUse", "tool_use_id": "a", "decision": "deny", "requirement": "G4"}),
            json!({"binary": "integrity-signals", "event": "PreToolUse", "tool_use_id": "a", "decision": "allow"}),
            json!({"binary": "integrity-signals", "event": "PreToolUse", "tool_use_id": "b", "decision": "allow"}),
            json!({"binary": "integrity-signals", "event": "PostToolUse", "tool_use_id": "b"}),
        ];
        let mut s = vec![
            net("a", "pending"),
            net("b", "pending"),
            net("c", "pending"),
        ];
        Outcomes::from_audit(&audit).resolve(&mut s);
        let d = |i: usize, k: &str| s[i].evidence[k].clone();
        assert_eq!(
            (d(0, "decision"), d(0, "blocked_by")),
            (json!("blocked"), json!("gh-write-guard G4"))
        );
        assert_eq!(d(1, "decision"), json!("allowed"));
        assert_eq!(d(2, "decision"), json!("blocked"));
    }
}
