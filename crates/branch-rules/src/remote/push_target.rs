//! What `git push [<remote>]` without a refspec pushes, decided as git's `builtin/push.c`
//! decides it: the remote (`branch.<b>.pushRemote`, `remote.pushDefault`, `branch.<b>.remote`,
//! `origin`), then `remote.<r>.mirror`, configured `remote.<r>.push` refspecs, and finally
//! `push.default` (`simple`, `upstream`, `current`, `matching`, `nothing`) with
//! `push.autoSetupRemote`.

use super::config_view::{ConfigOverrides, ConfigView};
use super::{current_branch, RemoteError};
use git2::Repository;

/// The remote a default push goes to and what it pushes there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultPush {
    /// The remote name (or the URL given in its place).
    pub remote: String,
    pub target: PushTarget,
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
    let config = ConfigView::open(repo, overrides)?;
    let branch = current_branch(repo)?;
    let branch_key = |b: &str, key: &str| format!("branch.{b}.{key}");

    // remote_for_branch: branch.<b>.remote, else "origin".
    let fetch_remote = branch
        .as_deref()
        .and_then(|b| config.get_string(&branch_key(b, "remote")))
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "origin".to_string());
    let remote = match explicit_remote {
        Some(r) => r.to_string(),
        None => branch
            .as_deref()
            .and_then(|b| config.get_string(&branch_key(b, "pushremote")))
            .or_else(|| config.get_string("remote.pushdefault"))
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| fetch_remote.clone()),
    };
    let done = |target| {
        Ok(DefaultPush {
            remote: remote.clone(),
            target,
        })
    };

    let named = !config.multivar(&format!("remote.{remote}.url"))?.is_empty();
    if explicit_remote.is_none() && !named {
        return done(PushTarget::Refused(
            "no configured push destination".to_string(),
        ));
    }
    if named {
        if config.get_bool(&format!("remote.{remote}.mirror")) == Some(true) {
            return done(PushTarget::Mirror);
        }
        let refspecs = config.multivar(&format!("remote.{remote}.push"))?;
        if !refspecs.is_empty() {
            return done(PushTarget::ConfiguredRefspecs(refspecs));
        }
    }

    let mode = config
        .get_string("push.default")
        .map(|m| m.to_ascii_lowercase());
    match mode.as_deref() {
        Some("nothing") => return done(PushTarget::Refused("push.default is nothing".into())),
        Some("matching") => {
            return done(PushTarget::Matching {
                branches: local_branches(repo)?,
            })
        }
        None | Some("simple" | "upstream" | "tracking" | "current") => {}
        Some(other) => {
            return done(PushTarget::Refused(format!(
                "push.default has an unknown value {other:?}"
            )))
        }
    }

    let Some(branch) = branch else {
        return done(PushTarget::Refused("HEAD is detached".into()));
    };
    let same_remote = remote == fetch_remote;
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

    let dst = match mode.as_deref() {
        Some("current") => refname.clone(),
        Some("upstream" | "tracking") => {
            if !same_remote {
                return done(PushTarget::Refused(format!(
                    "remote {remote} is not the upstream of {branch}"
                )));
            }
            match upstream() {
                Ok(u) => u,
                Err(why) => return done(PushTarget::Refused(why)),
            }
        }
        // simple (also the default): triangular pushes go to the same name; otherwise the
        // upstream must exist (or be auto-set) and carry the same name.
        _ => {
            if same_remote {
                match upstream() {
                    Ok(u) if u == refname => {}
                    Ok(u) => {
                        return done(PushTarget::Refused(format!(
                            "upstream {u} does not match the branch name (push.default simple)"
                        )))
                    }
                    Err(why) => return done(PushTarget::Refused(why)),
                }
            }
            refname.clone()
        }
    };
    let dst = dst
        .strip_prefix("refs/heads/")
        .map(str::to_string)
        .unwrap_or(dst);
    done(PushTarget::Branch { src: branch, dst })
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
