//! A [`World`] built from a conformance case's `env` (and the few extensions our own fixtures
//! use), so the conformance replay, the fixtures and `--selftest` run the decision core against
//! exactly the world a case describes.
//!
//! Case `env` fields (see the conformance README): `cwd`, `origin`, `current_branch`,
//! `branch_rules`, `branch_rules_default`, `environ`, `primary_checkout`,
//! `primary_checkout_default`, `ref_resolves`, `ref_resolves_default`, `git_config_aliases`.
//! Extensions for our fixtures: `remotes` (`{name: url}` besides origin), `gh_aliases`
//! (`{name: expansion}`), `scripts` (`{absolute path: text}`), `home`, `remote_branches`
//! (`["origin/main"]`: remote-tracking branches; absent: not known).

use crate::context::Context;
use crate::world::{
    DefaultPush, Destination, LookupError, PushTarget, RepoKind, RepoSlug, Rules, World,
};
use branch_rules::remote::classify_url;
use branch_rules::{FixedRules, GitHubHosts, RuleType};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Where a case with `cwd: null` runs: a directory outside any repository.
pub const NO_REPO_CWD: &str = "/nonexistent/outside-any-repository";
/// `$HOME` of a fake world unless the case sets one: `/root`, as the conformance cases assume
/// (`pa-primary-207` expands `~/repos/primary` to `/root/repos/primary`).
pub const FAKE_HOME: &str = "/root";

#[derive(Debug, Clone, Default)]
pub struct FakeWorld {
    pub origin: Option<RepoSlug>,
    pub current_branch: Option<String>,
    pub rules: FixedRules,
    pub remotes: BTreeMap<String, String>,
    pub primary_checkout: BTreeMap<PathBuf, bool>,
    /// `Some(false)`: unlisted dirs are linked worktrees; `None`: no repository.
    pub primary_checkout_default: Option<bool>,
    pub ref_resolves: Vec<(PathBuf, String, bool)>,
    pub ref_resolves_default: bool,
    pub git_aliases: BTreeMap<String, String>,
    pub gh_aliases: BTreeMap<String, String>,
    pub scripts: BTreeMap<PathBuf, String>,
    /// Remote-tracking branches (`origin/main`), when the case lists them.
    pub remote_branches: Option<Vec<String>>,
    /// Directories that do not exist yet (`missing_dirs`); every other one does.
    pub missing_dirs: Vec<PathBuf>,
    pub hosts: GitHubHosts,
}

fn string_map(v: Option<&Value>) -> BTreeMap<String, String> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// A JSON array's strings (`None`: not an array).
fn string_list(v: Option<&Value>) -> Option<Vec<String>> {
    v.and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    })
}

fn rule_list(v: &Value) -> Option<Vec<RuleType>> {
    v.as_array().map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(RuleType::from)
            .collect()
    })
}

