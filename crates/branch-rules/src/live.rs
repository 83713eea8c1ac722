//! The [`Rules`] trait the guard's decision core asks, and its live implementation: cache first
//! (fresh within the TTL), else token + fetch (revalidating a stale entry with its ETag), all
//! within one total deadline. [`FixedRules`] is the same trait over a fixed table, the world
//! the conformance cases describe.

use crate::cache::{CacheEntry, CacheKey, Clock, RulesCache, SystemClock};
use crate::fetch::{Cause, FetchOutcome, FetchRequest, Fetcher, DEFAULT_DEADLINE};
use crate::hosts::{api_base, GitHubHosts};
use crate::token::{find_token, Environment, GhOutcome, TokenSource};
use crate::verdict::RuleType;
use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How the rules of a branch were obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RulesSource {
    /// A fresh cache entry; no request was made.
    Cache,
    /// A 200 from the rules endpoint.
    Fetched,
    /// A stale cache entry confirmed by a 304.
    Revalidated,
    /// A 404 for the rules of a readable repository.
    NotFoundReadable,
    /// A fixed table (tests, conformance replay).
    Fixed,
}

/// The answer to "which rules apply to this branch?".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RulesOutcome {
    /// The rules are known (an empty list: none apply).
    Known {
        rules: Vec<RuleType>,
        source: RulesSource,
    },
    /// They could not be determined; G4 then fails closed for protected-by-default branches.
    Undeterminable(Cause),
}

/// Branch rules for a repository on a GitHub host. The guard's decision core depends on this
/// trait only, so it can be replayed against a fixed world.
pub trait Rules {
    fn rules_for(&self, host: &str, owner: &str, repo: &str, branch: &str) -> RulesOutcome;
}

impl<T: Rules + ?Sized> Rules for &T {
    fn rules_for(&self, host: &str, owner: &str, repo: &str, branch: &str) -> RulesOutcome {
        (**self).rules_for(host, owner, repo, branch)
    }
}

/// Settings of the live lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveConfig {
    /// Which hosts are GitHub.
    pub hosts: GitHubHosts,
    /// API base override (`AGENT_GUARDS_GITHUB_API` or config `github_api`), for every host.
    pub api_base_override: Option<String>,
    /// Total time for one lookup, `gh auth token` included (config `rules_timeout_ms`).
    pub deadline: Duration,
    /// How long a cached answer is used without asking GitHub.
    pub ttl: Duration,
    /// Upper bound for `gh auth token` within the deadline.
    pub gh_deadline: Duration,
    /// When no ruleset rule applies, also ask for the branch's classic protection flag.
    pub classic_protection: bool,
}

impl Default for LiveConfig {
    fn default() -> Self {
        LiveConfig {
            hosts: GitHubHosts::github_com_only(),
            api_base_override: None,
            deadline: DEFAULT_DEADLINE,
            ttl: Duration::from_secs(60),
            gh_deadline: Duration::from_millis(1500),
            classic_protection: true,
        }
    }
}

/// What the last live lookup did besides answering, for the audit log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LookupNotes {
    pub api_base: Option<String>,
    pub token_source: Option<TokenSource>,
    pub gh: Option<GhOutcome>,
    pub cache_error: Option<String>,
}

/// Rules from GitHub's REST API through a cache.
pub struct LiveRules<E, C, K = SystemClock> {
    config: LiveConfig,
    env: E,
    cache: C,
    clock: K,
    fetcher: OnceLock<Result<Fetcher, Cause>>,
    notes: std::sync::Mutex<LookupNotes>,
}

impl<E: Environment, C: RulesCache> LiveRules<E, C, SystemClock> {
    pub fn new(config: LiveConfig, env: E, cache: C) -> Self {
        Self::with_clock(config, env, cache, SystemClock)
    }
}

impl<E: Environment, C: RulesCache, K: Clock> LiveRules<E, C, K> {
    pub fn with_clock(config: LiveConfig, env: E, cache: C, clock: K) -> Self {
        LiveRules {
            config,
            env,
            cache,
            clock,
            fetcher: OnceLock::new(),
            notes: std::sync::Mutex::new(LookupNotes::default()),
        }
    }

    /// What the most recent lookup noted (API base, token source, `gh` outcome, cache errors).
    pub fn last_notes(&self) -> LookupNotes {
        self.notes.lock().map(|n| n.clone()).unwrap_or_default()
    }

    fn note(&self, f: impl FnOnce(&mut LookupNotes)) {
        if let Ok(mut n) = self.notes.lock() {
            f(&mut n);
        }
    }

    fn store(&self, key: &CacheKey, entry: &CacheEntry) {
        if let Err(e) = self.cache.put(key, entry) {
            self.note(|n| n.cache_error = Some(e));
        }
    }
}

