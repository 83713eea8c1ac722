//! The one decision core: build the [`Analysis`] of the command (parse it with shell-syntax,
//! add the scripts it runs by path), run every requirement's `check` over it, and pick the deny
//! that names the decision (order G4, G6, G7, G1, G2, G3, G5; G0 first). Pure over [`Context`]
//! and [`World`].

use crate::analysis::{Analysis, Units, UnreadScript};
use crate::context::Context;
use crate::finding::{first_deny, Finding, Requirement};
use crate::world::World;
use crate::{
    g0_opaque, g0_unparsed, g1_result_hidden, g2_node_ids, g3_other_owner, g4_branch_rules,
    g5_review_helper, g6_primary_checkout, g7_wait_loops,
};
use serde_json::{json, Value};

/// The outcome of judging one command.
#[derive(Debug, Clone)]
pub struct Decision {
    /// Every finding of every requirement (denies and notes).
    pub findings: Vec<Finding>,
    /// Scripts named but not read (judged as unseen).
    pub unread_scripts: Vec<UnreadScript>,
}

impl Decision {
    /// The deny that names the decision, if any.
    pub fn deny(&self) -> Option<&Finding> {
        first_deny(&self.findings)
    }

    /// The coarse reason for the model (K4).
    pub fn reason(&self) -> Option<String> {
        self.deny().map(Finding::reason)
    }

    /// The audit record body: every finding with its evidence.
    pub fn audit(&self, command: &str) -> Value {
        json!({
            "command": command,
            "decision": if self.deny().is_some() { session_store::Decision::Deny } else { session_store::Decision::Allow }.as_str(),
            "requirement": self.deny().map(|f| f.requirement.id()),
            "code": self.deny().and_then(|f| f.code),
            "findings": self.findings,
            "unread_scripts": self.unread_scripts,
        })
    }
}

/// Every requirement's check, in the order their findings are listed.
type Check = fn(&Analysis<'_>) -> Vec<Finding>;
const CHECKS: [(Requirement, Check); 9] = [
    (Requirement::G0, g0_unparsed::check),
    (Requirement::G0, g0_opaque::check),
    (Requirement::G1, g1_result_hidden::check),
    (Requirement::G2, g2_node_ids::check),
    (Requirement::G3, g3_other_owner::check),
    (Requirement::G4, g4_branch_rules::check),
    (Requirement::G5, g5_review_helper::check),
    (Requirement::G6, g6_primary_checkout::check),
    (Requirement::G7, g7_wait_loops::check),
];

/// Judges one Bash command.
pub fn judge(command: &str, cx: &Context, world: &dyn World) -> Decision {
    let units = Units::build(command, cx, world);
    judge_some(&Analysis::new(&units), &|_| true)
}

/// Judges one exec's command line ([`Units::build_exec`]) by the requirements `applies` keeps
/// only (the exec gate: G1 and G7 read the shell text around a program, which an exec does not
/// have, so they are not run at all).
pub fn judge_requirements(
    command: &str,
    cx: &Context,
    world: &dyn World,
    applies: &dyn Fn(Requirement) -> bool,
) -> Decision {
    let units = Units::build_exec(command, cx, world);
    judge_some(&Analysis::new(&units), applies)
}

/// Runs every requirement over a built analysis (`explain` shares this).
pub fn judge_analysis(a: &Analysis<'_>) -> Decision {
    judge_some(a, &|_| true)
}

fn judge_some(a: &Analysis<'_>, applies: &dyn Fn(Requirement) -> bool) -> Decision {
    let findings = CHECKS
        .iter()
        .filter(|(r, _)| applies(*r))
        .flat_map(|(_, check)| check(a))
        .collect();
    Decision {
        findings,
        unread_scripts: a.unread_scripts.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_world::FakeWorld;

    #[test]
    fn only_the_requirements_kept_are_judged() {
        let (world, cx) = FakeWorld::from_env(&Value::Null, guard_config::Config::default());
        // G1: a write whose result is hidden; G7: an unbounded wait.
        for (command, code) in [
            (
                "gh pr create --title t --body b > /dev/null",
                Requirement::G1,
            ),
            ("while true; do sleep 1; done", Requirement::G7),
        ] {
            let all = judge(command, &cx, &world);
            assert!(
                all.findings
                    .iter()
                    .any(|f| f.is_deny() && f.requirement == code),
                "{command}: {:?}",
                all.findings
            );
            let some = judge_requirements(command, &cx, &world, &|r| r != code);
            assert!(
                !some.findings.iter().any(|f| f.requirement == code),
                "{command}"
            );
        }
    }
}
