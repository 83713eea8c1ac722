//! The one decision core: build the [`Analysis`] of the command (parse it with shell-syntax,
//! add the scripts it runs by path), run every requirement's `check` over it, and pick the deny
//! that names the decision (order G4, G6, G7, G1, G2, G3, G5; G0 first). Pure over [`Context`]
//! and [`World`].

use crate::analysis::{Analysis, Units, UnreadScript};
use crate::context::Context;
use crate::finding::{first_deny, Finding};
use crate::world::World;
use crate::{
    g0_unparsed, g1_result_hidden, g2_node_ids, g3_other_owner, g4_branch_rules, g5_review_helper,
    g6_primary_checkout, g7_wait_loops,
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
            "decision": if self.deny().is_some() { "deny" } else { "allow" },
            "requirement": self.deny().map(|f| f.requirement.id()),
            "code": self.deny().and_then(|f| f.code),
            "findings": self.findings,
            "unread_scripts": self.unread_scripts,
        })
    }
}

/// Judges one Bash command.
pub fn judge(command: &str, cx: &Context, world: &dyn World) -> Decision {
    let units = Units::build(command, cx, world);
    judge_analysis(&Analysis::new(&units))
}

/// Runs every requirement over a built analysis (`explain` shares this).
pub fn judge_analysis(a: &Analysis<'_>) -> Decision {
    let mut findings = Vec::new();
    findings.extend(g0_unparsed::check(a));
    findings.extend(g1_result_hidden::check(a));
    findings.extend(g2_node_ids::check(a));
    findings.extend(g3_other_owner::check(a));
    findings.extend(g4_branch_rules::check(a));
    findings.extend(g5_review_helper::check(a));
    findings.extend(g6_primary_checkout::check(a));
    findings.extend(g7_wait_loops::check(a));
    Decision {
        findings,
        unread_scripts: a.unread_scripts.to_vec(),
    }
}