impl<E: Environment, C: RulesCache, K: Clock> Rules for LiveRules<E, C, K> {
    fn rules_for(&self, host: &str, owner: &str, repo: &str, branch: &str) -> RulesOutcome {
        let started = Instant::now();
        let deadline = started + self.config.deadline;
        self.note(|n| *n = LookupNotes::default());
        let Some(kind) = self.config.hosts.kind(host) else {
            return RulesOutcome::Undeterminable(Cause::NotGitHub(host.to_string()));
        };
        let key = CacheKey::new(host, owner, repo, branch);
        let ttl_ms = u64::try_from(self.config.ttl.as_millis()).unwrap_or(u64::MAX);
        let cached = self.cache.get(&key);
        if let Some(entry) = &cached {
            if entry.is_fresh(self.clock.now_ms(), ttl_ms) {
                return RulesOutcome::Known {
                    rules: entry.rules.clone(),
                    source: RulesSource::Cache,
                };
            }
        }

        let gh_deadline = self
            .config
            .gh_deadline
            .min(deadline.saturating_duration_since(Instant::now()));
        let token = find_token(&self.env, host, kind, gh_deadline);
        let base = api_base(host, kind, self.config.api_base_override.as_deref());
        self.note(|n| {
            n.api_base = Some(base.clone());
            n.token_source = token.token.as_ref().map(|t| t.source.clone());
            n.gh = token.gh.clone();
        });
        let fetcher = match self.fetcher.get_or_init(|| Fetcher::new(&base)) {
            Ok(f) => f,
            Err(cause) => return RulesOutcome::Undeterminable(cause.clone()),
        };
        let request = FetchRequest {
            api_base: &base,
            owner,
            repo,
            branch,
            token: token.token.as_ref(),
            etag: cached.as_ref().and_then(|e| e.etag.as_deref()),
            classic_fallback: self.config.classic_protection,
        };
        let outcome = fetcher.fetch(&request, deadline);
        let now = self.clock.now_ms();
        match outcome {
            FetchOutcome::Rules { rules, etag } => {
                let entry = CacheEntry {
                    rules,
                    etag,
                    fetched_at_ms: now,
                };
                self.store(&key, &entry);
                RulesOutcome::Known {
                    rules: entry.rules,
                    source: RulesSource::Fetched,
                }
            }
            FetchOutcome::NotModified { etag } => match cached {
                Some(mut entry) => {
                    entry.fetched_at_ms = now;
                    if etag.is_some() {
                        entry.etag = etag;
                    }
                    self.store(&key, &entry);
                    RulesOutcome::Known {
                        rules: entry.rules,
                        source: RulesSource::Revalidated,
                    }
                }
                None => RulesOutcome::Undeterminable(Cause::Malformed(
                    "304 without a cached answer".into(),
                )),
            },
            FetchOutcome::NoRules => {
                let entry = CacheEntry {
                    rules: Vec::new(),
                    etag: None,
                    fetched_at_ms: now,
                };
                self.store(&key, &entry);
                RulesOutcome::Known {
                    rules: Vec::new(),
                    source: RulesSource::NotFoundReadable,
                }
            }
            FetchOutcome::Undeterminable(cause) => RulesOutcome::Undeterminable(cause),
        }
    }
}

/// A fixed world: rules per branch, and for any other branch either a default list or
/// "undeterminable" (`None`), as the conformance cases' `branch_rules` /
/// `branch_rules_default` describe. Host and repository are not consulted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FixedRules {
    pub by_branch: HashMap<String, Vec<RuleType>>,
    pub default: Option<Vec<RuleType>>,
}

impl Rules for FixedRules {
    fn rules_for(&self, _host: &str, _owner: &str, _repo: &str, branch: &str) -> RulesOutcome {
        match self.by_branch.get(branch).or(self.default.as_ref()) {
            Some(rules) => RulesOutcome::Known {
                rules: rules.clone(),
                source: RulesSource::Fixed,
            },
            None => RulesOutcome::Undeterminable(Cause::Connect(
                "the fixed world has no rules for this branch".into(),
            )),
        }
    }
}

