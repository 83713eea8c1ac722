//! K2: fail-closed truthiness.
//!
//! A grant loosens a guard, so it counts only for an exact recognised truthy value; a deny or
//! lock-down switch tightens one, so it triggers on anything that is not a recognised falsy value.
//! Grant values are read by the binaries from their own process environment or the maintainer's
//! config — never from command text or tool input.

const TRUTHY: [&str; 4] = ["1", "true", "yes", "on"];
const FALSY: [&str; 4] = ["0", "false", "no", "off"];

/// The reading of a boolean grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant {
    /// Absent or empty.
    NotSet,
    /// Set to a truthy value (`1`, `true`, `yes`, `on`).
    Granted,
    /// Set to something we do not recognise as truthy: not granted, and the reason says so.
    Unrecognised(String),
}

impl Grant {
    /// Whether the grant is given.
    pub fn is_granted(&self) -> bool {
        matches!(self, Grant::Granted)
    }

    /// A short note for a deny reason when the value was set but not recognised.
    pub fn note(&self, name: &str) -> Option<String> {
        match self {
            Grant::Unrecognised(v) => Some(format!(
                "{name}={v:?} was not recognised as a grant (use 1, true, yes or on)"
            )),
            _ => None,
        }
    }
}

/// Reads a boolean grant strictly.
pub fn grant(value: Option<&str>) -> Grant {
    match value {
        None | Some("") => Grant::NotSet,
        Some(v) if TRUTHY.iter().any(|t| v.eq_ignore_ascii_case(t)) => Grant::Granted,
        Some(v) => Grant::Unrecognised(v.to_string()),
    }
}

/// Reads a deny or lock-down switch: on for any non-empty value other than a recognised falsy one.
pub fn denial_switch(value: Option<&str>) -> bool {
    match value {
        None | Some("") => false,
        Some(v) => !FALSY.iter().any(|f| v.eq_ignore_ascii_case(f)),
    }
}

/// A list grant of `owner/repo` or `owner/*` entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListGrant {
    /// Well-formed entries, lower-cased: (owner, repo or `*`).
    pub entries: Vec<(String, String)>,
    /// Entries that were not well formed; reported, never honoured.
    pub ignored: Vec<String>,
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 100
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && s != "."
        && s != ".."
}

impl ListGrant {
    /// Whether `owner/repo` is covered (case-insensitive, as GitHub compares owners).
    pub fn covers(&self, owner: &str, repo: &str) -> bool {
        let owner = owner.to_ascii_lowercase();
        let repo = repo.to_ascii_lowercase();
        self.entries
            .iter()
            .any(|(o, r)| *o == owner && (r == "*" || *r == repo))
    }

    /// Whether no entry is listed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Parses a list grant: entries separated by commas or whitespace.
pub fn list_grant(value: Option<&str>) -> ListGrant {
    let mut out = ListGrant::default();
    let Some(value) = value else { return out };
    for entry in value
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|e| !e.is_empty())
    {
        match entry.split_once('/') {
            Some((owner, repo)) if is_name(owner) && (repo == "*" || is_name(repo)) => out
                .entries
                .push((owner.to_ascii_lowercase(), repo.to_ascii_lowercase())),
            _ => out.ignored.push(entry.to_string()),
        }
    }
    out
}

/// Compares a status or decision that came from outside, case-insensitively (`BLOCKED` = `blocked`).
pub fn same_status(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_are_exact() {
        assert_eq!(grant(Some("TRUE")), Grant::Granted);
        assert_eq!(grant(Some("yes")), Grant::Granted);
        assert_eq!(grant(Some("On")), Grant::Granted);
        assert_eq!(grant(Some("1")), Grant::Granted);
        assert_eq!(grant(Some("true ")), Grant::Unrecognised("true ".into()));
        assert_eq!(grant(Some("2")), Grant::Unrecognised("2".into()));
        assert_eq!(grant(Some("tru")), Grant::Unrecognised("tru".into()));
        assert_eq!(grant(Some("")), Grant::NotSet);
        assert_eq!(grant(None), Grant::NotSet);
        assert!(grant(Some("tru"))
            .note("X")
            .unwrap()
            .contains("not recognised"));
        assert!(grant(Some("TRUE")).note("X").is_none());
    }

    #[test]
    fn denials_are_coerced() {
        assert!(denial_switch(Some("1")));
        assert!(denial_switch(Some("true ")));
        assert!(denial_switch(Some("2")));
        assert!(denial_switch(Some("tru")));
        assert!(
            denial_switch(Some("0 ")),
            "an unrecognised falsy value still denies"
        );
        assert!(!denial_switch(Some("OFF")));
        assert!(!denial_switch(Some("no")));
        assert!(!denial_switch(Some("")));
        assert!(!denial_switch(None));
    }

    #[test]
    fn list_grants_keep_well_formed_entries() {
        let g = list_grant(Some("Acme/tools, other/*  bad  a/b/c ,*/x"));
        assert_eq!(
            g.entries,
            vec![
                ("acme".into(), "tools".into()),
                ("other".into(), "*".into())
            ]
        );
        assert_eq!(g.ignored, vec!["bad", "a/b/c", "*/x"]);
        assert!(g.covers("ACME", "Tools"));
        assert!(g.covers("other", "anything"));
        assert!(!g.covers("acme", "other"));
        assert!(list_grant(None).is_empty());
    }

    #[test]
    fn statuses_compare_case_insensitively() {
        assert!(same_status("BLOCKED", "blocked"));
        assert!(!same_status("block", "blocked"));
    }
}
