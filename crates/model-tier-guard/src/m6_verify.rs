//! M6: verify after the fact. PostToolUse on `Agent` carries `resolvedModel` (and `modelsUsed`
//! when the model changed mid-run): if the subagent ran on the maintainer-only tier without the
//! grant anyway, or above the main model in a tainted session, a critical audit event is
//! recorded and the user is told.

use crate::m1_tiers::{Family, TierPolicy};
use crate::main_model::MainKnowledge;
use crate::{codes, Finding};
use safety_kernel::Grant;
use serde_json::{json, Value};
use taint::TaintState;

/// The models a finished (or launched) subagent reported.
pub fn reported_models(response: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(m) = response.get("resolvedModel").and_then(Value::as_str) {
        out.push(m.to_string());
    }
    if let Some(list) = response.get("modelsUsed").and_then(Value::as_array) {
        for m in list.iter().take(64) {
            let m = m
                .as_str()
                .or_else(|| m.get("model").and_then(Value::as_str));
            if let Some(m) = m {
                if !out.iter().any(|x| x == m) {
                    out.push(m.to_string());
                }
            }
        }
    }
    out
}

pub fn verify(
    response: &Value,
    main: &MainKnowledge,
    taint: &TaintState,
    tiers: &TierPolicy,
    grant: &Grant,
) -> Finding {
    let models = reported_models(response);
    let mut problems = Vec::new();
    for m in &models {
        let fam = Family::of(m);
        if tiers.is_restricted(&fam) && !grant.is_granted() {
            problems.push((codes::M6_RAN_ON_TIER, format!("a subagent ran on {m:?} ({fam}), a maintainer-only tier, without the maintainer's grant")));
        } else if taint.tainted {
            // An unknown main model: nothing to compare with after the fact.
            let above = main
                .escalation_floor()
                .is_some_and(|floor| fam.rank() > floor);
            if above {
                problems.push((
                    codes::M5_RAN_ABOVE,
                    format!(
                        "a subagent of this tainted session ran on {m:?}, above the main model"
                    ),
                ));
            }
        }
    }
    Finding {
        requirement: problems
            .first()
            .map_or("M6", |(code, _)| codes::requirement(code)),
        code: problems.first().map(|(code, _)| *code),
        deny: None,
        warning: (!problems.is_empty()).then(|| {
            format!(
                "model-tier-guard (critical): {}. Recorded in the audit log.",
                problems
                    .iter()
                    .map(|(_, p)| p.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        }),
        evidence: json!({
            "reported_models": models,
            "main_model": main.evidence(),
            "tainted": taint.tainted,
            "granted": grant.is_granted(),
            "critical": !problems.is_empty(),
            "agent_id": response.get("agentId"),
            "status": response.get("status"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none() -> MainKnowledge {
        MainKnowledge::Unknown("x".into())
    }

    fn clean() -> TaintState {
        TaintState {
            tainted: false,
            count: 0,
            first: None,
        }
    }

    #[test]
    fn flags_the_tier_without_grant() {
        let t = TierPolicy::default();
        let r = json!({"status": "completed", "resolvedModel": "claude-fable-5-2"});
        let f = verify(&r, &none(), &clean(), &t, &Grant::NotSet);
        assert!(f.warning.unwrap().contains("claude-fable-5-2"));
        assert_eq!(f.evidence["critical"], true);
        assert!(verify(&r, &none(), &clean(), &t, &Grant::Granted)
            .warning
            .is_none());
        let r = json!({"resolvedModel": "claude-haiku-5-5", "modelsUsed": ["claude-haiku-5-5", "claude-fable-5"]});
        assert!(verify(&r, &none(), &clean(), &t, &Grant::NotSet)
            .warning
            .is_some());
        let r = json!({"resolvedModel": "claude-haiku-5-5"});
        assert!(verify(&r, &none(), &clean(), &t, &Grant::NotSet)
            .warning
            .is_none());
    }

    #[test]
    fn flags_escalation_after_taint() {
        let t = TierPolicy::default();
        let main = MainKnowledge::Known(crate::main_model::MainModel::new("claude-sonnet-5", "t"));
        let tainted = TaintState {
            tainted: true,
            count: 1,
            first: None,
        };
        let r = json!({"resolvedModel": "claude-opus-5"});
        let f = verify(&r, &main, &tainted, &t, &Grant::Granted);
        assert_eq!(f.requirement, "M5");
        assert!(f.warning.is_some());
        assert!(verify(&r, &main, &clean(), &t, &Grant::Granted)
            .warning
            .is_none());
    }
}
