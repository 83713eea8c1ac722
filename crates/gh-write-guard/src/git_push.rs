//! What a `git push` writes: the remote (named or a URL), where it really goes (push URLs after
//! rewriting, from the world), and each destination branch with the kind of update, from
//! refspecs (`src:dst`, `+src:dst`, `:dst`, `HEAD`, `refs/heads/x`; tags skipped), flags
//! (`--force`, `--force-with-lease`, `--delete`, `--mirror`, `--all`, `--tags`,
//! `--follow-tags`, `--dry-run`) and, with no refspec, the branch's push target.

use crate::world::{Destination, LookupError, PushTarget, World};
use command_effects::git::GitCall;
use command_effects::git_push::{dst_branch, explicit_updates, explicit_updates_with};
pub use command_effects::git_push::{parse_push, BranchUpdate, PushArgs, PushKind};
use std::path::Path;

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
    /// Why the repository pushed to is decided at run time, when it is (the folder or the remote
    /// operand): G3's typed unknown (G3.run-time-repo).
    pub run_time: Option<String>,
}

/// Where HEAD is when a push runs, if a git command before it in the same command moved it
/// (`operations::collect`): `None` as the world reads it; `Some(Some(b))` on branch `b`;
/// `Some(None)` somewhere not known until the command runs.
pub type HeadMoved = Option<Option<String>>;

/// Plans a push run in `dir` (`None`: the directory is decided at run time).
pub fn plan(call: &GitCall, dir: Option<&Path>, world: &dyn World, head: &HeadMoved) -> PushPlan {
    let mut plan = plan_updates(call, dir, world, head);
    // A mirror push plans its deletions itself; `--prune` is rare: nothing more to read.
    let prunes = plan.args.prune && !plan.args.mirror && plan.nothing.is_none();
    if let Some(dir) = dir.filter(|_| prunes) {
        let (overrides, _) = command_overrides(call);
        if prunes_a_namespace(&plan, dir, &overrides, world) {
            let deleted = mirror_deletions(world, dir, plan.remote.as_deref(), &plan.updates);
            plan.updates.extend(deleted);
        }
    }
    plan
}

/// Whether a refspec sends a namespace (a wildcard, or `:` for the matching branches).
fn names_a_namespace(spec: &str) -> bool {
    spec.contains('*') || spec.trim_start_matches('+') == ":"
}

/// Whether a `--prune` push deletes remote branches: with `--all`, a wildcard or `:` refspec,
/// or a default push that sends a namespace (`matching`, configured wildcard refspecs); a
/// single branch has no counterparts to prune.
fn prunes_a_namespace(
    plan: &PushPlan,
    dir: &Path,
    overrides: &[(String, String)],
    world: &dyn World,
) -> bool {
    let a = &plan.args;
    if a.all || a.refspecs.iter().flatten().any(|s| names_a_namespace(s)) {
        return true;
    }
    if !a.refspecs.is_empty() {
        return false;
    }
    let default = world.default_push(dir, plan.remote.as_deref(), overrides);
    match default.map(|p| p.target) {
        Ok(PushTarget::Matching { .. }) => true,
        Ok(PushTarget::ConfiguredRefspecs(specs)) => specs.iter().any(|s| names_a_namespace(s)),
        _ => false,
    }
}

