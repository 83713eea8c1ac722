//! The system config and the per-user config together (issue 40): the user may only tighten.
//!
//! Under a system install the maintainer's policy lives in a root-owned file
//! ([`SYSTEM_CONFIG_PATH`]) the agent's user cannot write. The per-user file (which that user
//! *can* write) still counts, but for every key the system file sets, a user value counts only
//! where it is at least as strict; a looser one is not applied and is named in the problems. Keys
//! the system file does not set are the user's, as in a per-user install. [`tighten`] is the one
//! pure function that decides; [`RULES`] says, per key, what "tighter" means (the README and
//! `spec/installer.md` print that table).
//!
//! Two keys are the system's alone whenever a system file exists: `github_api` (no server is
//! "stricter" than another; a user value is exactly the attack of issue 40, a push judged against
//! rules from the agent's own server) and `workspace_root`. A system file that exists but cannot
//! be used (unreadable, invalid TOML) fails closed: the defaults stand as the system's values for
//! every key, so the user file can still tighten but not loosen anything.

use crate::ceilings::{self, MemorySize, Tasks};
use crate::values::{CheckoutConfig, EgressMode, IntegrityMode};
use crate::{Config, MemoryMax, TasksMax};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Where a system install keeps the maintainer's config (root-owned, 0644).
pub const SYSTEM_CONFIG_PATH: &str = "/etc/agent-guards/config.toml";

/// How one key of the system file and the user's value combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Both lists count (more protected branches, tiers, restricted paths, phrases).
    Union,
    /// Only entries both lists hold (allow-lists: `network_allow`, `trusted_mcp_servers`).
    Intersection,
    /// The stricter word: `enforce` over `observe` / `report`.
    StricterMode,
    /// The lower number (deadlines, ceilings; `max` is the highest).
    Lower,
    /// The user may narrow what the system allows, never widen it (`primary_checkout`).
    NarrowerCheckout,
    /// The system's value stands whenever it sets the key; the user's otherwise.
    SystemWhenSet,
    /// The system's value (or the default) stands whenever a system file exists.
    SystemOnly,
}

/// Each key and its rule, in the key table's order.
pub const RULES: &[(&str, Rule, &str)] = &[
    (
        "review_helper",
        Rule::SystemWhenSet,
        "the system's helper, when it names one",
    ),
    (
        "protected_branches",
        Rule::Union,
        "both lists are protected",
    ),
    (
        "primary_checkout",
        Rule::NarrowerCheckout,
        "a checkout is allowed only if both allow it",
    ),
    (
        "github_api",
        Rule::SystemOnly,
        "never from the user's file under a system config",
    ),
    ("rules_timeout_ms", Rule::Lower, "the shorter deadline"),
    (
        "maintainer_only_tiers",
        Rule::Union,
        "both lists are maintainer-only",
    ),
    (
        "trusted_mcp_servers",
        Rule::Intersection,
        "trusted only if both trust it",
    ),
    ("integrity_mode", Rule::StricterMode, "enforce over observe"),
    (
        "workspace_root",
        Rule::SystemOnly,
        "never from the user's file under a system config",
    ),
    ("restricted_paths", Rule::Union, "both lists are restricted"),
    (
        "network_allow",
        Rule::Intersection,
        "allowed only if both allow it",
    ),
    ("egress_mode", Rule::StricterMode, "enforce over report"),
    (
        "egress_extra_phrases",
        Rule::Union,
        "both lists of phrases, per family",
    ),
    (
        "tasks_max",
        Rule::Lower,
        "the lower ceiling (max is the highest)",
    ),
    (
        "memory_max",
        Rule::Lower,
        "the lower ceiling; a percentage and a size do not compare: the system's",
    ),
    ("hook_deadline_ms", Rule::Lower, "the shorter deadline"),
    (
        "integrity_extra_phrases",
        Rule::Union,
        "both lists of phrases, per family",
    ),
    (
        "integrity_reference_secs",
        Rule::SystemWhenSet,
        "the system's calibration, when it sets one",
    ),
];

/// One layer: the config a file gave and the keys it set (the older name `mode` counts as
/// `integrity_mode`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layer {
    /// The values (defaults where a key is absent).
    pub config: Config,
    /// The keys the file sets.
    pub keys: BTreeSet<String>,
}

impl Layer {
    /// A system layer that sets every key at its default: what an unusable system file stands
    /// for (fail closed).
    pub fn defaults_everywhere() -> Layer {
        Layer {
            config: Config::default(),
            keys: RULES.iter().map(|(k, _, _)| k.to_string()).collect(),
        }
    }
}

/// The config to use and every user value that was not applied, one line each.
#[derive(Debug, Clone, PartialEq)]
pub struct Tightened {
    /// The effective config.
    pub config: Config,
    /// `key: why the user's value was not applied`.
    pub not_applied: Vec<String>,
}

