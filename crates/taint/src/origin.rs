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

/// The owner of `remote.origin.url` in a config file's text, read as git reads it (one reader
/// for the workspace: command-effects' `git_config_files::entries`; sections, quotes,
/// continuation lines and key case included). Text git would refuse has no owner.
fn owner_in_config(config: &str) -> Option<String> {
    let entries = command_effects::git_config_files::entries(config)?;
    let (_, url) = entries.iter().find(|(k, _)| k == "remote.origin.url")?;
    match owner_of_git_url(url) {
        RemoteOwner::Owner(o) => Some(o),
        _ => None,
    }
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

    #[test]
    fn the_origin_is_read_as_git_reads_it() {
        // `git remote get-url origin` on this text prints the quoted URL (its comment dropped);
        // a line scanner read `"https://github.com/Quoted/x.git" # a comment` and found no owner.
        let text = "[remote \"origin\"]\n\tURL = \"https://github.com/Quoted/x.git\" # a comment\n\
                    [Remote \"origin\"]\n\turl = https://github.com/Second/y.git\n";
        assert_eq!(owner_in_config(text).as_deref(), Some("Quoted"));
        // `[remote "ORIGIN"]` is another remote (subsections keep their case).
        let other = "[remote \"ORIGIN\"]\n\turl = https://github.com/Upper/z.git\n";
        assert_eq!(owner_in_config(other), None);
        // Text git refuses (an entry before any section) names no owner.
        assert_eq!(owner_in_config("url = https://github.com/a/b\n"), None);
    }
}
