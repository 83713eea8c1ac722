//! The flags and operands of a `git push`, read with git's option grammar
//! ([`crate::git_options::PUSH`]: unique prefixes, `--no-X`, last one wins), and the branches
//! its refspecs update as git resolves them ([`explicit_updates`]).

use crate::git::GitCall;
use crate::git_options::{self, PUSH};
use primitives::wildcard::{Dialect, Wildcard};
use serde::{Deserialize, Serialize};

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
    /// `--prune`: remote branches with no local counterpart in the pushed namespace go.
    pub prune: bool,
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
        prune: on("prune"),
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

/// What a push does to one destination branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PushKind {
    /// A fast-forward (or not known to be anything else) update of an existing branch.
    Update,
    /// A forced update (`--force`, `+src:dst`, `--force-with-lease`) or a `--mirror` push.
    Force,
    /// Deleting the branch (`--delete`, `:dst`).
    Delete,
    /// Creating a branch that does not exist yet.
    Create,
}

/// One destination branch of a push.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BranchUpdate {
    /// Short branch name; `None` when decided at run time.
    pub branch: Option<String>,
    pub kind: PushKind,
}

/// The short branch name of a destination ref, or `None` for something that is not a branch
/// (tags, other namespaces).
pub fn dst_branch(dst: &str) -> Option<String> {
    if let Some(b) = dst
        .strip_prefix("refs/heads/")
        .or_else(|| dst.strip_prefix("heads/"))
    {
        return Some(b.to_string());
    }
    if dst.starts_with("refs/") {
        return None;
    }
    Some(dst.to_string())
}

/// Every local branch (`pattern`: those it matches) as a destination; without the list of local
/// branches, one branch decided at run time.
fn every_local(
    out: &mut Vec<BranchUpdate>,
    locals: Option<&[String]>,
    kind: PushKind,
    pattern: Option<&str>,
) {
    match locals {
        Some(ls) => {
            // `*` in a refspec matches any run of characters (slashes too).
            let wanted = pattern.map(|p| Wildcard::new(p, Dialect::Star));
            out.extend(
                ls.iter()
                    .filter(|b| wanted.as_ref().is_none_or(|w| w.is_match(b)))
                    .map(|b| BranchUpdate {
                        branch: Some(b.clone()),
                        kind,
                    }),
            )
        }
        None => out.push(BranchUpdate { branch: None, kind }),
    }
}

/// Destination branches named by refspec operands, as git resolves them: `HEAD`/`@` is the
/// current branch, `heads/x` is `refs/heads/x`, `:` and `+:` push the matching branches, a
/// wildcard (`refs/heads/*:refs/heads/*`) every local branch it matches. `current` is the
/// current branch; `locals` the local branches (`None`: not known, so a wildcard or `:` counts
/// as a branch decided at run time).
pub fn explicit_updates(
    args: &PushArgs,
    current: Option<String>,
    locals: Option<&[String]>,
) -> Vec<BranchUpdate> {
    explicit_updates_with(args, current, &mut || locals.map(<[String]>::to_vec))
}