/// Combines the system layer and the user layer: for each key the system sets, the user's value
/// counts only where it is at least as strict (see [`RULES`]). Pure.
pub fn tighten(system: &Layer, user: &Layer, system_path: &Path) -> Tightened {
    let mut out = user.config.clone();
    let mut not_applied = Vec::new();
    let s = &system.config;
    let u = &user.config;
    let set = |k: &str| system.keys.contains(k);
    let user_set = |k: &str| user.keys.contains(k);
    let mut refuse = |key: &str, what: &str| {
        not_applied.push(format!(
            "{key}: the system config {} sets it and your value would loosen it ({what}); the system's applies",
            system_path.display()
        ));
    };
    for (key, rule, what) in RULES {
        match (*key, rule) {
            // Keys the system only owns when a system file exists at all.
            ("github_api", _) => {
                out.github_api = s.github_api.clone();
                if user_set(key) && u.github_api != s.github_api {
                    refuse(key, what);
                }
            }
            ("workspace_root", _) => {
                out.workspace_root = s.workspace_root.clone();
                if user_set(key) && u.workspace_root != s.workspace_root {
                    refuse(key, what);
                }
            }
            _ if !set(key) => {}
            ("review_helper", _) => {
                out.review_helper = s.review_helper.clone();
                if user_set(key) && u.review_helper != s.review_helper {
                    refuse(key, what);
                }
            }
            ("integrity_reference_secs", _) => {
                out.integrity_reference_secs = s.integrity_reference_secs;
                if user_set(key) && u.integrity_reference_secs != s.integrity_reference_secs {
                    refuse(key, what);
                }
            }
            ("protected_branches", _) => {
                out.protected_branches = union(&s.protected_branches, &u.protected_branches)
            }
            ("maintainer_only_tiers", _) => {
                // Unset on either side means the default (`fable`), which stays protected.
                let default = || vec!["fable".to_string()];
                let st = s.maintainer_only_tiers.clone().unwrap_or_else(default);
                let ut = u.maintainer_only_tiers.clone().unwrap_or_else(default);
                out.maintainer_only_tiers = Some(union(&st, &ut));
                if user_set(key) && st.iter().any(|t| !ut.contains(t)) {
                    refuse(key, what);
                }
            }
            ("restricted_paths", _) => {
                out.restricted_paths = union(&s.restricted_paths, &u.restricted_paths)
            }
            ("egress_extra_phrases", _) => {
                out.egress_extra_phrases =
                    union_map(&s.egress_extra_phrases, &u.egress_extra_phrases)
            }
            ("integrity_extra_phrases", _) => {
                out.integrity_extra_phrases =
                    union_map(&s.integrity_extra_phrases, &u.integrity_extra_phrases)
            }
            ("trusted_mcp_servers", _) => {
                let (kept, loosened) = intersect(&s.trusted_mcp_servers, &u.trusted_mcp_servers);
                out.trusted_mcp_servers = if user_set(key) {
                    kept
                } else {
                    s.trusted_mcp_servers.clone()
                };
                if user_set(key) && loosened {
                    refuse(key, what);
                }
            }
            ("network_allow", _) => {
                let (kept, loosened) = intersect(&s.network_allow, &u.network_allow);
                out.network_allow = if user_set(key) {
                    kept
                } else {
                    s.network_allow.clone()
                };
                if user_set(key) && loosened {
                    refuse(key, what);
                }
            }
            ("integrity_mode", _) => {
                let sm = s.integrity_mode.unwrap_or_default();
                let um = u.integrity_mode.unwrap_or_default();
                let stricter = if um == IntegrityMode::Enforce { um } else { sm };
                out.integrity_mode = Some(stricter);
                if user_set(key) && stricter != um {
                    refuse(key, what);
                }
            }
            ("egress_mode", _) => {
                let sm = s.egress_mode.unwrap_or_default();
                let um = u.egress_mode.unwrap_or_default();
                let stricter = if um == EgressMode::Enforce { um } else { sm };
                out.egress_mode = Some(stricter);
                if user_set(key) && stricter != um {
                    refuse(key, what);
                }
            }
            ("rules_timeout_ms", _) => {
                let (v, loosened) = lower(s.rules_timeout_ms, u.rules_timeout_ms);
                out.rules_timeout_ms = v;
                if loosened {
                    refuse(key, what);
                }
            }
            ("hook_deadline_ms", _) => {
                let (v, loosened) = lower(s.hook_deadline_ms, u.hook_deadline_ms);
                out.hook_deadline_ms = v;
                if loosened {
                    refuse(key, what);
                }
            }
            ("tasks_max", _) => {
                let (v, loosened) = lower_tasks(s.tasks_max.as_ref(), u.tasks_max.as_ref());
                out.tasks_max = v;
                if loosened {
                    refuse(key, what);
                }
            }
            ("memory_max", _) => {
                let (v, loosened) = lower_memory(s.memory_max.as_ref(), u.memory_max.as_ref());
                out.memory_max = v;
                if loosened {
                    refuse(key, what);
                }
            }
            ("primary_checkout", _) => {
                let sc = s.primary_checkout.clone().unwrap_or_default();
                let uc = u.primary_checkout.clone().unwrap_or(CheckoutConfig::Allow);
                let merged = narrower_checkout(&sc, &uc);
                if user_set(key) && merged != uc {
                    refuse(key, what);
                }
                out.primary_checkout = Some(merged);
            }
            _ => {}
        }
    }
    Tightened {
        config: out,
        not_applied,
    }
}

fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    out.extend(b.iter().filter(|x| !a.contains(x)).cloned());
    out
}

fn union_map(
    a: &BTreeMap<String, Vec<String>>,
    b: &BTreeMap<String, Vec<String>>,
) -> BTreeMap<String, Vec<String>> {
    let mut out = a.clone();
    for (family, phrases) in b {
        let merged = union(out.get(family).map_or(&[][..], Vec::as_slice), phrases);
        out.insert(family.clone(), merged);
    }
    out
}

/// The system's entries the user also lists, and whether the user listed any other.
fn intersect(system: &[String], user: &[String]) -> (Vec<String>, bool) {
    let kept = user.iter().filter(|x| system.contains(x)).cloned();
    (kept.collect(), user.iter().any(|x| !system.contains(x)))
}

/// The lower of two numbers where the system sets one; whether the user's was higher.
fn lower(system: Option<u64>, user: Option<u64>) -> (Option<u64>, bool) {
    match (system, user) {
        (Some(s), Some(u)) => (Some(s.min(u)), u > s),
        (s, None) => (s, false),
        (None, u) => (u, false),
    }
}

/// The lower task ceiling; a user value that does not read as a ceiling leaves the system's.
fn lower_tasks(system: Option<&TasksMax>, user: Option<&TasksMax>) -> (Option<TasksMax>, bool) {
    let rank = |t: &TasksMax| match ceilings::parse_tasks(&t.0) {
        Ok(Tasks::Limit(n)) => Some(n),
        Ok(Tasks::Max) => Some(u64::MAX),
        Err(_) => None,
    };
    match (system, user) {
        (Some(s), Some(u)) => match (rank(s), rank(u)) {
            (Some(sr), Some(ur)) if ur <= sr => (Some(u.clone()), false),
            (None, Some(_)) => (Some(u.clone()), false),
            _ => (Some(s.clone()), true),
        },
        (s, _) => (s.cloned(), false),
    }
}

/// The lower memory ceiling; a percentage and a size do not compare before the host's RAM is
/// known, so the system's stands then (and the user's is named as not applied).
fn lower_memory(system: Option<&MemoryMax>, user: Option<&MemoryMax>) -> (Option<MemoryMax>, bool) {
    let size = |m: &MemoryMax| ceilings::memory_size(&m.0).ok();
    let not_above = |u: MemorySize, s: MemorySize| match (u, s) {
        (_, MemorySize::Max) => true,
        (MemorySize::Max, _) => false,
        (MemorySize::Bytes(a), MemorySize::Bytes(b)) => a <= b,
        (MemorySize::Percent(a), MemorySize::Percent(b)) => a <= b,
        _ => false,
    };
    match (system, user) {
        (Some(s), Some(u)) => match (size(s), size(u)) {
            (Some(sv), Some(uv)) if not_above(uv, sv) => (Some(u.clone()), false),
            (None, Some(_)) => (Some(u.clone()), false),
            _ => (Some(s.clone()), true),
        },
        (s, _) => (s.cloned(), false),
    }
}

/// What a per-repository table decides for `path`: the longest listed path it is in, else deny.
fn decides(entries: &[(String, bool)], path: &str) -> bool {
    entries
        .iter()
        .filter(|(p, _)| Path::new(path).starts_with(p))
        .max_by_key(|(p, _)| Path::new(p).components().count())
        .is_some_and(|(_, allow)| *allow)
}

/// A checkout is allowed only where both policies allow it. Two tables combine into one table
/// over both tables' paths: at each listed path, both decisions; the longest listed path a
/// repository is in is then the longest of either table, so both tables' answers carry over.
pub fn narrower_checkout(system: &CheckoutConfig, user: &CheckoutConfig) -> CheckoutConfig {
    use CheckoutConfig::*;
    match (system, user) {
        (Deny, _) | (_, Deny) => Deny,
        (Allow, u) => u.clone(),
        (s, Allow) => s.clone(),
        (PerRepo(s), PerRepo(u)) => {
            let mut paths: Vec<&String> = s.iter().chain(u.iter()).map(|(p, _)| p).collect();
            paths.sort();
            paths.dedup();
            PerRepo(
                paths
                    .into_iter()
                    .map(|p| (p.clone(), decides(s, p) && decides(u, p)))
                    .collect(),
            )
        }
    }
}

#[cfg(test)]
#[path = "layered_tests.rs"]
mod tests;
