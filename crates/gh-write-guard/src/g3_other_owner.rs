//! G3: a write aimed at another owner than origin's is denied unless the maintainer granted it
//! (`GH_WRITE_GUARD_ALLOW` in the hook's environment: `owner/repo` or `owner/*`). Targets:
//! `-R/--repo` in every spelling, `GH_REPO`, `gh api repos/<owner>/<repo>/...`,
//! `gh pr create --head other:branch`, repository operands of `gh repo` writes, HTTP writes to
//! the API, and `git push` to a URL or remote naming another owner. No origin: G3 skips.

use crate::analysis::Analysis;
use crate::context::Context;
use crate::finding::{Code, Finding, Requirement};
use crate::git_push::PushPlan;
use crate::operations::{Op, OpKind};
use crate::world::{Destination, RepoSlug, World};
use command_effects::gh::GhArgs;
use command_effects::gh_api::{is_placeholder, rest_path, ApiCall};
use command_effects::git::GitCall;
use safety_kernel::ListGrant;
use serde_json::json;

/// A target named by a write: `owner/repo`, or unknown (decided at run time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Repo {
        owner: String,
        repo: String,
        via: String,
    },
    Unknown {
        via: String,
    },
}

pub use command_effects::repo::parse_repo;

fn push_value(out: &mut Vec<Target>, value: Option<&str>, via: &str) {
    match value {
        Some(v) => {
            if let Some((owner, repo)) = parse_repo(v) {
                out.push(Target::Repo {
                    owner,
                    repo,
                    via: via.to_string(),
                });
            }
        }
        None => out.push(Target::Unknown {
            via: via.to_string(),
        }),
    }
}

/// gh `repo` subcommands whose first operand names the repository written to. A fork is
/// counted as aimed at the repository it forks: on the wire it is `POST repos/<o>/<r>/forks`,
/// another owner's endpoint, and both readers must refuse it alike (issue 38's table).
const REPO_OPERAND_WRITES: [&str; 7] = [
    "create",
    "delete",
    "edit",
    "archive",
    "unarchive",
    "sync",
    "fork",
];

/// The targets of one write operation.
pub fn targets(op: &Op, a: &Analysis<'_>) -> Vec<Target> {
    let mut out = Vec::new();
    let inv = op.inv(a);
    match &op.kind {
        OpKind::Gh {
            args,
            api,
            write,
            runner_repo,
            ..
        } if *write => {
            // `sudo GH_REPO=o/r gh ...`: the runner's word, else the environment.
            let gh_repo = runner_repo.clone().or_else(|| {
                inv.env_value("GH_REPO").map(|e| {
                    e.value
                        .as_ref()
                        .and_then(|a| a.value.as_deref().map(String::from))
                })
            });
            match api {
                Some(api) => api_targets(api, gh_repo, &mut out),
                None => gh_targets(args, gh_repo, &mut out),
            }
        }
        OpKind::HttpWrite { url, .. } => {
            let path = rest_path(url);
            let mut parts = path.split('/');
            if parts.next() == Some("repos") {
                if let (Some(o), Some(r)) = (parts.next(), parts.next()) {
                    if !is_placeholder(o) && !is_placeholder(r) {
                        out.push(Target::Repo {
                            owner: o.into(),
                            repo: r.into(),
                            via: "API URL".into(),
                        });
                    }
                }
            }
        }
        // A subcommand decided at run time may be a push of these arguments: judged as one.
        OpKind::Git { call, .. } if call.may_push() => push_targets(op, call, a, &mut out),
        _ => {}
    }
    out
}

/// `gh api`: the endpoint's `repos/<owner>/<repo>`, or `GH_REPO` when gh fills the
/// `{owner}/{repo}` placeholders from it; a run-time endpoint is unknown.
fn api_targets(api: &ApiCall, gh_repo: Option<Option<String>>, out: &mut Vec<Target>) {
    let placeholders = api
        .rest_path_template()
        .is_some_and(|p| p.starts_with("repos/{owner}") || p.starts_with("repos/:owner"));
    if let Some((owner, repo)) = api.repo_target() {
        out.push(Target::Repo {
            owner,
            repo,
            via: "gh api endpoint".into(),
        });
    } else if api.endpoint_dynamic && !placeholders {
        out.push(Target::Unknown {
            via: "gh api endpoint".into(),
        });
    } else if placeholders {
        // gh fills `{owner}/{repo}` from GH_REPO when it is set.
        if let Some(v) = gh_repo {
            push_value(out, v.as_deref(), "GH_REPO for {owner}/{repo}");
        }
    }
}

