//! G6's repository kind through git2 (no `git` subprocess), used by [`crate::real_world`].
//!
//! Primary vs linked: a repository whose path (its git dir) equals its common dir is primary; a
//! linked worktree's git dir is `<common>/worktrees/<name>`. A submodule's git dir lives under
//! the superproject's `modules/` and is its own common dir, so it counts as primary. A bare
//! repository is reported as bare (G6 treats it like a primary: its refs are the only copy).

use crate::world::RepoKind;
use git2::Repository;
use std::path::{Path, PathBuf};

/// The nearest ancestor of `dir` that exists (a `cd` target may not exist yet; git would act
/// in the repository around it once it does).
pub fn existing_ancestor(dir: &Path) -> Option<PathBuf> {
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

/// Whether two paths name one directory: the same device and inode (two `stat`s; resolving
/// both paths cost a `readlink` per component, a tenth of a judged exec in the exec gate).
fn same_dir(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => (x.dev(), x.ino()) == (y.dev(), y.ino()),
        _ => a == b,
    }
}

/// The kind of an opened repository.
pub fn kind_of(repo: &Repository) -> RepoKind {
    if repo.is_bare() {
        RepoKind::Bare
    } else if same_dir(repo.path(), repo.commondir()) {
        RepoKind::Primary
    } else {
        RepoKind::Linked
    }
}
