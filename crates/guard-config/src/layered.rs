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
use crate::values::{CheckoutConfig, CredentialBroker, EgressMode, IntegrityMode};
use crate::{Config, MemoryMax, TasksMax};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Where a system install keeps the maintainer's config (root-owned, 0644).
pub const SYSTEM_CONFIG_PATH: &str = "/etc/agent-guards/config.toml";

/// The keys a system install's config sets at their fail-closed defaults, so that no per-user file
/// can loosen them until the administrator says otherwise.
pub const PINNED_BY_SYSTEM_DEFAULT: &[&str] =
    &["primary_checkout", "egress_mode", "maintainer_only_tiers"];

/// The config a system install writes: the default config with [`PINNED_BY_SYSTEM_DEFAULT`] set
/// (not commented out), under a header saying what a system config is.
pub fn system_default_config() -> String {
    let mut text = String::from(
        "# agent-guards SYSTEM configuration (root's). A per-user config may only tighten what this\n\
         # file sets, never loosen it (README, \"System install\"); keys left commented out are the user's.\n\
         # primary_checkout, egress_mode and maintainer_only_tiers are set here at their defaults so\n\
         # that no per-user file can loosen them; github_api and workspace_root come only from here.\n",
    );
    for line in crate::diagnose::default_config().lines() {
        let set = line.strip_prefix("# ").filter(|l| {
            PINNED_BY_SYSTEM_DEFAULT
                .iter()
                .any(|k| l.starts_with(&format!("{k} = ")))
        });
        let line = match set {
            Some(l) if l.starts_with("primary_checkout") => {
                "primary_checkout = \"deny\"".to_string()
            }
            Some(l) => l.to_string(),
            None => line.replace(
                "uncomment to let the agent commit, push and reset in your ordinary clones.",
                "set \"allow\" (or a table of paths) to let the agent change primary checkouts.",
            ),
        };
        text.push_str(&line);
        text.push('\n');
    }
    text
}

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
        "credential_broker",
        Rule::StricterMode,
        "on over off: a user's file cannot hand agent commands the real credentials",
    ),
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
    (
        "audit_journal",
        Rule::StricterMode,
        "on over auto over off: a user's file cannot stop the copy the agent cannot erase",
    ),
    (
        "otlp_endpoint",
        Rule::SystemWhenSet,
        "the fleet's collector, when the system names one (a user's file neither redirects nor stops it)",
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
    for (key, _, what) in RULES {
        let key = *key;
        let loosened = match key {
            // The system's alone whenever a system file exists.
            "github_api" => {
                out.github_api = s.github_api.clone();
                user_set(key) && u.github_api != s.github_api
            }
            "workspace_root" => {
                out.workspace_root = s.workspace_root.clone();
                user_set(key) && u.workspace_root != s.workspace_root
            }
            _ if !set(key) => false,
            "review_helper" => {
                out.review_helper = s.review_helper.clone();
                user_set(key) && u.review_helper != s.review_helper
            }
            "integrity_reference_secs" => {
                out.integrity_reference_secs = s.integrity_reference_secs;
                user_set(key) && u.integrity_reference_secs != s.integrity_reference_secs
            }
            "otlp_endpoint" => {
                out.otlp_endpoint = s.otlp_endpoint.clone();
                user_set(key) && u.otlp_endpoint != s.otlp_endpoint
            }
            "protected_branches" => {
                out.protected_branches = union(&s.protected_branches, &u.protected_branches);
                false
            }
            "maintainer_only_tiers" => {
                // Unset on either side means the default (`fable`), which stays protected.
                let default = || vec!["fable".to_string()];
                let st = s.maintainer_only_tiers.clone().unwrap_or_else(default);
                let ut = u.maintainer_only_tiers.clone().unwrap_or_else(default);
                out.maintainer_only_tiers = Some(union(&st, &ut));
                user_set(key) && st.iter().any(|t| !ut.contains(t))
            }
            "restricted_paths" => {
                out.restricted_paths = union(&s.restricted_paths, &u.restricted_paths);
                false
            }
            "egress_extra_phrases" => {
                out.egress_extra_phrases =
                    union_map(&s.egress_extra_phrases, &u.egress_extra_phrases);
                false
            }
            "integrity_extra_phrases" => {
                out.integrity_extra_phrases =
                    union_map(&s.integrity_extra_phrases, &u.integrity_extra_phrases);
                false
            }
            "trusted_mcp_servers" => {
                let (kept, loosened) = intersect(
                    &s.trusted_mcp_servers,
                    &u.trusted_mcp_servers,
                    user_set(key),
                );
                out.trusted_mcp_servers = kept;
                loosened
            }
            "network_allow" => {
                let (kept, loosened) = intersect(&s.network_allow, &u.network_allow, user_set(key));
                out.network_allow = kept;
                loosened
            }
            "integrity_mode" => {
                let (v, loosened) =
                    stricter(s.integrity_mode, u.integrity_mode, IntegrityMode::Enforce);
                out.integrity_mode = Some(v);
                loosened && user_set(key)
            }
            "egress_mode" => {
                let (v, loosened) = stricter(s.egress_mode, u.egress_mode, EgressMode::Enforce);
                out.egress_mode = Some(v);
                loosened && user_set(key)
            }
            "credential_broker" => {
                let (v, loosened) = stricter(
                    s.credential_broker,
                    u.credential_broker,
                    CredentialBroker::On,
                );
                out.credential_broker = Some(v);
                loosened && user_set(key)
            }
            "audit_journal" => {
                let (sv, uv) = (
                    s.audit_journal.unwrap_or_default(),
                    u.audit_journal.unwrap_or_default(),
                );
                let v = if uv.rank() >= sv.rank() { uv } else { sv };
                out.audit_journal = Some(v);
                user_set(key) && v != uv
            }
            "rules_timeout_ms" => {
                let (v, loosened) = lower(s.rules_timeout_ms, u.rules_timeout_ms);
                out.rules_timeout_ms = v;
                loosened
            }
            "hook_deadline_ms" => {
                let (v, loosened) = lower(s.hook_deadline_ms, u.hook_deadline_ms);
                out.hook_deadline_ms = v;
                loosened
            }
            "tasks_max" => {
                let rank = |t: &TasksMax| match ceilings::parse_tasks(&t.0) {
                    Ok(Tasks::Limit(n)) => Some(n),
                    Ok(Tasks::Max) => Some(u64::MAX),
                    Err(_) => None,
                };
                let (v, loosened) = lower_by(s.tasks_max.as_ref(), u.tasks_max.as_ref(), |s, u| {
                    match (rank(s), rank(u)) {
                        (Some(sr), Some(ur)) => ur <= sr,
                        (None, Some(_)) => true,
                        _ => false,
                    }
                });
                out.tasks_max = v;
                loosened
            }
            "memory_max" => {
                let (v, loosened) = lower_by(
                    s.memory_max.as_ref(),
                    u.memory_max.as_ref(),
                    memory_not_above,
                );
                out.memory_max = v;
                loosened
            }
            "primary_checkout" => {
                let sc = s.primary_checkout.clone().unwrap_or_default();
                let uc = u.primary_checkout.clone().unwrap_or(CheckoutConfig::Allow);
                let merged = narrower_checkout(&sc, &uc);
                let loosened = user_set(key) && merged != uc;
                out.primary_checkout = Some(merged);
                loosened
            }
            _ => false,
        };
        if loosened {
            refuse(key, what);
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

/// The entries both lists hold (the system's when the user sets none), and whether the user
/// listed any other.
fn intersect(system: &[String], user: &[String], user_set: bool) -> (Vec<String>, bool) {
    if !user_set {
        return (system.to_vec(), false);
    }
    let kept = user.iter().filter(|x| system.contains(x)).cloned();
    (kept.collect(), user.iter().any(|x| !system.contains(x)))
}

/// The stricter of two modes (`strict` over anything else; unset is the default); whether the
/// user's was the looser.
fn stricter<T: Copy + Default + PartialEq>(
    system: Option<T>,
    user: Option<T>,
    strict: T,
) -> (T, bool) {
    let (s, u) = (system.unwrap_or_default(), user.unwrap_or_default());
    let v = if u == strict { u } else { s };
    (v, v != u)
}

/// The lower of two numbers where the system sets one; whether the user's was higher.
fn lower(system: Option<u64>, user: Option<u64>) -> (Option<u64>, bool) {
    match (system, user) {
        (Some(s), Some(u)) => (Some(s.min(u)), u > s),
        (s, None) => (s, false),
        (None, u) => (u, false),
    }
}

/// The user's ceiling where `user_applies(system, user)`, else the system's (and the user's is
/// named as not applied).
fn lower_by<T: Clone>(
    system: Option<&T>,
    user: Option<&T>,
    user_applies: impl Fn(&T, &T) -> bool,
) -> (Option<T>, bool) {
    match (system, user) {
        (Some(s), Some(u)) if user_applies(s, u) => (Some(u.clone()), false),
        (Some(s), Some(_)) => (Some(s.clone()), true),
        (s, _) => (s.cloned(), false),
    }
}

/// Whether the user's memory ceiling is not above the system's. A percentage and a size do not
/// compare before the host's RAM is known: the system's stands then. An unreadable system value
/// gives way to a readable user one.
fn memory_not_above(system: &MemoryMax, user: &MemoryMax) -> bool {
    let size = |m: &MemoryMax| ceilings::memory_size(&m.0).ok();
    match (size(system), size(user)) {
        (None, Some(_)) | (Some(MemorySize::Max), Some(_)) => true,
        (Some(_), Some(MemorySize::Max)) => false,
        (Some(MemorySize::Bytes(s)), Some(MemorySize::Bytes(u))) => u <= s,
        (Some(MemorySize::Percent(s)), Some(MemorySize::Percent(u))) => u <= s,
        _ => false,
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
