//! K4: coarse feedback to the model.
//!
//! The model sees a verb and one short sentence: the requirement id, the refused shape in plain
//! words and the remedy. Everything else (patterns, tables, lookups) goes to the audit log only.

use crate::disposition::{Disposition, Label};

/// Longest reason the model sees.
pub const MAX_REASON_CHARS: usize = 400;

/// The first word the model sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// The action was stopped.
    Interrupt,
    /// The action waits for a check.
    Verify,
    /// The action goes ahead in a weaker form.
    Fallback,
}

impl Verb {
    /// The verb as printed (upper case).
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Interrupt => "INTERRUPT",
            Verb::Verify => "VERIFY",
            Verb::Fallback => "FALLBACK",
        }
    }
}

/// The two strings the model may see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coarse {
    /// What happened to the action.
    pub verb: Verb,
    /// The requirement id, the refused shape and the remedy, bounded.
    pub sentence: String,
}

/// Maps a disposition and its one sentence to what the model sees. An allow says nothing.
pub fn coarsen(disposition: &Disposition, sentence: &str) -> Option<Coarse> {
    let verb = match disposition.label() {
        Label::Allow => return None,
        Label::Fallback => Verb::Fallback,
        Label::Verify => Verb::Verify,
        Label::Halt | Label::HaltTainted => Verb::Interrupt,
    };
    Some(Coarse {
        verb,
        sentence: clip_reason(sentence),
    })
}

/// Builds a deny reason: `"<ID>: <refused>. <remedy>"`, collapsed to one line and clipped.
pub fn reason(requirement: &str, refused: &str, remedy: &str) -> String {
    let refused = refused.trim().trim_end_matches('.');
    clip_reason(&format!("{requirement}: {refused}. {}", remedy.trim()))
}

/// The requirement a deny's sub-code belongs to: `M2.call-model` → `M2` (a bare `M2` is its own).
/// A sub-code is `<requirement>.<kebab-name>`; the reason starts with it ([`reason`]).
pub fn code_requirement(code: &str) -> &str {
    code.split_once('.').map_or(code, |(r, _)| r)
}

/// The problems with a spec's code table: each of `codes` must be listed exactly once, as a row
/// that starts `` | `<code>` | ``, and no code may be in `codes` twice. Empty when it holds.
pub fn code_table_problems(spec: &str, codes: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    for (i, code) in codes.iter().enumerate() {
        let rows = spec.matches(&format!("| `{code}` |")).count();
        if rows != 1 {
            problems.push(format!("{code} has {rows} rows in the spec's code table"));
        }
        if codes[..i].contains(code) {
            problems.push(format!("{code} is listed twice"));
        }
    }
    problems
}

/// Collapses whitespace and clips to [`MAX_REASON_CHARS`] on a character boundary.
pub fn clip_reason(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let out = if one_line.chars().count() <= MAX_REASON_CHARS {
        one_line
    } else {
        let mut out: String = one_line.chars().take(MAX_REASON_CHARS - 3).collect();
        out.push_str("...");
        out
    };
    #[cfg(feature = "reason-capture")]
    capture::keep(&out);
    out
}

/// Test-only (feature `reason-capture`): every reason [`clip_reason`] built, in order, so a test
/// can collect the reasons a guard gives by replaying its fixtures instead of keeping a list.
#[cfg(feature = "reason-capture")]
pub mod capture {
    use std::sync::Mutex;

    static KEPT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    /// A bound, so a long-running process with the feature on cannot grow without end.
    const MAX_KEPT: usize = 100_000;

    pub(super) fn keep(reason: &str) {
        if let Ok(mut kept) = KEPT.lock() {
            if kept.len() < MAX_KEPT {
                kept.push(reason.to_string());
            }
        }
    }

    /// The reasons kept since the last call, oldest first.
    pub fn take() -> Vec<String> {
        KEPT.lock()
            .map(|mut kept| std::mem::take(&mut *kept))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_tables_list_each_code_once() {
        let spec =
            "| code | fires when |\n|---|---|\n| `M2.a` | x |\n| `M2.b` | y |\n| `M2.b` | z |\n";
        assert!(code_table_problems(spec, &["M2.a"]).is_empty());
        let problems = code_table_problems(spec, &["M2.a", "M2.b", "M2.c", "M2.a"]);
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].starts_with("M2.b has 2 rows"));
        assert!(problems[1].starts_with("M2.c has 0 rows"));
        assert!(problems[2].contains("listed twice"));
    }

    #[test]
    fn a_code_belongs_to_the_requirement_before_its_dot() {
        assert_eq!(code_requirement("M2.call-model"), "M2");
        assert_eq!(code_requirement("M2"), "M2");
    }

    #[test]
    fn allow_says_nothing() {
        assert_eq!(coarsen(&Disposition::allow(), "x"), None);
    }

    #[test]
    fn verbs_follow_labels() {
        assert_eq!(
            coarsen(&Disposition::halt("r"), "s").unwrap().verb,
            Verb::Interrupt
        );
        assert_eq!(
            coarsen(&Disposition::new(Label::Verify), "s").unwrap().verb,
            Verb::Verify
        );
        assert_eq!(
            coarsen(&Disposition::allow().tainted(), "s").unwrap().verb,
            Verb::Interrupt
        );
        assert_eq!(Verb::Fallback.as_str(), "FALLBACK");
    }

    #[test]
    fn reasons_are_one_short_line() {
        let r = reason(
            "G4",
            "push to a protected branch.\n",
            "Open a pull request.",
        );
        assert_eq!(r, "G4: push to a protected branch. Open a pull request.");
        let long = reason("E1", &"word ".repeat(200), "Fix it.");
        assert!(long.chars().count() <= MAX_REASON_CHARS);
        assert!(long.starts_with("E1: "));
    }
}
