//! What a `git push` writes: the remote (named or a URL), where it really goes (push URLs after
//! rewriting, from the world), and each destination branch with the kind of update, from
//! refspecs (`src:dst`, `+src:dst`, `:dst`, `HEAD`, `refs/heads/x`; tags skipped), flags
//! (`--force`, `--force-with-lease`, `--delete`, `--mirror`, `--all`, `--tags`,
//! `--follow-tags`, `--dry-run`) and, with no refspec, the branch's push target.

use crate::git_args::GitCall;
use crate::world::{Destination, LookupError, PushTarget, World};
use branch_rules::PushKind;
use std::path::Path;

/// One destination branch of a push.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BranchUpdate {
    /// Short branch name; `None` when decided at run time.
    pub branch: Option<String>,
    pub kind: PushKind,
}

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
}

/// Long options of `git push` that take a separate value.
const VALUED_LONG: [&str; 5] = [
    "--push-option",
    "--receive-pack",
    "--exec",
    "--repo",
    "--signed",
];

/// Reads `git push` arguments (after the subcommand).
pub fn parse_push(call: &GitCall) -> PushArgs {
    let mut p = PushArgs::default();
    let mut operands: Vec<Option<String>> = Vec::new();
    let mut only_operands = false;
    let mut i = 0;
    let args = &call.args;
    while i < args.len() {
        let Some(v) = args[i].value.as_deref() else {
            operands.push(None);
            i += 1;
            continue;
        };
        if only_operands || !v.starts_with('-') || v == "-" {
            operands.push(Some(v.to_string()));
            i += 1;
            continue;
        }
        if v == "--" {
            only_operands = true;
            i += 1;
            continue;
        }
        if let Some(long) = v.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            match name {
                "force" | "force-with-lease" | "force-if-includes" => p.force = true,
                "delete" => p.delete = true,
                "mirror" => p.mirror = true,
                "all" | "branches" => p.all = true,
                "tags" => p.tags = true,
                "follow-tags" => p.follow_tags = true,
                "dry-run" => p.dry_run = true,
                "no-verify" => p.no_verify = true,
                "verify" => p.no_verify = false,
                "repo" => {
                    p.remote = Some(match long.split_once('=') {
                        Some((_, r)) => Some(r.to_string()),
                        None => {
                            i += 1;
                            args.get(i)
                                .and_then(|a| a.value.as_deref().map(String::from))
                        }
                    })
                }
                _ if VALUED_LONG.contains(&format!("--{name}").as_str()) && !long.contains('=') => {
                    i += 1
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        // A short cluster: `-f`, `-fu`, `-n`, `-d`, `-o <opt>` (takes the rest or the next).
        for (pos, c) in v[1..].char_indices() {
            match c {
                'f' => p.force = true,
                'd' => p.delete = true,
                'n' => p.dry_run = true,
                'o' => {
                    if v[1 + pos + 1..].is_empty() {
                        i += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
        i += 1;
    }
    let mut operands = operands.into_iter();
    if p.remote.is_none() {
        p.remote = operands.next();
    }
    p.refspecs = operands.collect();
    p
}

/// The short branch name of a destination ref, or `None` for something that is not a branch
/// (tags, other namespaces).
fn dst_branch(dst: &str) -> Option<String> {
    if let Some(b) = dst.strip_prefix("refs/heads/") {
        return Some(b.to_string());
    }
    if dst.starts_with("refs/") {
        return None;
    }
    Some(dst.to_string())
}

/// What the push plans to do, for one repository directory.
#[derive(Debug, Clone)]
pub struct PushPlan {
    pub args: PushArgs,
    /// The remote used (operand or default push's remote); `None` when dynamic.
    pub remote: Option<String>,
    /// Where the remote's push URLs go; an error when the remote could not be resolved.
    pub destinations: Result<Vec<Destination>, LookupError>,
    pub updates: Vec<BranchUpdate>,
    /// Why no branch is updated, when that is the case (dry run, refused default push).
    pub nothing: Option<String>,
}

/// Plans a push run in `dir` (`None`: the directory is decided at run time).
pub fn plan(call: &GitCall, dir: Option<&Path>, world: &dyn World) -> PushPlan {
    let args = parse_push(call);
    // The command's own config settings, which git reads last. One decided at run time that
    // could redirect the push leaves the destination unknown.
    let overrides: Vec<(String, String)> = call
        .config
        .iter()
        .filter_map(|c| Some((c.key.clone(), c.value.clone()?)))
        .filter(|(k, _)| !k.is_empty())
        .collect();
    let unknown_override = call.config.iter().any(|c| {
        c.key.is_empty()
            || (c.value.is_none()
                && ["remote.", "url.", "branch.", "push."]
                    .iter()
                    .any(|p| c.key.starts_with(p)))
    });
    let mut plan = PushPlan {
        args: args.clone(),
        remote: None,
        destinations: Ok(Vec::new()),
        updates: Vec::new(),
        nothing: None,
    };
    if args.dry_run {
        plan.nothing = Some("a dry run pushes nothing".into());
        return plan;
    }
    let Some(dir) = dir else {
        plan.destinations = Err(LookupError("the directory is decided at run time".into()));
        plan.remote = args.remote.clone().flatten();
        plan.updates = explicit_updates(&args, None);
        return plan;
    };
    let base_kind = if args.delete {
        PushKind::Delete
    } else if args.force || args.mirror {
        PushKind::Force
    } else {
        PushKind::Update
    };
    let remote = match &args.remote {
        Some(Some(r)) => Some(r.clone()),
        Some(None) => None,
        None => match world.default_push(dir, None, &overrides) {
            Ok(p) => Some(p.remote),
            Err(_) => Some("origin".to_string()),
        },
    };
    plan.remote = remote.clone();
    plan.destinations = match &remote {
        _ if unknown_override => Err(LookupError(
            "a config setting of the command is decided at run time".into(),
        )),
        Some(r) => world.push_destinations(dir, r, &overrides),
        None => Err(LookupError("the remote is decided at run time".into())),
    };
    if args.mirror || args.all {
        plan.updates = world
            .local_branches(dir)
            .into_iter()
            .map(|b| BranchUpdate {
                branch: Some(b),
                kind: base_kind,
            })
            .collect();
        return plan;
    }
    if !args.refspecs.is_empty() {
        let current = world.default_push(dir, remote.as_deref(), &overrides).ok();
        plan.updates = explicit_updates(
            &args,
            current.as_ref().and_then(|p| match &p.target {
                PushTarget::Branch { src, .. } => Some(src.clone()),
                _ => None,
            }),
        );
        return plan;
    }
    if args.tags && !args.follow_tags {
        plan.nothing = Some("only tags are pushed".into());
        return plan;
    }
    match world.default_push(dir, remote.as_deref(), &overrides) {
        Ok(p) => match p.target {
            PushTarget::Branch { dst, .. } => plan.updates.push(BranchUpdate {
                branch: dst_branch(&dst),
                kind: base_kind,
            }),
            PushTarget::ConfiguredRefspecs(specs) => {
                let a = PushArgs {
                    refspecs: specs.into_iter().map(Some).collect(),
                    ..args.clone()
                };
                plan.updates = explicit_updates(&a, None);
            }
            PushTarget::Mirror => {
                plan.updates = world
                    .local_branches(dir)
                    .into_iter()
                    .map(|b| BranchUpdate {
                        branch: Some(b),
                        kind: PushKind::Force,
                    })
                    .collect()
            }
            PushTarget::Matching { branches } => {
                plan.updates = branches
                    .into_iter()
                    .map(|b| BranchUpdate {
                        branch: Some(b),
                        kind: base_kind,
                    })
                    .collect()
            }
            PushTarget::Refused(why) => plan.nothing = Some(why),
        },
        Err(e) => {
            // The branch git would push is unknown: judge it as unknown.
            plan.updates.push(BranchUpdate {
                branch: None,
                kind: base_kind,
            });
            plan.nothing = None;
            plan.destinations = plan.destinations.and(Err(e));
        }
    }
    plan
}

/// Destination branches named by refspec operands. `current` is the current branch (for
/// `HEAD`).
fn explicit_updates(args: &PushArgs, current: Option<String>) -> Vec<BranchUpdate> {
    let mut out = Vec::new();
    for spec in &args.refspecs {
        let Some(spec) = spec else {
            out.push(BranchUpdate {
                branch: None,
                kind: if args.delete {
                    PushKind::Delete
                } else if args.force {
                    PushKind::Force
                } else {
                    PushKind::Update
                },
            });
            continue;
        };
        if spec == "tag" {
            // `git push origin tag v1`: the next operand is a tag.
            break;
        }
        let (forced, spec) = match spec.strip_prefix('+') {
            Some(s) => (true, s),
            None => (false, spec.as_str()),
        };
        let kind = if args.delete {
            PushKind::Delete
        } else if forced || args.force {
            PushKind::Force
        } else {
            PushKind::Update
        };
        let (src, dst) = match spec.split_once(':') {
            Some((s, d)) => (s, d),
            None => (spec, spec),
        };
        if src.is_empty() && !dst.is_empty() {
            out.push(BranchUpdate {
                branch: dst_branch(dst),
                kind: PushKind::Delete,
            });
            continue;
        }
        if src.starts_with("refs/tags/") && dst == src {
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
    use crate::git_args::parse_git;

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
        assert!(push("git push --force-with-lease=main:abc origin main").force);
        assert!(push("git push -o ci.skip origin main").refspecs == vec![Some("main".to_string())]);
        let updates = explicit_updates(&push("git push origin HEAD:develop abc:refs/heads/main :gone refs/tags/v1 v2:refs/tags/v2"), Some("cur".into()));
        let names: Vec<_> = updates.iter().map(|u| (u.branch.clone(), u.kind)).collect();
        assert_eq!(
            names,
            vec![
                (Some("develop".into()), PushKind::Update),
                (Some("main".into()), PushKind::Update),
                (Some("gone".into()), PushKind::Delete),
            ]
        );
        let u = explicit_updates(&push("git push origin HEAD"), Some("feat".into()));
        assert_eq!(u[0].branch.as_deref(), Some("feat"));
    }
}
