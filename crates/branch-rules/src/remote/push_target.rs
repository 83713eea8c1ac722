//! What `git push [<remote>]` without a refspec pushes, decided as git's `builtin/push.c`
//! decides it: the remote (`branch.<b>.pushRemote`, `remote.pushDefault`, `branch.<b>.remote`,
//! `origin`), then `remote.<r>.mirror`, configured `remote.<r>.push` refspecs, and finally
//! `push.default` (`simple`, `upstream`, `current`, `matching`, `nothing`) with
//! `push.autoSetupRemote`.

use super::config_view::{ConfigOverrides, ConfigView, RepoConfig};
use super::{current_branch, RemoteError};
use git2::Repository;

/// The remote a default push goes to and what it pushes there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultPush {
    /// The remote name (or the URL given in its place).
    pub remote: String,
    pub target: PushTarget,
    /// `push.default` as configured, in lower case (`None`: unset, git's `simple`): after a
    /// branch switch, `upstream`/`tracking` push the new branch to its own upstream.
    pub mode: Option<String>,
}

/// What a push with no refspec sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushTarget {
    /// The local branch `src` to the remote branch `dst` (both short names when they are
    /// branches; `dst` is the upstream's configured name as written otherwise).
    Branch { src: String, dst: String },
    /// The remote's configured `remote.<r>.push` refspecs, pushed as if given on the command line.
    ConfiguredRefspecs(Vec<String>),
    /// `remote.<r>.mirror`: every ref, forced, deletions included.
    Mirror,
    /// `push.default = matching`: every local branch that also exists on the remote; the list is
    /// every local branch (which of them exist remotely is not known without the network).
    Matching { branches: Vec<String> },
    /// git refuses to push (detached HEAD, no upstream, `nothing`, ...): nothing is written.
    Refused(String),
}

/// Resolves the default push of the repository's current branch. `explicit_remote` is the
/// remote named on the command line (`git push origin`), if any.
pub fn default_push(
    repo: &Repository,
    explicit_remote: Option<&str>,
) -> Result<DefaultPush, RemoteError> {
    default_push_with(repo, explicit_remote, &ConfigOverrides::none())
}

/// [`default_push`] for a git command with its own config overrides (`git -c push.default=...`).
pub fn default_push_with(
    repo: &Repository,
    explicit_remote: Option<&str>,
    overrides: &ConfigOverrides,
) -> Result<DefaultPush, RemoteError> {
    default_push_in(repo, &RepoConfig::read(repo)?, explicit_remote, overrides)
}

/// [`default_push_with`] over `repo`'s config entries already read.
pub fn default_push_in(
    repo: &Repository,
    files: &RepoConfig,
    explicit_remote: Option<&str>,
    overrides: &ConfigOverrides,
) -> Result<DefaultPush, RemoteError> {
    let config = ConfigView::new(files, overrides);
    let branch = current_branch(repo)?;
    let (remote, fetch_remote) = remotes(&config, branch.as_deref(), explicit_remote);
    let named = !config.multivar(&format!("remote.{remote}.url"))?.is_empty();
    let mode = config
        .get_string("push.default")
        .map(|m| m.to_ascii_lowercase());
    let target = if explicit_remote.is_none() && !named {
        PushTarget::Refused("no configured push destination".to_string())
    } else if let Some(t) = configured_target(&config, &remote, named)? {
        t
    } else if let Some(t) = mode_target(repo, mode.as_deref())? {
        t
    } else if let Some(branch) = branch {
        let same_remote = remote == fetch_remote;
        branch_target(&config, branch, &remote, same_remote, mode.as_deref())?
    } else {
        PushTarget::Refused("HEAD is detached".into())
    };
    Ok(DefaultPush {
        remote,
        target,
        mode,
    })
}

fn branch_key(branch: &str, key: &str) -> String {
    format!("branch.{branch}.{key}")
}

/// The remote the push goes to (the explicit one, `branch.<b>.pushRemote`,
/// `remote.pushDefault`, else the fetch remote) and the fetch remote (`branch.<b>.remote`, else
/// `origin`, as git's `remote_for_branch`).
fn remotes(
    config: &ConfigView,
    branch: Option<&str>,
    explicit_remote: Option<&str>,
) -> (String, String) {
    let fetch_remote = branch
        .and_then(|b| config.get_string(&branch_key(b, "remote")))
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "origin".to_string());
    let remote = match explicit_remote {
        Some(r) => r.to_string(),
        None => branch
            .and_then(|b| config.get_string(&branch_key(b, "pushremote")))
            .or_else(|| config.get_string("remote.pushdefault"))
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| fetch_remote.clone()),
    };
    (remote, fetch_remote)
}

