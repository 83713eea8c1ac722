//! M1: model families, their ranks, and the maintainer-only tier set.
//!
//! A model id or alias maps to a family by name (`claude-opus-5-5` → opus, `opusplan` → opus,
//! `best` → the top family); aliases move often, so exact ids are never listed. Checks run from
//! the highest family down so that a name mentioning two families counts as the higher one.

use std::fmt;

/// A model family, ranked `haiku` < `sonnet` < `opus` < `fable` (`mythos` ranks with `fable`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Family {
    Haiku,
    Sonnet,
    Opus,
    Fable,
    /// A name no family matched; kept as written.
    Unknown(String),
}

impl Family {
    /// The family of a model id or alias.
    pub fn of(model: &str) -> Family {
        let m = model.trim().to_ascii_lowercase();
        if m == "best" || m.contains("fable") || m.contains("mythos") {
            Family::Fable
        } else if m.contains("opus") {
            Family::Opus
        } else if m.contains("sonnet") {
            Family::Sonnet
        } else if m.contains("haiku") {
            Family::Haiku
        } else {
            Family::Unknown(model.trim().to_string())
        }
    }

    /// Rank for escalation checks. An unknown family ranks with the top family.
    pub fn rank(&self) -> u8 {
        match self {
            Family::Haiku => 0,
            Family::Sonnet => 1,
            Family::Opus => 2,
            Family::Fable | Family::Unknown(_) => 3,
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Family::Haiku => "haiku",
            Family::Sonnet => "sonnet",
            Family::Opus => "opus",
            Family::Fable => "fable",
            Family::Unknown(_) => "unknown",
        }
    }

    pub fn is_known(&self) -> bool {
        !matches!(self, Family::Unknown(_))
    }

    const KNOWN: [Family; 4] = [Family::Haiku, Family::Sonnet, Family::Opus, Family::Fable];
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The maintainer's tier policy (config `maintainer_only_tiers`, default `["fable"]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TierPolicy {
    /// Families only the maintainer may use.
    pub maintainer_only: Vec<Family>,
    /// Config entries that named no family (reported; never loosen anything).
    pub ignored: Vec<String>,
}

impl Default for TierPolicy {
    fn default() -> Self {
        TierPolicy {
            maintainer_only: vec![Family::Fable],
            ignored: Vec::new(),
        }
    }
}

impl TierPolicy {
    /// From the config list; `None` is the default. An entry naming no family is ignored and
    /// reported. An empty list means no tier is maintainer-only (unknown families still are).
    pub fn from_config(tiers: Option<&[String]>) -> TierPolicy {
        let Some(tiers) = tiers else {
            return TierPolicy::default();
        };
        let mut policy = TierPolicy {
            maintainer_only: Vec::new(),
            ignored: Vec::new(),
        };
        for t in tiers {
            match Family::of(t) {
                Family::Unknown(_) => policy.ignored.push(t.clone()),
                f if !policy.maintainer_only.contains(&f) => policy.maintainer_only.push(f),
                _ => {}
            }
        }
        policy
    }

    /// Whether a family the agent asks for is maintainer-only. Unknown families are (fail
    /// closed).
    pub fn is_restricted(&self, family: &Family) -> bool {
        !family.is_known() || self.maintainer_only.contains(family)
    }

    /// The families the agent may use, for remedies: `haiku, sonnet, opus`.
    pub fn permitted(&self) -> String {
        let names: Vec<&str> = Family::KNOWN
            .iter()
            .filter(|f| !self.maintainer_only.contains(f))
            .map(Family::name)
            .collect();
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    }

    /// The maintainer-only families, for reasons: `fable`.
    pub fn restricted_names(&self) -> String {
        let names: Vec<&str> = self.maintainer_only.iter().map(Family::name).collect();
        names.join(", ")
    }
}

/// How a model the agent asked for reads under the policy, in words for a reason.
pub fn describe(model: &str, family: &Family) -> String {
    match family {
        Family::Unknown(_) => format!(
            "{model:?} (no known model family, so it is treated as the maintainer-only tier)"
        ),
        f => format!("{model:?} ({f})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_by_name() {
        assert_eq!(Family::of("claude-opus-5-5"), Family::Opus);
        assert_eq!(Family::of("opusplan"), Family::Opus);
        assert_eq!(Family::of("opus[1m]"), Family::Opus);
        assert_eq!(Family::of("best"), Family::Fable);
        assert_eq!(Family::of("claude-fable-5-2"), Family::Fable);
        assert_eq!(Family::of("Claude-Mythos-1"), Family::Fable);
        assert_eq!(Family::of("sonnet"), Family::Sonnet);
        assert_eq!(Family::of("claude-haiku-4-5-20251001"), Family::Haiku);
        assert_eq!(Family::of("gpt-9"), Family::Unknown("gpt-9".into()));
        assert_eq!(Family::of("default"), Family::Unknown("default".into()));
        assert!(Family::Haiku.rank() < Family::Sonnet.rank());
        assert!(Family::Opus.rank() < Family::Fable.rank());
        assert_eq!(Family::of("x").rank(), Family::Fable.rank());
    }

    #[test]
    fn policy_from_config() {
        let p = TierPolicy::default();
        assert!(p.is_restricted(&Family::Fable));
        assert!(!p.is_restricted(&Family::Opus));
        assert!(p.is_restricted(&Family::of("mystery")));
        assert_eq!(p.permitted(), "haiku, sonnet, opus");
        let p = TierPolicy::from_config(Some(&["opus".into(), "fable".into(), "nope".into()]));
        assert!(p.is_restricted(&Family::Opus));
        assert_eq!(p.ignored, vec!["nope".to_string()]);
        assert_eq!(p.permitted(), "haiku, sonnet");
        assert_eq!(p.restricted_names(), "opus, fable");
    }
}
