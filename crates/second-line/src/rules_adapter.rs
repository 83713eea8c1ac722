//! The adapter from the exec gate to the guards' own rule code, in one small module so the
//! shared "what runs" layer can replace it: a real argv becomes a shell-quoted command line and
//! goes through gh-write-guard's decision core (G2–G6; G1 and G7 judge the command text around a
//! program, which an exec does not have) and model-tier-guard's nested-launch check (M3, with the
//! grant from the session's launch environment).

use crate::judge::{ExecFacts, ExecJudge, ExecVerdict};
use gh_write_guard::real_world::{LedgerRulesCache, RealWorld, RealWorldConfig};
use gh_write_guard::{Context, Requirement};
use guard_config::Config;
use model_tier_guard::host::{Host, MANAGED_SETTINGS_DIR};
use model_tier_guard::m1_tiers::TierPolicy;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// What the rules consult besides the exec: the session's launch environment (grants come only
/// from here, K2), the maintainer's config and the session's state.
#[derive(Debug, Clone)]
pub struct LaunchContext {
    pub env: BTreeMap<String, String>,
    /// The maintainer's config, read on the first exec a rule judges (most commands have none).
    pub config: Arc<OnceLock<Config>>,
    pub state_dir: Option<PathBuf>,
    pub session_id: Option<String>,
}

impl LaunchContext {
    /// A context whose config is read from the file when first needed.
    pub fn new(
        env: BTreeMap<String, String>,
        state_dir: Option<PathBuf>,
        session_id: Option<String>,
    ) -> LaunchContext {
        LaunchContext {
            env,
            config: Arc::new(OnceLock::new()),
            state_dir,
            session_id,
        }
    }

    /// With a given config (tests).
    pub fn with_config(mut self, config: Config) -> LaunchContext {
        self.config = Arc::new(OnceLock::from(config));
        self
    }

    pub fn config(&self) -> &Config {
        self.config.get_or_init(|| {
            let env = self.env.clone();
            guard_config::load_with(&move |k: &str| env.get(k).cloned()).config
        })
    }

    fn session(&self) -> Option<session_store::Session> {
        self.state_dir
            .as_deref()
            .map(|s| session_store::Session::new(s, self.session_id.as_deref()))
    }
}

/// Variables of the exec's own environment that the rules read as part of the command
/// (`GIT_CONFIG_*`, model variables). Grants and secrets never travel this way.
fn rule_relevant(name: &str) -> bool {
    let secret = ["TOKEN", "PASSWORD", "SECRET", "_KEY", "ALLOW"]
        .iter()
        .any(|s| name.contains(s));
    !secret
        && (name.starts_with("GIT_")
            || model_tier_guard::m3_launch::MODEL_VARS.contains(&name)
            || name == "GH_HOST"
            || name == "GH_REPO")
}

/// gh-write-guard's G2–G6 over a `git` or `gh` exec.
pub struct GitHubWrites {
    pub launch: LaunchContext,
}

impl ExecJudge for GitHubWrites {
    fn wants(&self, program: &str) -> bool {
        matches!(program, "git" | "gh")
    }

    fn judge(&self, facts: &ExecFacts) -> ExecVerdict {
        let command = facts.as_command(rule_relevant);
        let cx = Context {
            cwd: facts.cwd.clone(),
            config: self.launch.config().clone(),
            env: self.launch.env.clone(),
            session_id: self.launch.session_id.clone(),
            tool_use_id: None,
        };
        let cache: Arc<dyn branch_rules::cache::RulesCache> = match self.launch.session() {
            Some(s) if s.ensure().is_ok() => Arc::new(LedgerRulesCache::new(s.ledger())),
            _ => Arc::new(branch_rules::cache::MemoryCache::new()),
        };
        let deadline = self
            .launch
            .config()
            .rules_timeout_ms
            .unwrap_or(3000)
            .min(3000);
        let world = RealWorld::new(RealWorldConfig {
            env: self.launch.env.clone(),
            api_base_override: self
                .launch
                .env
                .get("AGENT_GUARDS_GITHUB_API")
                .filter(|v| !v.is_empty())
                .cloned()
                .or_else(|| self.launch.config().github_api.clone()),
            rules_deadline: Duration::from_millis(deadline),
            cache,
        });
        let decision = gh_write_guard::judge(&command, &cx, &world);
        let applies = |r: Requirement| {
            matches!(
                r,
                Requirement::G2
                    | Requirement::G3
                    | Requirement::G4
                    | Requirement::G5
                    | Requirement::G6
            )
        };
        let denies: Vec<_> = decision
            .findings
            .iter()
            .filter(|f| f.is_deny() && applies(f.requirement))
            .cloned()
            .collect();
        match gh_write_guard::finding::first_deny(&denies) {
            Some(f) => ExecVerdict::Deny {
                code: f.requirement.id().to_string(),
                reason: f.reason(),
                evidence: json!({"command": command, "finding": f.evidence}),
            },
            None => ExecVerdict::Allow,
        }
    }
}

