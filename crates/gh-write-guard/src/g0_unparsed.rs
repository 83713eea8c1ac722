//! G0-unparsed: a command bash would reject as a syntax error is judged up to the error; if the
//! part it would not run mentions `git` or `gh`, the guard denies rather than guess. A view limit
//! that cut the walk short is treated the same way (parts were not visited), and so is a script
//! the command runs that lies past a read bound (G0.past-bound: more scripts deep, more scripts
//! or more bytes than are read): unknown, never unseen (issue 47).

use crate::analysis::Analysis;
use crate::finding::{Code, Finding};
use serde_json::json;

const REMEDY: &str =
    "Fix the shell syntax (quotes, brackets, heredoc delimiters) and run the command again.";

/// Whether `text` names `git` or `gh` as a word (not as part of `github` or `digit`).
pub fn mentions_git_or_gh(text: &str) -> bool {
    let bytes = text.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.';
    for needle in ["git", "gh"] {
        let mut from = 0;
        while let Some(pos) = text[from..].find(needle) {
            let start = from + pos;
            let end = start + needle.len();
            let before_ok = start == 0 || !is_word(bytes[start - 1]) || bytes[start - 1] == b'.';
            let after_ok =
                end >= bytes.len() || !is_word(bytes[end]) || text[end..].starts_with(".exe");
            if before_ok && after_ok {
                return true;
            }
            from = end;
        }
    }
    false
}

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for unit in a.units {
        if let Some(err) = &unit.parsed().error {
            let rest = unit
                .text
                .get(err.unparsed_from.min(unit.text.len())..)
                .unwrap_or("");
            if err.kind.is_limit() || mentions_git_or_gh(rest) {
                out.push(Finding::deny(
                    Code::G0Unparsed,
                    "could not be judged: the command has a syntax error where it runs git or gh",
                    REMEDY,
                    json!({"error": err.to_string(), "unparsed": rest, "source": format!("{:?}", unit.source)}),
                ));
            }
        }
        for nested in &unit.view().nested_errors {
            let text = unit
                .view()
                .origins
                .get(nested.origin)
                .map(|o| o.text.as_str())
                .unwrap_or("");
            let rest = text
                .get(nested.error.unparsed_from.min(text.len())..)
                .unwrap_or("");
            if nested.error.kind.is_limit() || mentions_git_or_gh(rest) {
                out.push(Finding::deny(
                    Code::G0Unparsed,
                    "could not be judged: a nested script has a syntax error where it runs git or gh",
                    REMEDY,
                    json!({"error": nested.error.to_string(), "unparsed": rest}),
                ));
            }
        }
        if let Some(err) = &unit.view().error {
            out.push(Finding::deny(
                Code::G0ViewLimit,
                format!("could not be judged: {err}"),
                "Split the command into smaller commands.",
                json!({"view_error": err.to_string()}),
            ));
        }
    }
    if let Some(s) = a.unread_scripts.iter().find(|s| s.past_bound) {
        out.push(Finding::deny(
            Code::G0PastBound,
            format!(
                "could not be judged: `{}` is not read ({})",
                s.path, s.cause
            ),
            "Run the innermost script directly, or shorten the chain of scripts.",
            json!({"unread_scripts": a.unread_scripts}),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_mentions() {
        assert!(mentions_git_or_gh("git push 'x"));
        assert!(mentions_git_or_gh("x; gh pr create"));
        assert!(mentions_git_or_gh("/usr/bin/git"));
        assert!(!mentions_git_or_gh("github digit ghost"));
        assert!(!mentions_git_or_gh("echo 'unclosed"));
    }
}
