//! Where a `git push` really goes, read from the repository with git2: a named remote's URLs and
//! push URLs with `url.<base>.insteadOf` / `pushInsteadOf` applied as git applies them, the
//! repository each URL names, origin's owner (G3), the current branch, and the destination of a
//! push given no refspec (`push_target`).

mod config_includes;
mod config_view;
mod push_target;
mod ssh_alias;
mod url;

pub use config_view::{ConfigOverrides, RepoConfig};
pub use push_target::{default_push, default_push_in, default_push_with, DefaultPush, PushTarget};
pub use ssh_alias::SshAliases;
pub use url::{classify_url, owner_repo, parse_url, repo_slug, Destination, RepoSlug, UrlLocation};

use crate::hosts::GitHubHosts;
use config_view::ConfigView;
use git2::Repository;
use std::path::Path;

/// A git lookup failed (unreadable repository or config).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("git: {0}")]
pub struct RemoteError(pub String);

impl From<git2::Error> for RemoteError {
    fn from(e: git2::Error) -> Self {
        RemoteError(e.message().to_string())
    }
}

/// Opens the repository containing `path` (searching upwards, as git does).
pub fn discover(path: &Path) -> Result<Repository, RemoteError> {
    Ok(Repository::discover(path)?)
}

/// The URLs git uses for a remote argument: a configured remote's, or the argument itself
/// taken as a URL or path (as `git push <url>` does), after rewriting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteUrls {
    /// The argument as given (remote name or URL).
    pub remote: String,
    /// Whether the argument named a configured remote (one with at least one `url`).
    pub named: bool,
    /// Fetch URLs, `insteadOf` applied.
    pub fetch: Vec<String>,
    /// Push URLs: `pushurl` with `insteadOf` applied; without `pushurl`, each `url` with
    /// `pushInsteadOf` applied where one matches, else with `insteadOf` applied.
    pub push: Vec<String>,
}

/// Reads the URLs of `remote` (a remote name, or a URL/path given in its place).
pub fn remote_urls(repo: &Repository, remote: &str) -> Result<RemoteUrls, RemoteError> {
    remote_urls_with(repo, remote, &ConfigOverrides::none())
}

/// [`remote_urls`] for a git command that carries its own config overrides (`git -c ...`).
pub fn remote_urls_with(
    repo: &Repository,
    remote: &str,
    overrides: &ConfigOverrides,
) -> Result<RemoteUrls, RemoteError> {
    remote_urls_in(&RepoConfig::read(repo)?, remote, overrides)
}

/// [`remote_urls_with`] over config entries already read.
pub fn remote_urls_in(
    files: &RepoConfig,
    remote: &str,
    overrides: &ConfigOverrides,
) -> Result<RemoteUrls, RemoteError> {
    let config = ConfigView::new(files, overrides);
    let rewrites = Rewrites::load(&config)?;
    let (named, urls, push_urls) = match configured_urls(&config, remote)? {
        Some((urls, push_urls)) => (true, urls, push_urls),
        None => (false, vec![remote.to_string()], Vec::new()),
    };
    let push = if push_urls.is_empty() {
        urls.iter()
            .map(|u| {
                rewrites
                    .apply(u, RewriteKind::Push)
                    .unwrap_or_else(|| rewrites.apply_or_keep(u, RewriteKind::Fetch))
            })
            .collect()
    } else {
        push_urls
            .iter()
            .map(|u| rewrites.apply_or_keep(u, RewriteKind::Fetch))
            .collect()
    };
    let fetch = urls
        .iter()
        .map(|u| rewrites.apply_or_keep(u, RewriteKind::Fetch))
        .collect();
    Ok(RemoteUrls {
        remote: remote.to_string(),
        named,
        fetch,
        push,
    })
}

/// Every destination a push to `remote` writes to (git pushes to each push URL in turn).
pub fn push_destinations(
    repo: &Repository,
    remote: &str,
    hosts: &GitHubHosts,
) -> Result<Vec<Destination>, RemoteError> {
    push_destinations_with(repo, remote, hosts, &ConfigOverrides::none())
}

/// [`push_destinations`] for a git command with its own config overrides.
pub fn push_destinations_with(
    repo: &Repository,
    remote: &str,
    hosts: &GitHubHosts,
    overrides: &ConfigOverrides,
) -> Result<Vec<Destination>, RemoteError> {
    push_destinations_in(&RepoConfig::read(repo)?, remote, hosts, overrides)
}

