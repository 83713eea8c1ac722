//! The real G6 world: git2 lookups (no `git` subprocess).
//!
//! Primary vs linked: a repository whose path (its git dir) equals its common dir is primary;
//! a linked worktree's git dir is `<common>/worktrees/<name>`. A submodule's git dir lives
//! under the superproject's `modules/` and is its own common dir, so it counts as primary.

use crate::g6_primary_checkout::{RepoKind, RepoWorld};
use git2::Repository;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Lookups through libgit2, reading only the repository's files and the config files git
/// would read for the hook's own `HOME`/`XDG_CONFIG_HOME`.
#[derive(Debug, Default, Clone, Copy)]
pub struct Git2World;

/// The nearest ancestor of `dir` that exists (a `cd` target may not exist yet).
fn existing_ancestor(dir: &Path) -> Option<PathBuf> {
    let mut d = dir.to_path_buf();
    loop {
        if d.exists() {
            return Some(d);
        }
        if !d.pop() {
            return None;
        }
    }
}

fn open(dir: &Path) -> Option<Repository> {
    let d = existing_ancestor(dir)?;
    // `discover` walks up from `d`; it also accepts a git dir itself (`/repo/.git`). The
    // ceiling list is empty: the hook's environment (GIT_DIR etc.) is not consulted.
    Repository::open_ext(
        &d,
        git2::RepositoryOpenFlags::empty(),
        std::iter::empty::<&std::ffi::OsStr>(),
    )
    .ok()
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Kind of an opened repository.
pub fn kind_of(repo: &Repository) -> RepoKind {
    if same_dir(repo.path(), repo.commondir()) {
        RepoKind::Primary
    } else {
        RepoKind::Linked
    }
}

impl RepoWorld for Git2World {
    fn repo_kind(&self, dir: &Path) -> RepoKind {
        match open(dir) {
            Some(r) => kind_of(&r),
            None => RepoKind::NoRepo,
        }
    }

    fn resolves_to_commit(&self, dir: &Path, arg: &str) -> bool {
        let Some(repo) = open(dir) else {
            return false;
        };
        let resolved = repo
            .revparse_single(arg)
            .and_then(|o| o.peel_to_commit())
            .is_ok();
        resolved
    }

    fn aliases(&self, dir: &Path) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        let Some(repo) = open(dir) else {
            return out;
        };
        let Ok(cfg) = repo.config() else {
            return out;
        };
        let Ok(mut entries) = cfg.entries(Some("alias\\..*")) else {
            return out;
        };
        // Entries come lowest precedence first; later ones win, as in git.
        while let Some(Ok(e)) = entries.next() {
            if let (Ok(name), Ok(value)) = (e.name(), e.value()) {
                if let Some(alias) = name.strip_prefix("alias.") {
                    out.insert(alias.to_ascii_lowercase(), value.to_string());
                }
            }
        }
        out
    }
}
