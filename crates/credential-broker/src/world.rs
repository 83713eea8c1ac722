//! The world the rules see from the broker: the session's own repository (G3's "origin"),
//! which hosts are GitHub, and the branch rules fetched live with the real token (G4, the same
//! branch-rules lookup the hook uses, through the same cache type). Everything a command's
//! text needs (folders, git config, aliases, scripts) has no meaning on the wire: a wire
//! request names its repository and refs itself, so those lookups answer "none".

use branch_rules::remote::DefaultPush;
use branch_rules::Destination;
use branch_rules::{GitHubHosts, LiveConfig, LiveRules, MemoryCache, RepoSlug, Rules};
use gh_write_guard::face::{LookupError, RepoKind, World};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The broker's [`World`].
pub struct BrokerWorld {
    origin: Option<RepoSlug>,
    hosts: GitHubHosts,
    rules: Box<dyn Rules + Send + Sync>,
}

impl BrokerWorld {
    /// Rules read live from `api_base` (`None`: GitHub's own API for each host) with `token`.
    pub fn live(
        origin: Option<RepoSlug>,
        hosts: GitHubHosts,
        api_base: Option<String>,
        token: &str,
        deadline: Duration,
    ) -> BrokerWorld {
        let config = LiveConfig {
            hosts: hosts.clone(),
            api_base_override: api_base,
            deadline,
            gh_deadline: Duration::ZERO,
            ..LiveConfig::default()
        };
        // The lookup reads its token as the hook does, from an environment: here only ours.
        let env: BTreeMap<String, String> = ["GH_TOKEN", "GH_ENTERPRISE_TOKEN"]
            .into_iter()
            .map(|k| (k.to_string(), token.to_string()))
            .chain([("PATH".to_string(), String::new())])
            .collect();
        BrokerWorld {
            origin,
            hosts,
            rules: Box::new(LiveRules::new(config, env, MemoryCache::new())),
        }
    }

    /// With fixed rules (tests of the decision without a rules server).
    pub fn with_rules(
        origin: Option<RepoSlug>,
        hosts: GitHubHosts,
        rules: Box<dyn Rules + Send + Sync>,
    ) -> BrokerWorld {
        BrokerWorld {
            origin,
            hosts,
            rules,
        }
    }
}

impl World for BrokerWorld {
    fn origin(&self, _dir: &Path) -> Option<RepoSlug> {
        self.origin.clone()
    }

    fn push_destinations(
        &self,
        _dir: &Path,
        _remote: &str,
        _overrides: &[(String, String)],
    ) -> Result<Vec<Destination>, LookupError> {
        Err(LookupError("no remotes on the wire".into()))
    }

    fn default_push(
        &self,
        _dir: &Path,
        _explicit_remote: Option<&str>,
        _overrides: &[(String, String)],
    ) -> Result<DefaultPush, LookupError> {
        Err(LookupError("no default push on the wire".into()))
    }

    fn head_branch(&self, _dir: &Path) -> Option<String> {
        None
    }

    fn local_branches(&self, _dir: &Path) -> Vec<String> {
        Vec::new()
    }

    fn remote_tracking_branches(&self, _dir: &Path, _remote: &str) -> Vec<String> {
        Vec::new()
    }

    fn dir_exists(&self, _dir: &Path) -> bool {
        false
    }

    fn is_github_host(&self, host: &str) -> bool {
        self.hosts.is_github(host)
    }

    fn rules(&self) -> &dyn Rules {
        self.rules.as_ref()
    }

    fn repo_kind(&self, _dir: &Path) -> RepoKind {
        RepoKind::NoRepo
    }

    fn resolves_to_commit(&self, _dir: &Path, _arg: &str) -> bool {
        false
    }

    fn git_aliases(&self, _dir: &Path) -> BTreeMap<String, String> {
        BTreeMap::new()
    }

    fn git_autocorrect(&self, _dir: &Path) -> Option<String> {
        None
    }

    fn gh_aliases(&self) -> BTreeMap<String, String> {
        BTreeMap::new()
    }

    fn is_dir(&self, _path: &Path) -> bool {
        false
    }

    fn read_script(&self, path: &Path) -> Result<String, LookupError> {
        Err(LookupError(format!(
            "{}: no files on the wire",
            path.display()
        )))
    }

    fn read_config_file(&self, _path: &Path) -> Result<Option<String>, LookupError> {
        Ok(None)
    }
}