/// [`push_destinations_with`] over config entries already read.
pub fn push_destinations_in(
    files: &RepoConfig,
    remote: &str,
    hosts: &GitHubHosts,
    overrides: &ConfigOverrides,
) -> Result<Vec<Destination>, RemoteError> {
    Ok(remote_urls_in(files, remote, overrides)?
        .push
        .iter()
        .map(|u| classify_url(u, hosts))
        .collect())
}

/// The host, owner and repository of `origin`'s (first, rewritten) fetch URL, whatever the
/// host; `None` when there is no origin or its URL names no `owner/repo` (G3 then skips).
pub fn origin_slug(repo: &Repository) -> Result<Option<RepoSlug>, RemoteError> {
    Ok(origin_slug_in(&RepoConfig::read(repo)?))
}

/// [`origin_slug`] over config entries already read.
pub fn origin_slug_in(files: &RepoConfig) -> Option<RepoSlug> {
    let Ok(urls) = remote_urls_in(files, "origin", &ConfigOverrides::none()) else {
        return None;
    };
    if !urls.named {
        return None;
    }
    urls.fetch.first().and_then(|u| repo_slug(u))
}

/// The branch HEAD points at (also when it has no commit yet); `None` when HEAD is detached.
pub fn current_branch(repo: &Repository) -> Result<Option<String>, RemoteError> {
    let head = repo.find_reference("HEAD")?;
    let target = head.symbolic_target_bytes().map(String::from_utf8_lossy);
    Ok(target.and_then(|t| t.strip_prefix("refs/heads/").map(str::to_string)))
}

/// The `url` and `pushurl` values of a configured remote, before rewriting.
type ConfiguredUrls = (Vec<String>, Vec<String>);

/// `(url, pushurl)` lists of a configured remote, or `None` when `name` is not one.
fn configured_urls(
    config: &ConfigView<'_>,
    name: &str,
) -> Result<Option<ConfiguredUrls>, RemoteError> {
    // git ignores remote names that start with '/'; names git cannot store are not remotes.
    if name.is_empty() || name.starts_with('/') || name.contains(['\n', '\0']) {
        return Ok(None);
    }
    let urls = config.multivar(&format!("remote.{name}.url"))?;
    if urls.is_empty() {
        return Ok(None);
    }
    let push_urls = config.multivar(&format!("remote.{name}.pushurl"))?;
    Ok(Some((urls, push_urls)))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum RewriteKind {
    Fetch,
    Push,
}

/// `url.<base>.insteadOf` and `url.<base>.pushInsteadOf` rules.
struct Rewrites {
    /// (prefix to replace, base, kind), in config order.
    rules: Vec<(String, String, RewriteKind)>,
}

impl Rewrites {
    fn load(config: &ConfigView<'_>) -> Result<Self, RemoteError> {
        let is_rewrite = |name: &str| {
            name.starts_with("url.")
                && (name.ends_with(".insteadof") || name.ends_with(".pushinsteadof"))
        };
        let mut rules = Vec::new();
        for (name, value) in config.entries_where(is_rewrite)? {
            let Some(rest) = name.strip_prefix("url.") else {
                continue;
            };
            let (base, kind) = if let Some(base) = rest.strip_suffix(".pushinsteadof") {
                (base, RewriteKind::Push)
            } else if let Some(base) = rest.strip_suffix(".insteadof") {
                (base, RewriteKind::Fetch)
            } else {
                continue;
            };
            rules.push((value, base.to_string(), kind));
        }
        Ok(Rewrites { rules })
    }

    /// The longest matching prefix wins; among equal lengths the first configured (as git).
    fn apply(&self, url: &str, kind: RewriteKind) -> Option<String> {
        let mut best: Option<(&str, &str)> = None;
        for (prefix, base, k) in &self.rules {
            if *k == kind
                && url.starts_with(prefix.as_str())
                && best.is_none_or(|(p, _)| prefix.len() > p.len())
            {
                best = Some((prefix, base));
            }
        }
        best.map(|(prefix, base)| format!("{base}{}", &url[prefix.len()..]))
    }

    fn apply_or_keep(&self, url: &str, kind: RewriteKind) -> String {
        self.apply(url, kind).unwrap_or_else(|| url.to_string())
    }
}