/// [`plan`] before `--prune`'s deletions.
fn plan_updates(
    call: &GitCall,
    dir: Option<&Path>,
    world: &dyn World,
    head: &HeadMoved,
) -> PushPlan {
    let args = parse_push(call);
    let (overrides, unknown_override) = command_overrides(call);
    let mut plan = PushPlan {
        args: args.clone(),
        remote: None,
        destinations: Ok(Vec::new()),
        updates: Vec::new(),
        nothing: None,
        run_time: None,
    };
    if args.dry_run {
        plan.nothing = Some("a dry run pushes nothing".into());
        return plan;
    }
    let Some(dir) = dir else {
        let why = "the directory is decided at run time";
        plan.run_time = Some(why.into());
        plan.destinations = Err(LookupError(why.into()));
        plan.remote = args.remote.clone().flatten();
        plan.updates = explicit_updates(&args, None, None);
        return plan;
    };
    // A directory the command makes (a clone, `mkdir`) holds no repository yet: its remotes,
    // HEAD and default push are not known until it runs.
    let made_by_command = !world.dir_exists(dir);
    let unknown_head: HeadMoved = Some(None);
    let head = if made_by_command { &unknown_head } else { head };
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
        None if made_by_command => None,
        None => match world.default_push(dir, None, &overrides) {
            Ok(p) => Some(p.remote),
            Err(_) => Some("origin".to_string()),
        },
    };
    plan.remote = remote.clone();
    // Only a remote operand decided at run time: a folder the command makes (a clone, `mkdir`
    // inside a checkout) has its remote from what made it; a renamed remote keeps origin's URLs;
    // a `-c` value decided at run time is refused by G4 already (G4.hooks-bypass).
    plan.run_time = match (&remote, &args.remote) {
        (None, Some(None)) => Some("the remote is decided at run time".into()),
        _ => None,
    };
    plan.destinations = match &remote {
        _ if unknown_override => Err(LookupError(
            "a config setting of the command is decided at run time".into(),
        )),
        Some(r) if made_by_command && names_a_remote(r) => Err(LookupError(format!(
            "{} does not exist yet: the remote `{r}` is not known until the command runs",
            dir.display()
        ))),
        Some(r) => world.push_destinations(dir, r, &overrides),
        None => Err(LookupError("the remote is decided at run time".into())),
    };
    if (args.mirror || args.all) && made_by_command {
        plan.updates.push(BranchUpdate {
            branch: None,
            kind: base_kind,
        });
        return plan;
    }
    if args.mirror || args.all {
        plan.updates = every_local_branch(world, dir, base_kind);
        if args.mirror {
            let deleted = mirror_deletions(world, dir, remote.as_deref(), &plan.updates);
            plan.updates.extend(deleted);
        }
        return plan;
    }
    let remote = remote.as_deref();
    if !args.refspecs.is_empty() {
        plan.updates = match head {
            None => refspec_updates(&args, dir, remote, &overrides, world),
            Some(current) => explicit_updates_with(&args, current.clone(), &mut || {
                Some(world.local_branches(dir))
            }),
        };
        return plan;
    }
    if args.tags && !args.follow_tags {
        plan.nothing = Some("only tags are pushed".into());
        return plan;
    }
    // What the configuration pushes whatever the branch (configured refspecs, `matching`,
    // `mirror`) still counts after a switch; only a branch's own push target moves with HEAD.
    let default = (!made_by_command && head.is_some())
        .then(|| world.default_push(dir, remote, &overrides).ok())
        .flatten();
    let branch_free = default
        .as_ref()
        .is_some_and(|p| !matches!(p.target, PushTarget::Branch { .. } | PushTarget::Refused(_)));
    // `upstream`/`tracking` push the switched-to branch to its own upstream, which a branch
    // made in the same command (`checkout -b fix origin/main`) only gets when it runs.
    let follows_upstream = default
        .as_ref()
        .is_some_and(|p| matches!(p.mode.as_deref(), Some("upstream" | "tracking")));
    match head {
        None => plan_default_push(&mut plan, dir, remote, &overrides, base_kind, world),
        _ if branch_free => plan_default_push(&mut plan, dir, remote, &overrides, base_kind, world),
        Some(Some(_)) if follows_upstream => plan.updates.push(BranchUpdate {
            branch: None,
            kind: base_kind,
        }),
        // The default push of the branch switched to (push.default `simple`/`current`).
        Some(Some(b)) => plan.updates.push(BranchUpdate {
            branch: Some(b.clone()),
            kind: base_kind,
        }),
        Some(None) => plan.updates.push(BranchUpdate {
            branch: None,
            kind: base_kind,
        }),
    }
    plan
}

/// Whether git reads `remote` as a remote's name (a bare word), not a URL or a path.
pub(crate) fn names_a_remote(remote: &str) -> bool {
    matches!(
        command_effects::git_url::parse_url(remote),
        command_effects::git_url::UrlLocation::Local
    ) && !remote.contains('/')
        && !remote.starts_with('.')
        && !remote.starts_with('~')
}

