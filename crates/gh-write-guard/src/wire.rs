//! gh-write-guard's face for a push read off the wire (issue 38's broker; issue 44's third
//! reader): the ref updates of a `git-receive-pack` request (command-effects'
//! `git_receive_pack`) to one GitHub repository, judged by the same G3 and G4 code as the
//! command text and the exec gate. G1, G6 and G7 are not wire questions.

use crate::context::Context;
use crate::finding::Finding;
use crate::git_push::PushPlan;
use crate::world::{Destination, RepoSlug, World};
use command_effects::git_push::{BranchUpdate, PushArgs};

/// A push as the wire states it.
#[derive(Debug, Clone)]
pub struct WirePush {
    /// The repository the request's URL names (`/<owner>/<repo>.git/git-receive-pack`).
    pub repo: RepoSlug,
    /// One update per ref command (`RefCommand::branch_update`).
    pub updates: Vec<BranchUpdate>,
}

/// What G3 and G4 find in `push` for the session `cx` describes (its origin is the maintainer's
/// repository), in that order: the same findings as for `git push` of the same updates.
pub fn judge_push(push: &WirePush, cx: &Context, world: &dyn World) -> Vec<Finding> {
    let label = "git push";
    let plan = PushPlan {
        args: PushArgs::default(),
        remote: None,
        destinations: Ok(vec![Destination::GitHub(push.repo.clone())]),
        updates: push.updates.clone(),
        nothing: None,
        run_time: None,
    };
    let mut out = crate::g3_other_owner::check_push(cx, world, None, &plan, label);
    let command = || {
        let refs: Vec<String> = push
            .updates
            .iter()
            .map(|u| u.branch.clone().unwrap_or_else(|| "<not a branch>".into()))
            .collect();
        format!(
            "git push (on the wire) to {}: {}",
            push.repo,
            refs.join(" ")
        )
    };
    let site = crate::g4_branch_rules::PushSite {
        world,
        rules: world.rules(),
        dir: None,
        label,
        command: &command,
    };
    let policy = branch_rules::FailClosedPolicy::new(&cx.config.protected_branches);
    out.extend(crate::g4_branch_rules::check_push(&site, &plan, &policy));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_world::FakeWorld;
    use crate::finding::first_deny;
    use command_effects::git_push::PushKind;
    use serde_json::json;

    fn push(owner: &str, branch: &str, kind: PushKind) -> WirePush {
        WirePush {
            repo: RepoSlug {
                host: "github.com".into(),
                owner: owner.into(),
                repo: "app".into(),
            },
            updates: vec![BranchUpdate {
                branch: Some(branch.into()),
                kind,
            }],
        }
    }

    #[test]
    fn the_wire_is_judged_by_the_same_rules_as_the_text() {
        let env = json!({"origin": ["maintainer", "app"], "branch_rules": {"main": ["pull_request"]},
            "branch_rules_default": [], "current_branch": "feature", "primary_checkout_default": false,
            "remotes": {"origin": "https://github.com/maintainer/app.git"}});
        let (world, cx) = FakeWorld::from_env(&env, guard_config::Config::default());
        let code = |p: &WirePush| {
            first_deny(&judge_push(p, &cx, &world)).and_then(|f| f.code.map(|c| c.as_str()))
        };
        assert_eq!(
            code(&push("maintainer", "main", PushKind::Update)),
            Some("G4.rule")
        );
        assert_eq!(code(&push("maintainer", "feature", PushKind::Create)), None);
        assert_eq!(
            code(&push("stranger", "feature", PushKind::Create)),
            Some("G3.other-owner")
        );
        // The same push as command text, through the same world: the same code.
        let text = crate::judge::judge("git push origin HEAD:main", &cx, &world);
        let text_code = first_deny(&text.findings).and_then(|f| f.code.map(|c| c.as_str()));
        assert_eq!(text_code, Some("G4.rule"));
    }
}