/// [`explicit_updates`] with the local branches listed only when a refspec needs them (`:` or
/// a wildcard): listing them reads every loose ref of the repository, and most pushes name
/// their branch.
pub fn explicit_updates_with(
    args: &PushArgs,
    current: Option<String>,
    locals: &mut dyn FnMut() -> Option<Vec<String>>,
) -> Vec<BranchUpdate> {
    let mut listed: Option<Option<Vec<String>>> = None;
    let base = |forced: bool| {
        if args.delete {
            PushKind::Delete
        } else if forced || args.force {
            PushKind::Force
        } else {
            PushKind::Update
        }
    };
    let mut out = Vec::new();
    let mut skip_tag = false;
    for spec in &args.refspecs {
        let Some(spec) = spec else {
            out.push(BranchUpdate {
                branch: None,
                kind: base(false),
            });
            continue;
        };
        if spec == "tag" {
            // `git push origin tag v1 main`: the next operand is a tag, the rest are refspecs.
            skip_tag = true;
            continue;
        }
        if std::mem::take(&mut skip_tag) {
            continue;
        }
        let (forced, spec) = match spec.strip_prefix('+') {
            Some(s) => (true, s),
            None => (false, spec.as_str()),
        };
        let kind = base(forced);
        let (src, dst) = match spec.split_once(':') {
            Some((s, d)) => (s, d),
            None => (spec, spec),
        };
        if src.is_empty() && dst.is_empty() {
            // `:`: every branch that exists on both sides.
            let locals = listed.get_or_insert_with(&mut *locals).as_deref();
            every_local(&mut out, locals, kind, None);
            continue;
        }
        if src.is_empty() {
            out.push(BranchUpdate {
                branch: dst_branch(dst),
                kind: PushKind::Delete,
            });
            continue;
        }
        if src.starts_with("refs/tags/") && dst == src {
            continue;
        }
        if dst.contains('*') {
            let pattern = dst_branch(dst);
            match pattern {
                Some(p) => {
                    let locals = listed.get_or_insert_with(&mut *locals).as_deref();
                    every_local(&mut out, locals, kind, Some(&p))
                }
                None => continue,
            }
            continue;
        }
        let dst = if dst == "HEAD" || dst == "@" {
            match &current {
                Some(c) => c.clone(),
                None => {
                    out.push(BranchUpdate { branch: None, kind });
                    continue;
                }
            }
        } else {
            dst.to_string()
        };
        if let Some(b) = dst_branch(&dst) {
            if !b.is_empty() {
                out.push(BranchUpdate {
                    branch: Some(b),
                    kind,
                });
            }
        }
    }
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

    #[test]
    fn refspecs_name_branches() {
        let updates = explicit_updates(&push("git push origin HEAD:develop abc:refs/heads/main :gone refs/tags/v1 v2:refs/tags/v2"), Some("cur".into()), None);
        let names: Vec<_> = updates.iter().map(|u| (u.branch.clone(), u.kind)).collect();
        assert_eq!(
            names,
            vec![
                (Some("develop".into()), PushKind::Update),
                (Some("main".into()), PushKind::Update),
                (Some("gone".into()), PushKind::Delete),
            ]
        );
        let u = explicit_updates(&push("git push origin HEAD"), Some("feat".into()), None);
        assert_eq!(u[0].branch.as_deref(), Some("feat"));
        let locals = ["main".to_string(), "feat/x".to_string()];
        let u = explicit_updates(&push("git push origin :"), None, Some(&locals));
        assert_eq!(u.len(), 2);
        let u = explicit_updates(
            &push("git push origin 'refs/heads/feat/*:refs/heads/feat/*'"),
            None,
            Some(&locals),
        );
        assert_eq!(u[0].branch.as_deref(), Some("feat/x"));
        let u = explicit_updates(
            &push("git push origin HEAD:heads/main"),
            Some("f".into()),
            None,
        );
        assert_eq!(u[0].branch.as_deref(), Some("main"));
    }

    #[test]
    fn the_local_branches_are_listed_only_for_a_refspec_that_needs_them() {
        let locals = || vec!["main".to_string(), "feat/x".to_string()];
        for (cmd, listed, branches) in [
            ("git push origin HEAD main:dev +x:y :gone", 0, 4),
            ("git push origin tag ':' main", 0, 1),
            ("git push origin :", 1, 2),
            (
                "git push origin +: 'refs/heads/*:refs/heads/*' 'feat/*:feat/*'",
                1,
                5,
            ),
        ] {
            let mut calls = 0;
            let u = explicit_updates_with(&push(cmd), Some("cur".into()), &mut || {
                calls += 1;
                Some(locals())
            });
            assert_eq!((calls, u.len()), (listed, branches), "{cmd}: {u:?}");
            let eager = explicit_updates(&push(cmd), Some("cur".into()), Some(&locals()));
            assert_eq!(u, eager, "{cmd}");
        }
    }
}
