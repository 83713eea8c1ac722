//! G4's verdicts as pure functions: which rule types make a push of a given kind land only by
//! bypassing a rule, and the fail-closed policy for branches whose rules could not be read.

use primitives::wildcard::{self, Dialect};
use serde::{Deserialize, Serialize};

/// Declares [`RuleType`] and its API names in one list, so a variant cannot lack its name.
macro_rules! rule_types {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)*) => {
        /// A rule `type` from the rules endpoint. Types this crate does not know are kept by name
        /// (GitHub adds new ones; G4 counts them as protecting against updates).
        #[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(from = "String", into = "String")]
        pub enum RuleType {
            $($(#[$doc])* $variant,)*
            /// A type not in the list above, as GitHub spelled it.
            Other(String),
        }

        /// (API name, type) for every known type.
        const KNOWN: &[(&str, RuleType)] = &[$(($name, RuleType::$variant)),*];
    };
}

rule_types! {
    Creation = "creation",
    Update = "update",
    Deletion = "deletion",
    RequiredLinearHistory = "required_linear_history",
    MergeQueue = "merge_queue",
    RequiredDeployments = "required_deployments",
    RequiredSignatures = "required_signatures",
    PullRequest = "pull_request",
    RequiredStatusChecks = "required_status_checks",
    NonFastForward = "non_fast_forward",
    CommitMessagePattern = "commit_message_pattern",
    CommitAuthorEmailPattern = "commit_author_email_pattern",
    CommitterEmailPattern = "committer_email_pattern",
    BranchNamePattern = "branch_name_pattern",
    TagNamePattern = "tag_name_pattern",
    FilePathRestriction = "file_path_restriction",
    MaxFilePathLength = "max_file_path_length",
    FileExtensionRestriction = "file_extension_restriction",
    MaxFileSize = "max_file_size",
    Workflows = "workflows",
    CodeScanning = "code_scanning",
    /// Not a ruleset rule: classic branch protection is on (`protected: true` from
    /// `GET /repos/{o}/{r}/branches/{b}`). Its settings are readable only by admins, so it is
    /// taken to refuse direct updates, force pushes and deletion (classic protection's default
    /// for the last two; a pull request is the usual way in for the first).
    ClassicProtection = "classic_branch_protection",
}

impl RuleType {
    /// The type as the API spells it.
    pub fn as_str(&self) -> &str {
        match self {
            RuleType::Other(name) => name,
            known => KNOWN
                .iter()
                .find(|(_, t)| t == known)
                .map_or("", |(name, _)| name),
        }
    }

    /// Whether this type is one of the known ones.
    pub fn is_known(&self) -> bool {
        !matches!(self, RuleType::Other(_))
    }
}

impl From<&str> for RuleType {
    fn from(name: &str) -> Self {
        KNOWN
            .iter()
            .find(|(n, _)| *n == name)
            .map_or_else(|| RuleType::Other(name.to_string()), |(_, t)| t.clone())
    }
}

impl From<String> for RuleType {
    fn from(name: String) -> Self {
        RuleType::from(name.as_str())
    }
}

impl From<RuleType> for String {
    fn from(t: RuleType) -> Self {
        t.as_str().to_string()
    }
}

impl std::fmt::Display for RuleType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

pub use command_effects::git_push::PushKind;

/// Whether an update-kind push is refused by this rule type (G4: `pull_request`, `update`,
/// `required_status_checks`, `merge_queue`, any type this crate does not know, and classic
/// protection).
fn protects_updates(rule: &RuleType) -> bool {
    matches!(
        rule,
        RuleType::PullRequest
            | RuleType::Update
            | RuleType::RequiredStatusChecks
            | RuleType::MergeQueue
            | RuleType::ClassicProtection
            | RuleType::Other(_)
    )
}

/// The first rule (in the given order) that a push of `kind` would have to bypass, or `None`
/// when no rule stands in its way.
///
/// - update: `pull_request`, `update`, `required_status_checks`, `merge_queue`, unknown types;
/// - force/mirror: those, plus `non_fast_forward` and `required_linear_history`;
/// - delete: `deletion` (and classic protection);
/// - create: `creation`.
pub fn blocking_rule(rules: &[RuleType], kind: PushKind) -> Option<&RuleType> {
    rules.iter().find(|rule| match kind {
        PushKind::Update => protects_updates(rule),
        PushKind::Force => {
            protects_updates(rule)
                || matches!(
                    rule,
                    RuleType::NonFastForward | RuleType::RequiredLinearHistory
                )
        }
        PushKind::Delete => matches!(rule, RuleType::Deletion | RuleType::ClassicProtection),
        PushKind::Create => matches!(rule, RuleType::Creation),
    })
}

/// The branches that are protected by default when their rules cannot be read.
pub const DEFAULT_PROTECTED: [&str; 3] = ["main", "master", "develop"];

/// G4's fail-closed policy: when a branch's rules cannot be determined, deny for `main`,
/// `master`, `develop` and the maintainer's `protected_branches`, allow elsewhere.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FailClosedPolicy {
    configured: Vec<String>,
}