/// Other gh writes: `-R/--repo` (else `GH_REPO`), `pr create --head owner:branch`, and the
/// repository operand of `gh repo` writes.
fn gh_targets(args: &GhArgs, gh_repo: Option<Option<String>>, out: &mut Vec<Target>) {
    for v in args.values(&["-R", "--repo"]) {
        push_value(out, v, "--repo");
    }
    if !args.has(&["-R", "--repo"]) {
        if let Some(v) = gh_repo {
            push_value(out, v.as_deref(), "GH_REPO");
        }
    }
    let top = args.top.as_deref().unwrap_or("");
    let sub = args.sub().unwrap_or("");
    if top == "pr" && sub == "create" {
        for h in args.values(&["-H", "--head"]) {
            match h {
                Some(h) => {
                    if let Some((owner, _)) = h.split_once(':') {
                        out.push(Target::Repo {
                            owner: owner.to_string(),
                            repo: "*".into(),
                            via: "--head".into(),
                        });
                    }
                }
                None => out.push(Target::Unknown {
                    via: "--head".into(),
                }),
            }
        }
    }
    if top == "repo" && REPO_OPERAND_WRITES.contains(&sub) {
        match args.positionals.first() {
            Some(Some(v)) if v.contains('/') => push_value(out, Some(v), "repository operand"),
            Some(None) => push_value(out, None, "repository operand"),
            _ => {}
        }
    }
}

/// gh commands that act on the repository of the folder they run in when no `-R`/`GH_REPO`
/// names one (its `origin` here; gh may prefer an `upstream` remote, a fork's parent).
const CURRENT_REPOSITORY: [&str; 10] = [
    "issue", "pr", "release", "label", "run", "workflow", "secret", "variable", "cache", "ruleset",
];

/// The repository a gh write acts on when it names none: the origin of the folder it runs in
/// (compared with the project's when the session started elsewhere: `cd` into a clone of
/// another owner's repository, then `gh issue create`).
fn implied_repository(op: &Op, a: &Analysis<'_>, dir: &std::path::Path) -> Option<Target> {
    let OpKind::Gh {
        args, api: None, ..
    } = &op.kind
    else {
        return None;
    };
    let top = args.top.as_deref()?;
    let scoped = CURRENT_REPOSITORY.contains(&top)
        || (top == "repo"
            && matches!(
                args.sub(),
                Some("edit" | "archive" | "unarchive" | "delete" | "rename" | "sync")
            )
            && args.positionals.is_empty());
    // Organisation- and user-level secrets and variables are not the repository's.
    if !scoped || args.has(&["-o", "--org", "-u", "--user"]) {
        return None;
    }
    let here = a.world.origin(dir)?;
    Some(Target::Repo {
        owner: here.owner,
        repo: here.repo,
        via: "the repository gh runs in".into(),
    })
}

/// `git push`: the GitHub repositories its push URLs name.
fn push_targets(op: &Op, call: &GitCall, a: &Analysis<'_>, out: &mut Vec<Target>) {
    plan_targets(&a.push_plan(op, call), out);
}

/// The GitHub repositories a push's plan sends to.
fn plan_targets(plan: &PushPlan, out: &mut Vec<Target>) {
    if plan.nothing.is_some() {
        return;
    }
    // Where it goes is decided at run time: it may be anyone's repository (issue 42: `git push
    // "$URL" feat` and `cd "$D" && git push origin feat` were allowed unseen).
    if let Some(why) = &plan.run_time {
        out.push(Target::Unknown {
            via: format!("git push: {why}"),
        });
        return;
    }
    for d in plan.destinations.iter().flatten() {
        if let Destination::GitHub(slug) = d {
            out.push(Target::Repo {
                owner: slug.owner.clone(),
                repo: slug.repo.clone(),
                via: format!("git push to {}", plan.remote.as_deref().unwrap_or("?")),
            });
        }
    }
}

/// The note for grant entries G3 ignored (no `owner/repo`), if any.
fn ignored_note(grant: &ListGrant) -> Option<Finding> {
    (!grant.ignored.is_empty()).then(|| {
        Finding::note(
            Requirement::G3,
            "GH_WRITE_GUARD_ALLOW entries without owner/repo were ignored",
            json!({"ignored": grant.ignored}),
        )
    })
}

/// The maintainer's repository: the origin of the project the session started in (the hook's
/// cwd follows the agent's `cd`s, into a clone of anyone's repository).
fn project_origin(cx: &Context, world: &dyn World) -> Option<RepoSlug> {
    cx.env("CLAUDE_PROJECT_DIR")
        .filter(|p| p.starts_with('/'))
        .and_then(|p| world.origin(std::path::Path::new(p)))
}

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let grant = a.cx.owner_grant();
    let mut out: Vec<Finding> = ignored_note(&grant).into_iter().collect();
    // Else the origin of the repository the write acts in.
    let project = project_origin(a.cx, a.world);
    for op in a.ops() {
        let may_push = matches!(&op.kind, OpKind::Git { call, .. } if call.may_push());
        if !op.is_github_write() && !may_push {
            continue;
        }
        let dir = op.dir.clone().unwrap_or_else(|| a.cx.cwd.clone());
        let Some(origin) = project.clone().or_else(|| a.world.origin(&dir)) else {
            continue;
        };
        let mut ts = targets(op, a);
        if ts.is_empty() && project.is_some() {
            ts.extend(implied_repository(op, a, &dir));
        }
        judge_targets(ts, &op.label(), &origin, &grant, &mut out);
    }
    out
}