impl FakeWorld {
    /// Builds the world and the call's context from a case's `env`; `config` is the
    /// maintainer's config the case assumes.
    pub fn from_env(env: &Value, config: guard_config::Config) -> (FakeWorld, Context) {
        let origin = env.get("origin").and_then(Value::as_array).and_then(|a| {
            Some(RepoSlug {
                host: "github.com".into(),
                owner: a.first()?.as_str()?.to_string(),
                repo: a.get(1)?.as_str()?.to_string(),
            })
        });
        let mut by_branch = HashMap::new();
        if let Some(m) = env.get("branch_rules").and_then(Value::as_object) {
            for (b, rules) in m {
                if let Some(r) = rule_list(rules) {
                    by_branch.insert(b.clone(), r);
                }
            }
        }
        let default = env.get("branch_rules_default").and_then(rule_list);
        let primary_checkout = env
            .get("primary_checkout")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((PathBuf::from(k), v.as_bool()?)))
                    .collect()
            })
            .unwrap_or_default();
        let ref_resolves = env
            .get("ref_resolves")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|e| {
                        let e = e.as_array()?;
                        Some((
                            PathBuf::from(e.first()?.as_str()?),
                            e.get(1)?.as_str()?.to_string(),
                            e.get(2)?.as_bool()?,
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let scripts = string_map(env.get("scripts"))
            .into_iter()
            .map(|(k, v)| (PathBuf::from(k), v))
            .collect();
        let world = FakeWorld {
            origin,
            current_branch: env
                .get("current_branch")
                .and_then(Value::as_str)
                .map(str::to_string),
            rules: FixedRules { by_branch, default },
            remotes: string_map(env.get("remotes")),
            primary_checkout,
            primary_checkout_default: env.get("primary_checkout_default").and_then(Value::as_bool),
            ref_resolves,
            ref_resolves_default: env
                .get("ref_resolves_default")
                .and_then(Value::as_bool)
                .unwrap_or(true),
            git_aliases: string_map(env.get("git_config_aliases")),
            missing_dirs: string_list(env.get("missing_dirs"))
                .unwrap_or_default()
                .into_iter()
                .map(PathBuf::from)
                .collect(),
            gh_aliases: string_map(env.get("gh_aliases")),
            scripts,
            remote_branches: string_list(env.get("remote_branches")),
            hosts: GitHubHosts::new(["github.example.com"]),
        };
        let mut cx = Context::new(
            env.get("cwd")
                .and_then(Value::as_str)
                .unwrap_or(NO_REPO_CWD),
        );
        cx.config = config;
        cx.env = string_map(env.get("environ"));
        let home = env.get("home").and_then(Value::as_str).unwrap_or(FAKE_HOME);
        cx.env.entry("HOME".into()).or_insert_with(|| home.into());
        (world, cx)
    }

    fn origin_url(&self) -> Option<String> {
        self.origin
            .as_ref()
            .map(|o| format!("https://{}/{}/{}.git", o.host, o.owner, o.repo))
    }
}

impl World for FakeWorld {
    fn origin(&self, _dir: &Path) -> Option<RepoSlug> {
        // The cases give origin for the session's checkout whatever the directory.
        self.origin.clone()
    }

    fn push_destinations(
        &self,
        _dir: &Path,
        remote: &str,
        overrides: &[(String, String)],
    ) -> Result<Vec<Destination>, LookupError> {
        // The command's own `remote.<name>.pushurl`/`url` win, as in git (last one).
        let key = |k: &str| format!("remote.{}.{k}", remote.to_ascii_lowercase());
        let overridden = overrides
            .iter()
            .rev()
            .find(|(k, _)| *k == key("pushurl"))
            .or_else(|| overrides.iter().rev().find(|(k, _)| *k == key("url")))
            .map(|(_, v)| v.clone());
        let url = match overridden {
            Some(u) => u,
            None if remote == "origin" => self
                .origin_url()
                .ok_or_else(|| LookupError("no origin remote".into()))?,
            None => self
                .remotes
                .get(remote)
                .cloned()
                .unwrap_or_else(|| remote.to_string()),
        };
        Ok(vec![classify_url(
            &rewrite_push_url(&url, overrides),
            &self.hosts,
        )])
    }

    fn default_push(
        &self,
        _dir: &Path,
        explicit_remote: Option<&str>,
        overrides: &[(String, String)],
    ) -> Result<DefaultPush, LookupError> {
        let remote = explicit_remote.unwrap_or("origin").to_string();
        let push_default = overrides
            .iter()
            .rev()
            .find(|(k, _)| k == "push.default")
            .map(|(_, v)| v.as_str());
        let mode = push_default.map(str::to_ascii_lowercase);
        // `remote.<r>.push` refspecs configured for the remote win over push.default (as
        // branch-rules' `configured_target` reads them).
        let key = command_effects::git::normalise_key(&format!("remote.{remote}.push"));
        let configured: Vec<String> = overrides
            .iter()
            .filter(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
            .collect();
        if !configured.is_empty() {
            return Ok(DefaultPush {
                remote,
                target: PushTarget::ConfiguredRefspecs(configured),
                mode,
            });
        }
        if push_default == Some("matching") {
            return Ok(DefaultPush {
                remote,
                target: PushTarget::Matching {
                    branches: self.local_branches(Path::new("/")),
                },
                mode,
            });
        }
        let target = match &self.current_branch {
            Some(b) => PushTarget::Branch {
                src: b.clone(),
                dst: b.clone(),
            },
            None => PushTarget::Refused("no current branch".into()),
        };
        Ok(DefaultPush {
            remote,
            target,
            mode,
        })
    }

    fn remote_tracking_branch(&self, _dir: &Path, remote: &str, branch: &str) -> Option<bool> {
        let listed = self.remote_branches.as_ref()?;
        Some(listed.iter().any(|b| *b == format!("{remote}/{branch}")))
    }

    fn head_branch(&self, _dir: &Path) -> Option<String> {
        self.current_branch.clone()
    }

    fn dir_exists(&self, dir: &Path) -> bool {
        !self.missing_dirs.iter().any(|m| dir.starts_with(m))
    }

    /// A case's world has fetched nothing.
    fn remote_tracking_branches(&self, _dir: &Path, _remote: &str) -> Vec<String> {
        Vec::new()
    }

    fn local_branches(&self, _dir: &Path) -> Vec<String> {
        let mut b: Vec<String> = self.rules.by_branch.keys().cloned().collect();
        b.extend(self.current_branch.clone());
        b.sort();
        b.dedup();
        b
    }

    fn is_github_host(&self, host: &str) -> bool {
        self.hosts.is_github(host)
    }

    fn rules(&self) -> &dyn Rules {
        &self.rules
    }

    fn repo_kind(&self, dir: &Path) -> RepoKind {
        // The longest listed directory that contains `dir`.
        let listed = self
            .primary_checkout
            .iter()
            .filter(|(d, _)| dir.starts_with(d))
            .max_by_key(|(d, _)| d.as_os_str().len());
        match listed.map(|(_, p)| *p).or(self.primary_checkout_default) {
            Some(true) => RepoKind::Primary,
            Some(false) => RepoKind::Linked,
            None => RepoKind::NoRepo,
        }
    }

    fn resolves_to_commit(&self, dir: &Path, arg: &str) -> bool {
        self.ref_resolves
            .iter()
            .find(|(d, a, _)| a == arg && dir.starts_with(d))
            .map(|(_, _, r)| *r)
            .unwrap_or(self.ref_resolves_default)
    }

    fn git_aliases(&self, _dir: &Path) -> BTreeMap<String, String> {
        self.git_aliases.clone()
    }

    /// A case sets it as the alias-like entry `help.autocorrect` of `git_config_aliases`.
    fn git_autocorrect(&self, _dir: &Path) -> Option<String> {
        self.git_aliases.get("help.autocorrect").cloned()
    }

    fn gh_aliases(&self) -> BTreeMap<String, String> {
        self.gh_aliases.clone()
    }

    /// The case's world holds the directories it names: the listed checkouts, the folders of
    /// its scripts, and every folder above them.
    fn is_dir(&self, path: &Path) -> bool {
        let scripts = self.scripts.keys().filter_map(|p| p.parent());
        self.primary_checkout
            .keys()
            .map(PathBuf::as_path)
            .chain(scripts)
            .any(|d| d.starts_with(path))
    }

    fn read_script(&self, path: &Path) -> Result<String, LookupError> {
        self.scripts
            .get(path)
            .cloned()
            .ok_or_else(|| LookupError(format!("{}: no such file", path.display())))
    }

    fn read_config_file(&self, path: &Path) -> Result<Option<String>, LookupError> {
        Ok(self.scripts.get(path).cloned())
    }
}

/// `url.<base>.pushInsteadOf` / `insteadOf` among the command's own settings, applied as git
/// applies them to a push URL: the longest matching prefix, `pushInsteadOf` first.
fn rewrite_push_url(url: &str, overrides: &[(String, String)]) -> String {
    for suffix in [".pushinsteadof", ".insteadof"] {
        let best = overrides
            .iter()
            .filter_map(|(k, v)| {
                let base = k.strip_prefix("url.")?.strip_suffix(suffix)?;
                url.starts_with(v.as_str()).then_some((base, v))
            })
            .max_by_key(|(_, v)| v.len());
        if let Some((base, v)) = best {
            return format!("{base}{}", &url[v.len()..]);
        }
    }
    url.to_string()
}
