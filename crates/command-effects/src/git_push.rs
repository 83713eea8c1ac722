//! The flags and operands of a `git push`, read with git's option grammar
//! ([`crate::git_options::PUSH`]: unique prefixes, `--no-X`, last one wins).

use crate::git::GitCall;
use crate::git_options::{self, PUSH};

/// The flags and operands of a `git push`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushArgs {
    /// The repository operand: `None` when absent, `Some(None)` when dynamic.
    pub remote: Option<Option<String>>,
    /// Refspec operands (`None`: dynamic).
    pub refspecs: Vec<Option<String>>,
    pub force: bool,
    pub delete: bool,
    pub mirror: bool,
    pub all: bool,
    pub tags: bool,
    pub follow_tags: bool,
    pub dry_run: bool,
    pub no_verify: bool,
    /// `--help`/`-h`: git shows help and pushes nothing.
    pub help: bool,
    /// A word git rejects (unknown or ambiguous option): git pushes nothing. Kept for the
    /// evidence; guards may still judge the rest.
    pub rejected: Vec<String>,
    /// A run-time word stood where an option could be (`git push "$F" origin main`).
    pub dynamic_option: bool,
}

/// Reads `git push` arguments (after the subcommand).
pub fn parse_push(call: &GitCall) -> PushArgs {
    let p = git_options::parse(PUSH, &call.args);
    let on = |long: &str| p.flag(long) == Some(true);
    let mut out = PushArgs {
        force: on("force")
            || p.last("force-with-lease").is_some_and(|g| !g.negated)
            || on("force-if-includes"),
        delete: on("delete"),
        mirror: on("mirror"),
        all: on("all") || on("branches"),
        tags: on("tags"),
        follow_tags: on("follow-tags"),
        dry_run: on("dry-run"),
        no_verify: p.flag("verify") == Some(false),
        help: on("help"),
        rejected: p.rejected.clone(),
        dynamic_option: p.dynamic_option,
        ..Default::default()
    };
    if let Some(g) = p.last("repo").filter(|g| !g.negated) {
        out.remote = g.value.clone();
    }
    let mut operands = p.operands.into_iter();
    if out.remote.is_none() {
        out.remote = operands.next();
    }
    out.refspecs = operands.collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::parse_git;

    fn push(cmd: &str) -> PushArgs {
        let p = shell_syntax::parse(cmd);
        let v = shell_syntax::commands(&p);
        parse_push(&parse_git(&v.invocations[0]))
    }

    #[test]
    fn flags_and_operands() {
        let p = push("git push -fu origin +HEAD:main :old");
        assert!(p.force);
        assert_eq!(p.remote, Some(Some("origin".into())));
        assert_eq!(p.refspecs.len(), 2);
        assert!(push("git push -n origin main").dry_run);
        assert!(!push("git push --dry-run --no-dry-run origin main").dry_run);
        assert!(push("git push --force-with-lease=main:abc origin main").force);
        assert!(push("git push --force-w origin main").force);
        assert!(push("git push --mirro origin").mirror);
        assert!(push("git push --no-verif origin main").no_verify);
        assert!(!push("git push --no-verify --verify origin main").no_verify);
        assert_eq!(
            push("git push -o ci.skip origin main").refspecs,
            vec![Some("main".to_string())]
        );
        assert_eq!(
            push("git push --repo=up main").remote,
            Some(Some("up".into()))
        );
    }
}