/// The command's own config settings (`-c`, `GIT_CONFIG_*`), which git reads last, and whether
/// one decided at run time could redirect the push (the destination is then unknown).
fn command_overrides(call: &GitCall) -> (Vec<(String, String)>, bool) {
    let overrides = call
        .config
        .iter()
        .filter_map(|c| Some((c.key.clone(), c.value.clone()?)))
        .filter(|(k, _)| !k.is_empty())
        .collect();
    let unknown = call.config.iter().any(|c| {
        c.key.is_empty()
            || (c.value.is_none()
                && ["remote.", "url.", "branch.", "push."]
                    .iter()
                    .any(|p| c.key.starts_with(p)))
    });
    (overrides, unknown)
}

/// Every local branch, updated as `kind` (`--all`, `--mirror`, `push.default=mirror`).
fn every_local_branch(world: &dyn World, dir: &Path, kind: PushKind) -> Vec<BranchUpdate> {
    world
        .local_branches(dir)
        .into_iter()
        .map(|b| BranchUpdate {
            branch: Some(b),
            kind,
        })
        .collect()
}

/// What a mirror push deletes besides what it forces: every branch of the remote with no local
/// branch of that name. The remote's branches are known only when the push runs: its
/// remote-tracking branches stand for them, and the protected-by-default names (`main`,
/// `master`, `develop`) are counted too, as the remote may hold them unfetched.
fn mirror_deletions(
    world: &dyn World,
    dir: &Path,
    remote: Option<&str>,
    pushed: &[BranchUpdate],
) -> Vec<BranchUpdate> {
    let tracked = remote.map(|r| world.remote_tracking_branches(dir, r));
    let mut out: Vec<BranchUpdate> = Vec::new();
    let names = tracked.into_iter().flatten();
    for b in names.chain(branch_rules::verdict::DEFAULT_PROTECTED.map(String::from)) {
        let local = pushed
            .iter()
            .any(|u| u.branch.as_deref() == Some(b.as_str()));
        if !local && !out.iter().any(|u| u.branch.as_deref() == Some(b.as_str())) {
            out.push(BranchUpdate {
                branch: Some(b),
                kind: PushKind::Delete,
            });
        }
    }
    out
}

/// The updates of explicit refspecs. `HEAD`/`@` is the branch HEAD points at (git2 in the target
/// repository); the default push's source only when HEAD cannot be read.
fn refspec_updates(
    args: &PushArgs,
    dir: &Path,
    remote: Option<&str>,
    overrides: &[(String, String)],
    world: &dyn World,
) -> Vec<BranchUpdate> {
    let current = world.head_branch(dir).or_else(|| {
        world
            .default_push(dir, remote, overrides)
            .ok()
            .and_then(|p| match p.target {
                PushTarget::Branch { src, .. } => Some(src),
                _ => None,
            })
    });
    explicit_updates_with(args, current, &mut || Some(world.local_branches(dir)))
}

/// The updates of a push with no refspec: what the default push (`push.default`, configured
/// `remote.<r>.push`, `mirror`) sends; an unknown default push is one branch decided at run time.
fn plan_default_push(
    plan: &mut PushPlan,
    dir: &Path,
    remote: Option<&str>,
    overrides: &[(String, String)],
    base_kind: PushKind,
    world: &dyn World,
) {
    match world.default_push(dir, remote, overrides) {
        Ok(p) => match p.target {
            PushTarget::Branch { dst, .. } => plan.updates.push(BranchUpdate {
                branch: dst_branch(&dst),
                kind: base_kind,
            }),
            PushTarget::ConfiguredRefspecs(specs) => {
                let a = PushArgs {
                    refspecs: specs.into_iter().map(Some).collect(),
                    ..plan.args.clone()
                };
                plan.updates =
                    explicit_updates_with(&a, None, &mut || Some(world.local_branches(dir)));
            }
            PushTarget::Mirror => {
                plan.updates = every_local_branch(world, dir, PushKind::Force);
                let deleted = mirror_deletions(world, dir, remote, &plan.updates);
                plan.updates.extend(deleted);
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
            let destinations = std::mem::replace(&mut plan.destinations, Ok(Vec::new()));
            plan.destinations = destinations.and(Err(e));
        }
    }
}