/// G3 over one push of an exec's literal argv ([`crate::exec_argv`]) acting in `dir` (`None`:
/// decided at run time, read as the cwd), with its plan: what [`check`] finds for it.
pub(crate) fn check_push(
    cx: &Context,
    world: &dyn World,
    dir: Option<&std::path::Path>,
    plan: &PushPlan,
    label: &str,
) -> Vec<Finding> {
    let grant = cx.owner_grant();
    let mut out: Vec<Finding> = ignored_note(&grant).into_iter().collect();
    let dir = dir.unwrap_or(&cx.cwd);
    let Some(origin) = project_origin(cx, world).or_else(|| world.origin(dir)) else {
        return out;
    };
    let mut ts = Vec::new();
    plan_targets(plan, &mut ts);
    judge_targets(ts, label, &origin, &grant, &mut out);
    out
}

/// G3 over one API call read off the wire ([`crate::wire_api`]): the repository its endpoint
/// names against the maintainer's, as [`check`] judges the same `gh api` call.
pub(crate) fn check_api(
    cx: &Context,
    world: &dyn World,
    api: &ApiCall,
    label: &str,
) -> Vec<Finding> {
    let grant = cx.owner_grant();
    let mut out: Vec<Finding> = ignored_note(&grant).into_iter().collect();
    let Some(origin) = project_origin(cx, world).or_else(|| world.origin(&cx.cwd)) else {
        return out;
    };
    let mut ts = Vec::new();
    api_targets(api, None, &mut ts);
    judge_targets(ts, label, &origin, &grant, &mut out);
    out
}

/// G3 over the node ids a GraphQL mutation read off the wire names, each with the repository
/// GitHub said it belongs to (`(id, owner, repo)`): judged as targets, as [`check_api`] judges
/// the repository a REST endpoint names.
pub(crate) fn check_ids(
    cx: &Context,
    world: &dyn World,
    ids: &[(String, String, String)],
    label: &str,
) -> Vec<Finding> {
    if ids.is_empty() {
        return Vec::new();
    }
    let Some(origin) = project_origin(cx, world).or_else(|| world.origin(&cx.cwd)) else {
        return Vec::new();
    };
    let ts = ids
        .iter()
        .map(|(id, owner, repo)| Target::Repo {
            owner: owner.clone(),
            repo: repo.clone(),
            via: format!("node id {id}"),
        })
        .collect();
    let mut out = Vec::new();
    judge_targets(ts, label, &origin, &cx.owner_grant(), &mut out);
    out
}

/// Each target of one write (`label`) against the maintainer's repository `origin`: another
/// owner's is refused unless the grant covers it, a run-time one is refused.
fn judge_targets(
    ts: Vec<Target>,
    label: &str,
    origin: &RepoSlug,
    grant: &ListGrant,
    out: &mut Vec<Finding>,
) {
    for t in ts {
        match t {
            Target::Repo { owner, repo, via } => {
                if owner.eq_ignore_ascii_case(&origin.owner) {
                    continue;
                }
                let covered = if repo == "*" {
                    grant
                        .entries
                        .iter()
                        .any(|(o, _)| o.eq_ignore_ascii_case(&owner))
                } else {
                    grant.covers(&owner, &repo)
                };
                if covered {
                    out.push(Finding::note(
                        Requirement::G3,
                        format!("write to {owner}/{repo} allowed by GH_WRITE_GUARD_ALLOW"),
                        json!({"target": format!("{owner}/{repo}"), "via": via}),
                    ));
                    continue;
                }
                out.push(Finding::deny(
                    Code::G3OtherOwner,
                    format!(
                        "{label} aimed at {owner}/{repo}, another owner than origin's ({})",
                        origin.owner
                    ),
                    format!("Only the maintainer can allow this, by adding {owner}/{repo} (or {owner}/*) to GH_WRITE_GUARD_ALLOW in the environment the session is launched with; the agent cannot grant itself."),
                    json!({"target": format!("{owner}/{repo}"), "via": via, "origin": origin.to_string()}),
                ));
            }
            Target::Unknown { via } => out.push(Finding::deny(
                Code::G3RunTimeRepo,
                format!("{label} aimed at a repository decided at run time ({via})"),
                "Name the repository literally so its owner can be checked.",
                json!({"via": via, "origin": origin.to_string()}),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_values() {
        assert_eq!(parse_repo("o/r"), Some(("o".into(), "r".into())));
        assert_eq!(parse_repo("github.com/o/r"), Some(("o".into(), "r".into())));
        assert_eq!(
            parse_repo("https://github.com/o/r.git"),
            Some(("o".into(), "r".into()))
        );
        assert_eq!(parse_repo("{owner}/{repo}"), None);
        assert_eq!(parse_repo("name"), None);
    }
}
