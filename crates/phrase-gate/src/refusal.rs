//! A guard's refusal recorded in this session, and whether a final message names it.
//!
//! When gh-write-guard, model-tier-guard or integrity-signals refused a call, the refusal is a real
//! blocker: a final message that reports it and leaves the step to the maintainer is what the
//! refusal's own remedy asks for, so the egress gate must not block it (issue 19). The refusal is
//! read by the hook from the guards' own audit log, never from the message's claim; the message
//! only has to *name* it, so an unrelated hand-back in the same session stays red.

use serde::Serialize;

/// One recorded refusal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordedRefusal {
    /// The guard that refused (`gh-write-guard`, `model-tier-guard`, `integrity-signals`).
    pub binary: String,
    /// The requirement id its reason named (`G4`, `M2`, `I3`), when recorded. A sub-code
    /// (`G4.rule`) is named by its requirement too.
    pub requirement: Option<String>,
    /// The refused command, when the refusal was of a Bash call.
    pub command: Option<String>,
}

/// Words that say a step was refused, for "the push was refused" with no id or command quoted.
const REFUSAL_WORDS: &[&str] = &[
    "refused",
    "denied",
    "blocked",
    "rejected",
    "not allowed",
    "not permitted",
];

impl RecordedRefusal {
    /// What the gate record shows as the legitimiser (metadata only: ids, no command text).
    pub fn label(&self) -> String {
        match &self.requirement {
            Some(r) => format!("recorded refusal {r}"),
            None => format!("recorded refusal by {}", self.binary),
        }
    }

    /// Whether `normalised` (lower-cased, white space collapsed) names this refusal: its
    /// requirement id as a word (alone or as a sub-code's head: `g4`, `g4.rule:`), the guard's
    /// name, the refused command's leading words, or a refusal word together with the command's
    /// action word ("the push was refused").
    pub fn is_named_in(&self, normalised: &str) -> bool {
        if let Some(id) = &self.requirement {
            let requirement = id.split('.').next().unwrap_or(id);
            if contains_word(normalised, &requirement.to_lowercase()) {
                return true;
            }
        }
        if normalised.contains(&self.binary.to_lowercase()) {
            return true;
        }
        let Some(command) = &self.command else {
            return false;
        };
        let command = crate::normalise(command).into_owned();
        let words: Vec<&str> = command.split(' ').take(2).collect();
        let head = match words.as_slice() {
            [program, action] if !action.starts_with('-') => format!("{program} {action}"),
            [program, ..] => program.to_string(),
            [] => return false,
        };
        if head.len() >= 3 && normalised.contains(&head) {
            return true;
        }
        let action = words.get(1).filter(|a| a.len() >= 3 && !a.starts_with('-'));
        action.is_some_and(|a| {
            contains_word(normalised, a) && REFUSAL_WORDS.iter().any(|w| normalised.contains(w))
        })
    }
}

/// The labels of the refusals that excuse a hand-back in `normalised`: those the text names, and
/// only when every command the text quotes (a backtick span of two or more words) belongs to one
/// of them. So a refusal cannot excuse handing back an unrelated command ("`git push` was refused;
/// please run `cargo publish` yourself" stays red).
pub fn excusing(refusals: &[RecordedRefusal], normalised: &str) -> Vec<String> {
    let named: Vec<&RecordedRefusal> = refusals
        .iter()
        .filter(|r| r.is_named_in(normalised))
        .collect();
    let all_quoted_covered = quoted_commands(normalised).all(|q| named.iter().any(|r| r.covers(q)));
    if !all_quoted_covered {
        return Vec::new();
    }
    let mut labels: Vec<String> = named.iter().map(|r| r.label()).collect();
    labels.sort();
    labels.dedup();
    labels
}

/// Backtick spans of two or more words that start like a program (a letter, digit, `.` or `/`):
/// what a message quotes as a command. A fragment such as `|| ":"` is not one.
fn quoted_commands(text: &str) -> impl Iterator<Item = &str> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::trim)
        .filter(|q| q.contains(' '))
        .filter(|q| {
            q.chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '.' || c == '/')
        })
}

/// The first two words of a command.
fn head(command: &str) -> String {
    command.split(' ').take(2).collect::<Vec<_>>().join(" ")
}

impl RecordedRefusal {
    /// Whether a quoted command belongs to this refusal: the refused command holds its first two
    /// words, or it holds the refused command's. A refusal of no command (an Agent dispatch, a file
    /// write) covers what the message quotes about it.
    fn covers(&self, quoted: &str) -> bool {
        let Some(command) = &self.command else {
            return true;
        };
        let refused = crate::normalise(command);
        refused.contains(&head(quoted)) || quoted.contains(&head(&refused))
    }
}

/// `word` occurs in `text` with no letter or digit on either side.
fn contains_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g4(command: &str) -> RecordedRefusal {
        RecordedRefusal {
            binary: "gh-write-guard".into(),
            requirement: Some("G4".into()),
            command: Some(command.into()),
        }
    }

    #[test]
    fn named_by_id_guard_command_or_refused_action() {
        let r = g4("git push origin main");
        for text in [
            "g4 refused it, so it is yours",
            "g4.rule: the branch rules require a pull request",
            "refused (g4.fail-closed), so it is yours",
            "gh-write-guard stopped it",
            "i did not `git push origin main`",
            "the push to main was refused by the branch rules",
        ] {
            assert!(r.is_named_in(text), "{text}");
        }
        for text in [
            "please run `cargo publish` yourself",
            "g45 is another thing; the push is done",
            "the push went through",
        ] {
            assert!(!r.is_named_in(text), "{text}");
        }
    }

    #[test]
    fn a_refusal_without_a_command_is_named_by_id_or_guard() {
        let r = RecordedRefusal {
            binary: "model-tier-guard".into(),
            requirement: Some("M2".into()),
            command: None,
        };
        assert!(r.is_named_in("m2: the dispatch on that tier was refused"));
        assert!(r.is_named_in("m2.call-model: the dispatch on that tier was refused"));
        let coded = RecordedRefusal {
            requirement: Some("M2.call-model".into()),
            ..r.clone()
        };
        assert!(coded.is_named_in("m2: the dispatch was refused"));
        assert!(coded.is_named_in("m2.call-model: the dispatch was refused"));
        assert!(!coded.is_named_in("m22 was refused"));
        assert!(!r.is_named_in("the dispatch was refused"));
        assert_eq!(r.label(), "recorded refusal M2");
    }

    #[test]
    fn a_refusal_excuses_only_its_own_command() {
        let refusals = [g4("echo $(gh pr merge 1 --admin)")];
        let text = |t: &str| crate::normalise(t).into_owned();
        assert_eq!(
            excusing(
                &refusals,
                &text("G4 refused `gh pr merge 1 --admin`; please run it yourself.")
            ),
            vec!["recorded refusal G4"]
        );
        assert!(excusing(
            &refusals,
            &text("G4 refused the merge. Please run `cargo publish` yourself.")
        )
        .is_empty());
        assert!(excusing(&refusals, &text("Please run `cargo publish` yourself.")).is_empty());
        // Single words and shell fragments in backticks are not commands.
        assert_eq!(
            excusing(&refusals, &text("G4: failure hidden by `|| \":\"`.")).len(),
            1
        );
        assert_eq!(
            excusing(&refusals, &text("G4 refused it; `main` is protected.")).len(),
            1
        );
    }

    #[test]
    fn flags_do_not_count_as_the_action() {
        let r = g4("git -C /repo push");
        assert!(!r.is_named_in("the -c flag was refused"));
        assert!(r.is_named_in("a git command was refused"));
    }
}