/// What a configured remote says it pushes: `remote.<r>.mirror`, then `remote.<r>.push`.
fn configured_target(
    config: &ConfigView,
    remote: &str,
    named: bool,
) -> Result<Option<PushTarget>, RemoteError> {
    if !named {
        return Ok(None);
    }
    if config.get_bool(&format!("remote.{remote}.mirror")) == Some(true) {
        return Ok(Some(PushTarget::Mirror));
    }
    let refspecs = config.multivar(&format!("remote.{remote}.push"))?;
    Ok((!refspecs.is_empty()).then_some(PushTarget::ConfiguredRefspecs(refspecs)))
}

/// The `push.default` modes that decide without the current branch: `nothing`, `matching`, and
/// an unknown value (git refuses); `None` for the modes that push the current branch.
fn mode_target(repo: &Repository, mode: Option<&str>) -> Result<Option<PushTarget>, RemoteError> {
    Ok(match mode {
        Some("nothing") => Some(PushTarget::Refused("push.default is nothing".into())),
        Some("matching") => Some(PushTarget::Matching {
            branches: local_branches(repo)?,
        }),
        None | Some("simple" | "upstream" | "tracking" | "current") => None,
        Some(other) => Some(PushTarget::Refused(format!(
            "push.default has an unknown value {other:?}"
        ))),
    })
}

/// The current branch's push under `simple` (the default), `upstream`/`tracking` or `current`,
/// with `push.autoSetupRemote`.
fn branch_target(
    config: &ConfigView,
    branch: String,
    remote: &str,
    same_remote: bool,
    mode: Option<&str>,
) -> Result<PushTarget, RemoteError> {
    let auto_setup = config.get_bool("push.autosetupremote") == Some(true);
    let merges = config.multivar(&branch_key(&branch, "merge"))?;
    let has_branch_remote = config
        .get_string(&branch_key(&branch, "remote"))
        .is_some_and(|r| !r.is_empty());
    let refname = format!("refs/heads/{branch}");

    // get_upstream_ref: the configured upstream, or (autoSetupRemote, none set) the branch itself.
    let upstream = || -> Result<String, String> {
        if merges.is_empty() && auto_setup {
            return Ok(refname.clone());
        }
        if merges.is_empty() || !has_branch_remote {
            return Err(format!("branch {branch} has no upstream"));
        }
        if merges.len() != 1 {
            return Err(format!("branch {branch} has several upstream branches"));
        }
        Ok(merges[0].clone())
    };

    let dst = match mode {
        Some("current") => refname.clone(),
        Some("upstream" | "tracking") => {
            if !same_remote {
                return Ok(PushTarget::Refused(format!(
                    "remote {remote} is not the upstream of {branch}"
                )));
            }
            match upstream() {
                Ok(u) => u,
                Err(why) => return Ok(PushTarget::Refused(why)),
            }
        }
        // simple (also the default): triangular pushes go to the same name; otherwise the
        // upstream must exist (or be auto-set) and carry the same name.
        _ => {
            if same_remote {
                match upstream() {
                    Ok(u) if u == refname => {}
                    Ok(u) => {
                        return Ok(PushTarget::Refused(format!(
                            "upstream {u} does not match the branch name (push.default simple)"
                        )))
                    }
                    Err(why) => return Ok(PushTarget::Refused(why)),
                }
            }
            refname.clone()
        }
    };
    let dst = dst
        .strip_prefix("refs/heads/")
        .map(str::to_string)
        .unwrap_or(dst);
    Ok(PushTarget::Branch { src: branch, dst })
}

fn local_branches(repo: &Repository) -> Result<Vec<String>, RemoteError> {
    let mut out = Vec::new();
    for entry in repo.branches(Some(git2::BranchType::Local))? {
        let (branch, _) = entry?;
        if let Some(name) = branch.name_bytes().ok().map(String::from_utf8_lossy) {
            out.push(name.into_owned());
        }
    }
    out.sort();
    Ok(out)
}
