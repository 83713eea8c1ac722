//! git-subtree (contrib, shipped with most git packages): its subcommand and operands, read
//! with its option grammar (parse-options through `git rev-parse --parseopt`: a unique prefix
//! of a long option, `--opt=v` or `--opt v`, clusters of short ones). `push` runs
//! `git push <repository> <split>:refs/heads/<ref>`; `pull` and `add` fetch from a repository.

use crate::git::GitCall;

/// Its options that take a value, and all its long options.
const VALUED: [&str; 5] = ["prefix", "message", "annotate", "branch", "onto"];
const LONG: [&str; 10] = [
    "prefix",
    "message",
    "annotate",
    "branch",
    "onto",
    "squash",
    "rejoin",
    "ignore-joins",
    "quiet",
    "debug",
];
/// Short options that take a value (`-P`, `-m`, `-b`).
const SHORT_VALUED: [char; 3] = ['P', 'm', 'b'];

/// A `git subtree` call: its subcommand word and the operands after it (`None`: a word
/// decided at run time). A run-time word before the subcommand may be an option: skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subtree<'c> {
    pub sub: &'c str,
    pub operands: Vec<Option<&'c str>>,
}

/// `None` when `call` is not `git subtree <subcommand> ...` with a static subcommand.
pub fn parse<'c>(call: &'c GitCall<'_>) -> Option<Subtree<'c>> {
    if call.sub() != Some("subtree") {
        return None;
    }
    let mut operands: Vec<Option<&str>> = Vec::new();
    let mut words = call.args.iter().map(|w| w.value.as_deref());
    let mut options = true;
    while let Some(w) = words.next() {
        let takes_next = match w {
            Some("--") if options => {
                options = false;
                false
            }
            Some(o) if options && o.starts_with("--") && o.len() > 2 => {
                let name = &o[2..];
                let mut matches = LONG.iter().filter(|l| l.starts_with(name));
                let only = matches.next().filter(|_| matches.next().is_none());
                !o.contains('=') && only.is_some_and(|l| VALUED.contains(l))
            }
            // A short cluster: a valued letter takes the rest, or the next word when last.
            Some(o) if options && o.starts_with('-') && o.len() > 1 => {
                let letters = &o[1..];
                letters
                    .find(SHORT_VALUED)
                    .is_some_and(|i| i == letters.len() - 1)
            }
            w => {
                operands.push(w);
                false
            }
        };
        if takes_next {
            words.next();
        }
    }
    let at = operands.iter().position(|w| w.is_some())?;
    let sub = operands[at]?;
    Some(Subtree {
        sub,
        operands: operands.split_off(at + 1),
    })
}

/// `git subtree push <repository> [+][<rev>:]<ref>`: the repository and the remote branch
/// `<ref>` that git-subtree pushes to. git-subtree drops a leading `+` (it forces nothing) and
/// pushes `<split>:refs/heads/<ref>`, so `+main` is main and `refs/heads/x` a branch named
/// `refs/heads/x`.
pub fn push_target<'c>(call: &'c GitCall<'_>) -> Option<(Option<&'c str>, Option<&'c str>)> {
    let s = parse(call).filter(|s| s.sub == "push" && s.operands.len() >= 2)?;
    let branch = s.operands[1].map(|r| {
        let r = r.strip_prefix('+').unwrap_or(r);
        r.split_once(':').map_or(r, |(_, dst)| dst)
    });
    Some((s.operands[0], branch))
}

/// The repository a `git subtree` call fetches from or pushes to (`add <repository> <ref>`,
/// `pull <repository> <ref>`, `push <repository> <ref>`); `None` for the local subcommands
/// (`split`, `merge`, `add <commit>`).
pub fn repository<'c>(call: &'c GitCall<'_>) -> Option<Option<&'c str>> {
    let s = parse(call)?;
    match (s.sub, s.operands.len()) {
        ("push" | "pull", n) if n >= 1 => Some(s.operands[0]),
        ("add", n) if n >= 2 => Some(s.operands[0]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_call(cmd: &str, check: impl FnOnce(&GitCall<'_>)) {
        crate::git::with_last_call(cmd, check)
    }

    #[test]
    fn push_in_every_option_spelling() {
        for (cmd, repo, branch) in [
            (
                "git subtree push --prefix=docs origin main",
                "origin",
                "main",
            ),
            ("git subtree push -P docs origin main", "origin", "main"),
            (
                "git subtree -P docs push origin docs:main",
                "origin",
                "main",
            ),
            ("git subtree push --pre docs origin main", "origin", "main"),
            ("git subtree push -qP docs origin main", "origin", "main"),
            (
                "git subtree push -Pdocs -m 'x y' origin main",
                "origin",
                "main",
            ),
            ("git subtree $opt push -P docs u main", "u", "main"),
            (
                "git subtree push -P docs --squash -- origin main",
                "origin",
                "main",
            ),
        ] {
            with_call(cmd, |c| {
                assert_eq!(push_target(c), Some((Some(repo), Some(branch))), "{cmd}");
                assert_eq!(repository(c), Some(Some(repo)), "{cmd}");
            });
        }
        // git-subtree's own reading of the ref (real git-subtree pushed `+main` to main and
        // `refs/heads/x` to `refs/heads/refs/heads/x`).
        for (cmd, branch) in [
            ("git subtree push -P docs origin +main", "main"),
            ("git subtree push -P docs origin +HEAD:main", "main"),
            ("git subtree push -P docs origin x:+main", "+main"),
            (
                "git subtree push -P docs origin refs/heads/x",
                "refs/heads/x",
            ),
        ] {
            with_call(cmd, |c| {
                assert_eq!(
                    push_target(c),
                    Some((Some("origin"), Some(branch))),
                    "{cmd}"
                )
            });
        }
        with_call("git subtree push -P docs origin $B", |c| {
            assert_eq!(push_target(c), Some((Some("origin"), None)))
        });
    }

    #[test]
    fn local_subcommands_contact_nothing() {
        for cmd in [
            "git subtree split -P docs -b docs-only",
            "git subtree merge -P docs abc123",
            "git subtree add -P docs abc123",
            "git status",
        ] {
            with_call(cmd, |c| {
                assert_eq!(push_target(c), None, "{cmd}");
                assert_eq!(repository(c), None, "{cmd}");
            });
        }
        with_call("git subtree pull -P docs up main", |c| {
            assert_eq!(push_target(c), None);
            assert_eq!(repository(c), Some(Some("up")));
        });
    }
}
