//! I7: the hosts ordinary work reaches without escaping — the hosts of the repository's own git
//! remotes, and the package registries its build files name. They are added to the maintainer's
//! `network_allow`; an entry `!host` there takes a default away (the maintainer says otherwise).
//!
//! Read at the edge, bounded: the workspace root's `.git/config` (`taint::repo_git_config`, which
//! follows a worktree's `.git` file) and the names of build files in the root. Nothing is fetched.

use std::path::Path;

/// Registries by the build file that names them.
const REGISTRIES: &[(&[&str], &[&str])] = &[
    (&["Cargo.toml", "Cargo.lock"], &["crates.io"]),
    (
        &[
            "package.json",
            "package-lock.json",
            "npm-shrinkwrap.json",
            "pnpm-lock.yaml",
        ],
        &["registry.npmjs.org"],
    ),
    (
        &["yarn.lock"],
        &["registry.yarnpkg.com", "registry.npmjs.org"],
    ),
    (
        &[
            "pyproject.toml",
            "requirements.txt",
            "requirements-dev.txt",
            "setup.py",
            "setup.cfg",
            "Pipfile",
            "poetry.lock",
            "uv.lock",
        ],
        &["pypi.org", "files.pythonhosted.org"],
    ),
    (
        &["go.mod", "go.sum"],
        &["proxy.golang.org", "sum.golang.org"],
    ),
    (&["Gemfile", "Gemfile.lock"], &["rubygems.org"]),
    (
        &["pom.xml", "build.gradle", "build.gradle.kts"],
        &["repo.maven.apache.org", "repo1.maven.org"],
    ),
    (&["composer.json"], &["packagist.org"]),
];

/// The allow-list in force: the defaults of `root` plus `configured`, less `!host` entries.
pub fn effective_allow(configured: &[String], root: Option<&Path>) -> Vec<String> {
    let removed: Vec<String> = configured
        .iter()
        .filter_map(|e| e.trim().strip_prefix('!'))
        .map(|h| h.trim().to_ascii_lowercase())
        .collect();
    let mut out: Vec<String> = configured
        .iter()
        .filter(|e| !e.trim().starts_with('!'))
        .cloned()
        .collect();
    if let Some(root) = root {
        for h in default_hosts(root) {
            if !removed.contains(&h) && !out.contains(&h) {
                out.push(h);
            }
        }
    }
    out
}

/// The default hosts of a workspace: its remotes' hosts and its build files' registries.
pub fn default_hosts(root: &Path) -> Vec<String> {
    let mut hosts = Vec::new();
    if let Some(cfg) = taint::repo_git_config(root) {
        for url in remote_urls(&cfg) {
            if let Some(h) = host_of_git_url(&url) {
                if !hosts.contains(&h) {
                    hosts.push(h);
                }
            }
        }
    }
    for (files, registries) in REGISTRIES {
        if files.iter().any(|f| root.join(f).is_file()) {
            for r in *registries {
                let r = r.to_string();
                if !hosts.contains(&r) {
                    hosts.push(r);
                }
            }
        }
    }
    hosts
}

/// `url` and `pushurl` values of `[remote "..."]` sections, read as git reads the file (one
/// reader for the workspace: command-effects' `git_config_files::entries`). Text git would
/// refuse names no remote.
pub fn remote_urls(config: &str) -> Vec<String> {
    let entries = command_effects::git_config_files::entries(config).unwrap_or_default();
    entries
        .into_iter()
        .filter(|(k, _)| {
            let remote_key = k.strip_prefix("remote.").and_then(|r| r.rsplit_once('.'));
            remote_key
                .is_some_and(|(name, key)| !name.is_empty() && matches!(key, "url" | "pushurl"))
        })
        .map(|(_, v)| v)
        .collect()
}

pub use command_effects::network::host_of_git_url;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_of_git_urls() {
        for (url, host) in [
            ("https://github.com/o/r.git", Some("github.com")),
            ("git@github.com:o/r.git", Some("github.com")),
            (
                "ssh://git@gitlab.example.org:2222/o/r",
                Some("gitlab.example.org"),
            ),
            ("git://host.example/r", Some("host.example")),
            (
                "https://user:tok@git.example.com/r",
                Some("git.example.com"),
            ),
            ("/srv/git/r.git", None),
            ("file:///srv/r.git", None),
            ("../other", None),
        ] {
            assert_eq!(host_of_git_url(url).as_deref(), host, "{url}");
        }
    }

    #[test]
    fn remote_urls_are_read_as_git_reads_them() {
        // Checked with `git config --get-all remote.origin.url` and `git config -f`.
        let text = "[remote \"origin\"]\n\tURL = \"https://github.com/Quoted/x.git\" # c\n\
                    [Remote \"origin\"]\n\turl = https://github.com/Second/y.git\n\
                    [remote \"up\"]\n\tpushurl = https://git.example.org/a \\\n/b\n\
                    [core]\n\turl = https://not.a.remote/x\n";
        assert_eq!(
            remote_urls(text),
            [
                "https://github.com/Quoted/x.git",
                "https://github.com/Second/y.git",
                "https://git.example.org/a /b"
            ]
        );
    }

    #[test]
    fn remotes_and_build_files_are_defaults_and_bang_takes_one_away() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(
            root.join(".git/config"),
            "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:me/app.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[remote \"mirror\"]\n\turl = https://git.example.org/me/app\n[branch \"main\"]\n\tremote = origin\n",
        )
        .unwrap();
        std::fs::write(root.join("Cargo.toml"), "[package]\n").unwrap();
        std::fs::write(root.join("package.json"), "{}").unwrap();
        let hosts = default_hosts(root);
        for h in [
            "github.com",
            "git.example.org",
            "crates.io",
            "registry.npmjs.org",
        ] {
            assert!(hosts.contains(&h.to_string()), "{h} in {hosts:?}");
        }
        assert!(!hosts.contains(&"pypi.org".to_string()));
        let allow = effective_allow(&["!crates.io".into(), "docs.rs".into()], Some(root));
        assert!(allow.contains(&"docs.rs".to_string()));
        assert!(!allow.contains(&"crates.io".to_string()));
        assert!(allow.contains(&"github.com".to_string()));
    }
}
