//! The maintainer's own owner: the owner of the `origin` remote of the repository a session works
//! in (read from `.git/config`, bounded), so that reading the maintainer's own repositories is
//! not taint. Shared by every binary that records taint.

use crate::{owner_of_git_url, RemoteOwner};
use std::path::Path;

fn read_prefix(path: &Path, limit: u64) -> Option<String> {
    primitives::read::prefix(path, limit).map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

const MAX_GIT_CONFIG: u64 = 256 * 1024;

/// The owner of `origin` of the repository containing `dir` (reads `.git/config`, bounded).
pub fn origin_owner(dir: &Path) -> Option<String> {
    owner_in_config(&repo_git_config(dir)?)
}

/// The text of `.git/config` of the repository containing `dir` (bounded; a worktree's `.git`
/// file is followed to the main repository's folder).
pub fn repo_git_config(dir: &Path) -> Option<String> {
    let mut cur = Some(dir);
    let mut hops = 0;
    while let Some(d) = cur {
        hops += 1;
        if hops > 64 {
            return None;
        }
        let git = d.join(".git");
        if git.is_dir() {
            return read_prefix(&git.join("config"), MAX_GIT_CONFIG);
        }
        if git.is_file() {
            // A worktree: `gitdir: <main>/.git/worktrees/<name>`; the config is in the main dir.
            let text = read_prefix(&git, 4096)?;
            let gitdir = text.trim().strip_prefix("gitdir:")?.trim();
            let main = Path::new(gitdir)
                .ancestors()
                .find(|a| a.ends_with(".git"))?;
            return read_prefix(&main.join("config"), MAX_GIT_CONFIG);
        }
        cur = d.parent();
    }
    None
}

fn owner_in_config(config: &str) -> Option<String> {
    let mut in_origin = false;
    for line in config.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            in_origin = l.replace(' ', "") == "[remote\"origin\"]";
            continue;
        }
        if in_origin {
            if let Some((k, v)) = l.split_once('=') {
                if k.trim() == "url" {
                    return match owner_of_git_url(v.trim()) {
                        RemoteOwner::Owner(o) => Some(o),
                        _ => None,
                    };
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_owner_from_git_config() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join(".git")).unwrap();
        std::fs::create_dir_all(t.path().join("src/deep")).unwrap();
        std::fs::write(
            t.path().join(".git/config"),
            "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = https://github.com/other/x\n[remote \"origin\"]\n\turl = git@github.com:Acme/tools.git\n",
        )
        .unwrap();
        assert_eq!(
            origin_owner(&t.path().join("src/deep")).as_deref(),
            Some("Acme")
        );
        let none = tempfile::tempdir().unwrap();
        assert_eq!(origin_owner(none.path()), None);
    }
}