/// Why G4 refuses one branch update (see [`RulesOutcome::refusal`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal<'a> {
    /// A rule of the branch blocks this kind of update.
    Rule(&'a RuleType),
    /// The rules could not be read and the branch is protected by default.
    FailClosed(&'a Cause),
}

impl RulesOutcome {
    /// G4's verdict on one update of `branch`, given what the lookup found: `Some` to refuse.
    /// `may_create`: the update may create the branch (no remote-tracking branch for it), so a
    /// `creation` rule blocks a plain update too. gh-write-guard's hook runs exactly this.
    pub fn refusal(
        &self,
        branch: &str,
        kind: crate::verdict::PushKind,
        may_create: bool,
        policy: &crate::verdict::FailClosedPolicy,
    ) -> Option<Refusal<'_>> {
        self.refusal_with(branch, kind, || may_create, policy)
    }

    /// [`RulesOutcome::refusal`] asking `may_create` only when a creation rule would refuse
    /// (the caller's answer reads the repository's refs).
    pub fn refusal_with(
        &self,
        branch: &str,
        kind: crate::verdict::PushKind,
        may_create: impl FnOnce() -> bool,
        policy: &crate::verdict::FailClosedPolicy,
    ) -> Option<Refusal<'_>> {
        use crate::verdict::{blocking_rule, PushKind};
        match self {
            RulesOutcome::Known { rules, .. } => blocking_rule(rules, kind)
                .or_else(|| {
                    (kind == PushKind::Update)
                        .then(|| blocking_rule(rules, PushKind::Create))
                        .flatten()
                        .filter(|_| may_create())
                })
                .map(Refusal::Rule),
            RulesOutcome::Undeterminable(cause) => policy
                .denies_undeterminable(branch)
                .then_some(Refusal::FailClosed(cause)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::{FailClosedPolicy, PushKind};

    #[test]
    fn whether_a_push_may_create_is_asked_only_when_a_creation_rule_would_refuse() {
        let policy = FailClosedPolicy::new(["main"]);
        let known = |rules: Vec<RuleType>| RulesOutcome::Known {
            rules,
            source: RulesSource::Fixed,
        };
        let asked = std::cell::Cell::new(0);
        let may_create = |answer: bool| {
            let asked = &asked;
            move || {
                asked.set(asked.get() + 1);
                answer
            }
        };
        // No rule, or one that refuses the update itself: not asked.
        let none = known(vec![]);
        assert!(none
            .refusal_with("f", PushKind::Update, may_create(true), &policy)
            .is_none());
        let update = known(vec![RuleType::Update]);
        assert!(update
            .refusal_with("f", PushKind::Update, may_create(true), &policy)
            .is_some());
        assert_eq!(asked.get(), 0);
        // A creation rule: asked, and its answer decides.
        let creation = known(vec![RuleType::Creation]);
        for (answer, refused) in [(true, true), (false, false)] {
            let got = creation.refusal_with("f", PushKind::Update, may_create(answer), &policy);
            assert_eq!(got.is_some(), refused);
        }
        assert_eq!(asked.get(), 2);
        // The same verdicts as with the answer given up front.
        for (rules, answer) in [(vec![RuleType::Creation], true), (vec![], true)] {
            let outcome = known(rules);
            assert_eq!(
                outcome.refusal("f", PushKind::Update, answer, &policy),
                outcome.refusal_with("f", PushKind::Update, || answer, &policy)
            );
        }
    }

    #[test]
    fn fixed_world() {
        let world = FixedRules {
            by_branch: HashMap::from([("main".to_string(), vec![RuleType::PullRequest])]),
            default: None,
        };
        assert_eq!(
            world.rules_for("github.com", "o", "r", "main"),
            RulesOutcome::Known {
                rules: vec![RuleType::PullRequest],
                source: RulesSource::Fixed
            }
        );
        assert!(matches!(
            world.rules_for("github.com", "o", "r", "develop"),
            RulesOutcome::Undeterminable(_)
        ));
        let open = FixedRules {
            default: Some(vec![]),
            ..world.clone()
        };
        assert!(matches!(
            open.rules_for("github.com", "o", "r", "x"),
            RulesOutcome::Known { ref rules, .. } if rules.is_empty()
        ));
    }

    #[test]
    fn refusals() {
        use PushKind::{Delete, Force, Update};
        let policy = FailClosedPolicy::default();
        let known = |rules: Vec<RuleType>| RulesOutcome::Known {
            rules,
            source: RulesSource::Fetched,
        };
        let unknown = RulesOutcome::Undeterminable(Cause::Timeout);
        let pr = known(vec![RuleType::PullRequest]);
        let creation = known(vec![RuleType::Creation]);
        let fail_closed = Some(Refusal::FailClosed(&Cause::Timeout));
        let pull_request = Some(Refusal::Rule(&RuleType::PullRequest));
        let created = Some(Refusal::Rule(&RuleType::Creation));
        // (outcome, branch, kind, may_create, verdict)
        let cases = [
            (&unknown, "main", Update, false, fail_closed),
            (&unknown, "feature/x", Update, true, None),
            (&pr, "feature/x", Update, false, pull_request),
            (&pr, "main", Delete, false, None),
            // `creation` blocks an update only when the update may create the branch.
            (&creation, "release/2", Update, true, created),
            (&creation, "release/2", Update, false, None),
            (&creation, "release/2", Force, true, None),
        ];
        for (outcome, branch, kind, may_create, want) in cases {
            assert_eq!(
                outcome.refusal(branch, kind, may_create, &policy),
                want,
                "{outcome:?} {branch} {kind:?} {may_create}"
            );
        }
    }
}
