//! The sub-codes of gh-write-guard's denies: one per way a requirement fires, the one place that
//! lists them. A deny reason starts with its code (`G4.rule: ...`), the audit record carries it
//! as `code`, `explain` prints it, fixtures pin it, and `spec/gh-write-guard.md` lists each once
//! (the `every_code_is_listed_once_in_the_spec` test keeps the two in step).

use crate::finding::Requirement;
use serde::Serialize;

/// Why a deny fired: `<requirement>.<kebab-name>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    /// A syntax error (in the command or a nested script) where the unrun part names git or gh,
    /// or a parse limit cut the walk short.
    G0Unparsed,
    /// The command view hit a limit before visiting every command.
    G0ViewLimit,
    /// Judging itself failed (panic, unreadable payload, watchdog): a Bash call is refused.
    G0Unjudged,
    /// A script the command runs lies past a read bound (depth, count, size, total): unknown.
    G0PastBound,
    /// Code chosen at run time (a script piped into a shell, `eval` of run-time text, a
    /// program the command computes) in a command that reaches git, gh, an HTTP client or a
    /// shell.
    G0Opaque,
    /// A GitHub write whose result is thrown away (`>/dev/null`, `|| true`, a discarding pipe).
    G1ResultHidden,
    /// A GraphQL mutation with a literal node id.
    G2NodeId,
    /// A GraphQL request whose document cannot be read (stdin, a file, a run-time word).
    G2UnreadableBody,
    /// A write aimed at another owner than origin's, with no grant covering it.
    G3OtherOwner,
    /// A write aimed at a repository decided at run time.
    G3RunTimeRepo,
    /// `gh pr merge --admin`.
    G4AdminMerge,
    /// `--no-verify`/`-n` or a `core.hooksPath` override on commit/merge/push/am/pull.
    G4HooksBypass,
    /// An API write to branch protection or rulesets.
    G4ProtectionWrite,
    /// A `gh ruleset` write.
    G4RulesetWrite,
    /// A branch update that one of the destination branch's rules blocks.
    G4Rule,
    /// A branch protected by default whose rules could not be read.
    G4FailClosed,
    /// A branch update whose branch is decided at run time.
    G4RunTimeBranch,
    /// A push to a protected-by-default (or run-time) branch whose destination is unknown.
    G4UnknownDestination,
    /// A hand-rolled GraphQL review-thread reply or resolve while a review helper is configured.
    G5ReviewThread,
    /// A hand-rolled REST reply to a review comment while a review helper is configured.
    G5CommentReply,
    /// A mutating git operation in a primary checkout.
    G6PrimaryCheckout,
    /// A mutating git operation on a checkout decided at run time, from a primary checkout.
    G6RunTimeCheckout,
    /// A wait loop with no bound.
    G7UnboundedWait,
}

impl Code {
    /// Every code, in requirement order.
    pub const ALL: [Code; 23] = [
        Code::G0Unparsed,
        Code::G0ViewLimit,
        Code::G0Unjudged,
        Code::G0PastBound,
        Code::G0Opaque,
        Code::G1ResultHidden,
        Code::G2NodeId,
        Code::G2UnreadableBody,
        Code::G3OtherOwner,
        Code::G3RunTimeRepo,
        Code::G4AdminMerge,
        Code::G4HooksBypass,
        Code::G4ProtectionWrite,
        Code::G4RulesetWrite,
        Code::G4Rule,
        Code::G4FailClosed,
        Code::G4RunTimeBranch,
        Code::G4UnknownDestination,
        Code::G5ReviewThread,
        Code::G5CommentReply,
        Code::G6PrimaryCheckout,
        Code::G6RunTimeCheckout,
        Code::G7UnboundedWait,
    ];

    /// The code as the reason, the audit record and the spec spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::G0Unparsed => "G0.unparsed",
            Code::G0ViewLimit => "G0.view-limit",
            Code::G0Unjudged => "G0.unjudged",
            Code::G0PastBound => "G0.past-bound",
            Code::G0Opaque => "G0.opaque",
            Code::G1ResultHidden => "G1.result-hidden",
            Code::G2NodeId => "G2.node-id",
            Code::G2UnreadableBody => "G2.unreadable-body",
            Code::G3OtherOwner => "G3.other-owner",
            Code::G3RunTimeRepo => "G3.run-time-repo",
            Code::G4AdminMerge => "G4.admin-merge",
            Code::G4HooksBypass => "G4.hooks-bypass",
            Code::G4ProtectionWrite => "G4.protection-write",
            Code::G4RulesetWrite => "G4.ruleset-write",
            Code::G4Rule => "G4.rule",
            Code::G4FailClosed => "G4.fail-closed",
            Code::G4RunTimeBranch => "G4.run-time-branch",
            Code::G4UnknownDestination => "G4.unknown-destination",
            Code::G5ReviewThread => "G5.review-thread",
            Code::G5CommentReply => "G5.comment-reply",
            Code::G6PrimaryCheckout => "G6.primary-checkout",
            Code::G6RunTimeCheckout => "G6.run-time-checkout",
            Code::G7UnboundedWait => "G7.unbounded-wait",
        }
    }

    /// The requirement the code belongs to.
    pub fn requirement(self) -> Requirement {
        let id = self.as_str().split('.').next().unwrap_or_default();
        Requirement::ALL
            .into_iter()
            .find(|r| r.id() == id)
            .unwrap_or(Requirement::G0)
    }

    /// The code spelled `s` (`"G4.rule"`), for fixtures that pin one.
    pub fn parse(s: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_kebab_names_under_their_requirement() {
        for c in Code::ALL {
            let (req, name) = c.as_str().split_once('.').expect("dotted");
            assert_eq!(req, c.requirement().id(), "{c}");
            assert!(
                !name.is_empty() && name.chars().all(|ch| ch.is_ascii_lowercase() || ch == '-'),
                "{c}"
            );
            assert_eq!(Code::parse(c.as_str()), Some(c));
        }
        assert_eq!(Code::parse("G4"), None);
    }

    #[test]
    fn every_code_is_listed_once_in_the_spec() {
        let spec = include_str!("../../../spec/gh-write-guard.md");
        let codes: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        let problems = safety_kernel::feedback::code_table_problems(spec, &codes);
        assert!(problems.is_empty(), "{problems:?}");
        // No code in the spec's table that the enum does not have.
        for line in spec.lines().filter(|l| l.starts_with("| `G")) {
            let code = line.split('`').nth(1).unwrap_or_default();
            assert!(
                Code::parse(code).is_some(),
                "unknown code {code} in the spec"
            );
        }
    }
}
