//! Live GitHub branch rules for gh-write-guard's G4 (and origin's owner for G3).
//!
//! - [`remote`]: where a push goes (remote URLs with `insteadOf`/`pushInsteadOf`, `pushurl`,
//!   the repository a URL names, origin's owner, the current branch, a default push's target);
//! - [`token`]: the token for a host (environment, else `gh auth token` under a deadline);
//! - [`fetch`]: one lookup of `GET /repos/{owner}/{repo}/rules/branches/{branch}`;
//! - [`verdict`]: which rules a push of a given kind would bypass; the fail-closed policy;
//! - [`cache`]: cached answers per (host, repository, branch) with TTL and ETag;
//! - [`live`]: the [`Rules`] trait the guard asks, its live implementation and a fixed world.

pub mod cache;
pub mod fetch;
pub mod hosts;
pub mod live;
pub mod remote;
#[cfg(feature = "test-support")]
pub mod test_support;
pub mod token;
pub mod verdict;

pub use cache::{CacheEntry, CacheKey, JsonFileCache, MemoryCache, RulesCache};
pub use fetch::Cause;
pub use hosts::{GitHubHosts, HostKind};
pub use live::{FixedRules, LiveConfig, LiveRules, Refusal, Rules, RulesOutcome, RulesSource};
pub use remote::{Destination, RepoSlug};
pub use verdict::{blocking_rule, FailClosedPolicy, PushKind, RuleType};