/// model-tier-guard's M3 over a nested agent launch.
pub struct ModelLaunches {
    pub launch: LaunchContext,
}

impl ExecJudge for ModelLaunches {
    fn wants(&self, program: &str) -> bool {
        matches!(program, "claude" | "npx" | "bunx")
    }

    fn judge(&self, facts: &ExecFacts) -> ExecVerdict {
        let host = Host {
            env: self.launch.env.clone(),
            launch_args: None,
            managed_dir: Some(PathBuf::from(MANAGED_SETTINGS_DIR)),
        };
        let command = facts.as_command(rule_relevant);
        let mut project: Vec<PathBuf> = host
            .var("CLAUDE_PROJECT_DIR")
            .filter(|p| p.starts_with('/'))
            .map(PathBuf::from)
            .into_iter()
            .collect();
        project.push(facts.cwd.clone());
        let dirs = model_tier_guard::agents::AgentDirs::new(&project, &host.user_dirs());
        let reqs = model_tier_guard::m3_launch::requested_models(
            &command,
            Some(&facts.cwd),
            &dirs,
            &host.aliases(),
        );
        if reqs.is_empty() {
            return ExecVerdict::Allow;
        }
        let tiers = TierPolicy::from_config(self.launch.config().maintainer_only_tiers.as_deref());
        let f = model_tier_guard::m3_session::judge_requests(
            "a nested agent launch",
            &reqs,
            &tiers,
            &host.grant(),
        );
        match f.deny {
            Some(reason) => ExecVerdict::Deny {
                code: f.requirement.to_string(),
                reason,
                evidence: json!({"command": command, "finding": f.evidence}),
            },
            None => ExecVerdict::Allow,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(env: &[(&str, &str)]) -> LaunchContext {
        LaunchContext::new(
            env.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            None,
            None,
        )
        .with_config(Config::default())
    }

    fn exec(argv: &[&str], env: &[(&str, &str)]) -> ExecFacts {
        ExecFacts {
            program: format!("/usr/local/bin/{}", argv[0]),
            argv: argv.iter().map(|s| s.to_string()).collect(),
            cwd: std::env::temp_dir(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn a_launch_on_the_maintainer_tier_is_m3_unless_the_launch_environment_grants_it() {
        let m = ModelLaunches {
            launch: launch(&[("HOME", "/nonexistent")]),
        };
        let v = m.judge(&exec(&["claude", "--model", "fable", "-p", "hi"], &[]));
        assert!(
            matches!(&v, ExecVerdict::Deny { code, .. } if code == "M3"),
            "{v:?}"
        );
        // The model chosen by the exec's own environment.
        let v = m.judge(&exec(
            &["claude", "-p", "hi"],
            &[("ANTHROPIC_MODEL", "fable")],
        ));
        assert!(matches!(&v, ExecVerdict::Deny { .. }), "{v:?}");
        // A permitted tier, and a grant in the exec's own environment that counts for nothing.
        assert_eq!(
            m.judge(&exec(&["claude", "--model", "sonnet"], &[])),
            ExecVerdict::Allow
        );
        let v = m.judge(&exec(
            &["claude", "--model", "fable"],
            &[("MODEL_TIER_GUARD_ALLOW", "1")],
        ));
        assert!(matches!(v, ExecVerdict::Deny { .. }));
        let granted = ModelLaunches {
            launch: launch(&[("MODEL_TIER_GUARD_ALLOW", "1")]),
        };
        assert_eq!(
            granted.judge(&exec(&["claude", "--model", "fable"], &[])),
            ExecVerdict::Allow
        );
    }

    #[test]
    fn secrets_and_grants_never_reach_the_command_line() {
        for k in [
            "GH_TOKEN",
            "GIT_PASSWORD",
            "GH_WRITE_GUARD_ALLOW",
            "PATH",
            "HOME",
        ] {
            assert!(!rule_relevant(k), "{k}");
        }
        for k in [
            "GIT_CONFIG_PARAMETERS",
            "GIT_CONFIG_COUNT",
            "ANTHROPIC_MODEL",
        ] {
            assert!(rule_relevant(k), "{k}");
        }
    }
}