impl FailClosedPolicy {
    /// The defaults plus configured names. A configured entry may use `*` to match any run of
    /// characters (`release/*`); empty entries are ignored.
    pub fn new<I, S>(configured: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        FailClosedPolicy {
            configured: configured
                .into_iter()
                .map(|s| s.as_ref().trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
        }
    }

    /// Whether a push to `branch` is denied when its rules are undeterminable.
    pub fn denies_undeterminable(&self, branch: &str) -> bool {
        DEFAULT_PROTECTED.contains(&branch)
            || self
                .configured
                .iter()
                .any(|p| wildcard::matches(p, Dialect::Star, branch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(names: &[&str]) -> Vec<RuleType> {
        names.iter().map(|n| RuleType::from(*n)).collect()
    }

    #[test]
    fn names_round_trip() {
        for (name, t) in KNOWN.iter() {
            assert_eq!(RuleType::from(*name), *t);
            assert_eq!(t.as_str(), *name);
            assert!(t.is_known());
        }
        let other = RuleType::from("copilot_code_review");
        assert_eq!(other, RuleType::Other("copilot_code_review".into()));
        assert_eq!(other.to_string(), "copilot_code_review");
        let json = serde_json::to_string(&types(&["update", "x_new"])).unwrap();
        assert_eq!(json, r#"["update","x_new"]"#);
        let back: Vec<RuleType> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, types(&["update", "x_new"]));
    }

    #[test]
    fn update_verdicts() {
        for protecting in [
            "pull_request",
            "update",
            "required_status_checks",
            "merge_queue",
            "copilot_code_review",
        ] {
            let rules = types(&["deletion", protecting]);
            assert_eq!(
                blocking_rule(&rules, PushKind::Update).map(RuleType::as_str),
                Some(protecting)
            );
        }
        // The conformance case: develop with deletion/non_fast_forward/signatures takes updates.
        let rules = types(&["deletion", "non_fast_forward", "required_signatures"]);
        assert_eq!(blocking_rule(&rules, PushKind::Update), None);
        assert_eq!(
            blocking_rule(&rules, PushKind::Force),
            Some(&RuleType::NonFastForward)
        );
        assert_eq!(
            blocking_rule(&rules, PushKind::Delete),
            Some(&RuleType::Deletion)
        );
        assert_eq!(blocking_rule(&rules, PushKind::Create), None);
        assert_eq!(blocking_rule(&[], PushKind::Force), None);
    }

    #[test]
    fn force_create_delete() {
        let linear = types(&["required_linear_history"]);
        assert!(blocking_rule(&linear, PushKind::Force).is_some());
        assert!(blocking_rule(&linear, PushKind::Update).is_none());
        let pr = types(&["pull_request"]);
        assert!(blocking_rule(&pr, PushKind::Force).is_some());
        assert!(blocking_rule(&pr, PushKind::Delete).is_none());
        assert!(blocking_rule(&pr, PushKind::Create).is_none());
        let classic = vec![RuleType::ClassicProtection];
        assert!(blocking_rule(&classic, PushKind::Update).is_some());
        assert!(blocking_rule(&classic, PushKind::Force).is_some());
        assert!(blocking_rule(&classic, PushKind::Delete).is_some());
        assert!(blocking_rule(&classic, PushKind::Create).is_none());
        let creation = types(&["creation"]);
        assert!(blocking_rule(&creation, PushKind::Create).is_some());
        assert!(blocking_rule(&creation, PushKind::Update).is_none());
    }

    #[test]
    fn fail_closed_policy() {
        let p = FailClosedPolicy::new(["release/*", "", " prod "]);
        for denied in [
            "main",
            "master",
            "develop",
            "release/1.0",
            "release/",
            "prod",
        ] {
            assert!(p.denies_undeterminable(denied), "{denied}");
        }
        for allowed in ["feature/x", "Main", "mainline", "releases/1", "production"] {
            assert!(!p.denies_undeterminable(allowed), "{allowed}");
        }
        assert!(!FailClosedPolicy::default().denies_undeterminable("release/1"));
    }

    #[test]
    fn configured_patterns_are_star_wildcards() {
        // `*` is any run, slashes too; other characters match themselves.
        let p = FailClosedPolicy::new(["release/*", "v?", "hot*fix"]);
        assert!(p.denies_undeterminable("release/1/rc"));
        assert!(p.denies_undeterminable("hotfix"));
        assert!(p.denies_undeterminable("hot-42-fix"));
        assert!(p.denies_undeterminable("v?"));
        assert!(!p.denies_undeterminable("v1"));
        assert!(!p.denies_undeterminable("hot-fix-2"));
    }
}
